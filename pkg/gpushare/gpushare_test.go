package gpushare

import (
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
)

func TestNew(t *testing.T) {
	e := newEnv(t, nil)
	want := gpu.ResourceNames{Memory: memoryResource, Count: countResource}
	if e.pl.res != want || e.pl.strategy != gpu.Binpack {
		t.Errorf("defaults: resources %+v, strategy %v; want %+v, Binpack", e.pl.res, e.pl.strategy, want)
	}

	tests := []struct {
		name    string
		args    runtime.Object
		wantErr string
	}{
		{name: "wrong type", args: &v1.Pod{}, wantErr: "want args to be of type GPUShareArgs, got *v1.Pod"},
		{name: "bad strategy", args: args("Pack"), wantErr: `scoringStrategy: Unsupported value: "Pack": supported values: "Binpack", "Spread", "Fragmentation"`},
		{
			name:    "bad noGPUPodScoring",
			args:    argsNoGPU(gpu.FragmentationName, "Always"),
			wantErr: `noGPUPodScoring: Unsupported value: "Always": supported values: "None", "LeastGPUHarm"`,
		},
		{
			name:    "same resource twice",
			args:    &config.GPUShareArgs{MemoryResource: "example.com/gpu", CountResource: "example.com/gpu", ScoringStrategy: gpu.SpreadName, NoGPUPodScoring: config.NoGPUPodScoringNone},
			wantErr: `countResource: Invalid value: "example.com/gpu": must differ from memoryResource`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(e.ctx, tt.args, e.fh)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("New: error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestPreFilter(t *testing.T) {
	e := newEnv(t, args(gpu.BinpackName),
		gpuNode("two-16", 2, 32).Obj(),
		gpuNode("mixed", 4, 80).Annotation(gpu.NodeGPUMemoryAnnotation, "16,16,24,24").Obj(),
		st.MakeNode().Name("cpu-only").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "8"}).Obj(),
	)
	tests := []struct {
		name       string
		pod        *v1.Pod
		wantStatus *fwk.Status
		wantReq    gpu.Request
	}{
		{
			name:       "pods without GPU memory are skipped",
			pod:        st.MakePod().Name("cpu").Req(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj(),
			wantStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			name:    "fits somewhere",
			pod:     gpuPod("p", 24).Obj(),
			wantReq: gpu.Request{Total: 24, Count: 1, PerDevice: 24},
		},
		{
			name:    "four GPUs of 16",
			pod:     gpuPod("p", 64).Annotation(gpu.PodGPUCountAnnotation, "4").Obj(),
			wantReq: gpu.Request{Total: 64, Count: 4, PerDevice: 16},
		},
		{
			name:       "larger than any GPU",
			pod:        gpuPod("p", 32).Obj(),
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "pod asks for 32 aliyun.com/gpu-mem on one GPU, but the largest GPU of any node holds 24"),
		},
		{
			name:       "more GPUs of that size than any node has",
			pod:        gpuPod("p", 72).Annotation(gpu.PodGPUCountAnnotation, "3").Obj(),
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "pod asks for 3 GPUs with 24 aliyun.com/gpu-mem each, but no node has more than 2 GPUs that large"),
		},
		{
			name: "count that does not divide the total",
			pod:  gpuPod("p", 30).Annotation(gpu.PodGPUCountAnnotation, "4").Obj(),
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
				"aliyun.com/gpu-mem 30 does not divide evenly over 4 GPUs (annotation berth.dev/gpu-count): the limit is the pod's total, split equally over the GPUs"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, status := e.prefilter(t, tt.pod)
			if diff := cmp.Diff(tt.wantStatus, status, statusText); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if !status.IsSuccess() {
				return
			}
			s, err := getPreFilterState(state)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantReq, s.req); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	nodes := []*v1.Node{
		gpuNode("busy", 2, 32).Obj(),
		gpuNode("free", 2, 32).Obj(),
		gpuNode("small", 1, 8).Obj(),
		st.MakeNode().Name("cpu-only").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "8"}).Obj(),
	}
	e := newEnv(t, args(gpu.BinpackName),
		nodes[0], nodes[1], nodes[2], nodes[3],
		boundPod("a", "busy", "0:12").Obj(),
		boundPod("b", "busy", "1:10").Obj(),
	)
	tests := []struct {
		name string
		pod  *v1.Pod
		want map[string]*fwk.Status
	}{
		{
			name: "one GPU",
			pod:  gpuPod("p", 8).Obj(),
			want: map[string]*fwk.Status{
				"busy":     fwk.NewStatus(fwk.Unschedulable, "GPU memory: pod asks for 8 on one GPU; the most free on one GPU of this node is 6"),
				"cpu-only": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node has no GPUs"),
			},
		},
		{
			name: "two GPUs",
			pod:  gpuPod("p", 24).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(),
			want: map[string]*fwk.Status{
				"busy":     fwk.NewStatus(fwk.Unschedulable, "GPU memory: pod asks for 2 GPUs with 12 free each; 0 GPU(s) of this node have that much, the most free on one GPU is 6"),
				"small":    fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "GPU memory: pod asks for 2 GPUs with 12 each, but this node has fewer than 2 GPUs that large"),
				"cpu-only": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node has no GPUs"),
			},
		},
		{
			name: "larger than the node's GPUs",
			pod:  gpuPod("p", 16).Obj(),
			want: map[string]*fwk.Status{
				"busy":     fwk.NewStatus(fwk.Unschedulable, "GPU memory: pod asks for 16 on one GPU; the most free on one GPU of this node is 6"),
				"small":    fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "GPU memory: pod asks for 16 on one GPU, more than any GPU of this node holds"),
				"cpu-only": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node has no GPUs"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, status := e.prefilter(t, tt.pod)
			if !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			before := e.pl.devices.NodeView("busy")
			for _, n := range nodes {
				got := e.pl.Filter(e.ctx, state, tt.pod, e.nodeInfo(t, n.Name))
				if diff := cmp.Diff(tt.want[n.Name], got, statusText); diff != "" {
					t.Errorf("node %s (-want +got):\n%s", n.Name, diff)
				}
			}
			if diff := cmp.Diff(before, e.pl.devices.NodeView("busy")); diff != "" {
				t.Errorf("Filter changed the cache (-before +after):\n%s", diff)
			}
		})
	}
}

func TestScore(t *testing.T) {
	nodes := []*v1.Node{gpuNode("half-used", 2, 32).Obj(), gpuNode("empty", 2, 32).Obj(), gpuNode("busy-node", 2, 32).Obj()}
	objs := []runtime.Object{nodes[0], nodes[1], nodes[2],
		boundPod("a", "half-used", "0:8").Obj(),
		boundPod("b", "busy-node", "0:16").Obj(),
	}
	tests := []struct {
		strategy string
		want     fwk.NodeScoreList
	}{
		{
			// Raw 0.75, 0.375 and 0.625 of the scale: half-used fills a GPU, busy-node a node.
			strategy: gpu.BinpackName,
			want:     fwk.NodeScoreList{{Name: "half-used", Score: 100}, {Name: "empty", Score: 0}, {Name: "busy-node", Score: 66}},
		},
		{
			// Raw 0.5, 0.625 and 0.375.
			strategy: gpu.SpreadName,
			want:     fwk.NodeScoreList{{Name: "half-used", Score: 50}, {Name: "empty", Score: 100}, {Name: "busy-node", Score: 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			e := newEnv(t, args(tt.strategy), objs...)
			pod := gpuPod("p", 8).Obj()
			state, status := e.prefilter(t, pod)
			if !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
				t.Fatalf("PreScore: %v", status)
			}
			var got fwk.NodeScoreList
			for _, n := range nodes {
				score, status := e.pl.Score(e.ctx, state, pod, e.nodeInfo(t, n.Name))
				if !status.IsSuccess() {
					t.Fatalf("Score %s: %v", n.Name, status)
				}
				got = append(got, fwk.NodeScore{Name: n.Name, Score: score})
			}
			if status := e.pl.ScoreExtensions().NormalizeScore(e.ctx, state, pod, got); !status.IsSuccess() {
				t.Fatalf("NormalizeScore: %v", status)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalizeScore(t *testing.T) {
	var pl GPUShare
	tests := []struct {
		name     string
		in, want []int64
	}{
		{name: "spread over the range", in: []int64{250, 1000, 500}, want: []int64{0, 100, 33}},
		{name: "all equal", in: []int64{7, 7}, want: []int64{100, 100}},
		{name: "one node", in: []int64{0}, want: []int64{100}},
		{name: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores := make(fwk.NodeScoreList, len(tt.in))
			for i, s := range tt.in {
				scores[i] = fwk.NodeScore{Name: strconv.Itoa(i), Score: s}
			}
			if status := pl.NormalizeScore(nil, nil, nil, scores); !status.IsSuccess() {
				t.Fatal(status)
			}
			var got []int64
			for _, s := range scores {
				got = append(got, s.Score)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("normalized (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreScoreSkipsPodsWithoutGPUMemory(t *testing.T) {
	e := newEnv(t, nil, gpuNode("n1", 1, 16).Obj())
	if err := e.pl.devices.waitForSync(e.ctx); err != nil {
		t.Fatal(err)
	}
	pod := st.MakePod().Name("cpu").Obj()
	state, status := e.prefilter(t, pod)
	if !status.IsSkip() {
		t.Fatalf("PreFilter: %v, want Skip", status)
	}
	if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSkip() {
		t.Errorf("PreScore: %v, want Skip", status)
	}
	if status := e.pl.Reserve(e.ctx, state, pod, "n1"); !status.IsSuccess() {
		t.Errorf("Reserve: %v", status)
	}
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16}}, e.pl.devices.NodeView("n1")); diff != "" {
		t.Errorf("Reserve of a CPU pod changed the cache (-want +got):\n%s", diff)
	}
}

func TestReserveUnreserve(t *testing.T) {
	e := newEnv(t, args(gpu.BinpackName), gpuNode("n1", 2, 32).Obj())
	reserve := func(pod *v1.Pod) *fwk.Status {
		state, status := e.prefilter(t, pod)
		if !status.IsSuccess() {
			t.Fatalf("PreFilter %s: %v", pod.Name, status)
		}
		return e.reserve(t, e.pl, state, pod, "n1")
	}
	p1, p2, p3 := gpuPod("p1", 12).Obj(), gpuPod("p2", 12).Obj(), gpuPod("p3", 8).Obj()
	if status := reserve(p1); !status.IsSuccess() {
		t.Fatal(status)
	}
	if status := reserve(p2); !status.IsSuccess() {
		t.Fatal(status)
	}
	full := []gpu.Device{{Capacity: 16, Used: 12}, {Capacity: 16, Used: 12}}
	if diff := cmp.Diff(full, e.pl.devices.NodeView("n1")); diff != "" {
		t.Errorf("after two reserves (-want +got):\n%s", diff)
	}
	// p3 passed Filter before p1 and p2 took the GPUs; Reserve notices.
	want := fwk.NewStatus(fwk.Unschedulable, "GPU memory: pod asks for 8 on one GPU; the most free on one GPU of this node is 4")
	if diff := cmp.Diff(want, reserve(p3), statusText); diff != "" {
		t.Errorf("Reserve on a full node (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(full, e.pl.devices.NodeView("n1")); diff != "" {
		t.Errorf("a failed Reserve changed the cache (-want +got):\n%s", diff)
	}

	e.unreserve(nil, p2, "n1")
	e.unreserve(nil, p2, "n1")
	e.unreserve(nil, p3, "n1")
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 12}, {Capacity: 16}}, e.pl.devices.NodeView("n1")); diff != "" {
		t.Errorf("after Unreserve (-want +got):\n%s", diff)
	}
	if status := reserve(p3); !status.IsSuccess() {
		t.Errorf("Reserve after Unreserve: %v", status)
	}
}

// apiActions are the clientset's calls other than the informers' lists and watches.
func apiActions(actions []clienttesting.Action) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range actions {
		if a.GetVerb() != "list" && a.GetVerb() != "watch" {
			out = append(out, a)
		}
	}
	return out
}

func TestBind(t *testing.T) {
	tests := []struct {
		name        string
		pod         *v1.Pod
		wantDevices string
		// wantGPUShare is whether the gpushare annotations are set.
		wantGPUShare bool
	}{
		{name: "one GPU", pod: gpuPod("p1", 12).Obj(), wantDevices: "0:12", wantGPUShare: true},
		{name: "two GPUs", pod: gpuPod("p2", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(), wantDevices: "0:8,1:8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, args(gpu.BinpackName), gpuNode("n1", 2, 32).Obj(), tt.pod)
			bindingReactor(e.cs, nil)
			state, status := e.prefilter(t, tt.pod)
			if !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			if status := e.reserve(t, e.pl, state, tt.pod, "n1"); !status.IsSuccess() {
				t.Fatalf("Reserve: %v", status)
			}
			e.cs.ClearActions()
			start := time.Now()
			placed := podsPlaced(t)
			if status := e.pl.Bind(e.ctx, state, tt.pod, "n1"); !status.IsSuccess() {
				t.Fatalf("Bind: %v", status)
			}
			if got := podsPlaced(t); got != placed+1 {
				t.Errorf("pods placed went from %v to %v", placed, got)
			}

			// Exactly one request: the binding, which carries the devices.
			actions := apiActions(e.cs.Actions())
			if len(actions) != 1 || actions[0].GetVerb() != "create" || actions[0].GetSubresource() != "binding" {
				t.Fatalf("API calls: %v, want one binding", actions)
			}
			binding := actions[0].(clienttesting.CreateAction).GetObject().(*v1.Binding)
			if binding.Name != tt.pod.Name || binding.UID != tt.pod.UID || binding.Target.Name != "n1" {
				t.Errorf("binding %s (UID %s) to %s", binding.Name, binding.UID, binding.Target.Name)
			}

			// The pod as the API now has it.
			got, err := e.cs.CoreV1().Pods("default").Get(e.ctx, tt.pod.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := maps.Clone(tt.pod.Annotations)
			if want == nil {
				want = map[string]string{}
			}
			want[gpu.PodGPUDevicesAnnotation] = tt.wantDevices
			if tt.wantGPUShare {
				assumed, err := strconv.ParseInt(got.Annotations[gpu.GPUShareAssumeTimeAnnotation], 10, 64)
				if err != nil || assumed < start.UnixNano() || assumed > time.Now().UnixNano() {
					t.Errorf("assume time %q is not the time of binding", got.Annotations[gpu.GPUShareAssumeTimeAnnotation])
				}
				want[gpu.GPUShareIndexAnnotation] = "0"
				want[gpu.GPUShareDeviceAnnotation] = "16"
				want[gpu.GPUSharePodAnnotation] = "12"
				want[gpu.GPUShareAssignedAnnotation] = "false"
				want[gpu.GPUShareAssumeTimeAnnotation] = got.Annotations[gpu.GPUShareAssumeTimeAnnotation]
			}
			if diff := cmp.Diff(want, got.Annotations); diff != "" {
				t.Errorf("pod annotations (-want +got):\n%s", diff)
			}
			if got.Spec.NodeName != "n1" {
				t.Errorf("pod bound to %q", got.Spec.NodeName)
			}

			// The informer reports the pod bound: the reservation is confirmed, counted once, and a
			// late Unreserve does not release it.
			view := e.pl.devices.NodeView("n1")
			eventually(t, "the bound pod in the informer", func() bool {
				p, err := e.fh.SharedInformerFactory().Core().V1().Pods().Lister().Pods("default").Get(tt.pod.Name)
				return err == nil && p.Spec.NodeName == "n1"
			})
			e.pl.Unreserve(e.ctx, state, tt.pod, "n1")
			if diff := cmp.Diff(view, e.pl.devices.NodeView("n1")); diff != "" {
				t.Errorf("after the pod was bound and a late Unreserve (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBindSkipsPodsWithoutGPUMemory(t *testing.T) {
	pod := st.MakePod().Namespace("default").Name("cpu").UID("cpu").Obj()
	e := newEnv(t, nil, gpuNode("n1", 1, 16).Obj(), pod)
	state, _ := e.prefilter(t, pod)
	e.cs.ClearActions()
	if status := e.pl.Bind(e.ctx, state, pod, "n1"); !status.IsSkip() {
		t.Errorf("Bind: %v, want Skip", status)
	}
	if actions := apiActions(e.cs.Actions()); len(actions) != 0 {
		t.Errorf("API calls for a CPU pod: %v", actions)
	}
}

func TestBindFailureLeavesNothingReserved(t *testing.T) {
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "p")
	tests := []struct {
		name  string
		setup func(t *testing.T, e *env)
		// wantCalls are the API verbs Bind makes.
		wantCalls []string
	}{
		{
			// The API server's answer is lost: the pod, read back, is not bound.
			name:      "binding fails",
			setup:     func(_ *testing.T, e *env) { bindingReactor(e.cs, errors.New("connection reset by peer")) },
			wantCalls: []string{"create", "get"},
		},
		{
			name:      "binding refused",
			setup:     func(_ *testing.T, e *env) { bindingReactor(e.cs, gone) },
			wantCalls: []string{"create", "get"},
		},
		{
			name: "pod deleted before binding",
			setup: func(t *testing.T, e *env) {
				bindingReactor(e.cs, nil)
				if err := e.cs.CoreV1().Pods("default").Delete(e.ctx, "p", metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
				eventually(t, "the deletion to release the reservation", func() bool { _, _, ok := e.pl.devices.PodAssignment("p"); return !ok })
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := gpuPod("p", 8).Obj()
			e := newEnv(t, nil, gpuNode("n1", 1, 16).Obj(), pod)
			state, status := e.prefilter(t, pod)
			if !status.IsSuccess() {
				t.Fatalf("PreFilter: %v", status)
			}
			if status := e.reserve(t, e.pl, state, pod, "n1"); !status.IsSuccess() {
				t.Fatalf("Reserve: %v", status)
			}
			tt.setup(t, e)
			e.cs.ClearActions()
			placed := podsPlaced(t)
			status = e.pl.Bind(e.ctx, state, pod, "n1")
			if status.Code() != fwk.Error {
				t.Fatalf("Bind: %v, want an error", status)
			}
			if got := podsPlaced(t); got != placed {
				t.Errorf("a failed Bind counted a pod placed: %v, was %v", got, placed)
			}
			var calls []string
			for _, a := range apiActions(e.cs.Actions()) {
				calls = append(calls, a.GetVerb())
			}
			if diff := cmp.Diff(tt.wantCalls, calls); diff != "" {
				t.Errorf("API calls (-want +got):\n%s", diff)
			}
			// The framework calls Unreserve after a failed Bind.
			e.unreserve(state, pod, "n1")
			if diff := cmp.Diff([]gpu.Device{{Capacity: 16}}, e.pl.devices.NodeView("n1")); diff != "" {
				t.Errorf("after the failed Bind (-want +got):\n%s", diff)
			}
			if _, _, ok := e.pl.devices.PodAssignment(pod.UID); ok {
				t.Error("the pod still holds devices")
			}
		})
	}
}

func TestSignPod(t *testing.T) {
	e := newEnv(t, nil)
	sign := func(pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) { return e.pl.SignPod(e.ctx, pod) }
	a, _ := sign(gpuPod("a", 8).Obj())
	b, _ := sign(gpuPod("b", 8).Obj())
	c, _ := sign(gpuPod("c", 16).Obj())
	d, _ := sign(gpuPod("d", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj())
	want := []fwk.SignFragment{{Key: "berth.dev/GPURequest(aliyun.com/gpu-mem)", Value: gpu.Request{Total: 8, Count: 1, PerDevice: 8}}}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("signature (-want +got):\n%s", diff)
	}
	if !cmp.Equal(a, b) {
		t.Errorf("same requests sign differently: %v, %v", a, b)
	}
	if cmp.Equal(a, c) || cmp.Equal(c, d) {
		t.Errorf("different requests sign the same: %v, %v, %v", a, c, d)
	}
	if _, status := sign(gpuPod("e", 16).Annotation(gpu.PodGPUCountAnnotation, "3").Obj()); status.Code() != fwk.Unschedulable {
		t.Errorf("malformed request: %v, want Unschedulable (not signed)", status)
	}
}

func TestQueueingHints(t *testing.T) {
	e := newEnv(t, nil)
	logger, _ := ktesting.NewTestContext(t)
	pending := gpuPod("pending", 16).Obj()
	node := func(count, memory int, annotations ...string) *v1.Node {
		w := gpuNode("n", count, memory)
		if len(annotations) > 0 {
			w = w.Annotation(gpu.NodeGPUMemoryAnnotation, strings.Join(annotations, ","))
		}
		return w.Obj()
	}
	tests := []struct {
		name     string
		hint     fwk.QueueingHintFn
		pod      *v1.Pod
		old, cur any
		want     fwk.QueueingHint
	}{
		{name: "GPU pod deleted", hint: e.pl.isSchedulableAfterPodDelete, pod: pending, old: boundPod("x", "n", "0:8").Obj(), want: fwk.Queue},
		{name: "gpushare pod deleted", hint: e.pl.isSchedulableAfterPodDelete, pod: pending,
			old: st.MakePod().Node("n").Annotation(gpu.GPUShareIndexAnnotation, "0").Obj(), want: fwk.Queue},
		{name: "reserved pod forgotten after its binding failed", hint: e.pl.isSchedulableAfterPodDelete, pod: pending, old: gpuPod("x", 8).Obj(), want: fwk.Queue},
		{name: "CPU pod deleted", hint: e.pl.isSchedulableAfterPodDelete, pod: pending, old: st.MakePod().Node("n").Obj(), want: fwk.QueueSkip},
		{name: "node added with GPUs large enough", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, cur: node(2, 32), want: fwk.Queue},
		{name: "node added with GPUs too small", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, cur: node(4, 32), want: fwk.QueueSkip},
		{name: "node added without GPUs", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, cur: st.MakeNode().Name("cpu").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4"}).Obj(), want: fwk.QueueSkip},
		{name: "node's GPUs taken away", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, old: node(2, 32), cur: st.MakeNode().Name("n").Obj(), want: fwk.QueueSkip},
		{name: "node's GPUs grown", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, old: node(4, 32), cur: node(4, 64), want: fwk.Queue},
		{name: "node's GPU made larger by annotation", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, old: node(4, 32), cur: node(4, 32, "8", "8", "8", "16"), want: fwk.Queue},
		{name: "node gains a GPU", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, old: node(1, 16), cur: node(2, 32), want: fwk.Queue},
		{name: "node update without GPU change", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, old: node(2, 32), cur: gpuNode("n", 2, 32).Label("a", "b").Obj(), want: fwk.QueueSkip},
		{name: "node's other annotation changed", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, old: node(2, 32), cur: gpuNode("n", 2, 32).Annotation("example.com/owner", "a").Obj(), want: fwk.QueueSkip},
		{name: "node's GPUs shrunk", hint: e.pl.isSchedulableAfterNodeChange, pod: pending, old: node(2, 64), cur: node(2, 32), want: fwk.QueueSkip},
		{name: "node change for a malformed request", hint: e.pl.isSchedulableAfterNodeChange,
			pod: gpuPod("bad", 16).Annotation(gpu.PodGPUCountAnnotation, "3").Obj(), cur: node(2, 32), want: fwk.QueueSkip},
		{name: "GPU count fixed", hint: e.pl.isSchedulableAfterPodUpdate, pod: pending,
			old: gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "3").Obj(), cur: gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(), want: fwk.Queue},
		{name: "pod label changed", hint: e.pl.isSchedulableAfterPodUpdate, pod: pending,
			old: gpuPod("p", 16).Obj(), cur: gpuPod("p", 16).Label("a", "b").Obj(), want: fwk.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.hint(logger, tt.pod, tt.old, tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}

	events, err := e.pl.EventsToRegister(e.ctx)
	if err != nil || len(events) != 3 {
		t.Errorf("EventsToRegister = %v, %v", events, err)
	}
}

// podsPlaced reads berth_gpu_pods_placed_total from the registry the scheduler serves.
func podsPlaced(t *testing.T) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() == "berth_gpu_pods_placed_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("berth_gpu_pods_placed_total is not registered")
	return 0
}
