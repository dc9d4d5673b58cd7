package quota

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// pool16 is the capacity of a cluster of 16 units of GPU memory.
var pool16 = vec(string(gpuMem), "16", "pods", "110")

// ledgerOf is a ledger with the tree of quotas in force.
func ledgerOf(t *testing.T, quotas ...*v1alpha1.ElasticQuota) *Ledger {
	t.Helper()
	tree, _, invalid := TreeOf(quotas)
	if tree == nil {
		t.Fatal(problemsText(invalid))
	}
	l := NewLedger()
	l.SetTree(tree)
	return l
}

// bindN binds n pods of ns, each asking kv, named prefix0, prefix1...
func bindN(l *Ledger, ns, prefix string, n int, kv ...string) []*v1.Pod {
	var pods []*v1.Pod
	for i := range n {
		p := podOf(ns, fmt.Sprint(prefix, i), kv...)
		req, _ := RequestOf(p, gpuMem)
		l.Bound(p, "", req)
		pods = append(pods, p)
	}
	return pods
}

// dept is a department (min 10 cpu) with teams a, b (min 4 each) and c (min 2); x is a flat quota
// with no min that borrows from anyone; org2 is another department (min 10) whose team y (min 2)
// borrows inside it.
func dept() []*v1alpha1.ElasticQuota {
	return []*v1alpha1.ElasticQuota{
		tq("org", "dept", "10", "40", NamespacesAnnotation, ""),
		tq("a", "q", "4", "40", ParentAnnotation, "org/dept"),
		tq("b", "q", "4", "40", ParentAnnotation, "org/dept"),
		tq("c", "q", "2", "40", ParentAnnotation, "org/dept"),
		tq("x", "q", "0", "40"),
		tq("org2", "dept", "10", "40", NamespacesAnnotation, ""),
		tq("y", "q", "2", "40", ParentAnnotation, "org2/dept"),
	}
}

// Reclaim along the tree: a team within its min takes back from its siblings first, from
// borrowers outside its department only when the siblings lend it nothing, and never what a
// quota borrows inside its own department.
func TestReclaimAlongTheTree(t *testing.T) {
	l := ledgerOf(t, dept()...)
	bindN(l, "a", "a", 1, "cpu", "1")
	b := bindN(l, "b", "b", 6, "cpu", "1") // 2 above b's min; the department uses 7 of its 10
	x := bindN(l, "x", "x", 5, "cpu", "1") // all borrowed
	y := bindN(l, "y", "y", 5, "cpu", "1") // 3 above y's min, within org2's
	r := l.ReclaimFor(podOf("a", "p"), cpuReq("2"), gpuMem)
	for _, c := range []struct {
		victim *v1.Pod
		want   Decision
	}{{b[0], Borrowed}, {x[0], Forbidden}, {y[0], Forbidden}} {
		if got := r.Judge([]*v1.Pod{c.victim}); got != c.want {
			t.Errorf("siblings lend: %s is %v, want %v", c.victim.Namespace, got, c.want)
		}
	}
	tally := r.Lenders()
	if !tally.Take([]*v1.Pod{b[0]}) || !tally.Take([]*v1.Pod{b[1]}) || tally.Take([]*v1.Pod{b[2]}) {
		t.Error("b lends 2: want two victims taken, the third kept")
	}

	// b back at its min: the siblings lend nothing, and what x borrows is the department's min.
	l.Forget(b[0].UID)
	l.Forget(b[1].UID)
	r = l.ReclaimFor(podOf("a", "p"), cpuReq("2"), gpuMem)
	if got := r.Judge([]*v1.Pod{x[0]}); got != Borrowed {
		t.Errorf("siblings at their min: x is %v, want Borrowed", got)
	}
	if got := r.Judge([]*v1.Pod{y[0]}); got != Forbidden {
		t.Errorf("y borrows within org2's min: %v, want Forbidden", got)
	}
	if got := r.Judge([]*v1.Pod{b[2]}); got != Forbidden {
		t.Errorf("b at its min: %v, want Forbidden", got)
	}

	// Above the department's min, a team within its own min still reclaims from siblings, but not
	// from outside: the department borrows there itself.
	more := bindN(l, "c", "c", 5, "cpu", "1") // c 3 above its min; the department uses 10
	bindN(l, "c", "cc", 2, "cpu", "1")        // the department at 12, above its min of 10
	r = l.ReclaimFor(podOf("a", "p"), cpuReq("2"), gpuMem)
	if got := r.Judge([]*v1.Pod{more[0]}); got != Borrowed {
		t.Errorf("c above its min: %v, want Borrowed", got)
	}
	if got := r.Judge([]*v1.Pod{x[0]}); got != Forbidden {
		t.Errorf("siblings lend: x is %v, want Forbidden", got)
	}
}

// A victim of a team in another department is taken only while both the team and its department
// stay at or above their min: the chain's quotas each count what is taken from them.
func TestReclaimCountsEveryQuotaOfTheChain(t *testing.T) {
	l := ledgerOf(t,
		tq("org", "dept", "10", "40", NamespacesAnnotation, ""),
		tq("a", "q", "10", "40", ParentAnnotation, "org/dept"),
		tq("org2", "dept", "0", "40", NamespacesAnnotation, ""),
		tq("y", "q", "0", "40", ParentAnnotation, "org2/dept"),
		tq("z", "q", "0", "40", ParentAnnotation, "org2/dept"),
	)
	y := bindN(l, "y", "y", 3, "cpu", "1")
	z := bindN(l, "z", "z", 3, "cpu", "1")
	r := l.ReclaimFor(podOf("a", "p"), cpuReq("4"), gpuMem)
	tally := r.Lenders()
	for i, v := range []*v1.Pod{y[0], z[0], y[1], z[1], y[2], z[2]} {
		if !tally.Take([]*v1.Pod{v}) {
			t.Errorf("victim %d (%s) refused: org2 and its teams borrow all they use", i, v.Name)
		}
	}
	// org2 with a min of 4: the department keeps 4 whichever team the victims come from.
	l = ledgerOf(t,
		tq("org", "dept", "10", "40", NamespacesAnnotation, ""),
		tq("a", "q", "10", "40", ParentAnnotation, "org/dept"),
		tq("org2", "dept", "4", "40", NamespacesAnnotation, ""),
		tq("y", "q", "0", "40", ParentAnnotation, "org2/dept"),
		tq("z", "q", "0", "40", ParentAnnotation, "org2/dept"),
	)
	y = bindN(l, "y", "y", 3, "cpu", "1")
	z = bindN(l, "z", "z", 3, "cpu", "1")
	tally = l.ReclaimFor(podOf("a", "p"), cpuReq("4"), gpuMem).Lenders()
	taken := 0
	for _, v := range []*v1.Pod{y[0], z[0], y[1], z[1], y[2], z[2]} {
		if tally.Take([]*v1.Pod{v}) {
			taken++
		}
	}
	if taken != 2 {
		t.Errorf("org2 uses 6 with a min of 4: %d victims taken, want 2", taken)
	}
}

// teams are three top-level quotas of GPU memory with no min, weights 1, 1 and 2.
func teams() []*v1alpha1.ElasticQuota {
	gq := func(ns, weight string) *v1alpha1.ElasticQuota {
		eq := tq(ns, "q", "", "", WeightAnnotation, weight)
		eq.Spec.Max = list(string(gpuMem), "100")
		return eq
	}
	return []*v1alpha1.ElasticQuota{gq("a", "1"), gq("b", "1"), gq("c", "2")}
}

// Fair-share preemption: a quota below its fair share takes from the quota furthest above its
// own, never below that share, and the reverse preemption is then refused (no ping-pong).
func TestFairSharePreemption(t *testing.T) {
	l := ledgerOf(t, teams()...)
	a := bindN(l, "a", "a", 5, string(gpuMem), "2") // 10 of 16
	b := bindN(l, "b", "b", 1, string(gpuMem), "2") // 2
	bindN(l, "c", "c", 2, string(gpuMem), "2")      // 4, weight 2: the furthest below its share
	ask := vec(string(gpuMem), "2", "pods", "1")
	r := l.PreemptionFor(podOf("c", "p"), ask, gpuMem, pool16)
	if got := r.Judge([]*v1.Pod{a[0]}); got != Borrowed {
		t.Errorf("a furthest above its fair share: %v, want Borrowed", got)
	}
	if got := r.Judge([]*v1.Pod{b[0]}); got != Forbidden {
		t.Errorf("b below its fair share: %v, want Forbidden", got)
	}
	// Fair shares of 16 with c wanting 6: b 2, c 6, a 8. a gives 2 and no more.
	tally := r.Lenders()
	if !tally.Take([]*v1.Pod{a[0]}) {
		t.Error("a at 10, fair 8: want the first victim taken")
	}
	if tally.Take([]*v1.Pod{a[1]}) {
		t.Error("a at its fair share: want the second victim kept")
	}
	if msg := r.InProgress([]*v1.Pod{a[0]}); msg != "fair sharing for quota c/q in progress: 1 pods of a/q, above its fair share, are being evicted" {
		t.Errorf("InProgress = %q", msg)
	}

	// Carry it out, again and again while c may take: each time, the reverse preemption is
	// refused (no ping-pong). It ends with c at 8, a at 6: b keeps its 2, and of the 14 left c's
	// fair share (weight 2) is 9.33, a's 4.67; one more would take a below its share.
	for step := 0; ; step++ {
		if step > 10 {
			t.Fatal("c kept taking")
		}
		tally := l.PreemptionFor(podOf("c", "p"), ask, gpuMem, pool16).Lenders()
		var victim *v1.Pod
		for _, v := range l.podsOf("a") {
			if tally.Take([]*v1.Pod{v}) {
				victim = v
				break
			}
		}
		if victim == nil {
			break
		}
		l.Forget(victim.UID)
		bindN(l, "c", fmt.Sprint("new", step, "-"), 1, string(gpuMem), "2")
		for _, ns := range []string{"a", "b"} {
			back := l.PreemptionFor(podOf(ns, "p"), ask, gpuMem, pool16)
			for _, v := range l.podsOf("c") {
				if got := back.Judge([]*v1.Pod{v}); got != Forbidden {
					t.Fatalf("step %d, the reverse preemption: %s's preemptor may take c's %s (%v)", step, ns, v.Name, got)
				}
			}
		}
	}
	if got := [3]int{len(l.podsOf("a")), len(l.podsOf("b")), len(l.podsOf("c"))}; got != [3]int{3, 1, 4} {
		t.Errorf("pods of a, b, c at the end: %v, want [3 1 4] (GPU memory 6, 2, 8)", got)
	}

	// Free capacity counts in the pool: with 16 more free, everyone is within its share and
	// nothing is taken for fairness.
	if got := l.PreemptionFor(podOf("c", "p"), ask, gpuMem, vec(string(gpuMem), "32")).Judge([]*v1.Pod{a[1]}); got != Forbidden {
		t.Errorf("half the pool free: %v, want Forbidden", got)
	}
}

// Flat quotas without berth's annotations keep scheduler-plugins' behaviour: a quota above its
// min takes nothing from another, however much that one borrows.
func TestFlatQuotasTakeNothingForFairness(t *testing.T) {
	qs := teams()
	for _, eq := range qs {
		eq.Annotations = nil
	}
	l := ledgerOf(t, qs...)
	a := bindN(l, "a", "a", 7, string(gpuMem), "2")
	bindN(l, "c", "c", 1, string(gpuMem), "2")
	r := l.PreemptionFor(podOf("c", "p"), vec(string(gpuMem), "2", "pods", "1"), gpuMem, pool16)
	if got := r.Judge([]*v1.Pod{a[0]}); got != Forbidden {
		t.Errorf("flat quotas: %v, want Forbidden", got)
	}
}

// Fair sharing inside a department: the siblings share what the department borrows, by weight.
func TestFairShareAmongSiblings(t *testing.T) {
	gq := func(ns, parent, weight string) *v1alpha1.ElasticQuota {
		eq := tq(ns, "q", "", "", ParentAnnotation, parent, WeightAnnotation, weight)
		eq.Spec.Max = list(string(gpuMem), "100")
		return eq
	}
	top := tq("org", "dept", "", "", NamespacesAnnotation, "")
	top.Spec.Max = list(string(gpuMem), "100")
	l := ledgerOf(t, top, gq("a", "org/dept", "1"), gq("b", "org/dept", "3"))
	a := bindN(l, "a", "a", 6, string(gpuMem), "2")
	bindN(l, "b", "b", 2, string(gpuMem), "2")
	ask := vec(string(gpuMem), "2", "pods", "1")
	tally := l.PreemptionFor(podOf("b", "p"), ask, gpuMem, pool16).Lenders()
	taken := 0
	for _, v := range a {
		if tally.Take([]*v1.Pod{v}) {
			taken++
		}
	}
	// 16 shared 1:3, b wanting 6: b gets its 6, a the other 10 of the 12 it holds.
	if taken != 1 {
		t.Errorf("a holds 12 of 16, fair 10: %d victims taken, want 1", taken)
	}
}

// podsOf are the pods the ledger holds in ns, for tests.
func (l *Ledger) podsOf(ns string) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*v1.Pod
	for uid, h := range l.pods {
		if h.namespace == ns {
			p := pod(ns, string(uid))
			p.UID = uid
			p.Name = string(uid)
			p.Spec.Containers = []v1.Container{{Resources: v1.ResourceRequirements{Limits: h.request.ResourceList()}}}
			delete(p.Spec.Containers[0].Resources.Limits, v1.ResourcePods)
			out = append(out, p)
		}
	}
	return out
}

// Preemptors of one quota that follow each other before the first binds: each counts those on
// their way in (Incoming), as the victims count as leaving, so together they take no more than
// one preemptor at a time would (c to 8, a to 6), not a pod of a's for each of them.
func TestFairShareCountsPreemptorsOnTheirWay(t *testing.T) {
	l := ledgerOf(t, teams()...)
	a := bindN(l, "a", "a", 5, string(gpuMem), "2")
	bindN(l, "b", "b", 1, string(gpuMem), "2")
	bindN(l, "c", "c", 2, string(gpuMem), "2")
	ask := vec(string(gpuMem), "2", "pods", "1")
	next := 0
	preempt := func(name string) bool {
		p := podOf("c", name, string(gpuMem), "2")
		tally := l.PreemptionFor(p, ask, gpuMem, pool16).Lenders()
		for ; next < len(a); next++ {
			if tally.Take([]*v1.Pod{a[next]}) {
				l.Leaving(a[next].UID)
				l.Incoming(p, ask, nil)
				next++
				return true
			}
			return false
		}
		return false
	}
	if !preempt("p0") || !preempt("p1") {
		t.Fatal("c at 4 of 16 with a at 10: want two preemptions (c to 8, a to 6)")
	}
	if preempt("p2") {
		t.Error("two preemptors of c on their way in: a third took a below its fair share")
	}
	// p0 binds: it holds what it was counted for, and nothing changes.
	bindN(l, "c", "p", 1, string(gpuMem), "2")
	if preempt("p2") {
		t.Error("p0 bound: a third preemptor took a below its fair share")
	}
}

// Every peer's preemptors on their way in count on its side, not only the preemptor's own: a took
// a pod of b's and its preemptor is not bound yet. Counted, the shares are a 4, b 6, c 6 of 16,
// and c (weight 2), whose fair share is then 8, takes from b, above its own of 4; uncounted, what
// a was given would look free, b would look within its share, and c would take nothing.
func TestFairShareCountsEveryPeersArrivals(t *testing.T) {
	l := ledgerOf(t, teams()...)
	bindN(l, "a", "a", 1, string(gpuMem), "2")
	b := bindN(l, "b", "b", 4, string(gpuMem), "2")
	bindN(l, "c", "c", 3, string(gpuMem), "2")
	ask := vec(string(gpuMem), "2", "pods", "1")
	l.Leaving(b[0].UID)
	l.Incoming(podOf("a", "p", string(gpuMem), "2"), ask, nil)
	r := l.PreemptionFor(podOf("c", "p", string(gpuMem), "2"), ask, gpuMem, pool16)
	if got := r.Judge([]*v1.Pod{b[1]}); got != Borrowed {
		t.Fatalf("b at 6 of 16, fair 4: %v, want Borrowed", got)
	}
	tally := r.Lenders()
	if !tally.Take([]*v1.Pod{b[1]}) || tally.Take([]*v1.Pod{b[2]}) {
		t.Error("want one of b's pods taken, b then at its fair share")
	}
}

// Preemptors of one quota on their way in count as its use when reclaim asks whether a preemptor is
// within its quota's min: b (min 3) reclaims three pods from a, not one per preemptor that comes
// before any of them is bound. Past its min fair sharing decides: the pool is c's idle 3 (not also
// the three units on their way from a to b), a borrows 3 of it, above its fair 1.5, and b takes a
// fourth; a then borrows 2, b 1 (Kueue's a 5, b 4), and a fifth would put a below its share.
func TestReclaimCountsPreemptorsOnTheirWay(t *testing.T) {
	l := ledgerOf(t, threeOfMin3()...)
	a := bindN(l, "a", "a", 9, "cpu", "1")
	ask := vec("cpu", "1", "pods", "1")
	pool9 := vec("cpu", "9", "pods", "110")
	next, taken := 0, 0
	for i := range 5 {
		p := podOf("b", fmt.Sprint("p", i), "cpu", "1")
		l.Waiting(p, ask)
		tally := l.PreemptionFor(p, ask, gpuMem, pool9).Lenders()
		if next < len(a) && tally.Take([]*v1.Pod{a[next]}) {
			l.Leaving(a[next].UID)
			l.Incoming(p, ask, nil)
			next++
			taken++
		}
	}
	if taken != 4 {
		t.Errorf("five preemptors of b (min 3) before any is bound took %d of a's pods, want 4: b's min and one for fair sharing", taken)
	}
}

// Reclaim within a min takes from the lender furthest above its own min share when it alone has what
// is asked; when it has not, from every lender.
func TestReclaimTakesFromTheLenderFurthestAbove(t *testing.T) {
	l := ledgerOf(t, threeOfMin3()...)
	a := bindN(l, "a", "a", 5, "cpu", "1") // borrows 2
	b := bindN(l, "b", "b", 4, "cpu", "1") // borrows 1
	pool9 := vec("cpu", "9", "pods", "110")
	r := l.PreemptionFor(podOf("c", "p", "cpu", "1"), vec("cpu", "1", "pods", "1"), gpuMem, pool9)
	if got := r.Judge([]*v1.Pod{a[0]}); got != Borrowed {
		t.Errorf("a borrows 2: its pod judged %v, want Borrowed", got)
	}
	if got := r.Judge([]*v1.Pod{b[0]}); got != Forbidden {
		t.Errorf("b borrows 1, a 2: b's pod judged %v, want Forbidden", got)
	}
	// Asking 3, more than a lends alone: both may give.
	r = l.PreemptionFor(podOf("c", "p", "cpu", "3"), vec("cpu", "3", "pods", "1"), gpuMem, pool9)
	if got := r.Judge([]*v1.Pod{b[0]}); got != Borrowed {
		t.Errorf("c asks 3, a lends 2: b's pod judged %v, want Borrowed", got)
	}
}

// threeOfMin3 are Kueue's fair-sharing ClusterQueues a, b and c: min 3 cpu each, max 9, weight 1.
func threeOfMin3() []*v1alpha1.ElasticQuota {
	var quotas []*v1alpha1.ElasticQuota
	for _, ns := range []string{"a", "b", "c"} {
		quotas = append(quotas, tq(ns, "q", "3", "9", WeightAnnotation, "1"))
	}
	return quotas
}

// Preemptors on their way in count against the pool of every level, not only of their own: below a
// level, the capacity its quotas share is what quotas outside it do not keep, and a preemptor of an
// outside quota whose victims are gone keeps what it is about to take. Kueue's hierarchical
// preemption replayed, one run in three under load: best-effort's preemptor, its victims gone, was
// nominated for the last free cpu; research's pool counted that cpu (9, not 8), physics' fair share
// came to 2.25, so taking physics from 3 to 2 looked like taking it below its share, and llm (3 of
// its fair 4) found no victims, then best-effort's preemptor took the cpu.
func TestFairShareCountsArrivalsOutsideTheLevel(t *testing.T) {
	l := ledgerOf(t,
		tq("root", "quota", "0", "12", NamespacesAnnotation, ""),
		tq("best-effort", "quota", "0", "12", ParentAnnotation, "root/quota", WeightAnnotation, "0.5"),
		tq("research", "quota", "0", "12", ParentAnnotation, "root/quota", NamespacesAnnotation, ""),
		tq("chemistry", "quota", "0", "12", ParentAnnotation, "research/quota"),
		tq("physics", "quota", "0", "12", ParentAnnotation, "research/quota"),
		tq("llm", "quota", "0", "12", ParentAnnotation, "research/quota", WeightAnnotation, "2"),
	)
	ask := vec("cpu", "1", "pods", "1")
	bindN(l, "best-effort", "be", 3, "cpu", "1")
	bindN(l, "chemistry", "c", 2, "cpu", "1")
	physics := bindN(l, "physics", "p", 3, "cpu", "1")
	bindN(l, "llm", "l", 3, "cpu", "1")
	for ns, n := range map[string]int{"best-effort": 2, "chemistry": 4, "physics": 3, "llm": 3} {
		for i := range n {
			l.Waiting(podOf(ns, fmt.Sprint("w", i), "cpu", "1"), ask)
		}
	}
	// best-effort's preemptor: its victim (evicted and gone) is no longer in the ledger.
	gone := podOf("best-effort", "gone", "cpu", "1")
	l.Incoming(podOf("best-effort", "nominated", "cpu", "1"), ask, []types.UID{gone.UID})

	r := l.PreemptionFor(podOf("llm", "w0", "cpu", "1"), ask, gpuMem, vec("cpu", "12", "pods", "110"))
	if got := r.Judge([]*v1.Pod{physics[0]}); got != Borrowed {
		t.Fatalf("physics at 3 of research's 8, fair 2; llm at 3, fair 4: physics' pod judged %v, want Borrowed", got)
	}
	tally := r.Lenders()
	if !tally.Take([]*v1.Pod{physics[0]}) || tally.Take([]*v1.Pod{physics[1]}) {
		t.Error("want one of physics' pods taken, physics then at its fair share")
	}
}
