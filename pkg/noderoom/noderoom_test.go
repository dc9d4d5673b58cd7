package noderoom

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeunschedulable"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/gpu"
)

var res = gpu.DefaultResourceNames()

// The scheduler's cache reports its size in the scheduler's metrics.
func init() { metrics.Register() }

// node is tainted example.com/class=5:NoSchedule, with 4 cpu, 8Gi, 10 pod slots and two GPUs of
// 16 units.
func node() *v1.Node {
	n := st.MakeNode().Name("n").Capacity(map[v1.ResourceName]string{
		v1.ResourceCPU: "4", v1.ResourceMemory: "8Gi", v1.ResourcePods: "10", res.Count: "2", res.Memory: "32",
	}).Obj()
	n.Spec.Taints = []v1.Taint{{Key: "example.com/class", Value: "5", Effect: v1.TaintEffectNoSchedule}}
	return n
}

// pods on node: one running, one being deleted, one finished, two with GPU shares, one not bound.
func pods() []v1.Pod {
	cpu := func(name string) *st.PodWrapper {
		return st.MakePod().Namespace("ns").Name(name).UID(name).Node("n").
			Req(map[v1.ResourceName]string{v1.ResourceCPU: "1", v1.ResourceMemory: "1Gi"})
	}
	share := func(name, devices string) v1.Pod {
		return *st.MakePod().Namespace("ns").Name(name).UID(name).Node("n").Phase(v1.PodRunning).
			Req(map[v1.ResourceName]string{v1.ResourceCPU: "500m", res.Memory: "10"}).
			Annotation(gpu.PodGPUDevicesAnnotation, devices).Obj()
	}
	return []v1.Pod{
		*cpu("running").Phase(v1.PodRunning).Obj(),
		*cpu("deleting").Phase(v1.PodRunning).Terminating().Obj(),
		*cpu("finished").Phase(v1.PodSucceeded).Obj(),
		*cpu("failed").Phase(v1.PodFailed).Terminating().Obj(),
		share("share-0", "0:10"),
		share("share-1", "1:10"),
		*st.MakePod().Namespace("ns").Name("pending").UID("pending").Req(map[v1.ResourceName]string{v1.ResourceCPU: "3"}).Obj(),
	}
}

// Of counts a running and a deleting pod and GPU shares, not a finished or an unbound pod.
func TestOf(t *testing.T) {
	rooms := Of([]v1.Node{*node()}, pods(), res)
	if len(rooms) != 1 {
		t.Fatalf("%d rooms, want 1", len(rooms))
	}
	r := rooms[0]
	want := amount.Amount{"cpu": 1000, "memory": 6 << 30 * amount.One, "pods": 6 * amount.One, res.Count: 2 * amount.One, res.Memory: 12 * amount.One}
	if diff := cmp.Diff(want, r.Free); diff != "" {
		t.Errorf("free (-want +got):\n%s", diff)
	}
	var holding []string
	for _, p := range r.Pods {
		holding = append(holding, p.Pod.Name)
	}
	if diff := cmp.Diff([]string{"running", "deleting", "share-0", "share-1"}, holding); diff != "" {
		t.Errorf("pods holding room (-want +got):\n%s", diff)
	}
	if got := []int64{r.GPUs[0].Free, r.GPUs[1].Free}; !cmp.Equal(got, []int64{6, 6}) {
		t.Errorf("GPUs free %v, want [6 6]", got)
	}
	room := r.Clone()
	room.Release(r.Pods[2])
	if room.Free["cpu"] != 1500 || room.Free["pods"] != 7*amount.One || room.GPUs[0].Free != 16 || r.GPUs[0].Free != 6 || r.Free["cpu"] != 1000 {
		t.Errorf("after releasing share-0: free %v, GPU 0 %d; the original %v, GPU 0 %d", room.Free, room.GPUs[0].Free, r.Free, r.GPUs[0].Free)
	}
}

// The scheduler's own parts hold the same room for the node as Of reads from the API: its cache
// (fed as its pod informer feeds it, without pods in phase Succeeded or Failed: scheduler.go's
// field selector), read through FreeOn, and GPUShare's device cache, fed by the same informer.
func TestOfAgreesWithTheScheduler(t *testing.T) {
	for name, all := range map[string][]v1.Pod{"pods": pods(), "resizing": resizing()} {
		t.Run(name, func(t *testing.T) { agreeWithTheScheduler(t, all) })
	}
}

// resizing are running pods resized in place and not yet resized by the kubelet: one shrinking
// (asks 1 cpu, holds 2), one growing (asks 2, holds 1), one whose growth the kubelet found
// infeasible (asks 3, holds 1). The scheduler counts what a pod holds where it is more than what it
// asks, and only what it holds once the resize is infeasible.
func resizing() []v1.Pod {
	running := func(name, asks, holds string) *v1.Pod {
		p := st.MakePod().Namespace("ns").Name(name).UID(name).Node("n").Phase(v1.PodRunning).
			Req(map[v1.ResourceName]string{v1.ResourceCPU: asks}).Obj()
		held := v1.ResourceList{v1.ResourceCPU: resource.MustParse(holds)}
		p.Status.ContainerStatuses = []v1.ContainerStatus{{
			Name:               p.Spec.Containers[0].Name,
			AllocatedResources: held,
			Resources:          &v1.ResourceRequirements{Requests: held},
		}}
		return p
	}
	infeasible := running("infeasible", "3", "1")
	infeasible.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonInfeasible}}
	return []v1.Pod{*running("shrinking", "1", "2"), *running("growing", "2", "1"), *infeasible}
}

func agreeWithTheScheduler(t *testing.T, all []v1.Pod) {
	logger, ctx := ktesting.NewTestContext(t)
	n := node()
	cache := internalcache.New(ctx, nil, false, false)
	cache.AddNode(logger, n)
	devices := gpu.NewCache(res)
	if err := devices.AddOrUpdateNode(n); err != nil {
		t.Fatal(err)
	}
	for i := range all {
		p := &all[i]
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		if p.Spec.NodeName != "" {
			if err := cache.AddPod(logger, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := devices.AddOrUpdatePod(p); err != nil {
			t.Fatal(err)
		}
	}
	ni := cache.Dump().Nodes["n"]
	if ni == nil {
		t.Fatal("the scheduler's cache has no node n")
	}
	r := Of([]v1.Node{*n}, all, res)[0]
	for _, name := range []v1.ResourceName{"cpu", "memory", "pods", "ephemeral-storage", res.Count, res.Memory} {
		if got, want := FreeOn(ni, name), r.Free[name]; got != want {
			t.Errorf("%s: the scheduler's snapshot has %d free, Of %d", name, got, want)
		}
	}
	view := devices.NodeView("n")
	if len(view) != len(r.GPUs) {
		t.Fatalf("GPUShare sees %d GPUs, Of %d", len(view), len(r.GPUs))
	}
	for i, d := range view {
		if d.Capacity-d.Used != r.GPUs[i].Free || d.Capacity != r.GPUs[i].Capacity {
			t.Errorf("GPU %d: GPUShare has %d of %d free, Of %d of %d", i, d.Capacity-d.Used, d.Capacity, r.GPUs[i].Free, r.GPUs[i].Capacity)
		}
	}
}

// Usable judges a toleration as the scheduler's NodeUnschedulable and TaintToleration filters do,
// for each operator, with the comparison operators gate off (the default) and on.
func TestUsableAgreesWithTheSchedulersFilters(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	cordoned := node()
	cordoned.Spec.Unschedulable = true
	cordoned.Spec.Taints = nil
	tol := func(key string, op v1.TolerationOperator, value string) v1.Toleration {
		return v1.Toleration{Key: key, Operator: op, Value: value, Effect: v1.TaintEffectNoSchedule}
	}
	const class = "example.com/class"
	cases := []struct {
		name        string
		node        *v1.Node
		tolerations []v1.Toleration
		// usable without and with the comparison operators.
		off, on bool
	}{
		{name: "no toleration", node: node()},
		{name: "Exists", node: node(), tolerations: []v1.Toleration{tol(class, v1.TolerationOpExists, "")}, off: true, on: true},
		{name: "Equal, the value", node: node(), tolerations: []v1.Toleration{tol(class, v1.TolerationOpEqual, "5")}, off: true, on: true},
		{name: "Equal, another value", node: node(), tolerations: []v1.Toleration{tol(class, v1.TolerationOpEqual, "4")}},
		{name: "Gt, below", node: node(), tolerations: []v1.Toleration{tol(class, v1.TolerationOpGt, "3")}, on: true},
		{name: "Gt, above", node: node(), tolerations: []v1.Toleration{tol(class, v1.TolerationOpGt, "7")}},
		{name: "Lt, above", node: node(), tolerations: []v1.Toleration{tol(class, v1.TolerationOpLt, "7")}, on: true},
		{name: "another key", node: node(), tolerations: []v1.Toleration{tol("example.com/other", v1.TolerationOpExists, "")}},
		{name: "cordoned", node: cordoned, tolerations: []v1.Toleration{tol(class, v1.TolerationOpExists, "")}},
		{name: "cordoned, tolerated", node: cordoned, tolerations: []v1.Toleration{tol(v1.TaintNodeUnschedulable, v1.TolerationOpExists, "")}, off: true, on: true},
	}
	for _, tc := range cases {
		for _, gate := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, comparison operators %v", tc.name, gate), func(t *testing.T) {
				fts := feature.Features{EnableTaintTolerationComparisonOperators: gate}
				var filters []fwk.FilterPlugin
				for _, newPlugin := range []func() (fwk.Plugin, error){
					func() (fwk.Plugin, error) { return nodeunschedulable.New(ctx, nil, nil, fts) },
					func() (fwk.Plugin, error) { return tainttoleration.New(ctx, nil, nil, fts) },
				} {
					pl, err := newPlugin()
					if err != nil {
						t.Fatal(err)
					}
					filters = append(filters, pl.(fwk.FilterPlugin))
				}
				pod := st.MakePod().Name("p").Tolerations(tc.tolerations).Obj()
				ni := framework.NewNodeInfo()
				ni.SetNode(tc.node)
				scheduler := true
				for _, f := range filters {
					scheduler = scheduler && f.Filter(ctx, nil, pod, ni).IsSuccess()
				}
				want := tc.off
				if gate {
					want = tc.on
				}
				if scheduler != want {
					t.Fatalf("the scheduler's filters say %v, the case %v", scheduler, want)
				}
				if got := Usable(tc.node, tc.tolerations, gate); got != scheduler {
					t.Errorf("Usable = %v, the scheduler's filters %v", got, scheduler)
				}
			})
		}
	}
}

// TestAllocatableGrew: more of some resource, or a resource new to the node, is growth; the same
// or less of everything is not.
func TestAllocatableGrew(t *testing.T) {
	node := func(res map[v1.ResourceName]string) *v1.Node { return st.MakeNode().Name("n").Capacity(res).Obj() }
	base := node(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourceMemory: "8Gi"})
	for _, tc := range []struct {
		name string
		cur  *v1.Node
		want bool
	}{
		{"unchanged", base, false},
		{"more cpu", node(map[v1.ResourceName]string{v1.ResourceCPU: "8", v1.ResourceMemory: "8Gi"}), true},
		{"less memory", node(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourceMemory: "4Gi"}), false},
		{"a GPU resource registered", node(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourceMemory: "8Gi", gpu.DefaultCountResource: "2"}), true},
	} {
		if got := AllocatableGrew(base, tc.cur); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
