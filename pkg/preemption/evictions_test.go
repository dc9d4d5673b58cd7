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
	e.add([]*v1.Pod{chosen}, func(types.UID) bool { return false })

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
	e.add(nil, nil)
	if len(e.since) != 0 {
		t.Errorf("%d expired evictions kept, want none", len(e.since))
	}

	// A victim waiting at Permit is rejected in memory, and may be bound again soon after: its
	// group's next preemption must evict it with the others.
	waiting := mk("waiting")
	e.add([]*v1.Pod{waiting, chosen}, func(uid types.UID) bool { return uid == waiting.UID })
	if e.underway(waiting) {
		t.Error("a victim waiting at Permit counts as being evicted, want it chosen as any pod when bound again")
	}
	if !e.underway(chosen) {
		t.Error("a bound victim beside a waiting one is not underway")
	}
}

// A preemptor whose own victim, of its own priority (taken for a quota's reclaim or fair sharing),
// is still on its nominated node waits for it, as DefaultPreemption waits for lower-priority
// victims: evaluated again, it chose a second victim on the other node, and the room of the first
// went to another pod (issue 42). It waits also while its status does not show the nomination yet,
// and not for victims of other preemptors.
func TestPreemptorWaitsForItsOwnVictims(t *testing.T) {
	terminating := func(p *v1.Pod) *v1.Pod {
		p = p.DeepCopy()
		p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1000, 0)}
		p.Status.Conditions = []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler}}
		return p
	}
	victim, other := pod("victim", "n1", 0, "1", nil), pod("other", "n1", 0, "1", nil)
	e := newEnv(t, []*v1.Node{node("n1"), node("n2")}, []*v1.Pod{terminating(victim), terminating(other), pod("stays", "n2", 0, "1", nil)})
	preemptor, stranger := pod("preemptor", "", 0, "1", nil), pod("stranger", "", 0, "1", nil)
	e.pl.evictions.nominate(preemptor.UID, "n1", []*v1.Pod{victim})
	e.pl.evictions.nominate(stranger.UID, "n2", []*v1.Pod{other})

	if ok, msg := e.pl.PodEligibleToPreemptOthers(e.ctx, preemptor, nil); ok || msg != terminatingOnNominated {
		t.Errorf("its victim of its own priority still terminating on n1, status not showing the nomination: eligible %v (%q), want it to wait", ok, msg)
	}
	nominated := preemptor.DeepCopy()
	nominated.Status.NominatedNodeName = "n1"
	if ok, _ := e.pl.PodEligibleToPreemptOthers(e.ctx, nominated, nil); ok {
		t.Error("its victim of its own priority still terminating on its nominated n1: eligible, want it to wait")
	}
	if ok, _ := e.pl.PodEligibleToPreemptOthers(e.ctx, stranger, nil); !ok {
		t.Error("a pod whose own victim is not on its node (another preemptor's is): not eligible, want eligible")
	}
	if ok, _ := e.pl.PodEligibleToPreemptOthers(e.ctx, pod("new", "", 0, "1", nil), nil); !ok {
		t.Error("a pod that preempted nothing: not eligible")
	}
	if got := e.pl.evictions.nominatedNode(preemptor); got != "n1" {
		t.Errorf("nominated node %q, want n1 (its last preemption's)", got)
	}
}
