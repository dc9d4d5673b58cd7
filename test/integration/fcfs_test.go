package integration

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/berth-sched/berth/internal/proc"
	"github.com/berth-sched/berth/test/harness"
)

// A backlog that exists when berth-scheduler starts is taken in the order its pods were created,
// not in the order of the new process's first list (the pods' names). Each try: a full node, a
// backlog of pods created a second apart (the API keeps whole seconds) and named against their
// creation order, which the running scheduler fails; the real binary is restarted and fails them
// again; room for one pod is freed at a time, and the pods must bind oldest first.
func TestBacklogFirstComeFirstServedAcrossRestart(t *testing.T) {
	const backlog = 4
	tries := harness.Tries(1, 10)
	c := harness.StartCluster(t)
	ctx := context.Background()
	zero := int64(0)
	remove := func(ns, name string) {
		t.Helper()
		if err := c.Client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
	}
	sched := c.StartSchedulerBinary(t, berthConfig(c, ""))
	for try := range tries {
		ns := c.Namespace(t, fmt.Sprintf("fcfs-%d", try))
		node := fmt.Sprintf("node-%d", try)
		c.CreateNode(t, harness.Node(node, "1", "4Gi", nil))
		onNode := func(name string) *v1.Pod {
			p := pod(ns, name, "", harness.Container("c", "1", "64Mi"))
			p.Spec.NodeSelector = map[string]string{v1.LabelHostname: node}
			return p
		}
		filler := onNode("filler")
		filler.Spec.NodeName = node
		c.CreatePod(t, filler)
		// job-3 is created first, job-0 last: a list returns them the other way round.
		var want []string
		for i := backlog - 1; i >= 0; i-- {
			if i < backlog-1 {
				// Creation timestamps have whole seconds: each job must be created in a second of
				// its own for the order to be the test's.
				time.Sleep(1100 * time.Millisecond)
			}
			name := fmt.Sprintf("job-%d", i)
			c.CreatePod(t, onNode(name))
			want = append(want, name)
		}
		c.WaitForPods(t, ns, time.Minute, "the backlog failed by the running scheduler", func(pods []v1.Pod) bool {
			return unschedulableCount(pods) == backlog
		})

		sched.Stop(10 * time.Second)
		started := time.Now()
		sched = c.StartSchedulerBinary(t, berthConfig(c, ""))
		waitFailedSince(t, c, ns, want, started, sched)

		remove(ns, "filler")
		var got []string
		for range want {
			// The pod just removed may still be listed for a moment; the next one may bind at once.
			pods := c.WaitForPods(t, ns, time.Minute, "the next pod of the backlog bound", func(pods []v1.Pod) bool {
				return len(boundExcept(pods, got)) == 1
			})
			next := boundExcept(pods, got)[0]
			got = append(got, next)
			remove(ns, next)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("try %d: bound in the order %v, want the creation order %v", try, got, want)
		}
		t.Logf("try %d: bound in creation order %v", try, got)
	}
}

// boundExcept names the bound pods not among gone.
func boundExcept(pods []v1.Pod, gone []string) []string {
	var names []string
	for _, p := range pods {
		if p.Spec.NodeName != "" && !slices.Contains(gone, p.Name) && p.Name != "filler" {
			names = append(names, p.Name)
		}
	}
	return names
}

func unschedulableCount(pods []v1.Pod) int {
	n := 0
	for i := range pods {
		if pods[i].Spec.NodeName == "" && harness.Unschedulable(&pods[i]) != "" {
			n++
		}
	}
	return n
}

// waitFailedSince waits until the scheduler process started at since has reported a failed
// attempt for each of the pods: its queue has taken in the whole backlog and requeued it.
func waitFailedSince(t *testing.T, c *harness.Cluster, ns string, names []string, since time.Time, sched *proc.Process) {
	t.Helper()
	var seen []string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := sched.Exited(); err != nil {
			return false, err
		}
		events, err := c.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		failed := map[string]bool{}
		for _, e := range events.Items {
			at := e.EventTime.Time
			if e.Series != nil {
				at = e.Series.LastObservedTime.Time
			}
			if e.Reason == "FailedScheduling" && e.Regarding.Kind == "Pod" && !at.Before(since.Truncate(time.Microsecond)) {
				failed[e.Regarding.Name] = true
			}
		}
		seen = seen[:0]
		for n := range failed {
			seen = append(seen, n)
		}
		for _, n := range names {
			if !failed[n] {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		sort.Strings(seen)
		t.Fatalf("waiting for the restarted scheduler to fail %v: %v (failed so far: %v)", names, err, seen)
	}
}

// Native 1.37 pod groups (GenericWorkload), which the queue holds as one entity each, are taken in
// the order their PodGroups were created, not in the order of the scheduler's first list. Each
// try: a backlog of native groups of two, created a second apart while berth-scheduler is down and
// named against their creation order, on a node of its own with room for one group. The real
// binary starts, binds one group per try, and stops; those groups' pods go, and it starts again.
// Each start must bind the oldest group left of every try. Starting anew each time keeps the test
// to what the queue's sort decides (the order of a backlog the queue takes in at once), apart from
// how upstream's queue backs off groups that failed, which decides who is tried first when room
// appears while the scheduler runs. The tries run side by side, each in its namespace and on its
// node, so that the ten cost one backlog's seconds.
func TestNativeGroupsFirstComeFirstServedAtStart(t *testing.T) {
	const tries, backlog, size = 10, 4, 2
	e := startNativeGangEnv(t, "native-fcfs")
	ctx := context.Background()
	zero := int64(0)
	namespaces := make([]string, tries)
	for try := range tries {
		namespaces[try] = e.Namespace(t, fmt.Sprintf("native-fcfs-%d", try))
		e.CreateNode(t, harness.Node(fmt.Sprintf("node-%d", try), "2", "4Gi", nil))
	}
	// g-3 is created first, g-0 last: a list returns them the other way round.
	var want []string
	for i := backlog - 1; i >= 0; i-- {
		if i < backlog-1 {
			// Creation timestamps have whole seconds: one second for each group.
			time.Sleep(1100 * time.Millisecond)
		}
		name := fmt.Sprintf("g-%d", i)
		for try, ns := range namespaces {
			(&gangEnv{Cluster: e.Cluster, ns: ns}).nativeGroup(t, name, size)
			for m := range size {
				p := pod(ns, fmt.Sprintf("%s-%d", name, m), "", harness.Container("c", "1", "64Mi"))
				p.Spec.NodeSelector = map[string]string{v1.LabelHostname: fmt.Sprintf("node-%d", try)}
				inNativeGroup(name)(p)
				e.CreatePod(t, p)
			}
		}
		want = append(want, name)
	}

	got := make([][]string, tries)
	gone := make([][]string, tries)
	for range want {
		sched := e.StartSchedulerBinary(t, berthConfig(e.Cluster, ""), "--feature-gates=GenericWorkload=true")
		for try, ns := range namespaces {
			pods := e.WaitForPods(t, ns, time.Minute, "a group of the backlog bound", func(pods []v1.Pod) bool {
				return len(boundExcept(pods, gone[try])) == size
			})
			bound := boundExcept(pods, gone[try])
			sort.Strings(bound)
			group := bound[0][:len(bound[0])-2]
			if bound[1][:len(bound[1])-2] != group {
				t.Fatalf("try %d: %v bound together, members of two groups", try, bound)
			}
			got[try] = append(got[try], group)
			gone[try] = append(gone[try], bound...)
		}
		sched.Stop(10 * time.Second)
		for try, ns := range namespaces {
			for _, n := range gone[try][len(gone[try])-size:] {
				if err := e.Client.CoreV1().Pods(ns).Delete(ctx, n, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	failed := 0
	for try := range tries {
		if fmt.Sprint(got[try]) != fmt.Sprint(want) {
			t.Errorf("try %d: groups bound in the order %v, want the creation order %v", try, got[try], want)
			failed++
		}
	}
	t.Logf("%d of %d tries bound in creation order %v", tries-failed, tries, want)
}
