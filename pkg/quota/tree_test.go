package quota

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/amount"
)

// tq is an ElasticQuota ns/name with min and max cpu and annotations kv.
func tq(ns, name, minCPU, maxCPU string, kv ...string) *v1alpha1.ElasticQuota {
	eq := &v1alpha1.ElasticQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.Unix(100, 0)}}
	if minCPU != "" {
		eq.Spec.Min = list("cpu", minCPU)
	}
	if maxCPU != "" {
		eq.Spec.Max = list("cpu", maxCPU)
	}
	if len(kv) > 0 {
		eq.Annotations = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			eq.Annotations[kv[i]] = kv[i+1]
		}
	}
	return eq
}

// org is a department (covering no namespace) with two teams, team-a covering two namespaces.
func org() []*v1alpha1.ElasticQuota {
	return []*v1alpha1.ElasticQuota{
		tq("org", "dept", "10", "12", NamespacesAnnotation, ""),
		tq("org", "team-a", "6", "10", ParentAnnotation, "org/dept", NamespacesAnnotation, "team-a-dev, team-a-prod", WeightAnnotation, "2"),
		tq("team-b", "q", "4", "20", ParentAnnotation, "org/dept", BorrowingLimitAnnotation, "{cpu: 10}"),
		tq("flat", "q", "2", "4"),
	}
}

func problemsText(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Quota.Namespace+"/"+p.Quota.Name+": "+p.Message)
	}
	return out
}

func TestTreeOf(t *testing.T) {
	tree, repairs, invalid := TreeOf(org())
	if len(repairs) > 0 || len(invalid) > 0 {
		t.Fatalf("repairs %q, invalid %q", problemsText(repairs), problemsText(invalid))
	}
	for ns, want := range map[string]string{"team-a-dev": "org/team-a", "team-a-prod": "org/team-a", "team-b": "team-b/q", "flat": "flat/q", "org": "", "nowhere": ""} {
		if got := tree.QuotaOf(ns); got != want {
			t.Errorf("QuotaOf(%s) = %q, want %q", ns, got, want)
		}
	}
	var path []string
	for _, q := range tree.Path("team-a-dev") {
		path = append(path, q.Spec.Name)
	}
	if diff := cmp.Diff([]string{"org/team-a", "org/dept"}, path); diff != "" {
		t.Errorf("path of team-a-dev (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"team-a-dev", "team-a-prod", "team-b"}, tree.Subtree("org/dept")); diff != "" {
		t.Errorf("subtree of org/dept (-want +got):\n%s", diff)
	}
	a := tree.Quota("org/team-a").Spec
	if a.Weight != 2000 || a.Parent != "org/dept" {
		t.Errorf("team-a: weight %d, parent %q; want 2000 and org/dept", a.Weight, a.Parent)
	}
	if b := tree.Quota("team-b/q").Spec; !cmp.Equal(b.BorrowingLimit, vec("cpu", "10")) || b.LendingLimit != nil {
		t.Errorf("team-b: borrowing limit %v, lending limit %v", b.BorrowingLimit, b.LendingLimit)
	}
	// A flat quota is what SpecOf makes of it.
	flat, _ := SpecOf([]*v1alpha1.ElasticQuota{tq("flat", "q", "2", "4")})
	if diff := cmp.Diff(*flat, tree.Quota("flat/q").Spec); diff != "" {
		t.Errorf("flat quota (-SpecOf +tree):\n%s", diff)
	}
}

func TestTreeOfInvalid(t *testing.T) {
	tests := []struct {
		name   string
		quotas []*v1alpha1.ElasticQuota
		// want are the invalid problems; wantRepairs the repairs.
		want, wantRepairs []string
	}{{
		name: "children's min above the parent's",
		quotas: append(org()[:3:3],
			tq("team-c", "q", "1", "", ParentAnnotation, "org/dept")),
		want: []string{"org/dept: its children's min cpu adds up to 11 (org/team-a 6, team-b/q 4, team-c/q 1), above its own min 10"},
	}, {
		name:   "unknown parent",
		quotas: []*v1alpha1.ElasticQuota{tq("a", "q", "", "", ParentAnnotation, "org/nope")},
		want:   []string{"a/q: parent quota org/nope (annotation berth.dev/parent-quota) is not an ElasticQuota that berth enforces"},
	}, {
		name: "cycle",
		quotas: []*v1alpha1.ElasticQuota{
			tq("a", "q", "", "", ParentAnnotation, "b/q"), tq("b", "q", "", "", ParentAnnotation, "a/q"), tq("c", "q", "", "", ParentAnnotation, "a/q"),
		},
		want: []string{
			"a/q: its parents form a cycle: a/q -> b/q -> a/q",
			"b/q: its parents form a cycle: b/q -> a/q -> b/q",
			"c/q: its parents form a cycle: a/q -> b/q -> a/q",
		},
	}, {
		name: "a namespace in two quotas",
		quotas: []*v1alpha1.ElasticQuota{
			tq("x", "q", "", "", NamespacesAnnotation, "shared,x"), tq("shared", "q", "", ""),
		},
		want: []string{
			"shared/q: namespace shared is covered by 2 quotas (shared/q, x/q): a namespace may be in one quota only",
			"x/q: namespace shared is covered by 2 quotas (shared/q, x/q): a namespace may be in one quota only",
		},
	}, {
		name: "unreadable annotations",
		quotas: []*v1alpha1.ElasticQuota{
			tq("a", "q", "", "", ParentAnnotation, "just-a-name"),
			tq("b", "q", "", "", NamespacesAnnotation, "ok,Not_A_Namespace"),
			tq("c", "q", "", "", WeightAnnotation, "0"),
			tq("d", "q", "", "", BorrowingLimitAnnotation, "cpu=4"),
			tq("e", "q", "", "", LendingLimitAnnotation, "{cpu: -1}"),
			tq("f", "q", "", "", ParentAnnotation, "f/q"),
		},
		want: []string{
			`a/q: annotation berth.dev/parent-quota: "just-a-name" is not NAMESPACE/NAME`,
			`b/q: annotation berth.dev/namespaces: "Not_A_Namespace" is not a namespace name`,
			"c/q: annotation berth.dev/weight: 0 is not a weight",
			`d/q: annotation berth.dev/borrowing-limit: "cpu=4" is not a resource list such as {cpu: 4, memory: 8Gi}`,
			"e/q: annotation berth.dev/lending-limit: cpu -1 is negative",
			"f/q: annotation berth.dev/parent-quota: the quota names itself as its parent",
		},
	}, {
		name: "repairs leave the tree valid",
		quotas: []*v1alpha1.ElasticQuota{
			tq("a", "q", "2", "", LendingLimitAnnotation, `{"cpu": "3"}`),
			tq("b", "old", "", ""), tq("b", "young", "", ""),
		},
		wantRepairs: []string{
			"a/q: lending limit cpu 3 is above min 2, lowered to min",
			"b/young: namespace b has 2 ElasticQuotas; berth enforces only the oldest, old, and ignores this one",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "repairs leave the tree valid" {
				tc.quotas[2].CreationTimestamp = metav1.Unix(200, 0)
			}
			tree, repairs, invalid := TreeOf(tc.quotas)
			got := problemsText(invalid)
			if len(got) != len(tc.want) {
				t.Fatalf("invalid %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %q, want it to start %q", got[i], tc.want[i])
				}
			}
			if (tree == nil) != (len(tc.want) > 0) {
				t.Errorf("tree %v with %d invalid problems: want a tree exactly when none", tree, len(got))
			}
			if diff := cmp.Diff(tc.wantRepairs, problemsText(repairs)); diff != "" {
				t.Errorf("repairs (-want +got):\n%s", diff)
			}
		})
	}
}

func cpuReq(cpu string) amount.Amount { return vec("cpu", cpu, "pods", "1") }

// treeLedger is a ledger with org()'s tree in force.
func treeLedger(t *testing.T) *Ledger {
	t.Helper()
	tree, _, invalid := TreeOf(org())
	if tree == nil {
		t.Fatal(problemsText(invalid))
	}
	l := NewLedger()
	l.SetTree(tree)
	return l
}

func TestTreeAdmission(t *testing.T) {
	l := treeLedger(t)
	// team-a (max 10) over two namespaces: both count.
	if err := l.Reserve(pod("team-a-dev", "1"), "", cpuReq("5")); err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(pod("team-a-prod", "2"), "", cpuReq("4")); err != nil {
		t.Fatal(err)
	}
	err := l.Reserve(pod("team-a-prod", "3"), "", cpuReq("2"))
	if err == nil || err.Error() != "quota org/team-a: cpu used 9, requested 2, max 10" {
		t.Errorf("team-a over its own max: %v", err)
	}
	// team-b's max is 20, but the department's is 12 and team-a holds 9.
	if err := l.Reserve(pod("team-b", "1"), "", cpuReq("3")); err != nil {
		t.Fatal(err)
	}
	err = l.Reserve(pod("team-b", "2"), "", cpuReq("1"))
	if err == nil || err.Error() != "quota org/dept, above team-b/q in its tree: cpu used 12, requested 1, max 12 (1 over)" {
		t.Errorf("team-b under the department's max: %v", err)
	}
	view, ok := l.ViewOf("team-b", "")
	if !ok || len(view.Above) != 1 || !cmp.Equal(view.Above[0].Used, vec("cpu", "12", "pods", "3")) || !cmp.Equal(view.Used, vec("cpu", "3", "pods", "1")) {
		t.Fatalf("view of team-b: %+v", view)
	}
	// The dry run removing a pod of team-a (another quota, same department) frees the department.
	if view.Fits(cpuReq("1")) == nil {
		t.Error("view: want the department's max to refuse 1 cpu")
	}
	if !view.Counts("team-a-dev") || view.Counts("flat") {
		t.Error("team-b's view counts the department's namespaces only")
	}
	c := view.Clone()
	c.Count("team-a-dev", cpuReq("5"), -1)
	if e := c.Fits(cpuReq("1")); e != nil {
		t.Errorf("after the dry run removed 5 cpu of team-a: %v", e)
	}
	if view.Fits(cpuReq("1")) == nil {
		t.Error("Count on a clone changed the original view")
	}
	// More than the department admits on its own: preemption cannot help.
	if e := view.FitsAlone(cpuReq("13")); e == nil || e.Quota != "org/dept" {
		t.Errorf("13 cpu alone: %v, want the department's max", e)
	}
	// Status: a quota counts its subtree.
	used := map[string]amount.Amount{}
	for _, u := range l.Quotas() {
		used[u.Spec.Name] = u.Used
	}
	if !cmp.Equal(used["org/dept"], vec("cpu", "12", "pods", "3")) || !cmp.Equal(used["org/team-a"], vec("cpu", "9", "pods", "2")) {
		t.Errorf("Quotas: %v", used)
	}
	// Namespace org is covered by no quota: the department covers none.
	if _, ok := l.ViewOf("org", ""); ok {
		t.Error("namespace org: want no quota")
	}
}

func TestBorrowingLimit(t *testing.T) {
	tree, _, _ := TreeOf([]*v1alpha1.ElasticQuota{tq("team-b", "q", "4", "20", BorrowingLimitAnnotation, "{cpu: 3}")})
	l := NewLedger()
	l.SetTree(tree)
	// team-b: min 4, borrowing limit 3: at most 7 whatever its max (20) says.
	if err := l.Reserve(pod("team-b", "1"), "", cpuReq("7")); err != nil {
		t.Fatal(err)
	}
	err := l.Reserve(pod("team-b", "2"), "", cpuReq("500m"))
	if err == nil || err.Error() != "quota team-b/q: cpu used 7, requested 500m, min 4 + borrowing limit 3 (500m over)" {
		t.Errorf("team-b over its borrowing limit: %v", err)
	}
}

// A pod waiting for the department is woken by a release in another team of it; one waiting for
// its own team is woken by a release in its team, and a change of an unrelated quota wakes neither.
func TestTreeParkAndWake(t *testing.T) {
	l := treeLedger(t)
	for _, p := range []struct{ ns, name, cpu string }{{"team-a-dev", "a1", "5"}, {"team-a-prod", "a2", "4"}, {"team-b", "b1", "3"}} {
		if err := l.Reserve(pod(p.ns, p.name), "", cpuReq(p.cpu)); err != nil {
			t.Fatal(err)
		}
	}
	waitB := pod("team-b", "w")
	view, _ := l.ViewOf("team-b", "")
	if !l.Park(waitB, view) {
		t.Fatal("Park")
	}
	waitA := pod("team-a-dev", "w")
	viewA, _ := l.ViewOf("team-a-dev", "")
	if !l.Park(waitA, viewA) {
		t.Fatal("Park")
	}
	if woken := l.SetQuota("flat", &Spec{Name: "flat/q", Max: vec("cpu", "1")}); len(woken) != 0 {
		t.Errorf("a new flat quota woke %v", names(woken))
	}
	if l.Park(pod("team-b", "late"), view) == false {
		t.Error("an unrelated quota's change made team-b's view stale")
	}
	// team-a-prod gives back: both teams' waiters, parked at the department, are retried, once each.
	woken := l.Unreserve(pod("team-a-prod", "a2").UID)
	got := map[string]int{}
	for _, p := range woken {
		got[p.Namespace+"/"+p.Name]++
	}
	if diff := cmp.Diff(map[string]int{"team-b/w": 1, "team-a-dev/w": 1, "team-b/late": 1}, got); diff != "" {
		t.Errorf("woken (-want +got):\n%s", diff)
	}
	if l.Park(pod("team-b", "x"), view) {
		t.Error("a release in the department: want team-b's old view stale")
	}
	if len(l.parked) != 0 {
		t.Errorf("still parked: %v", l.parked)
	}
}

// The last valid tree's quotas keep their waiters when a change leaves them alone, and a quota
// that changes hands its waiters back.
func TestSetTreeWakesWhatChanged(t *testing.T) {
	l := treeLedger(t)
	view, _ := l.ViewOf("flat", "")
	l.Park(pod("flat", "w"), view)
	viewB, _ := l.ViewOf("team-b", "")
	l.Park(pod("team-b", "w"), viewB)
	changed := org()
	changed[0].Spec.Max = list("cpu", "14") // the department
	tree, _, _ := TreeOf(changed)
	woken := l.SetTree(tree)
	if len(woken) != 1 || woken[0].Namespace != "team-b" {
		t.Errorf("the department's max changed: woken %v, want team-b's waiter only", names(woken))
	}
	if !l.Park(pod("flat", "x"), view) {
		t.Error("flat's view went stale though flat did not change")
	}
	if l.Park(pod("team-b", "x"), viewB) {
		t.Error("team-b's view stayed fresh though its department changed")
	}
}

func TestReclaimInATree(t *testing.T) {
	l := treeLedger(t)
	// team-a (min 6) uses 8 over two namespaces, so lends 2; team-b (min 4) asks within its min.
	bind := func(ns, name, cpu string) *v1.Pod {
		p := podOf(ns, name, "cpu", cpu)
		req, _ := RequestOf(p, gpuMem)
		l.Bound(p, "", req)
		return p
	}
	a1, a2 := bind("team-a-dev", "a1", "2"), bind("team-a-prod", "a2", "2")
	bind("team-a-prod", "a3", "4")
	r := l.ReclaimFor(podOf("team-b", "p"), cpuReq("2"), gpuMem)
	if got := r.Judge([]*v1.Pod{a2}); got != Borrowed {
		t.Errorf("team-a above its min: Judge = %v, want Borrowed", got)
	}
	tally := r.Lenders()
	if !tally.Take([]*v1.Pod{a1}) {
		t.Error("team-a lends 2 over its two namespaces: want the first victim taken")
	}
	if tally.Take([]*v1.Pod{a2}) {
		t.Error("team-a at its min: want the second victim kept")
	}
	// Within team-a's own namespaces, priority decides.
	own := l.ReclaimFor(podOf("team-a-dev", "p"), cpuReq("1"), gpuMem)
	if got := own.Judge([]*v1.Pod{a2}); got != Priority {
		t.Errorf("a victim of the preemptor's own quota in another of its namespaces: %v, want Priority", got)
	}
}
