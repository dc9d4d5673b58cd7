package quota

import (
	"iter"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// The lending limit: a borrower takes no more of a lender's idle min than the lender lends, while
// the lender's own pods, and pods that borrow nothing, are never held back by it.
func TestLendingLimit(t *testing.T) {
	l := ledgerOf(t,
		tq("x", "q", "6", "10", LendingLimitAnnotation, "{cpu: 2}"),
		tq("y", "q", "0", "10"),
		tq("z", "q", "4", "10"))
	capacity := vec("cpu", "12")
	bindN(l, "x", "x", 1, "cpu", "1") // x keeps 6 - 1 - 2 = 3
	bindN(l, "y", "y", 4, "cpu", "1") // 7 of 12 free
	if u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("4"), capacity, nil); u != nil {
		t.Errorf("7 free, 3 kept: y's pod of 4 refused: %v", u)
	}
	u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("5"), capacity, nil)
	if u == nil {
		t.Fatal("7 free, 3 kept: y's pod of 5 admitted")
	}
	want := "quota y/q borrows: cpu requested 5, free 7, of which 3 is kept by lending limits (x/q: min 6, used 1, lending limit 2) (1 over)"
	if u.Error() != want {
		t.Errorf("message %q, want %q", u.Error(), want)
	}
	if u, _ := l.LendingAdmits(podOf("x", "p"), cpuReq("5"), capacity, nil); u != nil {
		t.Errorf("x's own pod within its min refused: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("z", "p"), cpuReq("4"), capacity, nil); u != nil {
		t.Errorf("z's pod within z's min refused: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("z", "p"), cpuReq("5"), capacity, nil); u == nil {
		t.Error("z's pod of 5 borrows 1 and takes x's unlent min: admitted")
	}
	bindN(l, "x", "x2-", 2, "cpu", "1") // x uses 3: it keeps 1
	if u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("4"), capacity, nil); u != nil {
		t.Errorf("5 free, 1 kept: y's pod of 4 refused: %v", u)
	}
}

// In a tree a team uses its department's min without any lending limit of the department's own
// holding it back, but a sibling's limit does, and so does the department's for outsiders.
func TestLendingLimitInATree(t *testing.T) {
	l := ledgerOf(t,
		tq("org", "dept", "8", "20", NamespacesAnnotation, "", LendingLimitAnnotation, "{cpu: 0}"),
		tq("a", "q", "2", "20", ParentAnnotation, "org/dept"),
		tq("b", "q", "4", "20", ParentAnnotation, "org/dept", LendingLimitAnnotation, "{cpu: 1}"),
		tq("out", "q", "0", "20"))
	capacity := vec("cpu", "10")
	// Nothing used: the department keeps its 8 from outsiders; b keeps 3 from a.
	if u, _ := l.LendingAdmits(podOf("a", "p"), cpuReq("7"), capacity, nil); u != nil {
		t.Errorf("a borrows 5 in its department, 10 free, b keeps 3: refused: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("a", "p"), cpuReq("8"), capacity, nil); u == nil || !strings.Contains(u.Error(), "(b/q: min 4, used 0, lending limit 1)") {
		t.Errorf("a's pod of 8 would take b's unlent min: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("out", "p"), cpuReq("3"), capacity, nil); u == nil || !strings.Contains(u.Error(), "(org/dept: min 8, used 0, lending limit 0)") {
		t.Errorf("an outsider's pod of 3 would take the department's unlent min: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("out", "p"), cpuReq("2"), capacity, nil); u != nil {
		t.Errorf("an outsider's pod of 2, 10 free, 8 kept: refused: %v", u)
	}
}

// A lender's pod that ended shows on the nodes before the ledger forgets it, or after: either way
// the limit holds. x (min 6, limit 2) has 4 pods and y borrows 4 of a node of 8; one of x's pods
// ends. Read by the ledger alone, x keeps 6-4-2 = 0 and y's next pod would take the room the node
// already shows (the lowered lending limit replayed, 1 run in 13: y 5, want 4).
func TestLendingLimitWhileALendersPodEnds(t *testing.T) {
	l := ledgerOf(t,
		tq("x", "q", "6", "8", LendingLimitAnnotation, "{cpu: 2}"),
		tq("y", "q", "0", "8"))
	capacity := vec("cpu", "8")
	x := bindN(l, "x", "x", 4, "cpu", "1")
	y := bindN(l, "y", "y", 4, "cpu", "1")
	nodesShow := func(pods ...*v1.Pod) iter.Seq[*v1.Pod] { return slices.Values(pods) }
	// The nodes no longer show x[0]; the ledger still holds it.
	onNodes := nodesShow(append(x[1:], y...)...)
	u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("1"), capacity, onNodes)
	if u == nil {
		t.Fatal("x's pod gone from the nodes, not yet from the ledger: y's pod admitted past x's lending limit")
	}
	if !strings.Contains(u.Error(), "(x/q: min 6, used 3, lending limit 2)") {
		t.Errorf("message %q: want x's use as the nodes show it", u.Error())
	}
	// The ledger catches up: the same answer.
	l.Forget(x[0].UID)
	if u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("1"), capacity, onNodes); u == nil {
		t.Error("x's pod gone from both: y's pod admitted past x's lending limit")
	}
	// The other order: the ledger forgot x[1], the nodes still show it. The node has no room;
	// the ledger's free (2) holds x's kept (6-2-2 = 2) only without y's pod.
	l.Forget(x[1].UID)
	if u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("1"), capacity, nodesShow(append(x[1:], y...)...)); u == nil {
		t.Error("x's pod gone from the ledger, not the nodes: y's pod admitted")
	}
}
