package gang

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/topology"
)

// benchCluster is test/bench's topology cluster at full size: 5000 nodes of 4 perScheduler in racks of
// 50, 10 racks a block, rack names repeating in each block, each node running podsPerNode pods.
func benchCluster(podsPerNode int) []fwk.NodeInfo {
	nodes := make([]fwk.NodeInfo, 5000)
	for i := range nodes {
		name := fmt.Sprintf("node-%d", i)
		n := st.MakeNode().Name(name).Label(topology.HostLabel, name).
			Label(topology.BlockLabel, fmt.Sprintf("b%d", i/500)).Label(topology.RackLabel, fmt.Sprintf("r%d", i/50%10)).
			Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourceMemory: "32Gi", v1.ResourcePods: "110"}).Obj()
		var pods []*v1.Pod
		for j := range podsPerNode {
			pods = append(pods, st.MakePod().Namespace("other").Name(fmt.Sprintf("p-%d-%d", i, j)).UID(fmt.Sprintf("p-%d-%d", i, j)).
				Node(name).Req(map[v1.ResourceName]string{v1.ResourceCPU: "100m", v1.ResourceMemory: "100Mi"}).Obj())
		}
		nodes[i] = nodeInfo(n, pods...)
	}
	return nodes
}

// BenchmarkTopologyPreFilter measures what topology costs a member's PreFilter and Filter on the
// benchmark's cluster: the first member of a group (which chooses the domain), a later one (whose
// domain a sibling's Reserve fixed), and Filter over the domain's nodes; the same group without
// the annotation is the baseline.
func BenchmarkTopologyPreFilter(b *testing.B) {
	nodes := benchCluster(10)
	pods := make([]*v1.Pod, 3)
	for i := range pods {
		pods[i] = member("a", fmt.Sprintf("a%d", i), fmt.Sprintf("uid-a%d", i))
		pods[i].Spec.Containers = st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: "100m", v1.ResourceMemory: "100Mi"}).Obj().Spec.Containers
	}
	plain := podGroup("a", 3)
	rack := annotated(podGroup("a", 3), topology.RequiredAnnotation, topology.RackLabel)
	for _, tc := range []struct {
		name  string
		pg    *v1alpha1.PodGroup
		fixed bool
	}{
		{"without", plain, false},
		{"first", rack, false},
		{"later", rack, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := newHarness(b, []*v1alpha1.PodGroup{tc.pg}, pods...)
			if tc.fixed {
				state := framework.NewCycleState()
				res, st := h.pl.PreFilter(h.ctx, state, pods[0], nodes)
				if !st.IsSuccess() {
					b.Fatalf("PreFilter: %v", st)
				}
				h.pl.Reserve(h.ctx, state, pods[0], res.NodeNames.UnsortedList()[0])
			}
			b.ReportAllocs()
			for b.Loop() {
				state := framework.NewCycleState()
				res, st := h.pl.PreFilter(h.ctx, state, pods[1], nodes)
				if !st.IsSuccess() && !st.IsSkip() {
					b.Fatalf("PreFilter: %v", st)
				}
				if res != nil && res.NodeNames.Len() != 50 {
					b.Fatalf("PreFilter named %d nodes, want a rack's 50", res.NodeNames.Len())
				}
			}
		})
	}
	b.Run("Filter", func(b *testing.B) {
		h := newHarness(b, []*v1alpha1.PodGroup{rack}, pods...)
		state := framework.NewCycleState()
		if _, st := h.pl.PreFilter(h.ctx, state, pods[0], nodes); !st.IsSuccess() {
			b.Fatalf("PreFilter: %v", st)
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, n := range nodes[:50] {
				h.pl.Filter(h.ctx, state, pods[0], n)
			}
		}
	})
}
