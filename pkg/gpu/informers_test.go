package gpu

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// reported collects what the handlers pass to onError.
type reported struct {
	mu   sync.Mutex
	errs []string
}

func (r *reported) onError(obj runtime.Object, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, objectRef(obj).String()+": "+err.Error())
}

func (r *reported) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func terminal(pod *v1.Pod, phase v1.PodPhase) *v1.Pod {
	pod = pod.DeepCopy()
	pod.Status.Phase = phase
	return pod
}

func TestEventHandlers(t *testing.T) {
	n1 := gpuNode("n1", "2", "32").Obj()
	bound := boundPod("a", "n1", "0:8")
	gpushare := st.MakePod().Namespace("ns").Name("g").UID("g").Node("n1").
		Annotation(GPUShareIndexAnnotation, "1").Annotation(GPUSharePodAnnotation, "4").Obj()
	pending := gpuPod("a", "8").Obj()
	tombstone := func(obj any, key string) toolscache.DeletedFinalStateUnknown {
		return toolscache.DeletedFinalStateUnknown{Key: key, Obj: obj}
	}

	type handlers struct {
		nodes, pods toolscache.ResourceEventHandler
	}
	tests := []struct {
		name      string
		events    func(h handlers)
		wantView  []Device
		wantPods  map[types.UID]Assignment
		wantError []string
	}{
		{
			name: "bound pods hold the devices their annotations name, berth's and gpushare's",
			events: func(h handlers) {
				h.pods.OnAdd(bound, true)
				h.nodes.OnAdd(n1, true)
				h.pods.OnAdd(gpushare, true)
			},
			wantView: []Device{{Capacity: 16, Used: 8}, {Capacity: 16, Used: 4}},
			wantPods: map[types.UID]Assignment{"a": {{0, 8}}, "g": {{1, 4}}},
		},
		{
			name: "a pending pod holds nothing until it is seen bound",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(pending, false)
				h.pods.OnUpdate(pending, bound)
			},
			wantView: []Device{{Capacity: 16, Used: 8}, {Capacity: 16}},
			wantPods: map[types.UID]Assignment{"a": {{0, 8}}},
		},
		{
			name: "a pod that ends releases its devices",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(bound, false)
				h.pods.OnAdd(gpushare, false)
				h.pods.OnUpdate(bound, terminal(bound, v1.PodSucceeded))
				h.pods.OnUpdate(gpushare, terminal(gpushare, v1.PodFailed))
			},
			wantView: []Device{{Capacity: 16}, {Capacity: 16}},
		},
		{
			name: "a deleted pod releases its devices, also when only a tombstone tells",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(bound, false)
				h.pods.OnAdd(gpushare, false)
				h.pods.OnDelete(bound)
				h.pods.OnDelete(tombstone(gpushare, "ns/g"))
			},
			wantView: []Device{{Capacity: 16}, {Capacity: 16}},
		},
		{
			name: "a pod re-created under the same name frees the old one's devices",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(bound, false)
				h.pods.OnUpdate(bound, boundPod("a2", "n1", "1:2"))
			},
			wantView: []Device{{Capacity: 16}, {Capacity: 16, Used: 2}},
			wantPods: map[types.UID]Assignment{"a2": {{1, 2}}},
		},
		{
			name: "an update that changes nothing the cache reads keeps the pod as it is",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(bound, false)
				relabelled := bound.DeepCopy()
				relabelled.Labels = map[string]string{"x": "y"}
				h.pods.OnUpdate(bound, relabelled)
			},
			wantView: []Device{{Capacity: 16, Used: 8}, {Capacity: 16}},
			wantPods: map[types.UID]Assignment{"a": {{0, 8}}},
		},
		{
			name: "a node's GPUs change under its pods",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(bound, false)
				h.nodes.OnUpdate(n1, gpuNode("n1", "3", "48").Annotation(NodeGPUMemoryAnnotation, "8,16,24").Obj())
			},
			wantView: []Device{{Capacity: 8, Used: 8}, {Capacity: 16}, {Capacity: 24}},
			wantPods: map[types.UID]Assignment{"a": {{0, 8}}},
		},
		{
			name: "a deleted node loses its GPUs, also when the tombstone has only its key",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.nodes.OnDelete(tombstone(nil, "n1"))
			},
		},
		{
			name: "a node tombstone with the object",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.nodes.OnDelete(tombstone(n1, ""))
			},
		},
		{
			name: "malformed annotations are reported and change nothing",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(bound, false)
				h.pods.OnUpdate(bound, boundPod("a", "n1", "0:x"))
				h.pods.OnAdd(gpuPod("b", "4").Node("n1").Obj(), false)
				h.nodes.OnUpdate(n1, gpuNode("n1", "2", "32").Annotation(NodeGPUMemoryAnnotation, "8").Obj())
			},
			wantView: []Device{{Capacity: 16, Used: 8}, {Capacity: 16}},
			wantPods: map[types.UID]Assignment{"a": {{0, 8}}},
			wantError: []string{
				`ns/a: annotation berth.dev/gpu-devices="0:x": "0:x": memory must be a positive whole number`,
				"ns/b: pod asks for 4 aliyun.com/gpu-mem but names no devices (annotation berth.dev/gpu-devices); its GPU memory is not accounted",
				`n1: annotation berth.dev/gpu-memory="8": lists 1 GPUs but allocatable aliyun.com/gpu-count is 2; using aliyun.com/gpu-mem/aliyun.com/gpu-count instead`,
			},
		},
		{
			name: "objects of the wrong type are skipped",
			events: func(h handlers) {
				h.nodes.OnAdd(n1, false)
				h.pods.OnAdd(bound, false)
				h.pods.OnAdd(n1, false)
				h.pods.OnUpdate(bound, "not a pod")
				h.pods.OnDelete(tombstone("not a pod", "ns/a"))
				h.nodes.OnUpdate(n1, bound)
				h.nodes.OnDelete(42)
			},
			wantView: []Device{{Capacity: 16, Used: 8}, {Capacity: 16}},
			wantPods: map[types.UID]Assignment{"a": {{0, 8}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			c := NewCache(testResources)
			var r reported
			tt.events(handlers{nodes: c.nodeHandler(logger, r.onError), pods: c.podHandler(logger, r.onError)})
			if diff := cmp.Diff(tt.wantView, c.NodeView("n1")); diff != "" {
				t.Errorf("devices of n1 (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPods, podShares(c)); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantError, r.get()); diff != "" {
				t.Errorf("reported errors (-want +got):\n%s", diff)
			}
			checkConsistent(t, c, "end")
		})
	}
}

// podShares lists every pod's shares on n1, nil when there are none.
func podShares(c *Cache) map[types.UID]Assignment {
	var got map[types.UID]Assignment
	for uid, p := range snapshot(c).Pods {
		if got == nil {
			got = map[types.UID]Assignment{}
		}
		got[uid] = p.shares
	}
	return got
}

// The handlers fed by real informers (on a fake clientset): the initial list rebuilds the
// accounting, HasSynced says when, and later changes arrive through the watch.
func TestAddEventHandlersWithInformers(t *testing.T) {
	logger, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	client := fake.NewClientset(gpuNode("n1", "2", "32").Obj(), boundPod("a", "n1", "0:8"), gpuPod("b", "4").Obj())
	factory := informers.NewSharedInformerFactory(client, 0)
	c := NewCache(testResources)
	var r reported
	regs, err := c.AddEventHandlers(factory.Core().V1().Pods().Informer(), factory.Core().V1().Nodes().Informer(), logger, r.onError)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	synced := make([]toolscache.InformerSynced, len(regs))
	for i, reg := range regs {
		synced[i] = reg.HasSynced
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), synced...) {
		t.Fatal("handlers did not sync")
	}
	// Synced means the initial list is in the cache: no waiting for it.
	if diff := cmp.Diff([]Device{{Capacity: 16, Used: 8}, {Capacity: 16}}, c.NodeView("n1")); diff != "" {
		t.Fatalf("after the initial list (-want +got):\n%s", diff)
	}

	pods := client.CoreV1().Pods("ns")
	steps := []struct {
		name   string
		change func() error
		want   []Device
	}{
		{"b bound with its devices", func() error {
			_, err := pods.Update(ctx, gpuPod("b", "4").Node("n1").Annotation(PodGPUDevicesAnnotation, "1:4").Obj(), metav1.UpdateOptions{})
			return err
		}, []Device{{Capacity: 16, Used: 8}, {Capacity: 16, Used: 4}}},
		{"a succeeded", func() error {
			_, err := pods.UpdateStatus(ctx, terminal(boundPod("a", "n1", "0:8"), v1.PodSucceeded), metav1.UpdateOptions{})
			return err
		}, []Device{{Capacity: 16}, {Capacity: 16, Used: 4}}},
		{"n1 gets a third GPU", func() error {
			_, err := client.CoreV1().Nodes().Update(ctx, gpuNode("n1", "3", "48").Obj(), metav1.UpdateOptions{})
			return err
		}, []Device{{Capacity: 16}, {Capacity: 16, Used: 4}, {Capacity: 16}}},
		{"b deleted", func() error {
			return pods.Delete(ctx, "b", metav1.DeleteOptions{})
		}, []Device{{Capacity: 16}, {Capacity: 16}, {Capacity: 16}}},
		{"n1 deleted", func() error {
			return client.CoreV1().Nodes().Delete(ctx, "n1", metav1.DeleteOptions{})
		}, nil},
	}
	for _, step := range steps {
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		var got []Device
		err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			got = c.NodeView("n1")
			return cmp.Equal(step.want, got), nil
		})
		if err != nil {
			t.Fatalf("%s: devices of n1 (-want +got):\n%s", step.name, cmp.Diff(step.want, got))
		}
	}

	if _, err := pods.Create(ctx, boundPod("c", "n1", "x"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return len(r.get()) > 0, nil
	})
	if err != nil || !strings.HasPrefix(r.get()[0], "ns/c: annotation "+PodGPUDevicesAnnotation) {
		t.Errorf("malformed pod c: reported %q", r.get())
	}
}

// A stopped informer takes no handlers: the error says which.
func TestAddEventHandlersStoppedInformer(t *testing.T) {
	logger, ctx := ktesting.NewTestContext(t)
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	pods := factory.Core().V1().Pods().Informer()
	podCtx, stopPods := context.WithCancel(ctx)
	stopPods()
	pods.RunWithContext(podCtx)
	if !pods.IsStopped() {
		t.Fatal("pod informer did not stop")
	}
	c := NewCache(testResources)
	if _, err := c.AddEventHandlers(pods, factory.Core().V1().Nodes().Informer(), logger, nil); err == nil || !strings.Contains(err.Error(), "watching pods") {
		t.Fatalf("error %v, want one about watching pods", err)
	}
}
