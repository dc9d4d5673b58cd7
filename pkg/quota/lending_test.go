package quota

import (
	"strings"
	"testing"
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
	if u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("4"), capacity); u != nil {
		t.Errorf("7 free, 3 kept: y's pod of 4 refused: %v", u)
	}
	u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("5"), capacity)
	if u == nil {
		t.Fatal("7 free, 3 kept: y's pod of 5 admitted")
	}
	want := "quota y/q borrows: cpu requested 5, free 7, of which 3 is kept by lending limits (x/q: min 6, used 1, lending limit 2) (1 over)"
	if u.Error() != want {
		t.Errorf("message %q, want %q", u.Error(), want)
	}
	if u, _ := l.LendingAdmits(podOf("x", "p"), cpuReq("5"), capacity); u != nil {
		t.Errorf("x's own pod within its min refused: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("z", "p"), cpuReq("4"), capacity); u != nil {
		t.Errorf("z's pod within z's min refused: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("z", "p"), cpuReq("5"), capacity); u == nil {
		t.Error("z's pod of 5 borrows 1 and takes x's unlent min: admitted")
	}
	bindN(l, "x", "x2-", 2, "cpu", "1") // x uses 3: it keeps 1
	if u, _ := l.LendingAdmits(podOf("y", "p"), cpuReq("4"), capacity); u != nil {
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
	if u, _ := l.LendingAdmits(podOf("a", "p"), cpuReq("7"), capacity); u != nil {
		t.Errorf("a borrows 5 in its department, 10 free, b keeps 3: refused: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("a", "p"), cpuReq("8"), capacity); u == nil || !strings.Contains(u.Error(), "(b/q: min 4, used 0, lending limit 1)") {
		t.Errorf("a's pod of 8 would take b's unlent min: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("out", "p"), cpuReq("3"), capacity); u == nil || !strings.Contains(u.Error(), "(org/dept: min 8, used 0, lending limit 0)") {
		t.Errorf("an outsider's pod of 3 would take the department's unlent min: %v", u)
	}
	if u, _ := l.LendingAdmits(podOf("out", "p"), cpuReq("2"), capacity); u != nil {
		t.Errorf("an outsider's pod of 2, 10 free, 8 kept: refused: %v", u)
	}
}
