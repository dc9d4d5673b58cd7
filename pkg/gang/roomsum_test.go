package gang

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/amount"
)

func TestLeastNeed(t *testing.T) {
	pod := func(cpu, mem string) *v1.Pod {
		return st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}).Obj()
	}
	tests := []struct {
		name       string
		candidates []*v1.Pod
		n          int
		want       amount.Amount
	}{
		{
			name:       "the smallest requests of each resource, each on its own",
			candidates: []*v1.Pod{pod("4", "1"), pod("1", "8"), pod("2", "2")},
			n:          2,
			want:       amount.Amount{"cpu": 3000, "memory": 3 * amount.One, amount.Pods: 2 * amount.One},
		},
		{
			name:       "all of them",
			candidates: []*v1.Pod{pod("1", "1"), pod("1", "1")},
			n:          2,
			want:       amount.Amount{"cpu": 2000, "memory": 2 * amount.One, amount.Pods: 2 * amount.One},
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
	need := amount.Amount{"cpu": 4000, amount.Pods: 4 * amount.One}

	sum := func(preemptor *v1.Pod) amount.Amount {
		t := newTally(need)
		for _, n := range nodes {
			t.add(n, preemptor)
		}
		free := amount.Amount{}
		for i, name := range t.names {
			free[name] = t.free[i]
		}
		return free
	}
	if diff := cmp.Diff(amount.Amount{"cpu": 1000, amount.Pods: 27 * amount.One}, sum(nil)); diff != "" {
		t.Errorf("free (-want +got):\n%s", diff)
	}
	if got := roomShortOf(nodes, need, nil, nil); !cmp.Equal(got, []string{"cpu"}) {
		t.Errorf("short of %v: %v, want [cpu]", need, got)
	}
	// What pods of lower priority hold counts as free; what equal priority holds does not.
	if diff := cmp.Diff(amount.Amount{"cpu": 4000, amount.Pods: 28 * amount.One}, sum(preemptor)); diff != "" {
		t.Errorf("free for a preemptor (-want +got):\n%s", diff)
	}
	if got := roomShortOf(nodes, need, preemptor, nil); len(got) != 0 {
		t.Errorf("short of %v for a preemptor: %v, want none", need, got)
	}
	// The walk stops where the room covers the need: a need the first node holds is met.
	if got := roomShortOf(nodes, amount.Amount{"cpu": 1000, amount.Pods: amount.One}, nil, nil); len(got) != 0 {
		t.Errorf("short of one CPU: %v, want none", got)
	}
	if mayPreempt(never) {
		t.Errorf("a pod with preemptionPolicy Never may preempt")
	}
}

func TestLeastOne(t *testing.T) {
	pod := func(cpu, mem string) *v1.Pod {
		return st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}).Obj()
	}
	got := leastOne([]*v1.Pod{pod("4", "1"), pod("1", "8"), pod("2", "2")})
	if diff := cmp.Diff(amount.Amount{"cpu": 1000, "memory": 1 * amount.One, amount.Pods: amount.One}, got); diff != "" {
		t.Errorf("leastOne (-want +got):\n%s", diff)
	}
	// A resource one candidate does not ask for is not needed by the least of them.
	got = leastOne([]*v1.Pod{pod("4", "1"), st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: "2"}).Obj()})
	if diff := cmp.Diff(amount.Amount{"cpu": 2000, amount.Pods: amount.One}, got); diff != "" {
		t.Errorf("leastOne without memory on one (-want +got):\n%s", diff)
	}
}

// Free room scattered over nodes too small for any one member covers the group's sum but holds
// none of it: the member is turned away as Pending, so that a node joining requeues it past its
// backoff, and a younger group gives way to it once a node holds one member (issue 42, fault 3:
// without this a younger group already in the active queue took the room of a node that joined).
func TestNoNodeForOneMember(t *testing.T) {
	node := func(name, cpu string) *v1.Node {
		return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{v1.ResourceCPU: cpu, v1.ResourcePods: "10"}).Obj()
	}
	withCPU := func(p *v1.Pod, cpu string) *v1.Pod {
		p = p.DeepCopy()
		p.Spec.Containers = st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: cpu}).Obj().Spec.Containers
		p.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever)
		return p
	}
	older1, older2 := withCPU(a1, "1"), withCPU(a2, "1")
	younger1, younger2 := withCPU(b1, "1"), withCPU(b2, "1")
	pgA, pgB := podGroup("a", 2), podGroup("b", 2)
	pgA.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))
	pgB.CreationTimestamp = metav1.NewTime(pgA.CreationTimestamp.Add(time.Minute))
	h := newHarness(t, []*v1alpha1.PodGroup{pgA, pgB}, older1, older2, younger1, younger2)
	small := []fwk.NodeInfo{}
	for i := range 4 {
		small = append(small, nodeInfo(node(fmt.Sprintf("small-%d", i), "500m")))
	}

	state := framework.NewCycleState()
	if _, st := h.pl.PreFilter(h.ctx, state, older1, small); st != nil {
		t.Fatalf("PreFilter: %v, want the rejection left to Filter", st)
	}
	got := h.pl.Filter(h.ctx, state, older1, small[0])
	want := fwk.NewStatus(fwk.Pending, "pod group ns/a has no node with room for any of its members, each of which needs at least cpu 1 on one node (its members may not preempt); it is tried again at once when room is freed")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Filter on 2 CPUs free in nodes of 500m (-want +got):\n%s", diff)
	}
	h.pl.PostFilter(h.ctx, state, older1, framework.NewDefaultNodeToStatus())

	// A node joins with room for one group: the younger group, tried first, gives way.
	joined := append(slices.Clone(small), nodeInfo(node("joined", "2")))
	if _, st := h.pl.PreFilter(h.ctx, framework.NewCycleState(), younger1, joined); st.Code() != fwk.UnschedulableAndUnresolvable ||
		!strings.Contains(st.Message(), "gives way to pod group ns/a") {
		t.Errorf("the younger group's PreFilter after a node joined: %v, want it to give way to ns/a", st)
	}
	// Without that node, the older group holds no room and the younger one does not wait for it
	// (it is turned away by the room there is itself).
	if _, st := h.pl.PreFilter(h.ctx, framework.NewCycleState(), younger1, small); st != nil {
		t.Errorf("the younger group's PreFilter with no node for either: %v, want the rejection left to Filter", st)
	}
}

// Room on a node the group's members may not go to is no room: a node not ready yet (its
// lifecycle taint), or cordoned. A member that tolerates the taint counts the node for its group.
func TestRoomSumSkipsNodesTheGroupCannotUse(t *testing.T) {
	node := func(name string) *v1.Node {
		return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourcePods: "10"}).Obj()
	}
	notReady := node("not-ready")
	notReady.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}}
	cordoned := node("cordoned")
	cordoned.Spec.Unschedulable = true
	full := st.MakePod().Name("filler").UID("filler").Req(map[v1.ResourceName]string{v1.ResourceCPU: "4"}).Obj()
	nodes := []fwk.NodeInfo{nodeInfo(node("full"), full), nodeInfo(notReady), nodeInfo(cordoned)}
	need := amount.Amount{"cpu": 2000, amount.Pods: 2 * amount.One}
	one := amount.Amount{"cpu": 1000, amount.Pods: amount.One}
	member := st.MakePod().Name("m").Req(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj()
	members := []*v1.Pod{member, member.DeepCopy()}

	usable := usableByAny(members)
	if got := roomShortOf(nodes, need, nil, usable); !cmp.Equal(got, []string{"cpu"}) {
		t.Errorf("short of %v: %v, want [cpu]: the free room is on a not-ready and a cordoned node", need, got)
	}
	if nodeHolds(nodes, one, nil, usable) {
		t.Errorf("a node the members may use holds one of them")
	}
	tolerant := member.DeepCopy()
	tolerant.Spec.Tolerations = []v1.Toleration{{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	usable = usableByAny(append(members, tolerant))
	if got := roomShortOf(nodes, need, nil, usable); len(got) != 0 {
		t.Errorf("short of %v with a member that tolerates the not-ready taint: %v, want none", need, got)
	}
	if !nodeHolds(nodes, one, nil, usable) {
		t.Errorf("no node holds a member, with one that tolerates the not-ready taint")
	}
}
