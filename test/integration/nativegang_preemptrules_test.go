package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/test/harness"
)

// berth's victim rules hold for a native group that preempts, as for a member of a
// scheduler-plugins group: the group rule (a running scheduler-plugins group goes whole or not at
// all), the quota rule (quotas are closed to each other below their min) and the topology rule
// (victims in the one rack with fewest of them).

// plainPod drops the scheduler-plugins group label that gangEnv.member sets.
func plainPod(p *v1.Pod) { p.Labels = nil }

// highMember gives a pod the priority class "high".
func highMember(p *v1.Pod) { p.Spec.PriorityClassName = "high" }

// settleEvictions gives asynchronous evictions a moment to show, then returns them sorted.
func settleEvictions(evicted func() []string) []string {
	time.Sleep(2 * time.Second)
	got := evicted()
	slices.Sort(got)
	return got
}

// A high-priority native group that needs the room of one member of a running scheduler-plugins
// group takes the whole group, never one member (which would leave the gang broken, running short
// of minMember). One node of 4 cpu, a low-priority scheduler-plugins group of two 1-cpu members on
// it, and a native group of three 1-cpu members.
func TestNativeGroupPreemptsABerthGroupWhole(t *testing.T) {
	e := startNativeGangEnv(t, "native-preempts-gang")
	e.ActAsKubelet(t)
	highPriority(t, e.Cluster)
	e.CreateNode(t, harness.Node("n1", "4", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "low", 2)
	e.members(t, "low", 2, "1")
	e.WaitForPods(t, e.ns, time.Minute, "the low group bound whole", func(p []v1.Pod) bool { return boundIn(p, "low") == 2 })
	evicted := watchEvictions(t, e.Cluster, e.ns)
	e.nativeGroup(t, "high", 3, withPriorityClass("high"))
	for i := range 3 {
		e.member(t, "", fmt.Sprint("high-", i), "1", plainPod, inNativeGroup("high"), highMember)
	}
	e.WaitForPods(t, e.ns, time.Minute, "the native group bound whole", func(p []v1.Pod) bool { return boundOf(p, "high") == 3 })
	got := settleEvictions(evicted)
	t.Logf("evicted %v", got)
	if !slices.Equal(got, []string{"low-0", "low-1"}) {
		t.Errorf("evicted %v, want [low-0 low-1]: the scheduler-plugins group whole", got)
	}
}

// A high-priority native group in a namespace with an ElasticQuota does not take pods of another
// quota that uses no more than its min: quotas are closed to each other, whatever the priority.
// One node of 4 cpu full with two 2-cpu pods of quota "lender" (min 4 cpu); the native group's
// quota lets it in (max 8 cpu), and the group of two 2-cpu members waits, evicting nothing.
func TestNativeGroupLeavesAQuotaWithinItsMin(t *testing.T) {
	e := startNativeGangEnv(t, "native-quota-preempt")
	e.ActAsKubelet(t)
	highPriority(t, e.Cluster)
	e.CreateNode(t, harness.Node("n1", "4", "16Gi", nil))
	lender := e.Namespace(t, "lender")
	e.quota(t, lender, cpuList("4"), cpuList("8"))
	e.quota(t, e.ns, cpuList("0"), cpuList("8"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	for i := range 2 {
		e.CreatePod(t, cpuPod(lender, fmt.Sprint("lent-", i), "2"))
	}
	e.WaitForPods(t, lender, time.Minute, "the lender's pods bound", func(p []v1.Pod) bool { return harness.Bound(p) == 2 })
	evicted := watchEvictions(t, e.Cluster, lender)
	e.nativeGroup(t, "high", 2, withPriorityClass("high"))
	for i := range 2 {
		e.member(t, "", fmt.Sprint("high-", i), "2", plainPod, inNativeGroup("high"), highMember)
	}
	pods := e.Settled(t, e.ns, time.Minute)
	got := settleEvictions(evicted)
	t.Logf("evicted %v; %d members of the native group bound", got, boundOf(pods, "high"))
	if len(got) != 0 {
		t.Errorf("evicted %v of a quota within its min", got)
	}
	if n := boundOf(pods, "high"); n != 0 {
		t.Errorf("%d members of the native group bound, want none: the node is the lender's", n)
	}
}

// A native group whose PodGroup requires a rack, with both racks holding pods of lower priority:
// preemption frees the rack that needs the fewest evictions, evicts only there, and binds the
// group whole there, as for a scheduler-plugins group (TestGangTopologyPreemptsTheRackWithFewestVictims).
// Two racks of two 2-cpu nodes; which rack is the cheaper one alternates. Two rounds in make test,
// ten in the soak run.
func TestNativeGroupPreemptsTheRackWithFewestVictims(t *testing.T) {
	e := startNativeGangEnv(t, "native-rack-preempt")
	e.ActAsKubelet(t)
	highPriority(t, e.Cluster)
	for _, r := range []string{"r1", "r2"} {
		for i := range 2 {
			e.CreateNode(t, rackedNode(fmt.Sprintf("%s-%d", r, i), "b1", r, "2"))
		}
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	qe := &quotaEnv{Cluster: e.Cluster, eq: e.pg}
	for round := range harness.Tries(2, 10) {
		cheap, costly := "r1", "r2"
		if round%2 == 1 {
			cheap, costly = costly, cheap
		}
		low := e.Namespace(t, fmt.Sprint("low-", round))
		// The costly rack has 1 cpu free and 3 low pods; the cheap one 2 cpu free and 2 low pods.
		for i, node := range []string{costly + "-0", costly + "-0", costly + "-1", cheap + "-0", cheap + "-0"} {
			qe.boundTo(t, low, fmt.Sprint("low-", i), node, "1", "")
		}
		e.WaitForPods(t, low, time.Minute, "low pods running", func(p []v1.Pod) bool { return harness.Bound(p) == 5 })
		evicted := watchEvictions(t, e.Cluster, low)
		group := fmt.Sprint("train-", round)
		e.nativeGroup(t, group, 4, withPriorityClass("high"), func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
				Topology: []schedulingv1beta1.TopologyConstraint{{Key: topology.RackLabel}},
			}
		})
		start := time.Now()
		for i := range 4 {
			e.member(t, "", fmt.Sprintf("%s-%d", group, i), "1", plainPod, inNativeGroup(group), highMember)
		}
		pods := e.WaitForPods(t, e.ns, time.Minute, "the group bound whole", func(p []v1.Pod) bool { return boundOf(p, group) == 4 })
		took := time.Since(start)
		racks := map[string]bool{}
		for i := range pods {
			if memberOf(&pods[i], group) {
				racks[strings.SplitN(pods[i].Spec.NodeName, "-", 2)[0]] = true
			}
		}
		victims := settleEvictions(evicted)
		if !slices.Equal(sortedKeys(racks), []string{cheap}) {
			t.Errorf("round %d: the group is in racks %v, want only %s, the rack needing fewest evictions", round, sortedKeys(racks), cheap)
		}
		if !slices.Equal(victims, []string{"low-3", "low-4"}) {
			t.Errorf("round %d: evicted %v, want [low-3 low-4], the two low pods of rack %s", round, victims, cheap)
		}
		t.Logf("round %d: bound in rack %v in %v after evicting %v", round, sortedKeys(racks), took.Round(time.Millisecond), victims)
		qe.emptyNamespaces(t, e.ns, low)
	}
}
