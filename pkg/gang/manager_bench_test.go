package gang

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
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
					m.PodChanged(keyA, p.UID, p)
					m.Admit(keyA, p, func(g groupView) (parkReason, bool) { return parkedTooFew, g.Ready() >= int32(size) })
					m.Reserve(keyA, p, "node")
					m.Permit(keyA, p, int32(size), testTimeout)
					if n++; n == b.N {
						break
					}
				}
				b.StopTimer()
				for _, p := range pods {
					m.PodChanged(keyA, p.UID, nil)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkNoNodeBecause measures what summing up a failed member's statuses costs PostFilter, on
// a cluster of 5000 nodes that a Filter plugin turned away for one of three reasons, and on one a
// PreFilter plugin turned away whole: the price of telling every member why its group waits.
func BenchmarkNoNodeBecause(b *testing.B) {
	nodes := make([]*v1.Node, 5000)
	explicit := map[string]*fwk.Status{}
	reasons := []string{"Insufficient cpu", "Insufficient memory", "node(s) had untolerated taint {gpu: }"}
	for i := range nodes {
		nodes[i] = st.MakeNode().Name(fmt.Sprintf("node-%d", i)).Obj()
		explicit[nodes[i].Name] = fwk.NewStatus(fwk.Unschedulable, reasons[i%len(reasons)])
	}
	for _, tc := range []struct {
		name     string
		statuses fwk.NodeToStatusReader
	}{
		{"Filter", framework.NewNodeToStatus(explicit, fwk.NewStatus(fwk.UnschedulableAndUnresolvable))},
		{"PreFilter", framework.NewNodeToStatus(nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "quota q: cpu used 0, requested 3, max 2"))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := newHarness(b, nil)
			h.snapshot.SharedLister = schedcache.NewSnapshot(nil, nodes)
			b.ReportAllocs()
			for b.Loop() {
				h.pl.noNodeBecause(tc.statuses, nil)
			}
		})
	}
}
