package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/test/harness"
)

// gpuResource is the extended resource of whole GPUs that the rack tests ask for.
const gpuResource v1.ResourceName = "nvidia.com/gpu"

// gpuRackNode is a node of 8 whole GPUs in block and rack.
func gpuRackNode(name, block, rack string) *v1.Node {
	return inRack(harness.Node(name, "32", "128Gi", v1.ResourceList{gpuResource: resource.MustParse("8")}), block, rack)
}

// inRack labels n as a node of zone z1, block and rack.
func inRack(n *v1.Node, block, rack string) *v1.Node {
	n.Labels[topology.ZoneLabel] = "z1"
	n.Labels[topology.BlockLabel] = block
	n.Labels[topology.RackLabel] = rack
	return n
}

// rack is one of issue 42's four racks, in two blocks of two.
type rack struct{ block, name string }

var issue42Racks = []rack{{"b1", "r1"}, {"b1", "r2"}, {"b2", "r1"}, {"b2", "r2"}}

// node is the name of the rack's node i.
func (r rack) node(i int) string { return fmt.Sprintf("%s-%s-%d", r.block, r.name, i) }

// createRacks creates issue 42's racks of three nodes each, made by newNode, and the node
// "elsewhere", where pods end that free nothing any rack group needs.
func (e *gangEnv) createRacks(t *testing.T, newNode func(name, block, rack string) *v1.Node) {
	t.Helper()
	for _, r := range issue42Racks {
		for i := range 3 {
			e.CreateNode(t, newNode(r.node(i), r.block, r.name))
		}
	}
	e.CreateNode(t, harness.Node("elsewhere", "4", "16Gi", nil))
}

// gpuContainer asks for gpus whole GPUs.
func gpuContainer(gpus string) v1.Container {
	c := harness.Container("c", "1", "1Gi")
	// Requests and limits are one map (Container): an extended resource must be in both, equal.
	c.Resources.Limits[gpuResource] = resource.MustParse(gpus)
	return c
}

// finish marks the pod Succeeded, as its kubelet would when its containers end: the scheduler's
// pod informer then sees it as deleted.
func (e *gangEnv) finish(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	p, err := e.Client.CoreV1().Pods(e.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = v1.PodSucceeded
	if _, err := e.Client.CoreV1().Pods(e.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// rackGroupTurnedAway creates group, three members that ask what asks sets and require one rack,
// and waits until the scheduler has turned each away.
func (e *gangEnv) rackGroupTurnedAway(t *testing.T, group string, asks func(*v1.Pod)) {
	t.Helper()
	e.podGroup(t, group, 3, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
	for i := range 3 {
		e.member(t, group, fmt.Sprintf("%s-%d", group, i), "1", asks)
	}
	e.WaitForPods(t, e.ns, time.Minute, "every member turned away", func(pods []v1.Pod) bool {
		n := 0
		for i := range pods {
			if pods[i].Labels[v1alpha1.PodGroupLabel] == group && harness.Unschedulable(&pods[i]) != "" {
				n++
			}
		}
		return n == 3
	})
}

// endElsewhere lets n pods end on the node "elsewhere", one every interval: room events that free
// nothing the rack groups need.
func (e *gangEnv) endElsewhere(t *testing.T, try, n int, interval time.Duration) {
	t.Helper()
	for i := range n {
		time.Sleep(interval)
		p := pod(e.ns, fmt.Sprintf("elsewhere-%d-%d", try, i), "some-other-scheduler")
		p.Spec.NodeName = "elsewhere"
		e.CreatePod(t, p)
		if err := e.Client.CoreV1().Pods(e.ns).Delete(context.Background(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
			t.Fatal(err)
		}
	}
}

// deleteMembers deletes group's pods among pods, of either API, with force.
func (e *gangEnv) deleteMembers(t *testing.T, pods []v1.Pod, group string) {
	t.Helper()
	for _, p := range pods {
		if memberOf(&p, group) {
			if err := e.Client.CoreV1().Pods(e.ns).Delete(context.Background(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// waitGroupGone waits until no pod of group is left.
func (e *gangEnv) waitGroupGone(t *testing.T, group string) {
	t.Helper()
	e.WaitForPods(t, e.ns, time.Minute, "the group's pods gone", func(p []v1.Pod) bool {
		return !slices.ContainsFunc(p, func(q v1.Pod) bool { return q.Labels[v1alpha1.PodGroupLabel] == group })
	})
}

// A group that needs a whole rack takes a rack the moment one frees, whatever frees it and however
// long the group has waited (issue 42, fault 2). Four racks in two blocks, three 8-GPU nodes each;
// one node of every rack is held by a pod bound to it by name (as a kubelet-run pod or another
// scheduler's pod is), so no rack can hold a group of three 8-GPU members that requires one rack.
// The group waits 8 s while pods end elsewhere, then room appears in one rack by one event per try, in turn: its filler is
// deleted with force (the issue's case), deleted gracefully (a kubelet finishes it), or finishes
// (phase Succeeded); a fourth node joins the rack, or a fourth node that was not ready becomes
// ready. The group must be bound whole in that rack within 3 s of the event: the issue saw 10 to
// 13 s, the queue's longest backoff (10 s) and more; 3 s leaves a loaded machine (load average 4)
// room for three scheduling cycles and their bindings, which take well under 1 s when quiet.
func TestARackGangTakesARackTheMomentItFrees(t *testing.T) {
	events := []string{"filler force-deleted", "filler deleted gracefully", "filler finished", "node joined", "node became ready"}
	tries := harness.Tries(len(events), 2*len(events))
	const within = 3 * time.Second
	e := startGangEnv(t, "rack-room")
	e.ActAsKubelet(t)
	racks := issue42Racks
	e.createRacks(t, gpuRackNode)
	ctx := context.Background()
	fill := func(try int, r rack) *v1.Pod {
		p := pod(e.ns, fmt.Sprintf("filler-%d-%s-%s", try, r.block, r.name), "some-other-scheduler", gpuContainer("8"))
		p.Spec.NodeName = r.node(0)
		return e.CreatePod(t, p)
	}
	fillers := map[rack]*v1.Pod{}
	for _, r := range racks {
		fillers[r] = fill(0, r)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	delays := map[string][]time.Duration{}
	for try := range tries {
		how := events[try%len(events)]
		freed := racks[try%len(racks)]
		extra := freed.node(3)
		if how == "node became ready" {
			n := gpuRackNode(extra, freed.block, freed.name)
			n.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}}
			n.Status.Conditions[0].Status = v1.ConditionFalse
			e.CreateNode(t, n)
		}
		group := fmt.Sprintf("g%d", try)
		e.rackGroupTurnedAway(t, group, func(p *v1.Pod) { p.Spec.Containers = []v1.Container{gpuContainer("8")} })
		// The issue's wait, 8 s, with pods ending elsewhere meanwhile, one a second, as on any
		// busy cluster: each is a room event that can requeue the members and turn them away
		// again, growing the queue's backoff of each (1, 2, 4, 8, 10 s), which the room event
		// must cut. The last ends just before the room appears.
		e.endElsewhere(t, try, 8, time.Second)
		// For the last one's requeue to be done with.
		time.Sleep(300 * time.Millisecond)
		if pods := e.WaitForPods(t, e.ns, time.Second, "state", func([]v1.Pod) bool { return true }); boundIn(pods, group) != 0 {
			t.Fatalf("try %d: %d members of %s bound while no rack had room", try, boundIn(pods, group), group)
		}
		start := time.Now()
		switch how {
		case "filler force-deleted":
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, fillers[freed].Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
				t.Fatal(err)
			}
		case "filler deleted gracefully":
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, fillers[freed].Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(30))}); err != nil {
				t.Fatal(err)
			}
		case "filler finished":
			e.finish(t, fillers[freed].Name)
		case "node joined":
			e.CreateNode(t, gpuRackNode(extra, freed.block, freed.name))
		case "node became ready":
			n, err := e.Client.CoreV1().Nodes().Get(ctx, extra, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// As the node lifecycle controller does once the kubelet reports Ready.
			n.Spec.Taints = nil
			if n, err = e.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			n.Status.Conditions[0].Status = v1.ConditionTrue
			if _, err := e.Client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		pods := e.WaitForPods(t, e.ns, time.Minute, "the group bound whole", func(p []v1.Pod) bool { return boundIn(p, group) == 3 })
		d := time.Since(start)
		t.Logf("try %d: %s in %s/%s to the group bound whole: %v", try, how, freed.block, freed.name, d.Round(time.Millisecond))
		delays[how] = append(delays[how], d)
		want := []topology.Domain{topology.Domain(fmt.Sprintf("z1/%s/%s", freed.block, freed.name))}
		if got := domainsOf(t, e.Cluster, pods, group, topology.RackLabel); !slices.Equal(got, want) {
			t.Errorf("try %d (%s): the group went to racks %v, want %v", try, how, got, want)
		}
		if d > within {
			t.Errorf("try %d (%s): the group was bound %v after room appeared in its rack, want within %v", try, how, d.Round(time.Millisecond), within)
		}
		// Back to four full racks for the next try.
		e.deleteMembers(t, pods, group)
		if how == "node joined" || how == "node became ready" {
			if err := e.Client.CoreV1().Nodes().Delete(ctx, extra, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, fillers[freed].Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			e.WaitForPods(t, e.ns, time.Minute, "the old filler gone", func(p []v1.Pod) bool {
				return !slices.ContainsFunc(p, func(q v1.Pod) bool { return q.Name == fillers[freed].Name })
			})
			fillers[freed] = fill(try+1, freed)
		}
		e.waitGroupGone(t, group)
	}
	for _, how := range events {
		sorted := slices.Clone(delays[how])
		slices.Sort(sorted)
		t.Logf("%s to the rack's group bound whole, %d tries: min %v, max %v", how, len(sorted),
			sorted[0].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond))
	}
}

// A node that joins wakes a backlog of waiting groups at once, and its room goes to the oldest
// groups it holds, whole (issue 42, fault 3: 2.2 s at 200 groups where a pod's deletion took under
// 1 s; and, on a loaded machine, a node that joined while the scheduler still worked through the
// last node's requeues went to a younger group already in the active queue, see roomsum.go).
// Nodes of 50m cpu hold none of the groups of four 100m members; each try a node joins with room for exactly five groups, and the
// five oldest still waiting must be bound whole, and no other member. The backlog is five groups
// per try and twenty more (150 in the soak run: the issue's 200 groups), so that groups wait
// behind the room to the end. The bound, 8 s, catches a wake-up left to a timer or to the queue's
// backoff: the waiters have been tried many times, so theirs is the queue's longest, 10 s. It does
// not hold the 1 s goal, which the test logs (docs/gang.md has the figures): at load average 10 the
// twenty bindings took up to 3.3 s, against 0.55 to 0.8 s on a quiet machine.
func TestWaitingGangsWakeOnNodeJoin(t *testing.T) {
	const perTry, size = 5, 4
	const within = 8 * time.Second
	// The soak run's backlog is the issue's: 200 groups.
	tries, behind := harness.Tries(1, 10), harness.Tries(20, 150)
	e := startGangEnv(t, "node-join")
	for i := range 20 {
		e.CreateNode(t, harness.Node(fmt.Sprintf("small-%d", i), "50m", "1Gi", nil))
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	groups := make([]string, perTry*tries+behind)
	for g := range groups {
		groups[g] = fmt.Sprintf("g%03d", g)
		e.podGroup(t, groups[g], size)
		e.members(t, groups[g], size, "100m")
	}
	e.WaitForPods(t, e.ns, 2*time.Minute, "every member turned away", func(pods []v1.Pod) bool {
		n := 0
		for i := range pods {
			if harness.Unschedulable(&pods[i]) != "" {
				n++
			}
		}
		return n == len(groups)*size
	})
	var delays []time.Duration
	for try := range tries {
		start := time.Now()
		e.CreateNode(t, harness.Node(fmt.Sprintf("joined-%d", try), fmt.Sprintf("%dm", perTry*size*100), "16Gi", nil))
		want := groups[try*perTry : (try+1)*perTry]
		younger := groups[(try+1)*perTry:]
		pods := e.WaitForPods(t, e.ns, time.Minute, "the oldest groups bound", func(pods []v1.Pod) bool {
			// A younger group bound has taken room that was not its: that is a failure, seen now.
			if slices.ContainsFunc(younger, func(g string) bool { return boundIn(pods, g) > 0 }) {
				return true
			}
			for _, g := range want {
				if boundIn(pods, g) != size {
					return false
				}
			}
			return true
		})
		d := time.Since(start)
		delays = append(delays, d)
		if d > within {
			t.Errorf("try %d: the five oldest groups were bound %v after the node joined, want within %v", try, d.Round(time.Millisecond), within)
		}
		for _, g := range younger {
			if n := boundIn(pods, g); n != 0 {
				t.Errorf("try %d: %d members of %s bound, a group younger than the room's five", try, n, g)
			}
		}
		if t.Failed() {
			// The next tries would only count this one's room again.
			return
		}
	}
	sorted := slices.Clone(delays)
	slices.Sort(sorted)
	t.Logf("a node joined to the five oldest of %d to %d waiting groups bound whole, %d tries: min %v, median %v, max %v",
		perTry+behind, len(groups), tries, sorted[0].Round(time.Millisecond), sorted[len(sorted)/2].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond))
}
