package integration

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/test/harness"
)

// Gangs that wait for room cost no scheduling cycles while nothing changes, and the room's
// freeing wakes them: the oldest groups that fit are bound at once, not at their next timer.
// Each try fills a node of 4 cpu, queues three groups of two 1-cpu members (oldest first) and
// lets them fail, counts the scheduling attempts over a quiet spell, then frees the node: the two
// oldest groups must be bound, the third not. The groups of earlier tries keep waiting on their
// own full nodes throughout, a growing backlog.
func TestWaitingGangsWakeOnRoom(t *testing.T) {
	// The quiet spell is long enough for a retry without a change to show: the scheduler's
	// backoff of a failed pod is 1 s, doubling.
	const quiet = 4 * time.Second
	tries := harness.Tries(2, 10)
	e := startGangEnv(t, "wake")
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	ctx := context.Background()
	zero := int64(0)
	var latencies []time.Duration
	var quietAttempts []float64
	for try := range tries {
		node := fmt.Sprintf("node-%d", try)
		e.CreateNode(t, harness.Node(node, "4", "16Gi", nil))
		onNode := func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelHostname: node} }
		filler := pod(e.ns, fmt.Sprintf("filler-%d", try), "", harness.Container("c", "4", "64Mi"))
		filler.Spec.NodeName = node
		e.CreatePod(t, filler)
		groups := make([]string, 3)
		for i := range groups {
			groups[i] = fmt.Sprintf("t%d-g%d", try, i)
			e.podGroup(t, groups[i], 2)
			for j := range 2 {
				e.member(t, groups[i], fmt.Sprintf("%s-%d", groups[i], j), "1", onNode)
			}
		}
		e.WaitForPods(t, e.ns, time.Minute, "every group of this try turned away", func(pods []v1.Pod) bool {
			failed := map[string]bool{}
			for i := range pods {
				if g := pods[i].Labels[v1alpha1.PodGroupLabel]; strings.HasPrefix(g, fmt.Sprintf("t%d-", try)) && harness.Unschedulable(&pods[i]) != "" {
					failed[g] = true
				}
			}
			return len(failed) == len(groups)
		})

		before := scheduleAttempts(t)
		time.Sleep(quiet)
		quietAttempts = append(quietAttempts, scheduleAttempts(t)-before)

		start := time.Now()
		if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, filler.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
		pods := e.WaitForPods(t, e.ns, time.Minute, "the two oldest groups bound", func(pods []v1.Pod) bool {
			return boundIn(pods, groups[0]) == 2 && boundIn(pods, groups[1]) == 2
		})
		latencies = append(latencies, time.Since(start))
		if n := boundIn(pods, groups[2]); n != 0 {
			t.Fatalf("try %d: %d members of the youngest group bound", try, n)
		}
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	sort.Float64s(quietAttempts)
	t.Logf("freeing the node to the two oldest groups bound, %d tries: min %v, median %v, max %v", tries,
		latencies[0].Round(time.Millisecond), latencies[tries/2].Round(time.Millisecond), latencies[tries-1].Round(time.Millisecond))
	t.Logf("scheduling attempts in %v of quiet with 3 to %d groups waiting: min %v, median %v, max %v", quiet, 3*tries,
		quietAttempts[0], quietAttempts[tries/2], quietAttempts[tries-1])
	// With a timer of backoffBase (2 s) per waiting group, each group costs an attempt every 2 s.
	if quietAttempts[tries/2] >= 3 {
		t.Errorf("median %v scheduling attempts in %v of quiet: waiting groups are retried without a change", quietAttempts[tries/2], quiet)
	}
	if latencies[tries-1] > 2*time.Second {
		t.Errorf("the oldest groups took up to %v to be bound after room appeared", latencies[tries-1])
	}
}

// scheduleAttempts is the scheduler's count of scheduling attempts, every result and profile.
func scheduleAttempts(t *testing.T) float64 {
	return counterSum(t, "scheduler_schedule_attempts_total", nil)
}

// A group that stands aside after failed rounds takes room the moment it appears, not at the end
// of its doubled backoff. Each try has two nodes of 4 cpu, one with 2 cpu taken, and a group of two
// 3-cpu members: the sum of free room holds it, so its members try, one is placed and the other
// fits nowhere, and the round fails, again and again (backoffs of 2, 4 and 8 s). Right after the
// third failure room appears, by each of four events in turn: the filler is deleted, the filler
// finishes (phase Succeeded, which the scheduler's pod informer sees as a deletion), a third
// node joins, or a bystander pod elsewhere is deleted and then the filler. The group must be
// bound within 5.5 s (the 2 s floor after its failure, and the scheduling), where its backoff
// alone would have held it out for 8, and not before 1 s: a second room event once ended the
// backoff at once, floor and all (and the group's next round could then count the members its
// failed round had just released).
func TestAGangInBackoffTakesRoomAtOnce(t *testing.T) {
	const failures = 3
	events := []string{"filler deleted", "filler finished", "node joined", "bystander then filler deleted"}
	// Each event once in make test, ten times in the soak run.
	tries := len(events) * harness.Tries(1, 10)
	const within, notBefore = 5500 * time.Millisecond, time.Second
	e := startGangEnv(t, "backoff")
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	ctx := context.Background()
	zero := int64(0)
	latencies := map[string][]time.Duration{}
	for try := range tries {
		pair := map[string]string{"pair": fmt.Sprint(try)}
		for _, n := range []string{"a", "b"} {
			node := harness.Node(fmt.Sprintf("node-%s-%d", n, try), "4", "16Gi", nil)
			maps.Copy(node.Labels, pair)
			e.CreateNode(t, node)
		}
		filler := pod(e.ns, fmt.Sprintf("filler-%d", try), "", harness.Container("c", "2", "64Mi"))
		filler.Spec.NodeName = fmt.Sprintf("node-b-%d", try)
		e.CreatePod(t, filler)
		// On a node of its own: its deletion is a room event that gives the group no room.
		e.CreateNode(t, harness.Node(fmt.Sprintf("node-x-%d", try), "1", "1Gi", nil))
		bystander := pod(e.ns, fmt.Sprintf("bystander-%d", try), "", harness.Container("c", "100m", "64Mi"))
		bystander.Spec.NodeName = fmt.Sprintf("node-x-%d", try)
		e.CreatePod(t, bystander)
		group := fmt.Sprintf("t%d", try)
		e.podGroup(t, group, 2)
		before := failedRounds(t)
		for j := range 2 {
			e.member(t, group, fmt.Sprintf("%s-%d", group, j), "3", func(p *v1.Pod) { p.Spec.NodeSelector = pair })
		}
		deadline := time.Now().Add(time.Minute)
		for failedRounds(t)-before < failures {
			if time.Now().After(deadline) {
				t.Fatalf("try %d: %v failed rounds in a minute, want %d", try, failedRounds(t)-before, failures)
			}
			time.Sleep(20 * time.Millisecond)
		}
		how := events[try%len(events)]
		start := time.Now()
		switch how {
		case "bystander then filler deleted":
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, bystander.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				t.Fatal(err)
			}
			e.WaitForPods(t, e.ns, time.Minute, "the bystander gone", func(pods []v1.Pod) bool {
				return !slices.ContainsFunc(pods, func(p v1.Pod) bool { return p.Name == bystander.Name })
			})
			fallthrough
		case "filler deleted":
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, filler.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				t.Fatal(err)
			}
		case "filler finished":
			e.finish(t, filler.Name)
		case "node joined":
			node := harness.Node(fmt.Sprintf("node-c-%d", try), "4", "16Gi", nil)
			maps.Copy(node.Labels, pair)
			e.CreateNode(t, node)
		}
		e.WaitForPods(t, e.ns, time.Minute, "the group bound", func(pods []v1.Pod) bool { return boundIn(pods, group) == 2 })
		latencies[how] = append(latencies[how], time.Since(start))
		if n := failedRounds(t) - before; n != failures {
			t.Errorf("try %d (%s): %v failed rounds, want %d: the group failed again after the room appeared", try, how, n, failures)
		}
	}
	for _, how := range events {
		sorted := slices.Clone(latencies[how])
		slices.Sort(sorted)
		t.Logf("%s right after the third failed round (backoff 8s) to the group bound, %d tries: min %v, median %v, max %v",
			how, len(sorted), sorted[0].Round(time.Millisecond), sorted[len(sorted)/2].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond))
		for _, d := range latencies[how] {
			if d > within {
				t.Errorf("%s: the group was bound %v after room appeared, want within %v", how, d.Round(time.Millisecond), within)
			}
			if d < notBefore {
				t.Errorf("%s: the group was bound %v after its failure, want its backoff's floor (2 s) kept", how, d.Round(time.Millisecond))
			}
		}
	}
}

// failedRounds is Gang's count of failed rounds, every reason.
func failedRounds(t *testing.T) float64 { return counterSum(t, "berth_gang_failed_rounds_total", nil) }

// Room on a node that is not ready yet is no room for a group: its waiter is turned away by Gang,
// for the sum of room it may use, and not by NodeResourcesFit and TaintToleration on that node.
// Turned away by those, a waiter kept them among its rejectors, so every later room event moved it
// out of the unschedulable pool again under the queue's lock (issue 42, fault 3: in a deep
// backlog, every waiting group's waiter on each of the 10 node events, before the first group's
// members were scheduled). Each try has a full node and a not-ready one (the lifecycle
// controller's taint) of 4 cpu, and a group of two 2-cpu members; once the taint is removed, as
// when the node becomes ready, the group is bound there whole.
func TestAGangWaitsForRoomItMayUse(t *testing.T) {
	tries := harness.Tries(1, 10)
	e := startGangEnv(t, "notready")
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	ctx := context.Background()
	var latencies []time.Duration
	for try := range tries {
		pair := map[string]string{"pair": fmt.Sprint(try)}
		full := harness.Node(fmt.Sprintf("full-%d", try), "4", "16Gi", nil)
		maps.Copy(full.Labels, pair)
		e.CreateNode(t, full)
		filler := pod(e.ns, fmt.Sprintf("filler-%d", try), "", harness.Container("c", "4", "64Mi"))
		filler.Spec.NodeName = full.Name
		e.CreatePod(t, filler)
		notReady := harness.Node(fmt.Sprintf("not-ready-%d", try), "4", "16Gi", nil)
		maps.Copy(notReady.Labels, pair)
		notReady.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}}
		e.CreateNode(t, notReady)

		group := fmt.Sprintf("t%d", try)
		e.podGroup(t, group, 2)
		for j := range 2 {
			e.member(t, group, fmt.Sprintf("%s-%d", group, j), "2", func(p *v1.Pod) { p.Spec.NodeSelector = pair })
		}
		const want = "Insufficient cpu in the whole cluster"
		var said []string
		e.WaitForPods(t, e.ns, time.Minute, "the group's waiter turned away for the room it may use", func(pods []v1.Pod) bool {
			said = said[:0]
			for i := range pods {
				if pods[i].Labels[v1alpha1.PodGroupLabel] == group {
					msg := harness.Unschedulable(&pods[i])
					said = append(said, msg)
					if strings.Contains(msg, want) {
						return true
					}
				}
			}
			return false
		})

		n, err := e.Client.CoreV1().Nodes().Get(ctx, notReady.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n.Spec.Taints = nil
		start := time.Now()
		if _, err := e.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		pods := e.WaitForPods(t, e.ns, time.Minute, "the group bound on the node that became ready", func(pods []v1.Pod) bool { return boundIn(pods, group) == 2 })
		latencies = append(latencies, time.Since(start))
		for _, p := range pods {
			if p.Labels[v1alpha1.PodGroupLabel] == group && p.Spec.NodeName != notReady.Name {
				t.Errorf("try %d: %s bound to %s, want %s", try, p.Name, p.Spec.NodeName, notReady.Name)
			}
		}
	}
	slices.Sort(latencies)
	t.Logf("taint removed to the group bound, %d tries: min %v, median %v, max %v", tries,
		latencies[0].Round(time.Millisecond), latencies[tries/2].Round(time.Millisecond), latencies[tries-1].Round(time.Millisecond))
}
