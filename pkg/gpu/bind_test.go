package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

func TestBinding(t *testing.T) {
	now := time.Unix(1700000000, 123)
	capacity := []int64{16, 24}
	stale := gpuPod("stale", "16").Annotation(GPUShareIndexAnnotation, "0").Annotation(GPUShareAssignedAnnotation, "true").Obj()
	tests := []struct {
		name    string
		pod     *v1.Pod
		a       Assignment
		want    map[string]string
		wantErr string
	}{
		{
			name: "single GPU gets the gpushare protocol",
			pod:  gpuPod("p", "8").Obj(),
			a:    Assignment{{Index: 1, Memory: 8}},
			want: map[string]string{
				PodGPUDevicesAnnotation:      "1:8",
				GPUShareIndexAnnotation:      "1",
				GPUShareDeviceAnnotation:     "24",
				GPUSharePodAnnotation:        "8",
				GPUShareAssignedAnnotation:   "false",
				GPUShareAssumeTimeAnnotation: "1700000000000000123",
			},
		},
		{
			name: "several GPUs get berth's record only",
			pod:  gpuPod("p", "16").Obj(),
			a:    Assignment{{Index: 0, Memory: 8}, {Index: 1, Memory: 8}},
			want: map[string]string{PodGPUDevicesAnnotation: "0:8,1:8"},
		},
		{
			name: "several GPUs blank the gpushare annotations the pod already carries",
			pod:  stale,
			a:    Assignment{{Index: 0, Memory: 8}, {Index: 1, Memory: 8}},
			want: map[string]string{PodGPUDevicesAnnotation: "0:8,1:8", GPUShareIndexAnnotation: "", GPUShareAssignedAnnotation: ""},
		},
		{name: "empty", pod: gpuPod("p", "8").Obj(), wantErr: "empty assignment"},
		{name: "device not on node", pod: gpuPod("p", "8").Obj(), a: Assignment{{Index: 2, Memory: 8}}, wantErr: "device 2 is not on node n1, which has 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Binding(tt.pod, "n1", tt.a, capacity, now)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if b.UID != tt.pod.UID || b.Name != tt.pod.Name || b.Namespace != tt.pod.Namespace || b.Target.Name != "n1" {
				t.Errorf("binding %s/%s uid=%s target=%s, want the pod's name, namespace and UID and node n1", b.Namespace, b.Name, b.UID, b.Target.Name)
			}
			if diff := cmp.Diff(tt.want, b.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

// fakeAPIServer applies Bindings the way kube-apiserver does (UID precondition, refusal to bind a
// bound pod, annotations merged in the same update); fail decides, per call, whether the request
// is applied and what error the caller sees.
type fakeAPIServer struct {
	*fake.Clientset
	fail     func(call int) (apply bool, err error)
	getFails int
	binds    int
}

func newFakeAPIServer(pod *v1.Pod) *fakeAPIServer {
	s := &fakeAPIServer{Clientset: fake.NewClientset(pod)}
	s.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		s.binds++
		b := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		apply, callErr := true, error(nil)
		if s.fail != nil {
			apply, callErr = s.fail(s.binds)
		}
		if apply {
			if err := s.applyBinding(b); err != nil {
				return true, nil, err
			}
		}
		return true, b, callErr
	})
	s.PrependReactor("get", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if s.getFails > 0 {
			s.getFails--
			return true, nil, errors.New("connection refused")
		}
		return false, nil, nil
	})
	return s
}

func (s *fakeAPIServer) applyBinding(b *v1.Binding) error {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	obj, err := s.Tracker().Get(gvr, b.Namespace, b.Name)
	if err != nil {
		return err
	}
	pod := obj.(*v1.Pod).DeepCopy()
	switch {
	case b.UID != "" && pod.UID != b.UID:
		return apierrors.NewConflict(gvr.GroupResource(), b.Name, fmt.Errorf("precondition failed: UID in precondition: %s, UID in object meta: %s", b.UID, pod.UID))
	case pod.Spec.NodeName != "":
		return apierrors.NewConflict(gvr.GroupResource(), b.Name, fmt.Errorf("pod %s is already assigned to node %q", b.Name, pod.Spec.NodeName))
	}
	pod.Spec.NodeName = b.Target.Name
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	for k, v := range b.Annotations {
		pod.Annotations[k] = v
	}
	return s.Tracker().Update(gvr, pod, b.Namespace)
}

func (s *fakeAPIServer) pod(t *testing.T, name string) *v1.Pod {
	t.Helper()
	p, err := s.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBind: one request binds the pod with its devices, and a failure whose outcome is unknown is
// resolved by what the pod shows, never by writing to it again.
func TestBind(t *testing.T) {
	timeout := apierrors.NewTimeoutError("request did not complete within the allowed duration", 0)
	a := Assignment{{Index: 1, Memory: 8}}
	tests := []struct {
		name string
		// boundTo binds the pod to that node, without devices, before Bind runs.
		boundTo  string
		fail     func(call int) (bool, error)
		getFails int
		wantErr  string
		// wantNode and wantDevices are what the pod shows afterwards.
		wantNode, wantDevices string
	}{
		{name: "bound with its devices in one request", wantNode: "n1", wantDevices: "1:8"},
		{name: "a timeout after the binding was applied is success",
			fail:     func(int) (bool, error) { return true, timeout },
			wantNode: "n1", wantDevices: "1:8"},
		{name: "a dropped connection after the binding was applied, and the pod unreadable for a while, is success",
			fail:     func(int) (bool, error) { return true, errors.New("http2: client connection lost") },
			getFails: 3, wantNode: "n1", wantDevices: "1:8"},
		{name: "a timeout before the binding was applied is a failure",
			fail:    func(int) (bool, error) { return false, timeout },
			wantErr: "binding pod ns/p to node n1 with GPUs 1:8: Timeout: request did not complete within the allowed duration"},
		{name: "a pod bound elsewhere is not touched",
			boundTo: "n2",
			wantErr: `pod is bound to node n2`, wantNode: "n2"},
		{name: "a pod bound to the node by someone else without these devices is not touched",
			boundTo: "n1",
			wantErr: `pod is bound to node n1 with GPUs "", not 1:8`, wantNode: "n1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := gpuPod("p", "8").Obj()
			pod.Spec.NodeName = tt.boundTo
			s := newFakeAPIServer(pod)
			s.fail, s.getFails = tt.fail, tt.getFails
			err := Bind(context.Background(), s, gpuPod("p", "8").Obj(), "n1", a, []int64{16, 16}, time.Now())
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Bind: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Bind error %v, want one containing %q", err, tt.wantErr)
			}
			got := s.pod(t, "p")
			if got.Spec.NodeName != tt.wantNode || got.Annotations[PodGPUDevicesAnnotation] != tt.wantDevices {
				t.Errorf("pod on node %q with devices %q, want %q with %q", got.Spec.NodeName, got.Annotations[PodGPUDevicesAnnotation], tt.wantNode, tt.wantDevices)
			}
			if s.binds != 1 {
				t.Errorf("%d binding requests, want exactly 1", s.binds)
			}
			for _, action := range s.Actions() {
				if action.GetVerb() == "update" || action.GetVerb() == "patch" {
					t.Errorf("Bind wrote to the pod besides its binding: %v", action)
				}
			}
		})
	}
}

// A pod deleted while it was being bound is not bound: the API server's "not found" is an answer,
// not a lost one. Bind says so after one read, so that the pod's devices and quota are given back
// at once: read as unknown and retried for seconds, the deleted pod's reservation outlived it, and
// a quota that seemed to hold it was evicted once too often by fair sharing (the no-ping-pong
// case, 1 clean-checkout run).
func TestBindADeletedPodIsNotBound(t *testing.T) {
	s := newFakeAPIServer(gpuPod("other", "8").Obj())
	err := Bind(context.Background(), s, gpuPod("p", "8").Obj(), "n1", Assignment{{Index: 0, Memory: 8}}, []int64{16}, time.Now())
	if err == nil || !apierrors.IsNotFound(err) || strings.Contains(err.Error(), "unknown") {
		t.Fatalf("Bind error %v, want the API server's not found, the outcome known", err)
	}
	gets := 0
	for _, action := range s.Actions() {
		if action.GetVerb() == "get" {
			gets++
		}
	}
	if gets != 1 {
		t.Errorf("Bind read the deleted pod %d times, want once", gets)
	}
}

// A pod deleted and created again under its name is never bound in its predecessor's place.
func TestBindRefusesAReplacedPod(t *testing.T) {
	s := newFakeAPIServer(gpuPod("p", "8").UID("new").Obj())
	err := Bind(context.Background(), s, gpuPod("p", "8").UID("old").Obj(), "n1", Assignment{{Index: 0, Memory: 8}}, []int64{16}, time.Now())
	if err == nil || !strings.Contains(err.Error(), "replaced by one with UID new") {
		t.Fatalf("Bind error %v, want one saying the pod was replaced", err)
	}
	if got := s.pod(t, "p"); got.Spec.NodeName != "" || len(got.Annotations) != 0 {
		t.Errorf("the new pod was changed: node %q annotations %v", got.Spec.NodeName, got.Annotations)
	}
}
