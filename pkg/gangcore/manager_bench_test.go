package gangcore

import (
	"fmt"
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
