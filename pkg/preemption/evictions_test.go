package preemption

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A victim an earlier preemption chose goes to the evaluator as terminating while its deletion
// does not show, so that the executor does not ask for it again; once it shows, or after
// evictionShowsWithin without it, it is left as it is.
func TestEvictionsUnderwayGoAsTerminating(t *testing.T) {
	now := time.Unix(1000, 0)
	e := newEvictions()
	e.now = func() time.Time { return now }
	mk := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)}}
	}
	chosen, other := mk("chosen"), mk("other")
	e.add([]*v1.Pod{chosen})

	got := e.asTerminating([]*v1.Pod{other, chosen})
	if got[0] != other || got[0].DeletionTimestamp != nil {
		t.Error("a victim no preemption chose before is changed, want it as it is")
	}
	if got[1].DeletionTimestamp == nil || got[1].UID != chosen.UID {
		t.Error("a victim whose eviction is underway is not handed over as terminating")
	}
	if chosen.DeletionTimestamp != nil {
		t.Error("asTerminating changed the snapshot's pod, want a copy")
	}

	terminating := chosen.DeepCopy()
	terminating.DeletionTimestamp = &metav1.Time{Time: now}
	if e.underway(terminating) {
		t.Error("a victim whose deletion shows is left to upstream's rules, want it not underway")
	}
	now = now.Add(evictionShowsWithin + time.Second)
	if e.underway(chosen) {
		t.Error("an eviction that never showed is still underway after evictionShowsWithin")
	}
	e.add(nil)
	if len(e.since) != 0 {
		t.Errorf("%d expired evictions kept, want none", len(e.since))
	}
}
