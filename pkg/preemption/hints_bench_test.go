package preemption

import (
	"testing"

	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// TestQueueingHintSkips: with async preemption, BerthPreemption registers a pod deletion only so
// that its PreEnqueue gate is asked again; the deletion itself never requeues a pod for it (the
// plugins whose failures preemption resolves decide that, as for DefaultPreemption).
func TestQueueingHintSkips(t *testing.T) {
	hint := asyncHint(t)
	got, err := hint(klog.Background(), st.MakePod().Name("p").Obj(), st.MakePod().Name("victim").Node("n").Obj(), nil)
	if err != nil || got != fwk.QueueSkip {
		t.Errorf("victim deleted: %v (%v), want QueueSkip", got, err)
	}
	if events, _ := (&Preemption{}).EventsToRegister(t.Context()); len(events) != 0 {
		t.Errorf("without async preemption: %d events registered, want none", len(events))
	}
}

// BenchmarkQueueingHints is one answer of BerthPreemption's only hint.
func BenchmarkQueueingHints(b *testing.B) {
	hint := asyncHint(b)
	pod, victim := st.MakePod().Name("p").Obj(), st.MakePod().Name("victim").Node("n").Obj()
	logger := klog.Background()
	b.Run("victim deleted", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got, _ := hint(logger, pod, victim, nil); got != fwk.QueueSkip {
				b.Fatalf("%v, want QueueSkip", got)
			}
		}
	})
}

func asyncHint(t testing.TB) fwk.QueueingHintFn {
	t.Helper()
	events, err := (&Preemption{fts: feature.Features{EnableAsyncPreemption: true}}).EventsToRegister(t.Context())
	if err != nil || len(events) != 1 {
		t.Fatalf("EventsToRegister with async preemption: %v, %v; want one event", events, err)
	}
	return events[0].QueueingHintFn
}
