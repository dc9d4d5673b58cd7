package gangcore

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// A Wake of the group while Admit's check runs without the lock would miss the pod, which is not
// parked yet: the rules run again, and a pod the second check refuses is parked, for the next Wake
// to find. A group woken on every check is checked under the lock the third time.
func TestAdmitChecksAgainAfterAWake(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		wakeEvery                 bool
		wantChecks, wantUnderLock int
	}{
		{name: "one wake", wantChecks: 2},
		{name: "a wake every check", wakeEvery: true, wantChecks: maxScans, wantUnderLock: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := testManager()
			m.PodChanged(keyA, a1.UID, PodReady)
			scans, underLock := 0, 0
			pg := &podGroup{check: func() (ParkReason, string, bool) {
				scans++
				if !m.mu.TryLock() {
					underLock++
					return ParkedTopology, "", false
				}
				m.mu.Unlock()
				if scans == 1 || tc.wakeEvery {
					m.Wake(keyA, nil, ParkedTopology)
				}
				return ParkedTopology, "", false
			}}
			if a := m.Admit(keyA, a1, pg); a.Reason != ParkedTopology {
				t.Fatalf("Admit = %+v; want the check's refusal", a)
			}
			if pg.checks != tc.wantChecks || scans != tc.wantChecks || underLock != tc.wantUnderLock {
				t.Errorf("%d checks read, %d run, %d under the lock; want %d, %d, %d", pg.checks, scans, underLock, tc.wantChecks, tc.wantChecks, tc.wantUnderLock)
			}
			if r, parked := m.ParkedReason(keyA, a1.UID); !parked || r != ParkedTopology {
				t.Errorf("a1 parked: %v, %v; want for its topology", r, parked)
			}
			if woken := m.Wake(keyA, nil, ParkedTopology); len(woken) != 1 {
				t.Errorf("the next Wake took %d pods, want a1", len(woken))
			}
		})
	}
}

// A native group's failed cycle checks the freeings Gang recorded against its snapshot outside the
// manager's lock: a minute's deletions can be many, and every group's PreEnqueue, Permit and
// hints wait on that lock. A freeing that comes while the check runs, which the check's copy of
// the record lacks, still makes the group's wait for room short.
func TestGroupCycleChecksFreeingsOutsideTheManagersLock(t *testing.T) {
	for _, tc := range []struct {
		name        string
		freeDuring  bool
		wantShortly bool
	}{
		{name: "every freeing shown"},
		{name: "a freeing during the check", freeDuring: true, wantShortly: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, clock, _ := testManager()
			if m.freed == nil {
				t.Fatal("the manager keeps no record of freeings while it serves native groups")
			}
			for i := range 100 {
				m.PodFreed(types.UID(fmt.Sprint("gone-", i)), "n1", "")
			}
			since := m.RoomFreedCount()
			reads, underLock := 0, 0
			view := SnapshotView{
				PodVersion: func(types.UID, string) (string, bool) {
					reads++
					if !m.mu.TryLock() {
						underLock++
						return "", false
					}
					m.mu.Unlock()
					if tc.freeDuring && reads == 1 {
						m.PodFreed("late", "n1", "")
					}
					return "", false
				},
				NodeVersion: func(string) (string, bool) { return "", false },
			}
			key := types.NamespacedName{Namespace: "ns", Name: nativePrefix + "a"}
			m.GroupCycleFailed(key, member("a", "a0", "uid-a0"), 3, nil, Cause{Why: "could not place member a0"}, since, view)
			if reads == 0 {
				t.Fatal("the check read no pod: the probe tests nothing")
			}
			if underLock > 0 {
				t.Errorf("%d of %d reads of the snapshot held the manager's lock", underLock, reads)
			}
			m.mu.Lock()
			left := m.groups[key].room.until.Sub(clock.Now())
			m.mu.Unlock()
			if shortly := left <= roomRecheck; shortly != tc.wantShortly {
				t.Errorf("the group waits %v for room; want within %v: %v", left, roomRecheck, tc.wantShortly)
			}
		})
	}
}
