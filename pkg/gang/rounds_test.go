package gang

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/gangcore"
)

// The tests in this file each pin one rule of how a round ends: from facts the plugin can see, not
// from a clock; with one state for the whole process; and with no member left out of a verdict.

// onNode returns pod as the scheduler's snapshot shows it once assumed on node.
func onNode(pod *v1.Pod, node string) *v1.Pod {
	p := pod.DeepCopy()
	p.Spec.NodeName = node
	return p
}

// rejectedOn says node could not take the pod for want of room, as NodeResourcesFit says it.
func rejectedOn(nodes ...string) fwk.NodeToStatusReader {
	m := framework.NewDefaultNodeToStatus()
	for _, n := range nodes {
		m.Set(n, fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu"))
	}
	return m
}

// stillWaiting fails the test if done yields a verdict within a short while.
func stillWaiting(t *testing.T, what string, done <-chan *fwk.Status) {
	t.Helper()
	select {
	case s := <-done:
		t.Fatalf("%s got a verdict, want it still waiting: %v", what, s)
	case <-time.After(100 * time.Millisecond):
	}
}

// A group that cannot complete ends its round at once, even right after another group released
// room: the failing cycle's snapshot did not hold the released pods, so the release cannot have
// caused the failure. Waiting for a quiet second would keep the round open for as long as some
// group somewhere releases every second.
func TestAFailureThatNoReleaseExplainsEndsTheRound(t *testing.T) {
	b3 := member("b", "b3", "uid-b3")
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3), podGroup("b", 3)}, a1, a2, a3, b1, b2, b3)
	_, doneA := h.waitAtPermit(a1)
	_, doneB := h.waitAtPermit(b1)
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a2, rejectedOn("node")) // A lets go
	verdict(t, doneA)

	// The next cycle's snapshot no longer holds a1: B's failure is B's own.
	h.sees(onNode(b1, "node"))
	_, got := h.pl.PostFilter(h.ctx, framework.NewCycleState(), b2, rejectedOn("node"))
	if got.Code() != fwk.Unschedulable {
		t.Errorf("PostFilter: %v", got)
	}
	if s := verdict(t, doneB); s.IsSuccess() {
		t.Errorf("B's waiting member was let through: %v", s)
	}
}

// A failure that a release may explain (the failing cycle still saw the released pod on a node
// that turned the member away) keeps the round, and the member is tried again once the release
// shows.
func TestAFailureThatAReleaseExplainsKeepsTheRound(t *testing.T) {
	b3 := member("b", "b3", "uid-b3")
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3), podGroup("b", 3)}, a1, a2, a3, b1, b2, b3)
	_, doneA := h.waitAtPermit(a1)
	_, doneB := h.waitAtPermit(b1)
	h.sees(onNode(a1, "node"), onNode(b1, "node"))
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a2, rejectedOn("node")) // A lets go
	verdict(t, doneA)
	h.pl.Unreserve(h.ctx, nil, a1, "node")

	// This cycle began before a1 was forgotten.
	_, got := h.pl.PostFilter(h.ctx, framework.NewCycleState(), b2, rejectedOn("node"))
	if got.Code() != fwk.Unschedulable {
		t.Errorf("PostFilter: %v", got)
	}
	stillWaiting(t, "b1", doneB)
	if reason, ok := h.pl.groups.ParkedReason(keyB, b2.UID); !ok || reason != gangcore.ParkedRetry {
		t.Errorf("b2 parked %v (%v), want parked to retry", reason, ok)
	}
	h.fh.RejectWaitingPod(b1.UID)
}

// Two profiles that both enable Gang share one group state: a group's members reach quorum
// whichever profile placed them.
func TestTwoProfilesShareOneGroupState(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 2)}, a1, a2)
	second := h.secondProfile()
	_, done := h.waitAtPermit(a1)
	if st := second.Reserve(h.ctx, framework.NewCycleState(), a2, "node"); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st, _ := second.Permit(h.ctx, framework.NewCycleState(), a2, "node"); !st.IsSuccess() {
		t.Errorf("the member that completes the group, in the second profile: %v", st)
	}
	if s := verdict(t, done); !s.IsSuccess() {
		t.Errorf("the member waiting in the first profile: %v", s)
	}
}

// A member told to wait is counted in its group's round before the framework parks it at Permit.
// A round that ends in between must still reject it, not leave it waiting out its timer.
func TestAMemberReleasedBeforeItIsParkedIsRejected(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	if st := h.pl.Reserve(h.ctx, framework.NewCycleState(), a1, "node"); !st.IsSuccess() {
		t.Fatal(st)
	}
	st, timeout := h.pl.Permit(h.ctx, framework.NewCycleState(), a1, "node")
	if !st.IsWait() {
		t.Fatalf("Permit(a1): %v", st)
	}
	// The PodGroup is deleted before the framework parks a1.
	if err := h.pgs.SchedulingV1alpha1().PodGroups("ns").Delete(h.ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("the deletion in the informer", func() bool {
		_, err := h.pl.podGroups.Of(types.NamespacedName{Namespace: "ns", Name: "a"})
		return err != nil
	})
	h.fh.AddWaitingPod(a1, map[string]time.Duration{Name: timeout})
	done := make(chan *fwk.Status, 1)
	go func() { done <- h.fh.WaitOnPermit(h.ctx, a1) }()
	if s := verdict(t, done); s.IsSuccess() {
		t.Errorf("a1 of a deleted group was let through")
	}
}

// Unreserve for a member whose Reserve never ran (another plugin's Reserve failed first) is that
// member failing, judged like a Filter failure: here the failing cycle still saw another group's
// released pod, so the round goes on.
func TestUnreserveWithoutReserveIsJudgedLikeAnyFailure(t *testing.T) {
	b3 := member("b", "b3", "uid-b3")
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3), podGroup("b", 3)}, a1, a2, a3, b1, b2, b3)
	_, doneA := h.waitAtPermit(a1)
	_, doneB := h.waitAtPermit(b1)
	h.sees(onNode(a1, "node"), onNode(b1, "node"))
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a2, rejectedOn("node")) // A lets go
	verdict(t, doneA)
	h.pl.Unreserve(h.ctx, nil, a1, "node")

	h.pl.Unreserve(h.ctx, framework.NewCycleState(), b2, "node") // b2 never reached Gang's Reserve
	stillWaiting(t, "b1", doneB)
	h.fh.RejectWaitingPod(b1.UID)
}

// Lowering minMember lets members already waiting at Permit through when they now make quorum.
func TestLoweringMinMemberLetsWaitingMembersGo(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	_, done1 := h.waitAtPermit(a1)
	_, done2 := h.waitAtPermit(a2)
	if _, err := h.pgs.SchedulingV1alpha1().PodGroups("ns").Update(h.ctx, podGroup("a", 2), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, done := range []<-chan *fwk.Status{done1, done2} {
		if s := verdict(t, done); !s.IsSuccess() {
			t.Errorf("a%d: %v", i+1, s)
		}
	}
}

var keyB = types.NamespacedName{Namespace: "ns", Name: "b"}

// secondProfile builds Gang for a second profile of the same scheduler: its own framework, on the
// scheduler's one informer factory and one map of waiting pods.
func (h *harness) secondProfile() *Gang {
	h.t.Helper()
	fh, err := frameworkruntime.NewFramework(h.ctx, nil, nil,
		frameworkruntime.WithClientSet(h.kube),
		frameworkruntime.WithInformerFactory(h.factory),
		h.waiting,
		frameworkruntime.WithPodActivator(h.activator),
		frameworkruntime.WithEventRecorder(h.recorder),
		frameworkruntime.WithSnapshotSharedLister(h.snapshot),
	)
	if err != nil {
		h.t.Fatal(err)
	}
	args, err := gangArgs(nil)
	if err != nil {
		h.t.Fatal(err)
	}
	pl, err := newGang(h.ctx, args, fh, h.pgs, testTimings)
	if err != nil {
		h.t.Fatal(err)
	}
	return pl
}

// Any pod's scheduling cycle shows this process leads, and starts the status writer: members of a
// group held before scheduling never reach PreFilter.
func TestAnySchedulingCycleStartsTheStatusWriter(t *testing.T) {
	h := newHarness(t, nil)
	if h.pl.status.leading.Open() {
		t.Fatal("the status writer started before any scheduling cycle")
	}
	h.pl.PreFilter(h.ctx, framework.NewCycleState(), st.MakePod().Namespace("ns").Name("solo").UID("solo").Obj(), nil)
	if !h.pl.status.leading.Open() {
		t.Error("a scheduling cycle did not start the status writer")
	}
}

// A member released with an earlier round, whose binding goroutine runs its Unreserve only once
// the group's next round has begun, gives its place back and nothing more: it neither ends the new
// round nor reads the scheduler's snapshot, which the scheduling goroutine is renewing meanwhile
// for the next cycle (run with -race).
func TestALateUnreserveFromAnEarlierRoundLeavesTheNewRoundAlone(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	// Round 1: a1 waits, a2 fits nowhere, a1 is released.
	if st := h.pl.Reserve(h.ctx, framework.NewCycleState(), a1, "node"); !st.IsSuccess() {
		t.Fatal(st)
	}
	a1State := framework.NewCycleState()
	st, timeout := h.pl.Permit(h.ctx, a1State, a1, "node")
	if !st.IsWait() {
		t.Fatalf("Permit(a1): %v", st)
	}
	h.fh.AddWaitingPod(a1, map[string]time.Duration{Name: timeout})
	doneA1 := make(chan *fwk.Status, 1)
	go func() { doneA1 <- h.fh.WaitOnPermit(h.ctx, a1) }()
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a2, rejectedOn("node"))
	if s := verdict(t, doneA1); s.IsSuccess() {
		t.Fatalf("a1 was let through: %v", s)
	}

	// Round 2, after the backoff: a3 waits.
	h.eventually("the end of the backoff", func() bool { return !standsAside(h, a3) })
	_, doneA3 := h.waitAtPermit(a3)

	// Only now does a1's binding goroutine get to its Unreserve, while the scheduling goroutine
	// starts the next cycle.
	unreserved := make(chan struct{})
	go func() {
		defer close(unreserved)
		h.pl.Unreserve(h.ctx, a1State, a1, "node")
	}()
	h.sees(onNode(a3, "node"))
	<-unreserved

	stillWaiting(t, "a3, in the new round", doneA3)
	if h.pl.groups.Holds(keyA, a1.UID) {
		t.Error("a1 still holds its place after its Unreserve")
	}
	h.fh.RejectWaitingPod(a3.UID)
}

// A member released after it waited at Permit loses the nominated node that kube-scheduler wrote
// for it before the wait (and does not clear itself), so its room is not kept for it while its
// group stands aside; a member turned down before Permit is not written to.
func TestAReleasedMemberLosesItsNominatedNode(t *testing.T) {
	nominated := func(p *v1.Pod) *v1.Pod {
		p = p.DeepCopy()
		p.Status.NominatedNodeName = "node"
		return p
	}
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, nominated(a1), nominated(a2), a3)
	if st := h.pl.Reserve(h.ctx, framework.NewCycleState(), a1, "node"); !st.IsSuccess() {
		t.Fatal(st)
	}
	a1State := framework.NewCycleState()
	if st, _ := h.pl.Permit(h.ctx, a1State, a1, "node"); !st.IsWait() {
		t.Fatalf("Permit(a1): %v", st)
	}
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a3, rejectedOn("node"))
	h.pl.Unreserve(h.ctx, a1State, a1, "node")
	h.pl.Unreserve(h.ctx, framework.NewCycleState(), a2, "node") // turned down before Permit

	for name, want := range map[string]string{"a1": "", "a2": "node"} {
		got, err := h.kube.CoreV1().Pods("ns").Get(h.ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.NominatedNodeName != want {
			t.Errorf("%s: nominatedNodeName %q, want %q", name, got.Status.NominatedNodeName, want)
		}
	}
}

// Members a failed round released are rejected at once but give their reservations back only in
// their binding goroutines' Unreserve, which can run after the group's backoff ended and its next
// member reached Permit. That member must wait for a quorum of its own round: the released members
// never bind. Two room events right after the failure ended the backoff at once, and then the
// member was let through alone, and bound (the topology simulation's g0338).
func TestMembersAReleaseRejectedDoNotCompleteTheNextRound(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	_, doneA1 := h.waitAtPermit(a1)
	_, doneA2 := h.waitAtPermit(a2)
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a3, rejectedOn("node"))
	for _, done := range []<-chan *fwk.Status{doneA1, doneA2} {
		if s := verdict(t, done); s.IsSuccess() {
			t.Fatalf("a released member was let through: %v", s)
		}
	}
	// Room appears twice; the backoff ends at its floor, not at once.
	h.pl.groups.RoomFreed()
	h.pl.groups.RoomFreed()
	if !standsAside(h, a3) {
		t.Fatal("two room events ended the backoff at once; want it to last its floor")
	}
	h.eventually("the end of the backoff", func() bool { return !standsAside(h, a3) })

	// a1's and a2's Unreserves have not run yet.
	st, doneA3 := h.waitAtPermit(a3)
	if doneA3 == nil {
		t.Fatalf("a3 at Permit: %v; want it to wait, since a1 and a2 were released and will not bind", st)
	}
	stillWaiting(t, "a3", doneA3)
	h.fh.RejectWaitingPod(a3.UID)
}

// standsAside reports whether PreEnqueue holds pod back because its group stands aside after a
// failed round.
func standsAside(h *harness, pod *v1.Pod) bool {
	return strings.Contains(h.pl.PreEnqueue(h.ctx, pod).Message(), "stands aside")
}

// A member that another plugin's PreFilter refused (ElasticQuota's fair share here) ends its
// group's round, which gives back what it held, but the group does not stand aside: the scheduler
// gives every node that plugin's status, and the group waits for the member to be let in, which
// that plugin does on the event that can help. A member that no node took still sets the backoff
// (TestPostFilter).
func TestAPreFilterRefusalEndsTheRoundWithoutABackoff(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	_, done := h.waitAtPermit(a1)
	refused := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "quota team-a/quota would be above its fair share")
	refused.SetPlugin("ElasticQuota")
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a2, framework.NewNodeToStatus(nil, refused))
	s := verdict(t, done)
	if s.IsSuccess() || !strings.Contains(s.Message(), "waits for that member to be let in") {
		t.Fatalf("a1's verdict: %v, want released to wait for a2", s)
	}
	h.pl.Unreserve(h.ctx, nil, a1, "node")
	if st := h.pl.PreEnqueue(h.ctx, a2); !st.IsSuccess() {
		t.Errorf("the refused member was held: %v", st)
	}
	// As the scheduler wrote a1 after its rejection: a member never tried would go in once.
	if st := h.pl.PreEnqueue(h.ctx, told(a1)); st.IsSuccess() || strings.Contains(st.Message(), "stands aside") {
		t.Errorf("a released member: %v, want held for the refused member, not standing aside", st)
	}
}
