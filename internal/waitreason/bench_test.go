package waitreason

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/why"
)

// benchFixture is a cluster of nodes nodes of 64 cpu, bound pods spread over them (2 cpu each, so
// every node is nearly full), and waiting pods of 8 cpu that fit nowhere, all waiting long.
func benchFixture(b *testing.B, nodes, bound, waitingPods int) *fixture {
	b.Helper()
	f := newFixture(b, DefaultConfig())
	f.p.logger = logr.Discard()
	for i := range nodes {
		f.node(fmt.Sprintf("node-%04d", i), "64")
	}
	for i := range bound {
		p := waiting(fmt.Sprintf("bound-%05d", i), "6", epoch.Add(-time.Hour))
		p.Spec.NodeName = fmt.Sprintf("node-%04d", i%nodes)
		p.Status.Phase = v1.PodRunning
		p.Status.Conditions = nil
		f.cache(p)
	}
	for i := range waitingPods {
		p := waiting(fmt.Sprintf("waiting-%05d", i), "8", epoch.Add(-time.Duration(i+2)*time.Minute))
		p.Spec.Containers[0].Resources.Requests[v1.ResourceMemory] = resource.MustParse("1Gi")
		f.cache(p)
	}
	return f
}

// BenchmarkSweep is one sweep of the default MaxPods (50) over 1,000 nodes and 10,000 bound pods,
// with 200 pods waiting: the steady state, in which every answer is the one the pod already has
// (no write), so what is measured is selection, one copy of the cluster and 50 why.Of calls.
func BenchmarkSweep(b *testing.B) {
	benchSweeps(b, benchFixture(b, 1000, 10000, 200))
}

// benchSweeps times f's sweeps once five have run: every answer is then remembered as written, so a
// sweep writes nothing.
func benchSweeps(b *testing.B, f *fixture) {
	ctx := context.Background()
	for range 5 {
		f.p.sweep(ctx)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f.p.sweep(ctx)
	}
}

// BenchmarkSweepGroupMembers is a sweep while a deep backlog of pod groups waits on a small
// cluster, as in test/backlog: 2,000 members of 500 groups of 4 (their PodGroups not read) on 20
// nodes, 50 members answered a sweep. Each answer finds its group's members among the pods.
func BenchmarkSweepGroupMembers(b *testing.B) {
	f := benchFixture(b, 20, 0, 0)
	for i := range 2000 {
		p := waiting(fmt.Sprintf("member-%05d", i), "8", epoch.Add(-time.Duration(i+2)*time.Minute))
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: fmt.Sprintf("group-%03d", i/4)}
		f.cache(p)
	}
	benchSweeps(b, f)
}

// BenchmarkSweepNoneWaiting is a sweep over the same cluster when no pod has waited long: the
// cost every period of a healthy cluster.
func BenchmarkSweepNoneWaiting(b *testing.B) {
	f := benchFixture(b, 1000, 10000, 0)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f.p.sweep(ctx)
	}
}

// BenchmarkWhyOf is one pod's answer over 1,000 nodes and 10,000 bound pods.
func BenchmarkWhyOf(b *testing.B) {
	f := benchFixture(b, 1000, 10000, 1)
	pods, _ := f.p.pods.List(labels.Everything())
	nodes, _ := f.p.nodes.List(labels.Everything())
	in := why.Input{}
	for _, p := range pods {
		in.Pods = append(in.Pods, *p)
		if p.UID == types.UID("waiting-00000") {
			in.Pod = p
		}
	}
	for _, n := range nodes {
		in.Nodes = append(in.Nodes, *n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if w := why.Of(in); w.Cause != why.CauseResources {
			b.Fatalf("cause %s: %s", w.Cause, w.Summary)
		}
	}
}
