package gang

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
)

// nativeMember is a pod of the native PodGroup group.
func nativeMember(group, name string) *v1.Pod {
	p := oneCPU(st.MakePod().Namespace("ns").Name(name).UID("uid-" + name).Obj())
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	return p
}

// A native group goes through Gang as a scheduler-plugins one does: held until its PodGroup
// exists, woken when it appears, held for its minCount, and kept to one domain of the level its
// schedulingConstraints.topology names.
func TestNativeGroup(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	n1, n2, n3 := nativeMember("a", "n1"), nativeMember("a", "n2"), nativeMember("a", "n3")
	h := newHarness(t, nil, n1, n2)

	want := unresolvable("pod group ns/scheduling.k8s.io/a does not exist; the pod waits until it is created")
	if st := h.pl.PreEnqueue(h.ctx, n1); st.Code() != want.Code() || st.Message() != want.Message() {
		t.Fatalf("PreEnqueue before the PodGroup: %v, want %v", st, want)
	}
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "uid-a"},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3}},
			SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{
				Topology: []schedulingv1beta1.TopologyConstraint{{Key: topology.RackLabel}},
			},
		},
	}
	if _, err := h.kube.SchedulingV1beta1().PodGroups("ns").Create(h.ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.activatedEventually("ns/n1")

	want = unresolvable("pod group ns/scheduling.k8s.io/a has 2 of its 3 (minMember) pods ready to schedule; waiting for the rest")
	if st := h.pl.PreEnqueue(h.ctx, n1); st.Code() != want.Code() || st.Message() != want.Message() {
		t.Fatalf("PreEnqueue with 2 of 3 members: %v, want %v", st, want)
	}
	if _, err := h.kube.CoreV1().Pods("ns").Create(h.ctx, n3, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// n1 is the one member held for its siblings.
	h.activatedEventually("ns/n1")
	if st := h.pl.PreEnqueue(h.ctx, n1); !st.IsSuccess() {
		t.Fatalf("PreEnqueue with 3 of 3 members: %v", st)
	}

	// Rack r1 holds the group with the least room left over; r2 has more room.
	nodes := []fwk.NodeInfo{nodeInfo(rackNode("r1-0", "r1", "3")), nodeInfo(rackNode("r2-0", "r2", "4")), nodeInfo(rackNode("r2-1", "r2", "4"))}
	state := framework.NewCycleState()
	res, status := h.pl.PreFilter(h.ctx, state, n1, nodes)
	if !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	if res == nil || res.AllNodes() || !res.NodeNames.Equal(sets.New("r1-0")) {
		t.Errorf("PreFilter's nodes: %v, want r1-0, the one rack that holds the group with least left over", res)
	}

	// The round: two members wait at Permit for the third, which lets all through.
	waiting := h.allWaitAtPermit(n1, n2)
	if st, _ := h.waitAtPermit(n3); !st.IsSuccess() {
		t.Fatalf("Permit of the member that completes the group: %v", st)
	}
	for i, ch := range waiting {
		if s := verdict(t, ch); !s.IsSuccess() {
			t.Errorf("waiting member %d: %v", i+1, s)
		}
	}
}

// nativeGroupInfo is what the scheduler hands PodGroupPostFilter for a native group.
type nativeGroupInfo struct{ ns, name string }

func (i nativeGroupInfo) GetUnscheduledPods() []*v1.Pod                               { return nil }
func (i nativeGroupInfo) GetName() string                                             { return i.name }
func (i nativeGroupInfo) GetNamespace() string                                        { return i.ns }
func (i nativeGroupInfo) GetType() fwk.EntityKeyType                                  { return fwk.PodGroupKeyType }
func (i nativeGroupInfo) GetKey() string                                              { return i.ns + "/" + i.name }
func (i nativeGroupInfo) GetPodGroup() *schedulingv1beta1.PodGroup                    { return nil }
func (i nativeGroupInfo) GetCompositePodGroup() *schedulingv1alpha3.CompositePodGroup { return nil }
func (i nativeGroupInfo) GetChildren() []fwk.PodGroupInfo                             { return nil }

// nativeGroupOfThree starts a harness with native group ns/a (minCount 3) and its members n1 to
// n3, once Gang sees the PodGroup.
func nativeGroupOfThree(t *testing.T) (h *harness, n1, n2, n3 *v1.Pod) {
	t.Helper()
	n1, n2, n3 = nativeMember("a", "n1"), nativeMember("a", "n2"), nativeMember("a", "n3")
	h = newHarness(t, nil, n1, n2, n3)
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "uid-a"},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3}},
		},
	}
	if _, err := h.kube.SchedulingV1beta1().PodGroups("ns").Create(h.ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("the native PodGroup seen", func() bool { _, err := h.pl.podGroups.Of(podgroup.NativeKey("ns", "a")); return err == nil })
	return h, n1, n2, n3
}

// A native group's cycle that fails for want of room runs no PostFilter: Gang's PodGroupPostFilter
// has the group wait for room with the member that failed as its waiter. Right after the cycle the
// queue runs PreEnqueue for every member of the group, which it holds as one entity: all are held,
// the waiter too, so the entity is parked. An event that adds room reaches Gang's hint, which ends
// the wait; one that adds none leaves them held. A waiter woken by its own plugins (ElasticQuota's
// wake, say) passes PreEnqueue the next time and ends the wait, as a scheduler-plugins group's does.
func TestNativeGroupWaitsForRoomAsOne(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	h, n1, n2, n3 := nativeGroupOfThree(t)

	// The group's cycle: one node of 2 cpu for 3 members of 1; the first member tried is turned
	// away by the sum of room (Filter's Pending), and the cycle ends.
	failCycle := func() {
		t.Helper()
		groupState := framework.NewCycleState()
		state := framework.NewCycleState()
		state.SetPodGroupSchedulingCycle(groupState)
		nodes := []fwk.NodeInfo{nodeInfo(rackNode("r1-0", "r1", "2"))}
		if _, st := h.pl.PreFilter(h.ctx, state, n1, nodes); !st.IsSuccess() && !st.IsSkip() {
			t.Fatalf("PreFilter: %v", st)
		}
		if st := h.pl.Filter(h.ctx, state, n1, nodes[0]); st.Code() != fwk.Pending {
			t.Fatalf("Filter: %v, want Pending (the sum of room)", st)
		}
		_, st := h.pl.PodGroupPostFilter(h.ctx, groupState, nativeGroupInfo{"ns", "a"}, nil)
		if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "waits for room because it could not place member n1") {
			t.Fatalf("PodGroupPostFilter: %v, want Unschedulable saying the group waits for room", st)
		}
		for _, p := range []*v1.Pod{n1, n2, n3} {
			if st := h.pl.PreEnqueue(h.ctx, told(p)); st.IsSuccess() {
				t.Fatalf("PreEnqueue(%s) right after the failed cycle let a member through", p.Name)
			}
		}
	}
	preEnqueueAll := func(when string) {
		t.Helper()
		for _, p := range []*v1.Pod{n1, n2, n3} {
			if st := h.pl.PreEnqueue(h.ctx, told(p)); !st.IsSuccess() {
				t.Errorf("PreEnqueue(%s) %s: %v", p.Name, when, st)
			}
		}
	}

	failCycle()
	node := rackNode("r1-1", "r1", "2")
	if hint, _ := h.pl.isSchedulableAfterCapacityChange(klog.Background(), n2, node.DeepCopy(), node); hint != fwk.QueueSkip {
		t.Errorf("a node update that adds no room: %v, want QueueSkip", hint)
	}
	if st := h.pl.PreEnqueue(h.ctx, told(n2)); st.IsSuccess() {
		t.Fatal("a sibling let through while its group waits for room")
	}
	if hint, _ := h.pl.isSchedulableAfterCapacityChange(klog.Background(), n2, nil, node); hint != fwk.Queue {
		t.Fatalf("a node added: %v, want Queue", hint)
	}
	preEnqueueAll("after a node joined")

	failCycle()
	// The waiter woken by its own plugins: let in, it ends the wait for all.
	preEnqueueAll("after the waiter was woken")
}

// A native group's cycle in which ElasticQuota's PreFilter refused a member (fair sharing, say)
// fails the round of the members an earlier cycle left waiting at Permit, as for a
// scheduler-plugins group (TestAPreFilterRefusalEndsTheRoundWithoutABackoff): they are released
// to wait for the refused member, and the group does not stand aside, since the refusing plugin
// requeues that member on the event that can let it in.
func TestANativeCycleAPreFilterRefusedEndsTheRoundWithoutABackoff(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	h, n1, n2, n3 := nativeGroupOfThree(t)

	// An earlier cycle left n1 and n2 waiting at Permit.
	waiting := h.allWaitAtPermit(n1, n2)
	// This cycle: Gang lets n3 on, then ElasticQuota's PreFilter turns it away and notes why.
	groupState := framework.NewCycleState()
	state := framework.NewCycleState()
	state.SetPodGroupSchedulingCycle(groupState)
	nodes := []fwk.NodeInfo{nodeInfo(rackNode("r1-0", "r1", "4"))}
	if _, st := h.pl.PreFilter(h.ctx, state, n3, nodes); !st.IsSuccess() && !st.IsSkip() {
		t.Fatalf("PreFilter: %v", st)
	}
	podgroup.NoteRejection(state, n3.UID, "quota team-a/quota would be above its fair share")
	if _, st := h.pl.PodGroupPostFilter(h.ctx, groupState, nativeGroupInfo{"ns", "a"}, nil); st.Code() != fwk.Unschedulable {
		t.Fatalf("PodGroupPostFilter: %v, want Unschedulable", st)
	}
	for i, ch := range waiting {
		if s := verdict(t, ch); s.IsSuccess() || !strings.Contains(s.Message(), "waits for that member to be let in") {
			t.Errorf("waiting member %d's verdict: %v, want released to wait for n3", i+1, s)
		}
	}
	h.pl.Unreserve(h.ctx, nil, n1, "node")
	h.pl.Unreserve(h.ctx, nil, n2, "node")
	// Right after the cycle the queue runs PreEnqueue for the whole group, which waits as one:
	// held for the refused member, not standing aside.
	for _, p := range []*v1.Pod{n1, n2, n3} {
		if st := h.pl.PreEnqueue(h.ctx, told(p)); st.IsSuccess() || strings.Contains(st.Message(), "stands aside") {
			t.Errorf("%s right after the cycle: %v, want held for the refused member, not standing aside", p.Name, st)
		}
	}
	// ElasticQuota requeues the refused member when its quota may let it in: no backoff holds
	// the group, and the member's admission lets the others in.
	for _, p := range []*v1.Pod{n3, n1, n2} {
		if st := h.pl.PreEnqueue(h.ctx, told(p)); !st.IsSuccess() {
			t.Errorf("%s once the refused member is requeued: %v", p.Name, st)
		}
	}
}
