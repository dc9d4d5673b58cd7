package gangcore

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/internal/fakeclock"
	"github.com/berth-sched/berth/pkg/amount"
)

// admitForRoom runs PreEnqueue's admission for pod, which has been tried before (its
// PodScheduled condition says it is unschedulable), and reports whether it was let in.
func admitForRoom(m *Manager, pod *v1.Pod) bool {
	return m.Enqueue(keyA, told(pod), &podGroup{}).Reason == 0
}

// takeActivated runs the timers due now and returns, sorted, the pods activated since the last call.
func takeActivated(c *fakeclock.Clock, rec *testRecorder) []string {
	c.Step(0)
	got := rec.activated
	rec.activated = nil
	sort.Strings(got)
	return got
}

// A group that holds nothing and whose member finds no room waits without a timer of
// backoffBase: its other members are held, the waiter is not, and when the waiter is let in the
// others are activated at once. The backstop starts at minRoomBackstop and doubles; a deleted waiter
// ends the wait.
func TestWaitForRoom(t *testing.T) {
	m, c, rec := testManager()
	activated := func() []string { return takeActivated(c, rec) }
	if out := m.MemberFailed(keyA, a1, 3, noRelease, Cause{Why: "could not place member a1"}); out.Verdict != VerdictNone {
		t.Fatalf("a group that holds nothing failed a round: %+v", out)
	}
	for _, p := range []*v1.Pod{a2, a3} {
		if admitForRoom(m, p) {
			t.Fatalf("%s admitted while its group waits for room", p.Name)
		}
		if r, _ := m.ParkedReason(keyA, p.UID); r != ParkedNoRoom {
			t.Fatalf("%s parked for %v, want ParkedNoRoom", p.Name, r)
		}
	}
	c.Step(minRoomBackstop - time.Millisecond)
	if got := activated(); len(got) != 0 {
		t.Fatalf("woken before the backstop: %v", got)
	}
	// The waiter comes back (its own plugins requeued it on a room event): it is let in, and its
	// siblings follow once it passes PreFilter's admission.
	if !admitForRoom(m, a1) {
		t.Fatal("the waiter was held back")
	}
	if a := m.Admit(keyA, a1, &podGroup{}); a.Reason != 0 {
		t.Fatalf("the waiter was refused in PreFilter: %+v", a)
	}
	if diff := cmp.Diff([]string{"a2", "a3"}, activated()); diff != "" {
		t.Errorf("activated when the waiter was let in (-want +got):\n%s", diff)
	}

	// A second wait's backstop is twice the first; it wakes everyone parked, waiter included.
	m.MemberFailed(keyA, a2, 3, noRelease, Cause{Why: "could not place member a2"})
	admitForRoom(m, a3)
	c.Step(2*minRoomBackstop - time.Millisecond)
	if got := activated(); len(got) != 0 {
		t.Fatalf("woken before the doubled backstop: %v", got)
	}
	c.Step(time.Millisecond)
	if diff := cmp.Diff([]string{"a2", "a3"}, activated()); diff != "" {
		t.Errorf("woken by the backstop (-want +got):\n%s", diff)
	}
	if !admitForRoom(m, a3) {
		t.Error("held after the backstop")
	}

	// A deleted waiter ends the wait at once.
	m.MemberFailed(keyA, a1, 3, noRelease, Cause{Why: "could not place member a1"})
	admitForRoom(m, a3)
	m.PodChanged(keyA, a1.UID, PodGone)
	if diff := cmp.Diff([]string{"a3"}, activated()); diff != "" {
		t.Errorf("woken when the waiter was deleted (-want +got):\n%s", diff)
	}
}

// A waiter let in by a room event does not end its group's wait until PreFilter lets it through
// with the room the group needs: its siblings stay parked while it is tried. They used to be
// activated as the waiter passed PreEnqueue, and each room event then cost every waiting group a
// cycle per member, three of them futile (BenchmarkBacklog: 3,973 cycles for one freeing among
// 1,000 waiting groups of 4, 2,933 of them siblings told that their group waits for room).
func TestSiblingsWaitUntilTheWaiterFits(t *testing.T) {
	m, c, rec := testManager()
	activated := func() []string { return takeActivated(c, rec) }
	m.MemberFailed(keyA, a1, 3, noRelease, Cause{Why: "could not place member a1"})
	for _, p := range []*v1.Pod{a2, a3} {
		admitForRoom(m, p)
	}
	if !admitForRoom(m, a1) {
		t.Fatal("the waiter was held back in PreEnqueue")
	}
	if got := activated(); len(got) != 0 {
		t.Fatalf("siblings activated when the waiter passed PreEnqueue: %v", got)
	}
	// The free room cannot hold the group: Filter turns the waiter away, and it waits again.
	if a := m.Admit(keyA, a1, &podGroup{short: true}); a.Reason != 0 || !a.RoomShort {
		t.Fatalf("PreFilter's admission with too little room: %+v, want let on to Filter as RoomShort", a)
	}
	m.MemberFailed(keyA, a1, 3, noRelease, Cause{Why: "could not place member a1"})
	if got := activated(); len(got) != 0 {
		t.Fatalf("siblings activated for a waiter the room could not hold: %v", got)
	}
	for _, p := range []*v1.Pod{a2, a3} {
		if r, parked := m.ParkedReason(keyA, p.UID); !parked || r != ParkedNoRoom {
			t.Fatalf("%s parked %v for %v, want ParkedNoRoom", p.Name, parked, r)
		}
	}
	// The room holds it: the wait ends and the siblings follow.
	admitForRoom(m, a1)
	if a := m.Admit(keyA, a1, &podGroup{}); a.Reason != 0 || a.RoomShort {
		t.Fatalf("PreFilter's admission with room: %+v", a)
	}
	if diff := cmp.Diff([]string{"a2", "a3"}, activated()); diff != "" {
		t.Errorf("activated when the waiter fit (-want +got):\n%s", diff)
	}
	if m.IsRoomWaiter(keyA, a1.UID) {
		t.Error("the wait did not end")
	}
}

// The waiter alone is the group's room waiter, which Gang's hint requeues; a quota appearing in
// the group's namespace ends the wait, and one elsewhere does not.
func TestRoomWaiterAndQuota(t *testing.T) {
	m, c, rec := testManager()
	m.MemberFailed(keyA, a1, 3, noRelease, Cause{Why: "could not place member a1"})
	admitForRoom(m, a2)
	if !m.IsRoomWaiter(keyA, a1.UID) {
		t.Error("a1 is not its group's room waiter")
	}
	if m.IsRoomWaiter(keyA, a2.UID) {
		t.Error("a2, held for the waiter, is taken for the room waiter")
	}
	m.EndRoomWaitsIn(keyA.Namespace + "-other")
	c.Step(0)
	if len(rec.activated) != 0 || !m.IsRoomWaiter(keyA, a1.UID) {
		t.Fatalf("a quota in another namespace ended the wait: activated %v", rec.activated)
	}
	m.EndRoomWaitsIn(keyA.Namespace)
	c.Step(0)
	sort.Strings(rec.activated)
	if diff := cmp.Diff([]string{"a1", "a2"}, rec.activated); diff != "" {
		t.Errorf("activated by a quota in the group's namespace (-want +got):\n%s", diff)
	}
	if m.IsRoomWaiter(keyA, a1.UID) {
		t.Error("the wait did not end")
	}
}

// waitingGroups builds a manager that holds n groups of 4 members that wait for room, as
// after a full cluster turned them all away (BenchmarkBacklog): each group's first member is its
// waiter, turned away by the sum of room, and the other three are parked behind it. It returns
// the manager and every group's members, oldest group first.
func waitingGroups(n int) (*Manager, [][]*v1.Pod) {
	m, _, _ := testManager()
	groups := make([][]*v1.Pod, n)
	for g := range groups {
		name := fmt.Sprintf("g%04d", g)
		key := types.NamespacedName{Namespace: "ns", Name: name}
		for i := range 4 {
			p := member(name, fmt.Sprintf("%s-%d", name, i), fmt.Sprintf("uid-%s-%d", name, i))
			m.PodChanged(key, p.UID, PodReady)
			groups[g] = append(groups[g], p)
		}
		// Its place in QOSSort's order, before any group waits and holds the others back.
		m.Enqueue(key, groups[g][0], &podGroup{created: t0.Add(time.Duration(g) * time.Millisecond)})
	}
	for g := range groups {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("g%04d", g)}
		m.MemberFailed(key, groups[g][0], 4, nil, Cause{Why: "could not place member " + groups[g][0].Name})
		m.NoteNeed(key, RoomNeed{All: amount.Amount{"cpu": 4000, "pods": 4 * amount.One}, One: amount.Amount{"cpu": 1000, "pods": amount.One}})
		for _, p := range groups[g][1:] {
			m.Park(key, p, ParkedNoRoom)
		}
	}
	return m, groups
}

// TestTurnHandOver: when an older group's wait for room ends (its waiter passed PreEnqueue on
// a room event and is on its way to the active queue), a younger group that holds nothing gives
// way to it until it is tried: its need stays in OlderWaiting and the younger group's turn waits
// for it. Without that, a younger member popped in between took the room (issue 28, one run in
// ten of TestBacklogShort). Once the older group takes its turn, neither holds the younger back.
func TestTurnHandOver(t *testing.T) {
	m, groups := waitingGroups(2)
	older := types.NamespacedName{Namespace: "ns", Name: "g0000"}
	younger := types.NamespacedName{Namespace: "ns", Name: "g0001"}
	turnOf := func(key types.NamespacedName) time.Duration {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.turnRemaining(key, m.groups[key], m.clock.Now())
	}
	if got := m.OlderWaiting(younger); len(got) != 1 || got[0].Key != older {
		t.Fatalf("while both wait: older waiting %v, want %v", got, older)
	}
	// The older waiter passes PreEnqueue: its wait ends, its turn has not been taken.
	if a := m.Enqueue(older, groups[0][0], &podGroup{}); a.Reason != 0 {
		t.Fatalf("the older waiter was held: %v", a.Msg)
	}
	if got := m.OlderWaiting(younger); len(got) != 1 || got[0].Key != older {
		t.Errorf("after the older wait ended: older waiting %v, want %v", got, older)
	}
	if d := turnOf(younger); d <= 0 {
		t.Errorf("after the older wait ended: the younger group's turn comes at once, want it to give way")
	}
	if d := turnOf(older); d != 0 {
		t.Errorf("the older group gives way for %v, to no one older", d)
	}
	// The older group's member is admitted by PreFilter: the hand-over is done.
	if a := m.Admit(older, groups[0][0], &podGroup{}); a.Reason != 0 {
		t.Fatalf("the older waiter was refused in PreFilter: %v", a.Msg)
	}
	if got := m.OlderWaiting(younger); len(got) != 0 {
		t.Errorf("after the older group took its turn: older waiting %v, want none", got)
	}
	if d := turnOf(younger); d != 0 {
		t.Errorf("after the older group took its turn: the younger gives way for %v, want 0", d)
	}
}

// Groups parked for their turn behind a round are woken one at a time, oldest first, as each
// turn passes: waking them all made PreEnqueue park all but one again, under the queue's lock, for
// every round (n² with n gangs queued). A turn timer does not wake a group whose turn has not come.
func TestTurnsAreHandedOnOldestFirst(t *testing.T) {
	m, c, rec := testManager()
	activated := func() []string { return takeActivated(c, rec) }
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }
	pods := map[string][]*v1.Pod{}
	for i, name := range []string{"r", "g1", "g2", "g3"} {
		for j := range 2 {
			p := member(name, fmt.Sprintf("%s-%d", name, j), fmt.Sprintf("uid-%s-%d", name, j))
			m.PodChanged(key(name), p.UID, stateOf(p))
			pods[name] = append(pods[name], p)
		}
		m.Enqueue(key(name), pods[name][0], &podGroup{created: t0.Add(time.Duration(i) * time.Second)})
	}
	// r's round is under way; the others' members come in youngest first and give way.
	m.Reserve(key("r"), pods["r"][0], "n1")
	m.Permit(key("r"), pods["r"][0], 2, time.Minute)
	for _, name := range []string{"g3", "g2", "g1"} {
		for _, p := range pods[name] {
			if a := m.Enqueue(key(name), p, &podGroup{}); a.Reason == 0 {
				t.Fatalf("%s admitted during another group's round", p.Name)
			}
		}
	}
	// Their turn timers fire once r's round has held them for turnMax: only the oldest is woken,
	// and the younger ones give way to it.
	c.Step(testBackoffBase / 2)
	if got := activated(); len(got) != 0 {
		t.Fatalf("woken while r's round lasts: %v", got)
	}
	c.Step(testBackoffBase / 2)
	if got, want := activated(), []string{"g1-0", "g1-1"}; !cmp.Equal(got, want) {
		t.Fatalf("woken by their timers: %v, want %v", got, want)
	}
	// r's round ends: g2 and g3 still give way to g1, woken for its turn.
	m.Reserve(key("r"), pods["r"][1], "n1")
	if v := m.Permit(key("r"), pods["r"][1], 2, time.Minute); len(v.Allow) != 1 {
		t.Fatalf("r's quorum: %+v", v)
	}
	if got := activated(); len(got) != 0 {
		t.Fatalf("woken when r's round ended, with g1 woken for its turn: %v", got)
	}
	// g1 takes its turn and runs its round; when it ends, g2 is next, and g3 after g2.
	for i, name := range []string{"g1", "g2"} {
		next := []string{"g2", "g3"}[i]
		m.turnTaken(key(name))
		for _, p := range pods[name] {
			m.Reserve(key(name), p, "n1")
			m.Permit(key(name), p, 2, time.Minute)
		}
		if got, want := activated(), []string{next + "-0", next + "-1"}; !cmp.Equal(got, want) {
			t.Fatalf("woken when %s's round ended: %v, want %v", name, got, want)
		}
	}
}

// A group woken for its turn whose pods all go before it is tried holds no younger group back,
// and one that is never tried holds them back for turnMax at most. A try of
// TestManyGangsCompeteForRoomForAFew waited on a group of the try before, deleted after its wait
// for room ended.
func TestAGroupGoneOrLateHoldsNoOneBack(t *testing.T) {
	for _, gone := range []bool{true, false} {
		m, groups := waitingGroups(2)
		c := m.clock.(*fakeclock.Clock)
		older := types.NamespacedName{Namespace: "ns", Name: "g0000"}
		younger := types.NamespacedName{Namespace: "ns", Name: "g0001"}
		if a := m.Enqueue(older, groups[0][0], &podGroup{}); a.Reason != 0 {
			t.Fatalf("the older waiter was held: %v", a.Msg)
		}
		if got := m.OlderWaiting(younger); len(got) != 1 {
			t.Fatalf("after the older wait ended: older waiting %v, want it", got)
		}
		if gone {
			for _, p := range groups[0] {
				m.PodChanged(older, p.UID, PodGone)
			}
		} else {
			c.Step(m.turnMax)
		}
		if got := m.OlderWaiting(younger); len(got) != 0 {
			t.Errorf("gone %v: older waiting %v, want none", gone, got)
		}
	}
}

// A round that a member's PreFilter refusal ends (another plugin's: a quota's fair share, say)
// gives back what it held, but the group does not stand aside: it waits, as a group that holds
// nothing, for the refused member, which that plugin requeues on the event that lets it in. With a
// backoff, the group stayed out for all of it after the event (issue 42). A member that fits
// nowhere still sets the backoff.
func TestARoundAPreFilterEndsWaitsForTheRefusedMember(t *testing.T) {
	m, c, rec := testManager()
	activated := func() []string { return takeActivated(c, rec) }
	m.Reserve(keyA, a1, "node")
	m.Permit(keyA, a1, 3, testTimeout)
	m.Reserve(keyA, a2, "node")
	m.Permit(keyA, a2, 3, testTimeout)
	out := m.MemberFailed(keyA, a3, 3, noRelease, Cause{Why: "could not place member a3: above its fair share", ByPreFilter: true})
	if out.Verdict != VerdictFail || out.Failure.Backoff != 0 {
		t.Fatalf("the round's failure: %+v, want it failed without a backoff", out)
	}
	if diff := cmp.Diff(uidList(a1, a2), out.Failure.Released); diff != "" {
		t.Errorf("released (-want +got):\n%s", diff)
	}
	m.Unreserve(keyA, a1, 3, nil, "")
	m.Unreserve(keyA, a2, 3, nil, "")
	for _, p := range []*v1.Pod{a1, a2} {
		if r, _ := m.ParkedReason(keyA, p.UID); r != ParkedNoRoom {
			t.Errorf("%s parked for %v, want ParkedNoRoom", p.Name, r)
		}
	}
	// Let in at once by its plugin, the refused member is not held, and its siblings follow it.
	if got := activated(); len(got) != 0 {
		t.Errorf("activated before the refused member was let in: %v", got)
	}
	if !admitForRoom(m, a3) {
		t.Fatal("the refused member was held back")
	}
	if a := m.Admit(keyA, a3, &podGroup{}); a.Reason != 0 {
		t.Fatalf("the refused member was refused by Gang: %+v", a)
	}
	if diff := cmp.Diff([]string{"a1", "a2"}, activated()); diff != "" {
		t.Errorf("activated once the refused member was let in (-want +got):\n%s", diff)
	}

	// The same round ended by a member that fits nowhere: the group stands aside.
	m.Reserve(keyA, a1, "node")
	m.Permit(keyA, a1, 3, testTimeout)
	if out := m.MemberFailed(keyA, a2, 3, noRelease, Cause{Why: "could not place member a2"}); out.Failure.Backoff != testBackoffBase {
		t.Errorf("a member that fits nowhere: %+v, want a backoff of %v", out, testBackoffBase)
	}
}
