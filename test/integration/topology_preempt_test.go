package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/test/harness"
)

// topologyPreemptEnv is two racks of two 2-cpu nodes (r1-0, r1-1, r2-0, r2-1), pods that run once
// bound, and a priority class "high" above the default.
func topologyPreemptEnv(t *testing.T) *quotaEnv {
	t.Helper()
	var nodes []*v1.Node
	for _, r := range []string{"r1", "r2"} {
		for i := range 2 {
			nodes = append(nodes, rackedNode(fmt.Sprintf("%s-%d", r, i), "b1", r, "2"))
		}
	}
	e := startQuotaEnv(t, nodes...)
	e.ActAsKubelet(t)
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := e.Client.SchedulingV1().PriorityClasses().Create(context.Background(), high, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	return e
}

// boundTo creates a pod of cpu in ns already bound to node, as another scheduler would leave it.
func (e *quotaEnv) boundTo(t *testing.T, ns, name, node, cpu, priorityClass string) {
	t.Helper()
	p := cpuPod(ns, name, cpu)
	p.Spec.NodeName = node
	p.Spec.PriorityClassName = priorityClass
	e.CreatePod(t, p)
}

// rackGroup creates a high-priority PodGroup of n one-cpu members in ns that requires one rack.
func (e *quotaEnv) rackGroup(t *testing.T, ns string, n int) {
	t.Helper()
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train", Annotations: map[string]string{topology.RequiredAnnotation: topology.RackLabel}},
		Spec:       v1alpha1.PodGroupSpec{MinMember: int32(n)},
	}
	if _, err := e.eq.SchedulingV1alpha1().PodGroups(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := cpuPod(ns, fmt.Sprintf("train-%d", i), "1")
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "train"}
		p.Spec.PriorityClassName = "high"
		e.CreatePod(t, p)
	}
}

func (e *quotaEnv) emptyNamespaces(t *testing.T, namespaces ...string) {
	t.Helper()
	for _, ns := range namespaces {
		left, err := e.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range left.Items {
			e.deletePod(t, ns, p.Name)
		}
		e.WaitForPods(t, ns, time.Minute, ns+" empty", func(p []v1.Pod) bool { return len(p) == 0 })
	}
}

// A group that needs a rack, with both racks holding pods of lower priority: preemption frees the
// rack that needs the fewest evictions, evicts only there, and binds the group whole there. Which
// rack is the cheaper one alternates, so the racks' names cannot decide. Two rounds in make test
// (each rack the cheaper once), ten in the soak run.
func TestGangTopologyPreemptsTheRackWithFewestVictims(t *testing.T) {
	e := topologyPreemptEnv(t)
	for round := range harness.Tries(2, 10) {
		cheap, costly := "r1", "r2"
		if round%2 == 1 {
			cheap, costly = costly, cheap
		}
		low, jobs := e.Namespace(t, fmt.Sprint("low-", round)), e.Namespace(t, fmt.Sprint("jobs-", round))
		// The costly rack has 1 cpu free and 3 low pods; the cheap one 2 cpu free and 2 low pods.
		// Either holds the group of 4 once its low pods go.
		for i, node := range []string{costly + "-0", costly + "-0", costly + "-1", cheap + "-0", cheap + "-0"} {
			e.boundTo(t, low, fmt.Sprint("low-", i), node, "1", "")
		}
		e.WaitForPods(t, low, time.Minute, "low pods running", func(p []v1.Pod) bool { return harness.Bound(p) == 5 })
		evicted := watchEvictions(t, e.Cluster, low)
		start := time.Now()
		e.rackGroup(t, jobs, 4)
		pods := e.WaitForPods(t, jobs, time.Minute, "the group bound whole", func(p []v1.Pod) bool { return boundIn(p, "train") == 4 })
		took := time.Since(start)
		racks := map[string]bool{}
		for _, p := range pods {
			racks[strings.SplitN(p.Spec.NodeName, "-", 2)[0]] = true
		}
		victims := evicted()
		slices.Sort(victims)
		if !slices.Equal(sortedKeys(racks), []string{cheap}) {
			t.Errorf("round %d: the group is in racks %v, want only %s, the rack needing fewest evictions", round, sortedKeys(racks), cheap)
		}
		if !slices.Equal(victims, []string{"low-3", "low-4"}) {
			t.Errorf("round %d: evicted %v, want [low-3 low-4], the two low pods of rack %s", round, victims, cheap)
		}
		t.Logf("round %d: bound in rack %v in %v after evicting %v", round, sortedKeys(racks), took.Round(time.Millisecond), victims)
		e.emptyNamespaces(t, jobs, low)
	}
}

// Both racks together could be freed for the group, but neither alone: each rack's first node
// holds a pod of the group's own priority. Nothing is evicted, the group waits whole and says
// which level it needs. Each round is watched for 3 s after the members are told why they wait;
// two rounds in make test, ten in the soak run.
func TestGangTopologyPreemptsNothingWhenNoRackCanBeFreed(t *testing.T) {
	e := topologyPreemptEnv(t)
	for round := range harness.Tries(1, 10) {
		low, jobs := e.Namespace(t, fmt.Sprint("low-", round)), e.Namespace(t, fmt.Sprint("jobs-", round))
		for _, r := range []string{"r1", "r2"} {
			e.boundTo(t, low, "peer-"+r, r+"-0", "2", "high")
			e.boundTo(t, low, "low-"+r+"-a", r+"-1", "1", "")
			e.boundTo(t, low, "low-"+r+"-b", r+"-1", "1", "")
		}
		e.WaitForPods(t, low, time.Minute, "blockers running", func(p []v1.Pod) bool { return harness.Bound(p) == 6 })
		evicted := watchEvictions(t, e.Cluster, low)
		e.rackGroup(t, jobs, 4)
		want := "needs one berth.dev/rack domain with room for 4 members"
		e.WaitForPods(t, jobs, time.Minute, "the members told why they wait", func(p []v1.Pod) bool {
			told := 0
			for i := range p {
				if strings.Contains(harness.Unschedulable(&p[i]), want) {
					told++
				}
			}
			return told == 4
		})
		// A window in which nothing may be evicted or bound: 3 s holds the members' next tries
		// (the queue's backoff is 1 s, then 2 s), each of which would preempt again if it could.
		time.Sleep(3 * time.Second)
		pods := e.WaitForPods(t, jobs, time.Second, "state", func([]v1.Pod) bool { return true })
		if n := boundIn(pods, "train"); n != 0 {
			t.Errorf("round %d: %d members bound, want none", round, n)
		}
		if v := evicted(); len(v) != 0 {
			t.Errorf("round %d: evicted %v, want none: no one rack can be freed for 4", round, v)
		}
		for _, p := range pods {
			if p.Status.NominatedNodeName != "" {
				t.Errorf("round %d: %s nominated to %s", round, p.Name, p.Status.NominatedNodeName)
			}
		}
		e.emptyNamespaces(t, jobs, low)
	}
}
