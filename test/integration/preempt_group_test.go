package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/test/harness"
)

// A pending group that fits only after evicting lower-priority pods on several nodes gets them
// evicted on all of those nodes, and only if the whole group then fits. Ten rounds on one control
// plane, each: three nodes full of low-priority pods; a high-priority group of four members, each
// needing a whole node, evicts nothing at all; then a group of three evicts every node's pods and
// binds whole.
func TestGroupPreemptsAcrossNodesOrNotAtAll(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "4", "64Gi", nil), harness.Node("n2", "4", "64Gi", nil), harness.Node("n3", "4", "64Gi", nil))
	e.ActAsKubelet(t)
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := e.Client.SchedulingV1().PriorityClasses().Create(context.Background(), high, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))

	group := func(ns, name string, members int) {
		t.Helper()
		pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.PodGroupSpec{MinMember: int32(members)}}
		if _, err := e.eq.SchedulingV1alpha1().PodGroups(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for i := range members {
			p := cpuPod(ns, fmt.Sprintf("%s-%d", name, i), "4")
			p.Labels = map[string]string{v1alpha1.PodGroupLabel: name}
			p.Spec.PriorityClassName = "high"
			e.CreatePod(t, p)
		}
	}

	for round := range harness.Tries(1, 10) {
		low, jobs := e.Namespace(t, fmt.Sprint("low-", round)), e.Namespace(t, fmt.Sprint("jobs-", round))
		for i := range 6 {
			e.CreatePod(t, cpuPod(low, fmt.Sprint("low-", i), "2"))
		}
		e.WaitForPods(t, low, time.Minute, "six low-priority pods filling the three nodes", func(p []v1.Pod) bool { return harness.Bound(p) == 6 })
		evicted := watchEvictions(t, e.Cluster, low)

		// Four members, three nodes: no eviction can make the group fit, so none happens.
		start := time.Now()
		group(jobs, "big", 4)
		e.WaitForPods(t, jobs, time.Minute, "every member of the big group tried and turned down", func(p []v1.Pod) bool {
			for i := range p {
				if harness.Unschedulable(&p[i]) == "" {
					return false
				}
			}
			return len(p) == 4
		})
		// Preemption is asynchronous: give deletions issued by those attempts time to show.
		_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Second, true, func(context.Context) (bool, error) {
			return len(evicted()) > 0, nil
		})
		if got := evicted(); len(got) > 0 {
			t.Fatalf("round %d: a group that cannot fit evicted %v", round, got)
		}
		for i := range 4 {
			e.deletePod(t, jobs, fmt.Sprint("big-", i))
		}
		e.WaitForPods(t, jobs, time.Minute, "the big group gone", func(p []v1.Pod) bool { return len(p) == 0 })
		refused := time.Since(start)

		// Three members, three nodes: all six low-priority pods go, all three members bind.
		start = time.Now()
		group(jobs, "fits", 3)
		pods := e.WaitForPods(t, jobs, time.Minute, "the group bound whole", func(p []v1.Pod) bool { return harness.Bound(p) == 3 })
		e.WaitForPods(t, low, time.Minute, "every low-priority pod evicted", func(p []v1.Pod) bool { return len(p) == 0 })
		nodes := map[string]bool{}
		for _, p := range pods {
			nodes[p.Spec.NodeName] = true
		}
		if len(nodes) != 3 {
			t.Fatalf("round %d: members on %v, want one on each node", round, nodes)
		}
		t.Logf("round %d: the four-member group turned down in %v with nothing evicted; the three-member group bound in %v", round, refused.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		for i := range 3 {
			e.deletePod(t, jobs, fmt.Sprint("fits-", i))
		}
		e.WaitForPods(t, jobs, time.Minute, "the group gone", func(p []v1.Pod) bool { return len(p) == 0 })
	}
}

// watchEvictions records the pods of ns that are marked for deletion or deleted from now on.
func watchEvictions(t *testing.T, c *harness.Cluster, ns string) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := c.Client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*v1.Pod)
			if ok && (ev.Type == watch.Deleted || p.DeletionTimestamp != nil) {
				mu.Lock()
				seen[p.Name] = true
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		var names []string
		for n := range seen {
			names = append(names, n)
		}
		return names
	}
}
