package quota

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// Fair admission: capacity that frees up goes to the quota below its fair share that waits for
// it, not to one that would go above its own share; with nobody below theirs waiting, or room
// for both, it goes to whoever asks.
func TestFairAdmission(t *testing.T) {
	ask := vec(string(gpuMem), "2", "pods", "1")
	setUp := func() *Ledger {
		l := ledgerOf(t, teams()...)
		bindN(l, "a", "a", 2, string(gpuMem), "2") // 4: a's fair share of 16 (weight 1 of 4)
		bindN(l, "b", "b", 1, string(gpuMem), "2") // 2: below its share of 4
		bindN(l, "c", "c", 4, string(gpuMem), "2") // 8: c's share; 2 of 16 free
		return l
	}

	l := setUp()
	if u, _ := l.FairAdmits(podOf("a", "p"), ask, pool16); u != nil {
		t.Errorf("nobody below its share waits: a's pod refused: %v", u)
	}
	waiter := podOf("b", "w")
	l.Waiting(waiter, ask)
	u, clock := l.FairAdmits(podOf("a", "p"), ask, pool16)
	if u == nil {
		t.Fatal("b waits below its share for the last 2 units: a's pod, above its share with them, admitted")
	}
	if msg := u.Error(); !strings.Contains(msg, "quota a/q would be above its fair share") || !strings.Contains(msg, "while quota b/q, below its own, waits for "+string(gpuMem)) {
		t.Errorf("the message %q names neither a/q above its share nor b/q waiting", msg)
	}
	if u, _ := l.FairAdmits(waiter, ask, pool16); u != nil {
		t.Errorf("b's own pod refused: %v", u)
	}
	if u, _ := l.FairAdmits(podOf("c", "p"), ask, pool16); u == nil {
		t.Error("c at its share: its pod admitted while b waits")
	}
	if u, _ := l.FairAdmits(podOf("a", "p"), ask, vec(string(gpuMem), "32", "pods", "110")); u != nil {
		t.Errorf("room for both (18 free): a's pod refused: %v", u)
	}

	// The refused pod is parked and handed back when the waiter goes.
	refused := podOf("a", "p")
	if !l.ParkFair(refused, clock) {
		t.Fatal("nothing changed since FairAdmits: ParkFair refused")
	}
	if woken := l.Forget(waiter.UID); len(woken) != 1 || woken[0] != refused {
		t.Errorf("the waiter went: woken %v, want a's refused pod", woken)
	}
	if u, _ := l.FairAdmits(refused, ask, pool16); u != nil {
		t.Errorf("the waiter gone: a's pod still refused: %v", u)
	}

	// A waiter that is admitted meanwhile makes a stale refusal retry at once, and its binding
	// hands back the pods parked before.
	l = setUp()
	l.Waiting(waiter, ask)
	_, clock = l.FairAdmits(refused, ask, pool16)
	if !l.ParkFair(refused, clock) {
		t.Fatal("ParkFair refused")
	}
	_, clock = l.FairAdmits(podOf("a", "q"), ask, pool16)
	if err := l.Reserve(waiter, "", ask); err != nil {
		t.Fatal(err)
	}
	if l.ParkFair(podOf("a", "q"), clock) {
		t.Error("the waiter was admitted since FairAdmits: ParkFair parked")
	}
	if woken := l.Bound(waiter, "", ask); len(woken) != 1 || woken[0] != refused {
		t.Errorf("the waiter bound: woken %v, want a's refused pod", woken)
	}
}

// A quota within its min, and a flat quota without berth's annotations, are never refused for
// fairness.
func TestFairAdmissionSparesMinAndFlatQuotas(t *testing.T) {
	withMin := teams()
	withMin[0].Spec.Min = v1.ResourceList{gpuMem: withMin[0].Spec.Max[gpuMem]}
	for name, qs := range map[string]func() *Ledger{
		"within min": func() *Ledger { return ledgerOf(t, withMin...) },
		"flat": func() *Ledger {
			flat := teams()
			for _, eq := range flat {
				eq.Annotations = nil
			}
			return ledgerOf(t, flat...)
		},
	} {
		l := qs()
		bindN(l, "a", "a", 2, string(gpuMem), "2")
		bindN(l, "b", "b", 1, string(gpuMem), "2")
		bindN(l, "c", "c", 4, string(gpuMem), "2")
		l.Waiting(podOf("b", "w"), vec(string(gpuMem), "2", "pods", "1"))
		if u, _ := l.FairAdmits(podOf("a", "p"), vec(string(gpuMem), "2", "pods", "1"), pool16); u != nil {
			t.Errorf("%s: a's pod refused: %v", name, u)
		}
	}
}

// Fair-share preemption counts what waits: a quota whose pods wait is owed its share of what all
// want, not a share next to what it holds.
func TestFairSharePreemptionCountsWaitingPods(t *testing.T) {
	ask := vec(string(gpuMem), "2", "pods", "1")
	for _, c := range []struct {
		waiting int
		taken   int
	}{
		// b wants 2: fair shares a 6, b 2, c 8: a gives one pod.
		{0, 1},
		// b wants 8: fair shares a 4, b 4, c 8: a gives two.
		{3, 2},
	} {
		l := ledgerOf(t, teams()...)
		a := bindN(l, "a", "a", 4, string(gpuMem), "2")
		bindN(l, "c", "c", 4, string(gpuMem), "2")
		preemptor := podOf("b", "p")
		l.Waiting(preemptor, ask)
		for i := range c.waiting {
			l.Waiting(podOf("b", fmt.Sprint("w", i)), ask)
		}
		tally := l.PreemptionFor(preemptor, ask, gpuMem, pool16).Lenders()
		taken := 0
		for _, v := range a {
			if tally.Take([]*v1.Pod{v}) {
				taken++
			}
		}
		if taken != c.taken {
			t.Errorf("b with %d more pods waiting: %d of a's pods taken, want %d", c.waiting, taken, c.taken)
		}
	}
}
