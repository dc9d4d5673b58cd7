package gang

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/topology"
)

func TestLeastNeed(t *testing.T) {
	pod := func(cpu, mem string) *v1.Pod {
		return st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}).Obj()
	}
	tests := []struct {
		name       string
		candidates []*v1.Pod
		n          int
		want       topology.Resources
	}{
		{
			name:       "the smallest requests of each resource, each on its own",
			candidates: []*v1.Pod{pod("4", "1"), pod("1", "8"), pod("2", "2")},
			n:          2,
			want:       topology.Resources{"cpu": 3000, "memory": 3, topology.Pods: 2},
		},
		{
			name:       "all of them",
			candidates: []*v1.Pod{pod("1", "1"), pod("1", "1")},
			n:          2,
			want:       topology.Resources{"cpu": 2000, "memory": 2, topology.Pods: 2},
		},
		{name: "too few to reach minMember", candidates: []*v1.Pod{pod("1", "1")}, n: 2},
		{name: "nothing to place", candidates: []*v1.Pod{pod("1", "1")}, n: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, leastNeed(tt.candidates, tt.n)); diff != "" {
				t.Errorf("leastNeed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoomSum(t *testing.T) {
	node := func(name, cpu string) *v1.Node {
		return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{v1.ResourceCPU: cpu, v1.ResourceMemory: "16Gi", v1.ResourcePods: "10"}).Obj()
	}
	filler := func(name, cpu string, priority int32) *v1.Pod {
		return st.MakePod().Name(name).UID(name).Priority(priority).Req(map[v1.ResourceName]string{v1.ResourceCPU: cpu}).Obj()
	}
	preemptor := st.MakePod().Name("p").Priority(10).Obj()
	never := st.MakePod().Name("never").Priority(10).PreemptionPolicy(v1.PreemptNever).Obj()
	nodes := []fwk.NodeInfo{
		nodeInfo(node("n1", "4"), filler("low", "3", 5)),
		nodeInfo(node("n2", "4"), filler("same", "4", 10)),
		// Overcommitted: it gives nothing, and takes nothing from the others either.
		nodeInfo(node("n3", "1"), filler("big", "2", 10)),
	}
	need := topology.Resources{"cpu": 4000, topology.Pods: 4}

	sum := func(preemptor *v1.Pod) topology.Resources {
		t := newTally(need)
		for _, n := range nodes {
			t.add(n, preemptor)
		}
		free := topology.Resources{}
		for i, name := range t.names {
			free[name] = t.free[i]
		}
		return free
	}
	if diff := cmp.Diff(topology.Resources{"cpu": 1000, topology.Pods: 27}, sum(nil)); diff != "" {
		t.Errorf("free (-want +got):\n%s", diff)
	}
	if got := roomShortOf(nodes, need, nil); !cmp.Equal(got, []string{"cpu"}) {
		t.Errorf("short of %v: %v, want [cpu]", need, got)
	}
	// What pods of lower priority hold counts as free; what equal priority holds does not.
	if diff := cmp.Diff(topology.Resources{"cpu": 4000, topology.Pods: 28}, sum(preemptor)); diff != "" {
		t.Errorf("free for a preemptor (-want +got):\n%s", diff)
	}
	if got := roomShortOf(nodes, need, preemptor); len(got) != 0 {
		t.Errorf("short of %v for a preemptor: %v, want none", need, got)
	}
	// The walk stops where the room covers the need: a need the first node holds is met.
	if got := roomShortOf(nodes, topology.Resources{"cpu": 1000, topology.Pods: 1}, nil); len(got) != 0 {
		t.Errorf("short of one CPU: %v, want none", got)
	}
	if mayPreempt(never) {
		t.Errorf("a pod with preemptionPolicy Never may preempt")
	}
}
