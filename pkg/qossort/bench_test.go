package qossort

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"

	"github.com/berth-sched/berth/pkg/podgroup"
)

// BenchmarkLess compares two plain pods of one priority and class, the queue's most common
// comparison, as QOSSort and as the stock PrioritySort do.
func BenchmarkLess(b *testing.B) {
	pod := func(name string) *v1.Pod {
		p := burstable(name).Obj()
		p.Status.QOSClass = v1.PodQOSBurstable // as the apiserver stores it
		return p
	}
	e1, e2 := queued(b, pod("a"), t0), queued(b, pod("b"), t0.Add(1))
	for _, tc := range []struct {
		name string
		less func() bool
	}{
		{"QOSSort", func() bool { return (&QOSSort{groups: &podgroup.Order{}}).Less(e1, e2) }},
		{"PrioritySort", func() bool { return (&queuesort.PrioritySort{}).Less(e1, e2) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !tc.less() {
					b.Fatal("the earlier pod sorts second")
				}
			}
		})
	}
}
