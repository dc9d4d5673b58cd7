package gang

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/topology"
)

// rackNode is a node of cpu perScheduler in rack of block b1.
func rackNode(name, rack, cpu string) *v1.Node {
	return st.MakeNode().Name(name).Label(topology.BlockLabel, "b1").Label(topology.RackLabel, rack).
		Label(topology.HostLabel, name).Capacity(map[v1.ResourceName]string{v1.ResourceCPU: cpu, v1.ResourcePods: "110"}).Obj()
}

func oneCPU(p *v1.Pod) *v1.Pod {
	p.Spec.Containers = st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj().Spec.Containers
	return p
}

func annotated(pg *v1alpha1.PodGroup, kv ...string) *v1alpha1.PodGroup {
	pg.Annotations = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		pg.Annotations[kv[i]] = kv[i+1]
	}
	return pg
}

// A required rack: PreFilter takes the rack that holds the group with the least room left, Filter
// keeps members to it naming the level, Reserve fixes it for the next member even when the
// snapshot would now choose another, and the last Unreserve lets it go.
func TestTopologyDomainChosenFixedAndDropped(t *testing.T) {
	m1, m2 := oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2"))
	pg := annotated(podGroup("a", 2), topology.RequiredAnnotation, topology.RackLabel)
	h := newHarness(t, []*v1alpha1.PodGroup{pg}, m1, m2)
	big, small := rackNode("big", "r1", "8"), rackNode("small", "r2", "2")
	nodes := []fwk.NodeInfo{nodeInfo(big), nodeInfo(small)}
	key := keyA

	state := framework.NewCycleState()
	res, st := h.pl.PreFilter(h.ctx, state, m1, nodes)
	if !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	// Only the domain's nodes go on to Filter and Score.
	if res == nil || res.AllNodes() || !res.NodeNames.Equal(sets.New("small")) {
		t.Errorf("PreFilter's nodes: %v, want only small, the chosen rack's", res)
	}
	if st := h.pl.Filter(h.ctx, state, m1, nodeInfo(small)); !st.IsSuccess() {
		t.Errorf("Filter on the rack with just room: %v", st)
	}
	st = h.pl.Filter(h.ctx, state, m1, nodeInfo(big))
	if st.Code() != fwk.UnschedulableAndUnresolvable || st.Message() != "node(s) outside the pod group's domain berth.dev/rack=/b1/r2" {
		t.Errorf("Filter on the other rack: %v, want unresolvable naming the domain", st)
	}
	if d := h.pl.groups.Domain(key); d != nil {
		t.Fatalf("a domain %v recorded before Reserve: PreFilter must not change state", d)
	}
	h.pl.Reserve(h.ctx, state, m1, "small")
	if d := h.pl.groups.Domain(key); d == nil || d.Domain != "/b1/r2" {
		t.Fatalf("domain after Reserve: %v, want /b1/r2", d)
	}

	// The small rack is now full in this snapshot; the reserved member still fixes it.
	state2 := framework.NewCycleState()
	if _, st := h.pl.PreFilter(h.ctx, state2, m2, []fwk.NodeInfo{nodeInfo(big), nodeInfo(small, m1, m1)}); !st.IsSuccess() {
		t.Fatalf("PreFilter of the second member: %v", st)
	}
	if st := h.pl.Filter(h.ctx, state2, m2, nodeInfo(big)); st.IsSuccess() {
		t.Error("the second member may leave the domain its sibling fixed")
	}

	h.pl.Unreserve(h.ctx, state, m1, "small")
	if d := h.pl.groups.Domain(key); d != nil {
		t.Errorf("domain %v kept after the last reservation went", d)
	}
}

// No rack holds a required group: PreFilter holds it back saying the level, how many it needs and
// the largest room; a preferred group falls back to its block, then to anywhere (Filter skipped).
func TestTopologyNoDomainHoldsTheGroup(t *testing.T) {
	pods := []*v1.Pod{oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2")), oneCPU(member("a", "a3", "uid-a3"))}
	oneBlock := []fwk.NodeInfo{nodeInfo(rackNode("n1", "r1", "2")), nodeInfo(rackNode("n2", "r2", "2"))}
	twoBlocks := []fwk.NodeInfo{nodeInfo(rackNode("n1", "r1", "2")), nodeInfo(inBlock(rackNode("n2", "r2", "2"), "b2"))}
	for _, tt := range []struct {
		name  string
		ann   string
		nodes []fwk.NodeInfo
		code  fwk.Code
		msg   string
		want  topology.Domain
	}{
		{"required", topology.RequiredAnnotation, oneBlock, fwk.Pending,
			"pod group ns/a needs one berth.dev/rack domain with room for 3 members (each cpu 1); the largest has room for 2 (required)", ""},
		{"preferred, the block holds it", topology.PreferredAnnotation, oneBlock, fwk.Success, "", "/b1"},
		{"preferred, nothing holds it", topology.PreferredAnnotation, twoBlocks, fwk.Skip, "", ""},
	} {
		h := newHarness(t, []*v1alpha1.PodGroup{annotated(podGroup("a", 3), tt.ann, topology.RackLabel)}, pods...)
		state := framework.NewCycleState()
		st := preFilterAndFilter(h, state, pods[0], tt.nodes)
		if st.Code() != tt.code || st.Message() != tt.msg {
			t.Errorf("%s: PreFilter %v, want %v %q", tt.name, st, tt.code, tt.msg)
		}
		var got topology.Domain
		if d := topologyStateOf(state); d != nil {
			got = d.choice.Domain
		}
		if got != tt.want {
			t.Errorf("%s: domain %q, want %q", tt.name, got, tt.want)
		}
	}
}

// preFilterAndFilter is PreFilter's rejection, or else the first node's Filter status: a group no
// domain holds is rejected as Pending by Filter on every node, so that room freed requeues its
// members past the queue's backoff.
func preFilterAndFilter(h *harness, state *framework.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	_, st := h.pl.PreFilter(h.ctx, state, pod, nodes)
	if !st.IsSuccess() || roomStateOf(state) == nil {
		return st
	}
	return h.pl.Filter(h.ctx, state, pod, nodes[0])
}

func inBlock(n *v1.Node, block string) *v1.Node {
	n.Labels[topology.BlockLabel] = block
	return n
}

// An annotation naming a level the scheduler does not know, or both annotations at once, holds
// the group back with a Warning event on the PodGroup naming the problem, once.
func TestTopologyBadAnnotations(t *testing.T) {
	pods := []*v1.Pod{oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2"))}
	nodes := []fwk.NodeInfo{nodeInfo(rackNode("n1", "r1", "8"))}
	for _, tt := range []struct {
		kv   []string
		want string
	}{
		{[]string{topology.RequiredAnnotation, "example.com/spine"}, `annotation berth.dev/topology-required names "example.com/spine", which is not one of the scheduler's topologyLevels`},
		{[]string{topology.RequiredAnnotation, topology.RackLabel, topology.PreferredAnnotation, topology.RackLabel}, "are both set"},
	} {
		h := newHarness(t, []*v1alpha1.PodGroup{annotated(podGroup("a", 2), tt.kv...)}, pods...)
		for range 2 {
			_, st := h.pl.PreFilter(h.ctx, framework.NewCycleState(), pods[0], nodes)
			if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), tt.want) {
				t.Errorf("%v: PreFilter %v, want unresolvable saying %q", tt.kv, st, tt.want)
			}
		}
		events := h.events()
		if len(events) != 1 || !strings.HasPrefix(events[0], "Warning InvalidTopology") || !strings.Contains(events[0], tt.want) {
			t.Errorf("%v: events %q, want one Warning InvalidTopology saying %q", tt.kv, events, tt.want)
		}
	}
}

// No rack has room, but one would once pods of lower priority than the group's go: PreFilter
// chooses it, so preemption makes room there only; a group of no higher priority, or one that may
// not preempt, waits.
func TestTopologyDomainForPreemption(t *testing.T) {
	high := func(p *v1.Pod) *v1.Pod { p.Spec.Priority = ptr.To[int32](100); return p }
	pods := []*v1.Pod{high(oneCPU(member("a", "a1", "uid-a1"))), high(oneCPU(member("a", "a2", "uid-a2")))}
	low := func(name, node string) *v1.Pod {
		return oneCPU(st.MakePod().Namespace("other").Name(name).UID(name).Node(node).Priority(10).Obj())
	}
	equal := func(name, node string) *v1.Pod {
		return oneCPU(st.MakePod().Namespace("other").Name(name).UID(name).Node(node).Priority(100).Obj())
	}
	// Rack r1 holds one low and one equal pod, rack r2 two low ones: only r2 can be freed for two.
	nodes := []fwk.NodeInfo{
		nodeInfo(rackNode("n1", "r1", "2"), low("l1", "n1"), equal("e1", "n1")),
		nodeInfo(rackNode("n2", "r2", "2"), low("l2", "n2"), low("l3", "n2")),
	}
	pg := annotated(podGroup("a", 2), topology.RequiredAnnotation, topology.RackLabel)
	h := newHarness(t, []*v1alpha1.PodGroup{pg}, pods...)
	state := framework.NewCycleState()
	if _, st := h.pl.PreFilter(h.ctx, state, pods[0], nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v, want the rack preemption can free", st)
	}
	if d := topologyStateOf(state); d == nil || d.choice.Domain != "/b1/r2" {
		t.Errorf("domain %v, want /b1/r2", d)
	}

	never := v1.PreemptNever
	for _, p := range pods {
		p.Spec.PreemptionPolicy = &never
	}
	h = newHarness(t, []*v1alpha1.PodGroup{pg}, pods...)
	if st := preFilterAndFilter(h, framework.NewCycleState(), pods[0], nodes); st.Code() != fwk.Pending {
		t.Errorf("PreFilter of a group that may not preempt: %v, want it held", st)
	}
}

// A member that fits no node of its group's domain is told which domain the group goes to and why
// the nodes outside it were not considered; its siblings, held while the group waits for room,
// read that the other nodes are outside the domain, by name, not "didn't satisfy plugin(s) [Gang]".
func TestTopologyPostFilterNamesTheDomain(t *testing.T) {
	m1, m2 := oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2"))
	h := newHarness(t, []*v1alpha1.PodGroup{annotated(podGroup("a", 2), topology.RequiredAnnotation, topology.RackLabel)}, m1, m2)
	r1, r2 := rackNode("r1-a", "r1", "2"), rackNode("r2-a", "r2", "1")
	h.snapshot.SharedLister = schedcache.NewSnapshot(nil, []*v1.Node{r1, r2})
	state := framework.NewCycleState()
	if _, st := h.pl.PreFilter(h.ctx, state, m1, []fwk.NodeInfo{nodeInfo(r1), nodeInfo(r2)}); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	statuses := framework.NewNodeToStatus(map[string]*fwk.Status{"r1-a": fwk.NewStatus(fwk.Unschedulable, "node(s) had untolerated taint(s)")},
		fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [Gang]"))
	_, st := h.pl.PostFilter(h.ctx, state, m1, statuses)
	want := "pod group ns/a goes to berth.dev/rack=/b1/r1, the berth.dev/rack domain with room for its 2 members and the least left over; nodes outside it were not considered"
	if st.Code() != fwk.Unschedulable || st.Message() != want {
		t.Errorf("PostFilter: %v, want Unschedulable %q", st, want)
	}
	// The sibling goes in once (it has no condition yet) and PreFilter holds it, with this message.
	_, st = h.pl.PreFilter(h.ctx, framework.NewCycleState(), m2, []fwk.NodeInfo{nodeInfo(r1), nodeInfo(r2)})
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(),
		"could not place member a1: node(s) had untolerated taint(s), node(s) outside the pod group's domain berth.dev/rack=/b1/r1") {
		t.Errorf("the sibling's PreFilter: %v, want it held naming the domain", st)
	}
}

// A rack's room counts only the nodes the members may use: the rack whose free node is cordoned,
// or tainted against the members, is not chosen; a member that tolerates the taint counts it.
func TestTopologyRoomSkipsNodesTheMembersCannotUse(t *testing.T) {
	for _, tt := range []struct {
		name      string
		spoil     func(*v1.Node)
		tolerate  []v1.Toleration
		wantNodes sets.Set[string]
	}{
		{"cordoned", func(n *v1.Node) { n.Spec.Unschedulable = true }, nil, sets.New("big")},
		{"tainted NoSchedule", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "gpu-maintenance", Effect: v1.TaintEffectNoSchedule}}
		}, nil, sets.New("big")},
		{"tainted NoExecute", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "gpu-maintenance", Effect: v1.TaintEffectNoExecute}}
		}, nil, sets.New("big")},
		{"tainted PreferNoSchedule: still usable", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "gpu-maintenance", Effect: v1.TaintEffectPreferNoSchedule}}
		}, nil, sets.New("small")},
		{"tainted, tolerated", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "gpu-maintenance", Effect: v1.TaintEffectNoSchedule}}
		}, []v1.Toleration{{Key: "gpu-maintenance", Operator: v1.TolerationOpExists}}, sets.New("small")},
		{"cordoned, unschedulable tolerated", func(n *v1.Node) { n.Spec.Unschedulable = true },
			[]v1.Toleration{{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}, sets.New("small")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m1, m2 := oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2"))
			for _, m := range []*v1.Pod{m1, m2} {
				m.Spec.Tolerations = tt.tolerate
			}
			pg := annotated(podGroup("a", 2), topology.RequiredAnnotation, topology.RackLabel)
			h := newHarness(t, []*v1alpha1.PodGroup{pg}, m1, m2)
			// The small rack holds the group with nothing left over and would win, were its node usable.
			big, small := rackNode("big", "r1", "8"), rackNode("small", "r2", "2")
			tt.spoil(small)
			res, st := h.pl.PreFilter(h.ctx, framework.NewCycleState(), m1, []fwk.NodeInfo{nodeInfo(big), nodeInfo(small)})
			if !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			if res == nil || !res.NodeNames.Equal(tt.wantNodes) {
				t.Errorf("PreFilter's nodes: %v, want %v", res, sets.List(tt.wantNodes))
			}
		})
	}
}

// With no usable room anywhere, a required group waits saying the largest room is what usable
// nodes have.
func TestTopologyCordonedRoomIsNoRoom(t *testing.T) {
	m1, m2 := oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2"))
	pg := annotated(podGroup("a", 2), topology.RequiredAnnotation, topology.RackLabel)
	h := newHarness(t, []*v1alpha1.PodGroup{pg}, m1, m2)
	cordoned := rackNode("cordoned", "r1", "8")
	cordoned.Spec.Unschedulable = true
	st := preFilterAndFilter(h, framework.NewCycleState(), m1, []fwk.NodeInfo{nodeInfo(cordoned), nodeInfo(rackNode("one", "r2", "1"))})
	if st.Code() != fwk.Pending || !strings.Contains(st.Message(), "the largest has room for 1") {
		t.Errorf("PreFilter and Filter: %v, want Pending with the largest room 1 (the cordoned rack's 8 not counted)", st)
	}
}

// A group no rack holds is requeued only by an event that can change a rack: a pod ending or a
// node joining or changing where the node carries the rack label. Room outside every rack (a
// CPU node's pod deleted, an unlabelled node added) leaves it waiting, so that the groups that
// room is for are not queued behind its members' futile tries.
func TestTopologyWaitIgnoresRoomOutsideTheLevel(t *testing.T) {
	pods := []*v1.Pod{oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2")), oneCPU(member("a", "a3", "uid-a3"))}
	h := newHarness(t, []*v1alpha1.PodGroup{annotated(podGroup("a", 3), topology.RequiredAnnotation, topology.RackLabel)}, pods...)
	inRack, plain := rackNode("n1", "r1", "2"), st.MakeNode().Name("plain").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "8", v1.ResourcePods: "110"}).Obj()
	for _, n := range []*v1.Node{inRack, plain} {
		if _, err := h.kube.CoreV1().Nodes().Create(h.ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	h.eventually("the nodes in the lister", func() bool {
		_, err1 := h.pl.nodes.Get("n1")
		_, err2 := h.pl.nodes.Get("plain")
		return err1 == nil && err2 == nil
	})
	if st := preFilterAndFilter(h, framework.NewCycleState(), pods[0], []fwk.NodeInfo{nodeInfo(inRack), nodeInfo(plain)}); st.Code() != fwk.Pending {
		t.Fatalf("PreFilter and Filter: %v, want Pending (no rack holds the group)", st)
	}
	if reason, parked := h.pl.groups.ParkedReason(keyA, "uid-a1"); !parked || reason != gangcore.ParkedTopology {
		t.Fatalf("the member is parked %v for %v, want for its topology", parked, reason)
	}
	onNode := func(node string) *v1.Pod {
		return st.MakePod().Namespace("ns").Name("filler-" + node).UID("filler-" + node).Node(node).Obj()
	}
	relabelled := plain.DeepCopy()
	relabelled.Labels = map[string]string{topology.RackLabel: "r2"}
	for _, tc := range []struct {
		name     string
		old, cur any
		want     fwk.QueueingHint
	}{
		{"pod deleted on a rack's node", onNode("n1"), nil, fwk.Queue},
		{"pod deleted on a node in no rack", onNode("plain"), nil, fwk.QueueSkip},
		{"pod deleted on a node not known", onNode("gone"), nil, fwk.Queue},
		{"pod scaled down on a node in no rack", onNode("plain"), onNode("plain"), fwk.QueueSkip},
		{"node added to a rack", nil, rackNode("n2", "r2", "4"), fwk.Queue},
		{"node added in no rack", nil, plain, fwk.QueueSkip},
		{"node labelled into a rack", plain, relabelled, fwk.Queue},
	} {
		if got, err := h.pl.isSchedulableAfterCapacityChange(klog.Background(), pods[0], tc.old, tc.cur); err != nil || got != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
}
