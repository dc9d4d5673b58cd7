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
