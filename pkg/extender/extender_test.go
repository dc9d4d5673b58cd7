package extender

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

// The cluster of the verb tests: GPUs free, nearly full, too small, none.
func testCluster() []runtime.Object {
	return []runtime.Object{
		gpuNode("free", 2, 32),
		gpuNode("full", 2, 32),
		gpuNode("small", 1, 8),
		st.MakeNode().Name("cpu").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "8"}).Obj(),
		boundPod("f0", "full", "0:16"),
		boundPod("f1", "full", "1:12"),
	}
}

// nodeArgs builds the filter and prioritize arguments in both forms the scheduler sends.
var nodeArgs = map[string]func(pod *v1.Pod, names ...string) *extenderv1.ExtenderArgs{
	"nodeCacheCapable": func(pod *v1.Pod, names ...string) *extenderv1.ExtenderArgs {
		return &extenderv1.ExtenderArgs{Pod: pod, NodeNames: &names}
	},
	"full nodes": func(pod *v1.Pod, names ...string) *extenderv1.ExtenderArgs {
		list := &v1.NodeList{}
		for _, n := range names {
			list.Items = append(list.Items, *st.MakeNode().Name(n).Label("name", n).Obj())
		}
		return &extenderv1.ExtenderArgs{Pod: pod, Nodes: list}
	},
}

// keptNames is the nodes a filter answer keeps, whichever form it has; it checks that the form is
// the request's and that full nodes come back as they were sent.
func keptNames(t *testing.T, args *extenderv1.ExtenderArgs, got extenderv1.ExtenderFilterResult) []string {
	t.Helper()
	if args.NodeNames != nil {
		if got.Nodes != nil || got.NodeNames == nil {
			t.Fatalf("nodeCacheCapable request answered with Nodes %v, NodeNames %v", got.Nodes, got.NodeNames)
		}
		return *got.NodeNames
	}
	if got.NodeNames != nil || got.Nodes == nil {
		t.Fatalf("request with Nodes answered with Nodes %v, NodeNames %v", got.Nodes, got.NodeNames)
	}
	names := []string{}
	for _, n := range got.Nodes.Items {
		if n.Labels["name"] != n.Name {
			t.Errorf("node %s came back changed: labels %v", n.Name, n.Labels)
		}
		names = append(names, n.Name)
	}
	return names
}

func TestFilter(t *testing.T) {
	env := newEnv(t, gpu.Binpack, testCluster()...)
	all := []string{"free", "full", "small", "cpu", "unknown"}
	tests := []struct {
		name string
		pod  *v1.Pod
		// nodes are the candidates, all by default. The scheduler sends only nodes whose GPU
		// memory in total has room for the pod.
		nodes            []string
		wantKept         []string
		wantFailed       extenderv1.FailedNodesMap
		wantUnresolvable extenderv1.FailedNodesMap
	}{
		{
			name:     "a pod without GPU memory passes every node",
			pod:      gpuPod("p", 0).Obj(),
			wantKept: all,
		},
		{
			name:       "a GPU pod passes the nodes where it fits; full GPUs are resolvable, small, none or unknown are not",
			pod:        gpuPod("p", 12).Obj(),
			wantKept:   []string{"free"},
			wantFailed: extenderv1.FailedNodesMap{"full": "GPU memory: pod asks for 12 on one GPU; the most free on one GPU of this node is 4"},
			wantUnresolvable: extenderv1.FailedNodesMap{
				"small":   "GPU memory: pod asks for 12 on one GPU, more than any GPU of this node holds",
				"cpu":     "node has no GPUs",
				"unknown": `node "unknown" is not in the GPU extender's cache yet`,
			},
		},
		{
			name:     "a pod that fits on a nearly full node",
			pod:      gpuPod("p", 4).Obj(),
			wantKept: []string{"free", "full", "small"},
			wantUnresolvable: extenderv1.FailedNodesMap{
				"cpu":     "node has no GPUs",
				"unknown": `node "unknown" is not in the GPU extender's cache yet`,
			},
		},
		{
			name:     "several GPUs",
			pod:      gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(),
			wantKept: []string{"free"},
			wantFailed: extenderv1.FailedNodesMap{
				"full": "GPU memory: pod asks for 2 GPUs with 8 free each; 0 GPU(s) of this node have that much, the most free on one GPU is 4",
			},
			wantUnresolvable: extenderv1.FailedNodesMap{
				"small":   "GPU memory: pod asks for 2 GPUs with 8 each, but this node has fewer than 2 GPUs that large",
				"cpu":     "node has no GPUs",
				"unknown": `node "unknown" is not in the GPU extender's cache yet`,
			},
		},
		{
			name:     "a request no GPU of the cluster can hold fails everywhere at once",
			pod:      gpuPod("p", 24).Obj(),
			nodes:    []string{"free"},
			wantKept: []string{},
			wantUnresolvable: failEverywhere([]string{"free"},
				"pod asks for 24 aliyun.com/gpu-mem on one GPU, but the largest GPU of any node holds 16"),
		},
		{
			name:     "a malformed request fails everywhere",
			pod:      gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "3").Obj(),
			wantKept: []string{},
			wantUnresolvable: failEverywhere(all,
				"aliyun.com/gpu-mem 16 does not divide evenly over 3 GPUs (annotation berth.dev/gpu-count): the limit is the pod's total, split equally over the GPUs"),
		},
	}
	for form, makeArgs := range nodeArgs {
		for _, tt := range tests {
			t.Run(form+"/"+tt.name, func(t *testing.T) {
				nodes := tt.nodes
				if nodes == nil {
					nodes = all
				}
				args := makeArgs(tt.pod, nodes...)
				got := call[extenderv1.ExtenderFilterResult](t, env, FilterVerb, args)
				if diff := cmp.Diff(tt.wantKept, keptNames(t, args, got)); diff != "" {
					t.Errorf("kept nodes (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantFailed, got.FailedNodes, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("FailedNodes (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantUnresolvable, got.FailedAndUnresolvableNodes, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("FailedAndUnresolvableNodes (-want +got):\n%s", diff)
				}
				if got.Error != "" {
					t.Errorf("Error %q", got.Error)
				}
			})
		}
	}
}

// The scheduler calls filter as soon as its own informer shows the event that made room; the
// extender's may not have delivered it yet. A GPU pod that then fits nowhere, on candidates that
// the cache shows with less GPU memory in total than the scheduler does, is answered with an error
// (the scheduler retries it after a backoff) for trailingGrace, and only then turned down: a final
// answer would leave it pending until a later cluster event.
func TestFilterWhileTheCacheTrailsTheScheduler(t *testing.T) {
	env := newEnv(t, gpu.Binpack,
		gpuNode("held", 1, 16), boundPod("holder", "held", "0:16"),
		gpuNode("split", 2, 32), boundPod("s0", "split", "0:8"), boundPod("s1", "split", "1:8"),
		gpuNode("free", 1, 16),
		st.MakeNode().Name("cpu").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "8"}).Obj(),
	)
	var clock atomic.Int64
	env.ext.now = func() time.Time { return testNow.Add(time.Duration(clock.Load())) }
	filter := func(pod *v1.Pod, nodes ...string) extenderv1.ExtenderFilterResult {
		return call[extenderv1.ExtenderFilterResult](t, env, FilterVerb, nodeArgs["nodeCacheCapable"](pod, nodes...))
	}
	retried := func(got extenderv1.ExtenderFilterResult) bool { return strings.HasSuffix(got.Error, "; retry") }

	// Candidates the scheduler passed, where the cache shows less than 12 free in all: the holder
	// it has not seen go, a node whose GPUs it has not seen, a node it has not seen at all.
	for _, node := range []string{"held", "cpu", "joined"} {
		pod := gpuPod("p-"+node, 12).Obj()
		clock.Store(0)
		for _, at := range []time.Duration{0, time.Second, 3 * time.Second} {
			clock.Store(int64(at))
			if got := filter(pod, node); !retried(got) {
				t.Errorf("%s, %v after the first try: %+v, want a retry", node, at, got)
			}
		}
		clock.Store(int64(trailingGrace))
		if got := filter(pod, node); got.Error != "" || len(*got.NodeNames) != 0 {
			t.Errorf("%s after the grace: %+v, want the final answer", node, got)
		}
	}
	clock.Store(0)
	// Room in total but on no one GPU: the two views agree, the answer is final at once.
	if got := filter(gpuPod("fragmented", 12).Obj(), "split"); got.Error != "" || got.FailedNodes["split"] == "" {
		t.Errorf("fragmented node: %+v, want it failed at once", got)
	}
	// A pod that fits somewhere needs no retry, and its grace ends.
	pod := gpuPod("somewhere", 12).Obj()
	if got := filter(pod, "held"); !retried(got) {
		t.Fatalf("%+v, want a retry", got)
	}
	if got := filter(pod, "held", "free"); got.Error != "" || cmp.Diff([]string{"free"}, *got.NodeNames) != "" {
		t.Errorf("%+v, want free kept", got)
	}
	clock.Store(int64(time.Minute))
	if got := filter(pod, "held"); !retried(got) {
		t.Errorf("a new disagreement after the pod's grace ended: %+v, want a retry", got)
	}
	// The scheduler's own client turns the answer into an error, which it retries.
	nodes := []fwk.NodeInfo{nodeInfo(gpuNode("held", 1, 16))}
	if _, _, _, err := schedulerClient(t, env.server.URL).Filter(gpuPod("client", 12).Obj(), nodes); err == nil || !strings.HasSuffix(err.Error(), "; retry") {
		t.Errorf("kube-scheduler's extender client: %v, want the retry error", err)
	}
}

func failEverywhere(nodes []string, msg string) extenderv1.FailedNodesMap {
	m := extenderv1.FailedNodesMap{}
	for _, n := range nodes {
		m[n] = msg
	}
	return m
}

func TestPrioritize(t *testing.T) {
	objs := []runtime.Object{
		gpuNode("free", 2, 32),
		gpuNode("half", 2, 32),
		boundPod("h", "half", "0:8"),
		st.MakeNode().Name("cpu").Obj(),
	}
	nodes := []string{"free", "half", "cpu", "unknown"}
	// Scores by hand: the mean of how full the chosen device ends up and how full the node ends
	// up, times 10 (Spread: one minus that).
	tests := []struct {
		name     string
		strategy *gpu.Strategy
		pod      *v1.Pod
		want     []int64
	}{
		// free: device 4/16, node 4/32: 0.1875. half: device (8+4)/16, node 12/32: 0.5625.
		{"binpack prefers the fuller node", gpu.Binpack, gpuPod("p", 4).Obj(), []int64{2, 6, 0, 0}},
		// half takes the empty device: device 4/16, node 12/32: 1-0.3125.
		{"spread prefers the emptier node", gpu.Spread, gpuPod("p", 4).Obj(), []int64{8, 7, 0, 0}},
		// The extender ranks GPU pods for Fragmentation as for Binpack (docs/extender.md).
		{"fragmentation ranks as binpack", gpu.FragmentationStrategy, gpuPod("p", 4).Obj(), []int64{2, 6, 0, 0}},
		// free: devices 8/16 each, node 16/32: 0.5. half: devices 16/16 and 8/16, node 24/32: 0.75.
		{"several GPUs", gpu.Binpack, gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(), []int64{5, 8, 0, 0}},
		{"a pod without GPU memory scores 0 everywhere", gpu.Binpack, gpuPod("p", 0).Obj(), []int64{0, 0, 0, 0}},
		{"a malformed request scores 0 everywhere", gpu.Binpack, gpuPod("p", 4).Annotation(gpu.PodGPUCountAnnotation, "x").Obj(), []int64{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		env := newEnv(t, tt.strategy, objs...)
		for form, makeArgs := range nodeArgs {
			t.Run(form+"/"+tt.name, func(t *testing.T) {
				got := call[extenderv1.HostPriorityList](t, env, PrioritizeVerb, makeArgs(tt.pod, nodes...))
				want := extenderv1.HostPriorityList{}
				for i, n := range nodes {
					want = append(want, extenderv1.HostPriority{Host: n, Score: tt.want[i]})
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("scores (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestPreempt(t *testing.T) {
	env := newEnv(t, gpu.Binpack,
		gpuNode("n1", 2, 32), boundPod("a", "n1", "0:16"), boundPod("b", "n1", "1:8"), boundPod("c", "n1", "1:8"),
		gpuNode("n2", 1, 16), boundPod("d", "n2", "0:16"), gpuPod("cpu-only", 0).Node("n2").Obj(),
	)
	meta := func(pdb int64, uids ...string) *extenderv1.MetaVictims {
		v := &extenderv1.MetaVictims{Pods: []*extenderv1.MetaPod{}, NumPDBViolations: pdb}
		for _, uid := range uids {
			v.Pods = append(v.Pods, &extenderv1.MetaPod{UID: uid})
		}
		return v
	}
	type candidates map[string]*extenderv1.MetaVictims
	tests := []struct {
		name  string
		pod   *v1.Pod
		given candidates
		want  candidates
	}{
		{
			name:  "victims that free a whole GPU keep the node, PDB violations and all",
			pod:   gpuPod("p", 16).Obj(),
			given: candidates{"n1": meta(1, "a"), "n2": meta(0, "d")},
			want:  candidates{"n1": meta(1, "a"), "n2": meta(0, "d")},
		},
		{
			name:  "victims that free memory on no one GPU enough drop the node",
			pod:   gpuPod("p", 16).Obj(),
			given: candidates{"n1": meta(0, "b"), "n2": meta(0, "d")},
			want:  candidates{"n2": meta(0, "d")},
		},
		{
			name:  "victims together free a GPU",
			pod:   gpuPod("p", 16).Obj(),
			given: candidates{"n1": meta(0, "b", "c")},
			want:  candidates{"n1": meta(0, "b", "c")},
		},
		{
			name:  "victims chosen for other resources stay",
			pod:   gpuPod("p", 16).Obj(),
			given: candidates{"n2": meta(0, "cpu-only", "d")},
			want:  candidates{"n2": meta(0, "cpu-only", "d")},
		},
		{
			name:  "victims that hold nothing on the node free nothing",
			pod:   gpuPod("p", 8).Obj(),
			given: candidates{"n2": meta(0, "cpu-only", "unknown", "a")},
			want:  candidates{},
		},
		{
			name:  "a victim listed twice frees its share once",
			pod:   gpuPod("p", 16).Obj(),
			given: candidates{"n1": meta(0, "b", "b")},
			want:  candidates{},
		},
		{
			name:  "a node without victims is no candidate",
			pod:   gpuPod("p", 8).Obj(),
			given: candidates{"n1": meta(0), "n2": nil},
			want:  candidates{},
		},
		{
			name:  "several GPUs, one freed",
			pod:   gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(),
			given: candidates{"n1": meta(0, "b", "c"), "n2": meta(0, "d")},
			want:  candidates{},
		},
		{
			name:  "several GPUs, half of each freed",
			pod:   gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(),
			given: candidates{"n1": meta(0, "a", "b")},
			want:  candidates{"n1": meta(0, "a", "b")},
		},
		{
			name:  "several GPUs, all freed",
			pod:   gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj(),
			given: candidates{"n1": meta(0, "a", "b", "c")},
			want:  candidates{"n1": meta(0, "a", "b", "c")},
		},
		{
			name:  "a pod without GPU memory keeps every candidate",
			pod:   gpuPod("p", 0).Obj(),
			given: candidates{"n1": meta(0, "b"), "n2": meta(2, "cpu-only")},
			want:  candidates{"n1": meta(0, "b"), "n2": meta(2, "cpu-only")},
		},
		{
			name:  "a malformed request keeps none",
			pod:   gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "0").Obj(),
			given: candidates{"n1": meta(0, "a")},
			want:  candidates{},
		},
	}
	for _, tt := range tests {
		t.Run("nodeCacheCapable/"+tt.name, func(t *testing.T) {
			got := call[extenderv1.ExtenderPreemptionResult](t, env, PreemptVerb,
				&extenderv1.ExtenderPreemptionArgs{Pod: tt.pod, NodeNameToMetaVictims: tt.given})
			if diff := cmp.Diff(map[string]*extenderv1.MetaVictims(tt.want), got.NodeNameToMetaVictims, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
		t.Run("full pods/"+tt.name, func(t *testing.T) {
			given := map[string]*extenderv1.Victims{}
			for node, mv := range tt.given {
				if mv == nil {
					given[node] = nil
					continue
				}
				v := &extenderv1.Victims{Pods: []*v1.Pod{}, NumPDBViolations: mv.NumPDBViolations}
				for _, p := range mv.Pods {
					// The scheduler sends its own copies; the extender goes by UID.
					v.Pods = append(v.Pods, st.MakePod().Namespace("ns").Name(p.UID).UID(p.UID).Node(node).Obj())
				}
				given[node] = v
			}
			got := call[extenderv1.ExtenderPreemptionResult](t, env, PreemptVerb,
				&extenderv1.ExtenderPreemptionArgs{Pod: tt.pod, NodeNameToVictims: given})
			if diff := cmp.Diff(map[string]*extenderv1.MetaVictims(tt.want), got.NodeNameToMetaVictims, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBind(t *testing.T) {
	pendingGPU := gpuPod("p", 8).Obj()
	tests := []struct {
		name string
		objs []runtime.Object
		args extenderv1.ExtenderBindingArgs
		// fail makes the API server refuse a verb on pods ("create" for the binding).
		fail string
		// wantError is what the answer's Error starts with; empty for success.
		wantError string
		wantNode  string
		wantAnn   map[string]string
		wantView  []gpu.Device
		wantWrite []string
	}{
		{
			name:     "a single-GPU pod is bound with the gpushare annotations and berth's, in one request",
			objs:     []runtime.Object{gpuNode("n", 2, 32), boundPod("x", "n", "1:4"), pendingGPU},
			args:     extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantNode: "n",
			wantAnn: map[string]string{
				gpu.PodGPUDevicesAnnotation:      "1:8",
				gpu.GPUShareIndexAnnotation:      "1",
				gpu.GPUShareDeviceAnnotation:     "16",
				gpu.GPUSharePodAnnotation:        "8",
				gpu.GPUShareAssignedAnnotation:   "false",
				gpu.GPUShareAssumeTimeAnnotation: "1700000000000000042",
			},
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16, Used: 12}},
			wantWrite: []string{"create pods/binding p"},
		},
		{
			name:      "a pod on several GPUs gets berth's annotation only",
			objs:      []runtime.Object{gpuNode("n", 2, 32), gpuPod("p", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj()},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantNode:  "n",
			wantAnn:   map[string]string{gpu.PodGPUCountAnnotation: "2", gpu.PodGPUDevicesAnnotation: "0:8,1:8"},
			wantView:  []gpu.Device{{Capacity: 16, Used: 8}, {Capacity: 16, Used: 8}},
			wantWrite: []string{"create pods/binding p"},
		},
		{
			name:      "a pod without GPU memory is just bound",
			objs:      []runtime.Object{gpuNode("n", 2, 32), gpuPod("p", 0).Obj()},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantNode:  "n",
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16}},
			wantWrite: []string{"create pods/binding p"},
		},
		{
			name:      "devices taken since filter fail the bind and write nothing",
			objs:      []runtime.Object{gpuNode("n", 2, 32), boundPod("x", "n", "0:12"), boundPod("y", "n", "1:12"), pendingGPU},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantError: "node n: GPU memory: pod asks for 8 on one GPU; the most free on one GPU of this node is 4",
			wantView:  []gpu.Device{{Capacity: 16, Used: 12}, {Capacity: 16, Used: 12}},
		},
		{
			name:      "a failed binding releases the devices and leaves the pod as it was",
			objs:      []runtime.Object{gpuNode("n", 2, 32), pendingGPU},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			fail:      "create",
			wantError: "binding pod ns/p to node n with GPUs 0:8: the API server is unhappy",
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16}},
			wantWrite: []string{"create pods/binding p"},
		},
		{
			name:      "a pod re-created under the same name is not bound",
			objs:      []runtime.Object{gpuNode("n", 2, 32), pendingGPU},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "old", Node: "n"},
			wantError: "pod ns/p was replaced: UID p, not old",
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16}},
		},
		{
			name:      "a deleted pod",
			objs:      []runtime.Object{gpuNode("n", 2, 32)},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantError: "pod ns/p no longer exists",
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16}},
		},
		{
			name:     "a repeated bind to the same node succeeds without writing",
			objs:     []runtime.Object{gpuNode("n", 2, 32), boundPod("p", "n", "0:1")},
			args:     extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantNode: "n",
			wantAnn:  map[string]string{gpu.PodGPUDevicesAnnotation: "0:1"},
			wantView: []gpu.Device{{Capacity: 16, Used: 1}, {Capacity: 16}},
		},
		{
			name:      "a pod bound elsewhere",
			objs:      []runtime.Object{gpuNode("n", 2, 32), gpuNode("m", 2, 32), boundPod("p", "m", "0:1")},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantError: `pod ns/p is already bound to node "m"`,
			wantNode:  "m",
			wantAnn:   map[string]string{gpu.PodGPUDevicesAnnotation: "0:1"},
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16}},
		},
		{
			name:      "a malformed request",
			objs:      []runtime.Object{gpuNode("n", 2, 32), gpuPod("p", 8).Annotation(gpu.PodGPUCountAnnotation, "-1").Obj()},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"},
			wantError: `annotation berth.dev/gpu-count="-1" must be a whole number of GPUs, at least 1`,
			wantAnn:   map[string]string{gpu.PodGPUCountAnnotation: "-1"},
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16}},
		},
		{
			name:      "a node without GPUs",
			objs:      []runtime.Object{gpuNode("n", 2, 32), st.MakeNode().Name("cpu").Obj(), pendingGPU},
			args:      extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "cpu"},
			wantError: "node cpu: node has no GPUs",
			wantView:  []gpu.Device{{Capacity: 16}, {Capacity: 16}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, gpu.Binpack, tt.objs...)
			if tt.fail != "" {
				env.client.PrependReactor(tt.fail, "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("the API server is unhappy")
				})
			}
			env.client.ClearActions()
			got := call[extenderv1.ExtenderBindingResult](t, env, BindVerb, &tt.args)
			if tt.wantError == "" && got.Error != "" || !strings.HasPrefix(got.Error, tt.wantError) {
				t.Errorf("Error %q, want it to start with %q", got.Error, tt.wantError)
			}
			if diff := cmp.Diff(tt.wantWrite, env.writes()); diff != "" {
				t.Errorf("API writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantView, env.ext.cache.NodeView("n")); diff != "" {
				t.Errorf("devices of n (-want +got):\n%s", diff)
			}
			if string(tt.args.PodUID) != tt.args.PodName {
				return
			}
			pod, err := env.client.CoreV1().Pods("ns").Get(t.Context(), "p", metav1.GetOptions{})
			if err != nil {
				if !apierrors.IsNotFound(err) || tt.wantNode != "" {
					t.Fatal(err)
				}
				return
			}
			if pod.Spec.NodeName != tt.wantNode {
				t.Errorf("pod is on node %q, want %q", pod.Spec.NodeName, tt.wantNode)
			}
			if diff := cmp.Diff(tt.wantAnn, pod.Annotations, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}
