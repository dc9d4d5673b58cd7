package integration

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/berth-sched/berth/test/harness"
)

// Kueue's fair-sharing and hierarchical-cohort integration scenarios (kubernetes-sigs/kueue,
// test/integration/singlecluster/scheduler: fairsharing/fair_sharing_test.go, scheduler_test.go,
// preemption_test.go), replayed against berth's quota tree on a real apiserver. The translation:
//   - a ClusterQueue with its LocalQueue is an ElasticQuota of one namespace, its nominal quota
//     the quota's min; a Cohort is a quota that covers no namespace (berth.dev/namespaces: ""),
//     its own nominal quota added to its min (a Cohort's min must hold its children's);
//   - a Kueue workload of N cpu is a pod of N cpu, and the cluster's nodes hold exactly what the
//     root cohort lends (Kueue admits against quota alone; berth needs the room on nodes);
//   - "admitted" is bound; an evicted workload is a deleted pod (bare pods are not recreated: a
//     step recreates one where Kueue requeues the workload and the scenario depends on it);
//   - Kueue's weighted share (borrowed over what the cohort lends) is read as BORROWED in
//     `kubectl berth quotas`.
// Each case asserts what Kueue's test asserts, at the same points; where berth differs on purpose
// the case says so (docs/quota-trees.md, "Kueue's scenarios replayed").

type kqQuota struct {
	// ns holds the quota; parent is NAMESPACE of the parent quota (every quota is named "quota").
	ns, parent string
	min, max   string
	// node marks a quota that covers no namespace.
	node bool
	ann  []string
}

type kqPods struct {
	ns       string
	n        int
	cpu      string
	priority string
	// name, when set, names the single pod.
	name string
}

type kqStep struct {
	what string
	// create pods, in this order; interleave creates them round-robin, one of each entry at a
	// time, as Kueue's loops do.
	create     []kqPods
	interleave bool
	// finish deletes n bound pods of a namespace (Kueue's FinishRunningWorkloadsInCQ).
	finish map[string]int
	// annotate sets an annotation of a namespace's quota: ns, key, value.
	annotate []string
	// bound is what must be bound when the step has settled: per namespace, or per
	// "namespace:priority class".
	bound map[string]int
	// waiting says what a pod of the namespace still pending says.
	waiting map[string]string
	// rows of `kubectl berth quotas -A` (NAMESPACE NAME RESOURCE MIN MAX USED BORROWED).
	rows [][]string
}

type kqCase struct {
	id, peer   string
	nodes      []string // cpu of each node
	priorities map[string]int32
	quotas     []kqQuota
	steps      []kqStep
}

var kqCases = []kqCase{{
	id:   "fair-share-with-preemption",
	peer: `fair_sharing_test.go "Preemption is enabled: Admits workloads respecting fair share"`,
	// a, b, c, nominal 3 each in one cohort. a takes all 9; b's five workloads take back its 3 and
	// one more, a left with 5 (a borrows 2, b 1: b's fifth would put b above a); c's one workload
	// is taken from a, the quota with the highest share, not from b.
	nodes: []string{"9"},
	quotas: []kqQuota{
		{ns: "a", min: "3", max: "9", ann: []string{"berth.dev/weight", "1"}},
		{ns: "b", min: "3", max: "9", ann: []string{"berth.dev/weight", "1"}},
		{ns: "c", min: "3", max: "9", ann: []string{"berth.dev/weight", "1"}},
	},
	steps: []kqStep{
		{what: "saturating a", create: []kqPods{{ns: "a", n: 10, cpu: "1"}}, bound: map[string]int{"a": 9}},
		{what: "b's workloads: the shared quota is fair-shared", create: []kqPods{{ns: "b", n: 5, cpu: "1"}},
			bound: map[string]int{"a": 5, "b": 4},
			rows:  [][]string{{"a", "quota", "cpu", "3", "9", "5", "2"}, {"b", "quota", "cpu", "3", "9", "4", "1"}}},
		{what: "c reclaims one unit from a, the quota with the highest share", create: []kqPods{{ns: "c", n: 1, cpu: "1"}},
			bound: map[string]int{"a": 4, "b": 4, "c": 1}},
	},
}, {
	id:   "hierarchical-admission",
	peer: `fair_sharing_test.go "using hierarchical cohorts: admits workloads respecting fair share"`,
	// root > first-left > {second-left: cqL 2, second-right: cqR 2}; root > first-right > bank 10.
	// Five workloads each in cqL and cqR, round-robin: all ten admitted, borrowing from bank;
	// first-left's share 6/14, each second cohort's 3/14, first-right's 0.
	nodes: []string{"14"},
	quotas: []kqQuota{
		{ns: "root", min: "14", max: "14", node: true},
		{ns: "first-left", parent: "root", min: "4", max: "14", node: true},
		{ns: "second-left", parent: "first-left", min: "2", max: "14"},
		{ns: "second-right", parent: "first-left", min: "2", max: "14"},
		{ns: "first-right", parent: "root", min: "10", max: "14", node: true},
		{ns: "bank", parent: "first-right", min: "10", max: "14", node: true},
	},
	steps: []kqStep{{
		what:   "workloads in both leaves, round-robin",
		create: []kqPods{{ns: "second-left", n: 5, cpu: "1"}, {ns: "second-right", n: 5, cpu: "1"}}, interleave: true,
		bound: map[string]int{"second-left": 5, "second-right": 5},
		rows: [][]string{
			{"first-left", "quota", "cpu", "4", "14", "10", "6"},
			{"second-left", "quota", "cpu", "2", "14", "5", "3"},
			{"second-right", "quota", "cpu", "2", "14", "5", "3"},
			{"first-right", "quota", "cpu", "10", "14", "0", "0"},
		},
	}},
}, {
	id:   "hierarchical-preemption",
	peer: `fair_sharing_test.go "using hierarchical cohorts: preempts workloads to enforce fair share"`,
	// root (12 cpu) > best-effort (weight 0.5), research > {chemistry, physics, llm (weight 2)},
	// no guarantees. best-effort and physics fill the cluster at low priority; then six
	// high-priority workloads in each queue: fair at each level, best-effort 4 and research 8,
	// split 2, 2, 4. (In Kueue best-effort keeps its low-priority workloads: its queue may not
	// preempt. berth always preempts by priority inside a quota, so which of a quota's pods stay
	// differs; the counts are the same.)
	nodes:      []string{"12"},
	priorities: map[string]int32{"kq-low": -1, "kq-high": 100},
	quotas: []kqQuota{
		{ns: "root", min: "0", max: "12", node: true},
		{ns: "best-effort", parent: "root", min: "0", max: "12", ann: []string{"berth.dev/weight", "0.5"}},
		{ns: "research", parent: "root", min: "0", max: "12", node: true},
		{ns: "chemistry", parent: "research", min: "0", max: "12"},
		{ns: "physics", parent: "research", min: "0", max: "12"},
		{ns: "llm", parent: "research", min: "0", max: "12", ann: []string{"berth.dev/weight", "2"}},
	},
	steps: []kqStep{
		{what: "all capacity used", create: []kqPods{{ns: "best-effort", n: 6, cpu: "1", priority: "kq-low"}, {ns: "physics", n: 6, cpu: "1", priority: "kq-low"}},
			interleave: true, bound: map[string]int{"best-effort": 6, "physics": 6}},
		{what: "high-priority workloads everywhere: fair at each level", interleave: true,
			create: []kqPods{{ns: "chemistry", n: 6, cpu: "1", priority: "kq-high"}, {ns: "physics", n: 6, cpu: "1", priority: "kq-high"},
				{ns: "llm", n: 6, cpu: "1", priority: "kq-high"}, {ns: "best-effort", n: 6, cpu: "1", priority: "kq-high"}},
			bound: map[string]int{"best-effort": 4, "chemistry": 2, "physics": 2, "llm": 4}},
	},
}, {
	id:   "no-preemption-cycle",
	peer: `fair_sharing_test.go "Preemption is enabled and CQs have 0 weight: should not cause an infinite preemption cycle"`,
	// top (8 cpu) > a, b, no guarantees. a runs two workloads of 4 (priorities 9001 and 100); b's
	// workload of 4 preempts a's lower one, and nothing more is preempted, also when the evicted
	// workload comes back. (Kueue's weight 0 is refused by berth, which wants a positive weight:
	// the queues here have the default, 1, both.)
	nodes:      []string{"8"},
	priorities: map[string]int32{"kq-9001": 9001, "kq-100": 100},
	quotas: []kqQuota{
		{ns: "top", min: "0", max: "8", node: true},
		{ns: "a", parent: "top", min: "0", max: "8"},
		{ns: "b", parent: "top", min: "0", max: "8"},
	},
	steps: []kqStep{
		{what: "a's two workloads", create: []kqPods{{ns: "a", n: 1, cpu: "4", priority: "kq-9001"}, {ns: "a", n: 1, cpu: "4", priority: "kq-100"}},
			bound: map[string]int{"a": 2}},
		{what: "b's workload preempts a's lower one", create: []kqPods{{ns: "b", n: 1, cpu: "4", priority: "kq-100"}},
			bound: map[string]int{"a:kq-9001": 1, "a:kq-100": 0, "b": 1}},
		{what: "a's evicted workload, requeued, preempts nothing", create: []kqPods{{ns: "a", n: 1, cpu: "4", priority: "kq-100", name: "requeued"}},
			bound: map[string]int{"a:kq-9001": 1, "a:kq-100": 0, "b": 1}},
	},
}, {
	id:   "reclaim-nominal-with-large-weights",
	peer: `fair_sharing_test.go "large values of quota and weights: Queue can reclaim its nominal quota"`,
	// a and b, nominal 6 each (Kueue's 600 over 100), weight 300 each. a borrows 4; b's
	// workload of 5, within its nominal quota, evicts three of a's.
	nodes: []string{"12"},
	quotas: []kqQuota{
		{ns: "a", min: "6", max: "12", ann: []string{"berth.dev/weight", "300"}},
		{ns: "b", min: "6", max: "12", ann: []string{"berth.dev/weight", "300"}},
	},
	steps: []kqStep{
		{what: "a borrows from b", create: []kqPods{{ns: "a", n: 10, cpu: "1"}}, bound: map[string]int{"a": 10}},
		{what: "b reclaims its nominal quota", create: []kqPods{{ns: "b", n: 1, cpu: "5"}}, bound: map[string]int{"a": 7, "b": 1}},
	},
}, {
	id:   "guaranteed-preempts-one-best-effort",
	peer: `fair_sharing_test.go "best effort and guaranteed workloads: Guaranteed workloads cause preemption of a single best effort workload"`,
	// best-effort-a and -b (nominal 0) each run a workload of 4, priorities 2 and 1; guaranteed
	// (nominal 8) asks 4: exactly one is evicted, best-effort-b's, of the lower priority.
	nodes:      []string{"8"},
	priorities: map[string]int32{"kq-1": 1, "kq-2": 2},
	quotas: []kqQuota{
		{ns: "best-effort-a", min: "0", max: "8", ann: []string{"berth.dev/weight", "1"}},
		{ns: "best-effort-b", min: "0", max: "8", ann: []string{"berth.dev/weight", "1"}},
		{ns: "guaranteed", min: "8", max: "8", ann: []string{"berth.dev/weight", "1"}},
	},
	steps: []kqStep{
		{what: "best effort workloads", create: []kqPods{{ns: "best-effort-a", n: 1, cpu: "4", priority: "kq-2"}}, bound: map[string]int{"best-effort-a": 1}},
		{what: "best effort workloads", create: []kqPods{{ns: "best-effort-b", n: 1, cpu: "4", priority: "kq-1"}}, bound: map[string]int{"best-effort-b": 1}},
		{what: "the guaranteed workload reclaims", create: []kqPods{{ns: "guaranteed", n: 1, cpu: "4"}},
			bound: map[string]int{"best-effort-a": 1, "best-effort-b": 0, "guaranteed": 1}},
	},
}, {
	id:   "preempt-with-lending-limit",
	peer: `preemption_test.go "With lending limit: Should be able to preempt when lending limit enabled"`,
	// prod (nominal 5, lends at most 4) and dev (5). dev runs 4 (priority 0) and 5 (priority 1),
	// borrowing all prod lends; prod's workload of 4 evicts dev's lower one and is admitted.
	nodes:      []string{"10"},
	priorities: map[string]int32{"kq-0": 0, "kq-1": 1},
	quotas: []kqQuota{
		{ns: "prod", min: "5", max: "10", ann: []string{"berth.dev/lending-limit", "{cpu: 4}"}},
		{ns: "dev", min: "5", max: "10"},
	},
	steps: []kqStep{
		{what: "dev's two workloads", create: []kqPods{{ns: "dev", n: 1, cpu: "4", priority: "kq-0"}, {ns: "dev", n: 1, cpu: "5", priority: "kq-1"}},
			bound: map[string]int{"dev": 2}},
		{what: "prod's workload evicts dev's lower one", create: []kqPods{{ns: "prod", n: 1, cpu: "4"}},
			bound: map[string]int{"prod": 1, "dev:kq-1": 1, "dev:kq-0": 0}},
	},
}, {
	id:   "admit-after-lending-limit-raised",
	peer: `scheduler_test.go "Using cohorts for sharing with LendingLimit: Should admit workloads after updating lending limit"`,
	// prod and dev, nominal 5 each, lending nothing: prod's second workload of 5 waits; dev's
	// lending limit raised to 5 lets it in.
	nodes: []string{"10"},
	quotas: []kqQuota{
		{ns: "prod", min: "5", max: "10", ann: []string{"berth.dev/lending-limit", "{cpu: 0}"}},
		{ns: "dev", min: "5", max: "10", ann: []string{"berth.dev/lending-limit", "{cpu: 0}"}},
	},
	steps: []kqStep{
		{what: "prod's two workloads", create: []kqPods{{ns: "prod", n: 2, cpu: "5"}}, bound: map[string]int{"prod": 1},
			waiting: map[string]string{"prod": "kept by lending limits (dev/quota: min 5, used 0, lending limit 0)"}},
		{what: "dev lends all", annotate: []string{"dev", "berth.dev/lending-limit", "{cpu: 5}"}, bound: map[string]int{"prod": 2}},
	},
}, {
	id:   "cohort-lending-limit",
	peer: `scheduler_test.go "Cohort lendingLimit caps sibling borrowing in hierarchy"`,
	// root > lender (1 cpu, lends 500m) > lender-cq (1); root > borrower > borrower-cq (0). Two
	// workloads of 500m in borrower-cq: one is admitted.
	nodes: []string{"1"},
	quotas: []kqQuota{
		{ns: "root", min: "1", max: "1", node: true},
		{ns: "lender", parent: "root", min: "1", max: "1", node: true, ann: []string{"berth.dev/lending-limit", "{cpu: 500m}"}},
		{ns: "lender-cq", parent: "lender", min: "1", max: "1"},
		{ns: "borrower", parent: "root", min: "0", max: "1", node: true},
		{ns: "borrower-cq", parent: "borrower", min: "0", max: "1"},
	},
	steps: []kqStep{{what: "two workloads of the borrower", create: []kqPods{{ns: "borrower-cq", n: 2, cpu: "500m"}},
		bound:   map[string]int{"borrower-cq": 1},
		waiting: map[string]string{"borrower-cq": "kept by lending limits (lender/quota: min 1, used 0, lending limit 500m)"}}},
}, {
	id:   "cohort-borrowing-limit",
	peer: `scheduler_test.go "Cohort borrowingLimit blocks sibling borrowing in hierarchy: should allow production to borrow but block research"`,
	// root > research (borrowing limit 0) > research-cq (1); root > production > production-cq (1).
	// production borrows research's idle cpu (three of 500m); once they finish, research gets
	// two and cannot borrow a third.
	nodes: []string{"2"},
	quotas: []kqQuota{
		{ns: "root", min: "2", max: "2", node: true},
		{ns: "research", parent: "root", min: "1", max: "2", node: true, ann: []string{"berth.dev/borrowing-limit", "{cpu: 0}"}},
		{ns: "research-cq", parent: "research", min: "1", max: "2"},
		{ns: "production", parent: "root", min: "1", max: "2", node: true},
		{ns: "production-cq", parent: "production", min: "1", max: "2"},
	},
	steps: []kqStep{
		{what: "production borrows", create: []kqPods{{ns: "production-cq", n: 3, cpu: "500m"}}, bound: map[string]int{"production-cq": 3}},
		{what: "production's workloads finish", finish: map[string]int{"production-cq": 3}, bound: map[string]int{"production-cq": 0}},
		{what: "research cannot borrow", create: []kqPods{{ns: "research-cq", n: 3, cpu: "500m"}}, bound: map[string]int{"research-cq": 2},
			waiting: map[string]string{"research-cq": "quota research/quota, above research-cq/quota in its tree: cpu used 1, requested 500m, min 1 + borrowing limit 0 (500m over)"}},
	},
}, {
	id:   "guaranteed-cohort-preferred",
	peer: `preemption_test.go "In a multi-level cohort: workloads in guaranteed cq should have preferential access to the resources"`,
	// root > guaranteed cohort (3 cpu) > guaranteed-cq (0); root > best-effort (0). best-effort's
	// high-priority workload of 3 runs; guaranteed's mid-priority one evicts it.
	nodes:      []string{"3"},
	priorities: map[string]int32{"kq-mid": 100, "kq-high": 1000},
	quotas: []kqQuota{
		{ns: "root", min: "3", max: "3", node: true},
		{ns: "guaranteed", parent: "root", min: "3", max: "3", node: true},
		{ns: "guaranteed-cq", parent: "guaranteed", min: "0", max: "3"},
		{ns: "best-effort", parent: "root", min: "0", max: "3"},
	},
	steps: []kqStep{
		{what: "best effort runs", create: []kqPods{{ns: "best-effort", n: 1, cpu: "3", priority: "kq-high"}}, bound: map[string]int{"best-effort": 1}},
		{what: "guaranteed evicts it", create: []kqPods{{ns: "guaranteed-cq", n: 1, cpu: "3", priority: "kq-mid"}},
			bound: map[string]int{"best-effort": 0, "guaranteed-cq": 1}},
	},
}}

// TestKueueScenariosReplayed runs each case BERTH_KUEUE_TRIES times (default once, three times in
// the soak run), one after another on one control plane: each case starts from an empty cluster
// (resetKueue), since fair shares are of the whole cluster's capacity, and with a scheduler of its
// own. (One control plane per case took eleven start-ups, about 60 of the test's 170 s.)
func TestKueueScenariosReplayed(t *testing.T) {
	e := startKueueEnv(t)
	tries := envInt("BERTH_KUEUE_TRIES", harness.Tries(1, 3))
	for _, c := range kqCases {
		for try := range tries {
			t.Run(fmt.Sprintf("%s/try-%d", c.id, try), func(t *testing.T) { replayKueue(t, e, c) })
		}
	}
}

// startKueueEnv is the control plane the replayed cases share, with a kubelet's deletions.
func startKueueEnv(t *testing.T) *quotaEnv {
	e := startQuotaEnv(t)
	e.ActAsKubelet(t)
	return e
}

// resetKueue empties the cluster for the next case: no pod, quota, node or kq- priority class is
// left of the last one (its scheduler has stopped with its subtest), nor its namespaces' events.
// The namespaces stay: a case that names one again finds it empty.
func (e *quotaEnv) resetKueue(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	zero := int64(0)
	nss, err := e.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		if strings.HasPrefix(ns.Name, "kube-") || ns.Name == "default" {
			continue
		}
		if err := e.Client.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := e.eq.SchedulingV1alpha1().ElasticQuotas(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := e.Client.CoreV1().Events(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Client.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	pcs, err := e.Client.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range pcs.Items {
		if strings.HasPrefix(pc.Name, "kq-") {
			if err := e.Client.SchedulingV1().PriorityClasses().Delete(ctx, pc.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var left string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := e.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		qs, err := e.eq.SchedulingV1alpha1().ElasticQuotas("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		nodes, err := e.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		left = fmt.Sprintf("%d pods, %d quotas, %d nodes", len(pods.Items), len(qs.Items), len(nodes.Items))
		return len(pods.Items)+len(qs.Items)+len(nodes.Items) == 0, nil
	})
	if err != nil {
		t.Fatalf("emptying the cluster for the next case: %s left: %v", left, err)
	}
}

// priorityClassSeen waits until a pod created in ns with the priority class gets its value: a
// class of a name an earlier case gave another value (kq-high) is deleted and created again, and
// the apiserver's admission resolves a pod's priority from its own informer's copy.
func (e *quotaEnv) priorityClassSeen(t *testing.T, ns, name string, value int32) {
	t.Helper()
	var got string
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p := cpuPod(ns, "priority-probe", "1")
		p.Spec.PriorityClassName = name
		created, err := e.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			got = err.Error()
			return false, nil
		}
		if created.Spec.Priority == nil {
			got = "no priority"
			return false, nil
		}
		got = fmt.Sprint(*created.Spec.Priority)
		return *created.Spec.Priority == value, nil
	})
	if err != nil {
		t.Fatalf("priority class %s: a pod gets %s, want %d: %v", name, got, value, err)
	}
}

func replayKueue(t *testing.T, e *quotaEnv, c kqCase) {
	t.Logf("Kueue: %s", c.peer)
	e.resetKueue(t)
	for i, cpu := range c.nodes {
		e.CreateNode(t, harness.Node(fmt.Sprint("n", i), cpu, "64Gi", nil))
	}
	var namespaces []string
	for _, q := range c.quotas {
		namespaces = append(namespaces, e.Namespace(t, q.ns))
	}
	for name, value := range c.priorities {
		e.priorityClass(t, name, value)
		e.priorityClassSeen(t, namespaces[0], name, value)
	}
	t.Cleanup(func() {
		if t.Failed() {
			dumpEvents(t, e.Cluster, namespaces)
		}
	})
	for _, q := range c.quotas {
		ann := slices.Clone(q.ann)
		if q.parent != "" {
			ann = append(ann, "berth.dev/parent-quota", q.parent+"/quota")
		}
		if q.node {
			ann = append(ann, "berth.dev/namespaces", "")
		}
		e.treeQuota(t, q.ns, "quota", cpuList(q.min), cpuList(q.max), ann...)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))

	seq := 0
	podOf := func(p kqPods) *v1.Pod {
		seq++
		name := p.name
		if name == "" {
			name = fmt.Sprintf("w%02d", seq)
		}
		pod := cpuPod(p.ns, name, p.cpu)
		pod.Spec.PriorityClassName = p.priority
		return pod
	}
	for i, s := range c.steps {
		step := fmt.Sprintf("step %d (%s)", i+1, s.what)
		if s.interleave {
			left := make([]int, len(s.create))
			for more := true; more; {
				more = false
				for j, p := range s.create {
					if left[j] < p.n {
						left[j]++
						e.CreatePod(t, podOf(p))
						more = true
					}
				}
			}
		} else {
			for _, p := range s.create {
				for range p.n {
					e.CreatePod(t, podOf(p))
				}
			}
		}
		for ns, n := range s.finish {
			for _, p := range e.WaitForPods(t, ns, time.Minute, "list", func([]v1.Pod) bool { return true }) {
				if n > 0 && p.Spec.NodeName != "" {
					e.deletePod(t, ns, p.Name)
					n--
				}
			}
		}
		if len(s.annotate) == 3 {
			ns, key, value := s.annotate[0], s.annotate[1], s.annotate[2]
			err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
				q, err := e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Get(ctx, "quota", metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				q.Annotations[key] = value
				_, err = e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Update(ctx, q, metav1.UpdateOptions{})
				return err == nil, nil
			})
			if err != nil {
				t.Fatalf("%s: annotating %s/quota: %v", step, ns, err)
			}
		}
		// The outcome, then settled (every pod bound or told why not, none being deleted), then
		// the outcome again after a quiet spell: no eviction after the fact.
		e.waitAll(t, namespaces, step+": "+fmt.Sprint(s.bound), func(pods []v1.Pod) bool { return kqOutcome(pods, s.bound) == "" })
		settled := e.waitAll(t, namespaces, step+": settled", func(pods []v1.Pod) bool {
			for i := range pods {
				if pods[i].DeletionTimestamp != nil || pods[i].Spec.NodeName == "" && harness.Unschedulable(&pods[i]) == "" {
					return false
				}
			}
			return true
		})
		// The quiet spell. While a pod waits, or after a quota changed, 3 s: it holds every
		// waiting pod's next try (the queue's backoff is 1 s, then 2 s), which would preempt or
		// bind after the fact if the outcome were not stable. When every pod is bound and no
		// quota changed, nothing is left to try, and nothing else evicts (berth evicts only for a
		// preemptor); 1 s is for a deletion already sent by a preemption that is done (an
		// eviction of one victim too many lands within milliseconds of the others when quiet).
		quiet := time.Second
		if len(s.annotate) > 0 || slices.ContainsFunc(settled, func(p v1.Pod) bool { return p.Spec.NodeName == "" }) {
			quiet = 3 * time.Second
		}
		time.Sleep(quiet)
		pods := e.waitAll(t, namespaces, "list", func([]v1.Pod) bool { return true })
		if msg := kqOutcome(pods, s.bound); msg != "" {
			t.Fatalf("%s: after a quiet spell %s", step, msg)
		}
		for ns, want := range s.waiting {
			for i := range pods {
				if p := &pods[i]; p.Namespace == ns && p.Spec.NodeName == "" {
					if msg := harness.Unschedulable(p); !strings.Contains(msg, want) {
						t.Errorf("%s: %s/%s waits saying %q, want it to contain %q", step, ns, p.Name, msg, want)
					}
				}
			}
		}
		if len(s.rows) > 0 {
			var table string
			err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				table = mustKubectlBerth(t, e.Cluster, "quotas", "-A")
				for _, row := range s.rows {
					if !hasRow(table, row...) {
						return false, nil
					}
				}
				return true, nil
			})
			if err != nil {
				t.Errorf("%s: the table never showed the rows %q:\n%s", step, s.rows, table)
			}
		}
	}
}

// kqOutcome says how the bound pods differ from want (per namespace, or "namespace:priority
// class"), or "" when they match.
func kqOutcome(pods []v1.Pod, want map[string]int) string {
	got := map[string]int{}
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			got[p.Namespace]++
			got[p.Namespace+":"+p.Spec.PriorityClassName]++
		}
	}
	var diffs []string
	for key, n := range want {
		if got[key] != n {
			diffs = append(diffs, fmt.Sprintf("%s %d bound, want %d", key, got[key], n))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

// envInt reads a positive count from the environment, def when unset or not a positive number.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// A lending limit lowered below what is already lent (Kueue's meaning of lendingLimit): nothing is
// evicted while the lender asks for nothing; when it asks, it reclaims what is now beyond the
// limit, and up to its min, whatever the borrower's priority; what it frees again is lent only up
// to the new limit. x guarantees 6 of a node of 8 and lends all 6 at first; y, with no min, takes
// all 8; x's limit is then lowered to 2.
var lendingLimitLowered = kqCase{
	id:         "lending-limit-lowered",
	peer:       "none: berth's own case, Kueue's meaning",
	nodes:      []string{"8"},
	priorities: map[string]int32{"kq-high": 1000},
	quotas: []kqQuota{
		{ns: "x", min: "6", max: "8", ann: []string{"berth.dev/lending-limit", "{cpu: 6}"}},
		{ns: "y", min: "0", max: "8"},
	},
	steps: []kqStep{
		{what: "y borrows all x lends", create: []kqPods{{ns: "y", n: 8, cpu: "1", priority: "kq-high"}}, bound: map[string]int{"y": 8}},
		{what: "x's lending limit lowered to 2: nothing evicted while x asks for nothing", annotate: []string{"x", "berth.dev/lending-limit", "{cpu: 2}"},
			bound: map[string]int{"y": 8}},
		{what: "x asks for 2: reclaimed", create: []kqPods{{ns: "x", n: 2, cpu: "1"}}, bound: map[string]int{"x": 2, "y": 6}},
		{what: "x asks for 2 more: reclaimed", create: []kqPods{{ns: "x", n: 2, cpu: "1"}}, bound: map[string]int{"x": 4, "y": 4}},
		{what: "x's pods end: y may borrow only what x now lends", finish: map[string]int{"x": 4},
			create: []kqPods{{ns: "y", n: 4, cpu: "1", priority: "kq-high"}}, bound: map[string]int{"x": 0, "y": 4},
			waiting: map[string]string{"y": "of which 4 is kept by lending limits (x/quota: min 6, used 0, lending limit 2)"}},
		{what: "x takes its whole min", create: []kqPods{{ns: "x", n: 6, cpu: "1"}}, bound: map[string]int{"x": 6, "y": 2}},
	},
}

// The same in a tree: the limit is the department's, and the pods that need it back are a team's
// with no min of its own (it borrows inside the department, which is within its min).
var lendingLimitLoweredInTree = kqCase{
	id:         "lending-limit-lowered-in-tree",
	peer:       lendingLimitLowered.peer,
	nodes:      lendingLimitLowered.nodes,
	priorities: lendingLimitLowered.priorities,
	quotas: []kqQuota{
		{ns: "x", min: "6", max: "8", node: true, ann: []string{"berth.dev/lending-limit", "{cpu: 6}"}},
		{ns: "team", parent: "x", min: "0", max: "8"},
		{ns: "y", min: "0", max: "8"},
	},
	steps: []kqStep{
		lendingLimitLowered.steps[0], lendingLimitLowered.steps[1],
		{what: "the team asks for 4: reclaimed", create: []kqPods{{ns: "team", n: 4, cpu: "1"}}, bound: map[string]int{"team": 4, "y": 4}},
	},
}

// TestQuotaLendingLimitLoweredIsReclaimed runs both cases BERTH_KUEUE_TRIES times (default once,
// three times in the soak run), on one control plane as TestKueueScenariosReplayed does.
func TestQuotaLendingLimitLoweredIsReclaimed(t *testing.T) {
	e := startKueueEnv(t)
	for try := range envInt("BERTH_KUEUE_TRIES", harness.Tries(1, 3)) {
		for _, c := range []kqCase{lendingLimitLowered, lendingLimitLoweredInTree} {
			t.Run(fmt.Sprint(c.id, "/try-", try), func(t *testing.T) { replayKueue(t, e, c) })
		}
	}
}
