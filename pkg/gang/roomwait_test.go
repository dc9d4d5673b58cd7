package gang

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
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
