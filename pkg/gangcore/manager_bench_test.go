package gangcore

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// BenchmarkMemberCost measures what one member costs the manager from arrival to quorum (the pod
// informer's count, Reserve, Permit), per member, for groups of growing size: the cost must not
// grow with the group.
func BenchmarkMemberCost(b *testing.B) {
	for _, size := range []int{4, 64, 1024} {
		b.Run(fmt.Sprintf("groupSize=%d", size), func(b *testing.B) {
			pods := make([]*v1.Pod, size)
			for i := range pods {
				pods[i] = member("a", fmt.Sprintf("a%d", i), fmt.Sprintf("uid-%d", i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; n < b.N; {
				b.StopTimer()
				m, _, _ := testManager()
				b.StartTimer()
				for _, p := range pods {
					m.PodChanged(keyA, p.UID, PodReady)
					m.Enqueue(keyA, p, &podGroup{minMember: int32(size)})
					m.Reserve(keyA, p, "node")
					m.Permit(keyA, p, int32(size), testTimeout)
					if n++; n == b.N {
						break
					}
				}
				b.StopTimer()
				for _, p := range pods {
					m.PodChanged(keyA, p.UID, PodGone)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkRoomEvent measures what a room event costs the manager in a deep backlog: 1,000 groups
// wait for room (BenchmarkBacklog's), and the queue runs PreEnqueue for every waiter, in no
// particular order; all but one give way to an older group's turn. Then each group's turn comes,
// oldest first, and its waiter, found too big for the room, waits again and passes the turn on:
// the aftermath of a freeing that held fewer groups than wait.
func BenchmarkRoomEvent(b *testing.B) {
	const n = 1000
	order := rand.New(rand.NewPCG(1, 2)).Perm(n)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m, groups := waitingGroups(n)
		waiters := make([]*v1.Pod, n)
		for i, g := range groups {
			waiters[i] = told(g[0])
		}
		b.StartTimer()
		for _, i := range order {
			m.Enqueue(keyOf(waiters[i]), waiters[i], &podGroup{})
		}
		for _, w := range waiters {
			key := keyOf(w)
			m.wakeTurns()
			if a := m.Enqueue(key, w, &podGroup{}); a.Reason != 0 {
				b.Fatalf("%s's turn came, but PreEnqueue held it: %s", key, a.Msg)
			}
			if a := m.Admit(key, w, &podGroup{short: true}); !a.RoomShort {
				b.Fatalf("%s: admitted, want it found too big for the room (%s)", key, a.Msg)
			}
			m.MemberFailed(key, w, 4, nil, Cause{Why: "no room"})
		}
	}
}
