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
	// Built once, as the scheduler builds it: what is measured is Less.
	pl := &QOSSort{groups: &podgroup.Order{}}
	for _, tc := range []struct {
		name string
		less func() bool
	}{
		{"QOSSort", func() bool { return pl.Less(e1, e2) }},
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

// BenchmarkLessNativeGroups compares two native pod group entities, whose keys are read once per
// entity and then looked up.
func BenchmarkLessNativeGroups(b *testing.B) {
	pl := &QOSSort{groups: &podgroup.Order{}}
	e1, e2 := native("a", t0, t0.Add(1)), native("b", t0.Add(1), t0)
	b.ReportAllocs()
	for b.Loop() {
		if !pl.Less(e1, e2) {
			b.Fatal("the older group sorts second")
		}
	}
}
