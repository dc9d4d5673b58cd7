package gang

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// admitForRoom runs the room check of Gang's admit for pod, and ends the wait when it lets the
// pod in, as admit does.
func admitForRoom(m *manager, pod *v1.Pod) bool {
	reason, ok, _ := m.Admit(keyA, pod, func(g groupView) (parkReason, bool) {
		if waits, _ := g.WaitsForRoom(pod.UID); waits {
			return parkedNoRoom, false
		}
		return 0, true
	})
	if ok {
		m.EndRoomWait(keyA)
	}
	return ok && reason == 0
}

// A group that holds nothing and whose member finds no room waits without a timer of
// backoffBase: its other members are held, the waiter is not, and when the waiter is let in the
// others are activated at once. The backstop starts at minRoomBackstop and doubles; a deleted waiter
// ends the wait.
func TestWaitForRoom(t *testing.T) {
	m, c, rec := testManager()
	activated := func() []string {
		c.Step(0)
		got := rec.activated
		rec.activated = nil
		sort.Strings(got)
		return got
	}
	if out := m.MemberFailed(keyA, a1, 3, noRelease, "could not place member a1"); out.Verdict != verdictNone {
		t.Fatalf("a group that holds nothing failed a round: %+v", out)
	}
	for _, p := range []*v1.Pod{a2, a3} {
		if admitForRoom(m, p) {
			t.Fatalf("%s admitted while its group waits for room", p.Name)
		}
		if r, _ := m.ParkedReason(keyA, p.UID); r != parkedNoRoom {
			t.Fatalf("%s parked for %v, want parkedNoRoom", p.Name, r)
		}
	}
	c.Step(minRoomBackstop - time.Millisecond)
	if got := activated(); len(got) != 0 {
		t.Fatalf("woken before the backstop: %v", got)
	}
	// The waiter comes back (its own plugins requeued it on a room event): it is let in, and its
	// siblings follow at once.
	if !admitForRoom(m, a1) {
		t.Fatal("the waiter was held back")
	}
	if diff := cmp.Diff([]string{"a2", "a3"}, activated()); diff != "" {
		t.Errorf("activated when the waiter was let in (-want +got):\n%s", diff)
	}

	// A second wait's backstop is twice the first; it wakes everyone parked, waiter included.
	m.MemberFailed(keyA, a2, 3, noRelease, "could not place member a2")
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
	m.MemberFailed(keyA, a1, 3, noRelease, "could not place member a1")
	admitForRoom(m, a3)
	m.PodChanged(keyA, a1.UID, nil)
	if diff := cmp.Diff([]string{"a3"}, activated()); diff != "" {
		t.Errorf("woken when the waiter was deleted (-want +got):\n%s", diff)
	}
}

// RoomAppeared kicks the waiters of the oldest waiting groups that may sit in backoff: turned
// away within roomBackoff and not kicked since, at most n, oldest first, each at most once per
// roomKickEvery, doubled with each kick. A group whose wait ended is not kicked.
func TestRoomAppeared(t *testing.T) {
	m, c, _ := testManager()
	keyB := types.NamespacedName{Namespace: "ns", Name: "b"}
	keyC := types.NamespacedName{Namespace: "ns", Name: "c"}
	c1 := member("c", "c1", "uid-c1")
	// Groups by age: c, then a, then b.
	age := map[string]time.Time{"c1": t0, "a1": t0.Add(time.Second), "b1": t0.Add(2 * time.Second)}
	older := olderGroup(func(p *v1.Pod) time.Time { return age[p.Name] })
	kick := func() []string {
		var n []string
		for _, p := range m.RoomAppeared(2, older) {
			n = append(n, p.Name)
		}
		return n
	}
	m.MemberFailed(keyB, b1, 2, noRelease, "could not place member b1")
	m.MemberFailed(keyA, a1, 3, noRelease, "could not place member a1")
	m.MemberFailed(keyC, c1, 2, noRelease, "could not place member c1")
	if got := kick(); !cmp.Equal(got, []string{"c1", "a1"}) {
		t.Errorf("first room: kicked %v, want the two oldest, c1 and a1", got)
	}
	// Not turned away since: nothing to kick but b1, now among the two oldest that may wait.
	c.Step(roomKickEvery / 4)
	if got := kick(); !cmp.Equal(got, []string{"b1"}) {
		t.Errorf("room again: kicked %v, want b1 only", got)
	}
	// c1 is turned away again soon after its kick: it is kicked when roomKickEvery has passed.
	c.Step(roomKickEvery / 4)
	m.MemberFailed(keyC, c1, 2, noRelease, "could not place member c1")
	if got := kick(); len(got) != 0 {
		t.Errorf("room within roomKickEvery: kicked %v, want none", got)
	}
	c.Step(roomKickEvery / 2)
	if got := kick(); !cmp.Equal(got, []string{"c1"}) {
		t.Errorf("after roomKickEvery: kicked %v, want c1", got)
	}
	// Its second kick doubles the wait for the third.
	c.Step(roomKickEvery / 4)
	m.MemberFailed(keyC, c1, 2, noRelease, "could not place member c1")
	c.Step(roomKickEvery * 3 / 4)
	if got := kick(); len(got) != 0 {
		t.Errorf("a second kick within twice roomKickEvery: %v", got)
	}
	c.Step(roomKickEvery)
	if got := kick(); !cmp.Equal(got, []string{"c1"}) {
		t.Errorf("after twice roomKickEvery: kicked %v, want c1", got)
	}
	// a's wait ends: a is not kicked again, whatever happens.
	if !admitForRoom(m, a1) {
		t.Fatal("the waiter was held back")
	}
	c.Step(roomKickEvery)
	m.MemberFailed(keyB, b1, 2, noRelease, "could not place member b1")
	if got := kick(); !cmp.Equal(got, []string{"b1"}) {
		t.Errorf("after a's wait ended: kicked %v, want b1", got)
	}
	// Past roomBackoff a waiter is out of the queue's backoff: the hints requeue it directly.
	m.MemberFailed(keyC, c1, 2, noRelease, "could not place member c1")
	c.Step(roomBackoff)
	if got := kick(); len(got) != 0 {
		t.Errorf("kicked past roomBackoff: %v", got)
	}
}
