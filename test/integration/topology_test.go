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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/test/harness"
)

// rackedNode is a node with cpu cores in rack of block, labelled as the shipped levels read them.
func rackedNode(name, block, rack, cpu string) *v1.Node {
	n := harness.Node(name, cpu, "16Gi", nil)
	n.Labels[topology.ZoneLabel] = "z1"
	n.Labels[topology.BlockLabel] = block
	n.Labels[topology.RackLabel] = rack
	return n
}

func topologyAnnotation(key, level string) func(*v1alpha1.PodGroup) {
	return func(pg *v1alpha1.PodGroup) {
		pg.Annotations = map[string]string{key: level}
	}
}

// domainsOf returns the domains of level the group's bound members are in.
func domainsOf(t *testing.T, c *harness.Cluster, pods []v1.Pod, group, level string) []topology.Domain {
	t.Helper()
	levels := topology.Levels(topology.DefaultLevels())
	seen := map[topology.Domain]bool{}
	for _, p := range pods {
		if p.Labels[v1alpha1.PodGroupLabel] != group || p.Spec.NodeName == "" {
			continue
		}
		n, err := c.Client.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := levels.DomainOf(n.Labels, levels.Index(level))
		seen[d] = true
	}
	var out []topology.Domain
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// Groups that ask for a rack get one whole: the one with the least room left over, so the big
// rack stays whole for the big group; racks of one name in two blocks are two domains; a preferred
// rack that no rack can hold falls back to one block.
func TestGangTopologyPlacesGroupsInOneDomain(t *testing.T) {
	e := startGangEnv(t, "topology")
	// Block b1: rack r1 has room for 8 one-cpu members, rack r2 for 4. Block b2: its own rack r1
	// with room for 2.
	for i := range 4 {
		e.CreateNode(t, rackedNode(fmt.Sprintf("b1-r1-%d", i), "b1", "r1", "2"))
	}
	for i := range 2 {
		e.CreateNode(t, rackedNode(fmt.Sprintf("b1-r2-%d", i), "b1", "r2", "2"))
	}
	e.CreateNode(t, rackedNode("b2-r1-0", "b2", "r1", "2"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))

	e.podGroup(t, "small", 4, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
	e.members(t, "small", 4, "1")
	pods := e.WaitForPods(t, e.ns, time.Minute, "small bound", func(p []v1.Pod) bool { return boundIn(p, "small") == 4 })
	if got := domainsOf(t, e.Cluster, pods, "small", topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b1/r2"}) {
		t.Errorf("a group of 4 went to racks %v, want only z1/b1/r2 (room for exactly 4)", got)
	}

	e.podGroup(t, "big", 8, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
	e.members(t, "big", 8, "1")
	pods = e.WaitForPods(t, e.ns, time.Minute, "big bound", func(p []v1.Pod) bool { return boundIn(p, "big") == 8 })
	if got := domainsOf(t, e.Cluster, pods, "big", topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b1/r1"}) {
		t.Errorf("a group of 8 went to racks %v, want only z1/b1/r1", got)
	}

	// Only z1/b2/r1 has room left, for 2: a preferred rack of 2 is that one.
	e.podGroup(t, "pair", 2, topologyAnnotation(topology.PreferredAnnotation, topology.RackLabel))
	e.members(t, "pair", 2, "1")
	pods = e.WaitForPods(t, e.ns, time.Minute, "pair bound", func(p []v1.Pod) bool { return boundIn(p, "pair") == 2 })
	if got := domainsOf(t, e.Cluster, pods, "pair", topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b2/r1"}) {
		t.Errorf("a pair went to racks %v, want z1/b2/r1, the rack of the same name in the other block", got)
	}
}

// A preferred rack that no rack can hold: the group is placed in the smallest enclosing level
// that holds it (one block), not spread over the zone.
func TestGangTopologyPreferredFallsBackToTheBlock(t *testing.T) {
	e := startGangEnv(t, "preferred")
	for _, n := range []struct{ name, block, rack string }{
		{"b1-r1", "b1", "r1"}, {"b1-r2", "b1", "r2"}, {"b1-r3", "b1", "r3"},
		{"b2-r1", "b2", "r1"}, {"b2-r2", "b2", "r2"}, {"b2-r3", "b2", "r3"}, {"b2-r4", "b2", "r4"},
	} {
		e.CreateNode(t, rackedNode(n.name, n.block, n.rack, "2"))
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	// 6 members: no rack (2 each) holds them; block b1 (6) does with nothing left over, b2 (8) too.
	e.podGroup(t, "wide", 6, topologyAnnotation(topology.PreferredAnnotation, topology.RackLabel))
	e.members(t, "wide", 6, "1")
	pods := e.WaitForPods(t, e.ns, time.Minute, "wide bound", func(p []v1.Pod) bool { return boundIn(p, "wide") == 6 })
	if got := domainsOf(t, e.Cluster, pods, "wide", topology.BlockLabel); !slices.Equal(got, []topology.Domain{"z1/b1"}) {
		t.Errorf("a preferred-rack group no rack holds went to blocks %v, want only z1/b1", got)
	}
}

// A required rack that no rack can hold: the group waits whole, each member saying which level it
// needs and the largest room, and binds once a node joins the rack.
func TestGangTopologyRequiredWaitsWhole(t *testing.T) {
	e := startGangEnv(t, "required")
	e.CreateNode(t, rackedNode("r1-a", "b1", "r1", "2"))
	e.CreateNode(t, rackedNode("r2-a", "b1", "r2", "2"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "train", 3, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
	e.members(t, "train", 3, "1")
	pods := e.Settled(t, e.ns, time.Minute)
	if n := boundIn(pods, "train"); n != 0 {
		t.Fatalf("%d of 3 members bound although no rack holds 3", n)
	}
	want := "needs one berth.dev/rack domain with room for 3 members (each cpu 1, memory 64Mi); the largest has room for 2 (required)"
	for _, p := range pods {
		if msg := harness.Unschedulable(&p); !strings.Contains(msg, want) {
			t.Errorf("%s says %q, want %q", p.Name, msg, want)
		}
	}
	// kubectl berth gangs says what it waits for.
	if g := gangReport(t, e, "train"); g.Topology == nil || g.Topology.LargestRoom == nil || *g.Topology.LargestRoom != 2 || g.Topology.Mode != "required" {
		t.Errorf("kubectl berth gangs shows the waiting group's topology as %+v, want required with a largest room of 2", g.Topology)
	}
	e.CreateNode(t, rackedNode("r2-b", "b1", "r2", "2"))
	pods = e.WaitForPods(t, e.ns, time.Minute, "train bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 3 })
	if got := domainsOf(t, e.Cluster, pods, "train", topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b1/r2"}) {
		t.Errorf("the group went to racks %v, want only z1/b1/r2", got)
	}
	if g := gangReport(t, e, "train"); g.Topology == nil || !slices.Equal(g.Topology.Domains, []topology.Domain{"z1/b1/r2"}) {
		t.Errorf("kubectl berth gangs shows the placed group's topology as %+v, want domain z1/b1/r2", g.Topology)
	}
}

// gangReport is kubectl berth gangs' report on group.
func gangReport(t *testing.T, e *gangEnv, group string) inspect.Gang {
	t.Helper()
	r, err := inspect.ListGangs(context.Background(), e.Client, e.pg, e.ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range r.Groups {
		if g.Name == group {
			return g
		}
	}
	t.Fatalf("kubectl berth gangs does not list %s", group)
	return inspect.Gang{}
}

// An annotation that names a level the scheduler does not have, or both annotations: a Warning
// event on the PodGroup names the problem, nothing of the group is bound, and fixing the
// annotation lets it in.
func TestGangTopologyBadAnnotation(t *testing.T) {
	e := startGangEnv(t, "bad-topology")
	e.CreateNode(t, rackedNode("r1-a", "b1", "r1", "8"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "unknown", 2, topologyAnnotation(topology.RequiredAnnotation, "example.com/spine"))
	e.podGroup(t, "both", 2, func(pg *v1alpha1.PodGroup) {
		pg.Annotations = map[string]string{topology.RequiredAnnotation: topology.RackLabel, topology.PreferredAnnotation: topology.RackLabel}
	})
	e.members(t, "unknown", 2, "1")
	e.members(t, "both", 2, "1")
	ctx := context.Background()
	for group, want := range map[string]string{
		"unknown": `annotation berth.dev/topology-required names "example.com/spine", which is not one of the scheduler's topologyLevels`,
		"both":    "annotations berth.dev/topology-required and berth.dev/topology-preferred are both set",
	} {
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			evs, err := e.Client.EventsV1().Events(e.ns).List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=" + group})
			if err != nil {
				return false, nil
			}
			for _, ev := range evs.Items {
				if ev.Regarding.Kind == "PodGroup" && ev.Type == v1.EventTypeWarning && ev.Reason == "InvalidTopology" && strings.Contains(ev.Note, want) {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Errorf("no Warning InvalidTopology event on PodGroup %s saying %q: %v", group, want, err)
		}
	}
	pods := e.canary(t, "canary")
	if n := boundIn(pods, "unknown") + boundIn(pods, "both"); n != 0 {
		t.Fatalf("%d members of groups with bad topology annotations bound", n)
	}
	pg, err := e.pg.SchedulingV1alpha1().PodGroups(e.ns).Get(ctx, "unknown", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Annotations[topology.RequiredAnnotation] = topology.RackLabel
	if _, err := e.pg.SchedulingV1alpha1().PodGroups(e.ns).Update(ctx, pg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitForPods(t, e.ns, 30*time.Second, "the fixed group bound", func(p []v1.Pod) bool { return boundIn(p, "unknown") == 2 })
}

// Two groups that each need a whole rack, and one rack free: one is bound whole, the other waits
// whole; when the other rack is freed, the waiting group is bound within 10 s of the deletion
// that freed it. One try in make test, ten in the soak run.
func TestGangTopologyTwoGroupsOneRack(t *testing.T) {
	e := startGangEnv(t, "one-rack")
	for _, r := range []string{"r1", "r2"} {
		for i := range 2 {
			e.CreateNode(t, rackedNode(fmt.Sprintf("%s-%d", r, i), "b1", r, "2"))
		}
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	ctx := context.Background()
	gone := func(what string, pods []v1.Pod) {
		for _, p := range pods {
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
				t.Fatal(err)
			}
		}
		e.WaitForPods(t, e.ns, time.Minute, what+" gone", func(p []v1.Pod) bool {
			for _, q := range p {
				for _, d := range pods {
					if q.Name == d.Name {
						return false
					}
				}
			}
			return true
		})
	}
	var delays []time.Duration
	tries := harness.Tries(1, 10)
	for try := range tries {
		// Rack r2 is full of pods bound by someone else.
		var blockers []v1.Pod
		for i := range 2 {
			p := pod(e.ns, fmt.Sprintf("blocker-%d-%d", try, i), "", harness.Container("c", "2", "64Mi"))
			p.Spec.NodeName = fmt.Sprintf("r2-%d", i)
			blockers = append(blockers, *e.CreatePod(t, p))
		}
		a, b := fmt.Sprintf("a%d", try), fmt.Sprintf("b%d", try)
		e.podGroup(t, a, 4, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
		e.podGroup(t, b, 4, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
		for i := range 4 {
			e.member(t, a, fmt.Sprintf("%s-%d", a, i), "1")
			e.member(t, b, fmt.Sprintf("%s-%d", b, i), "1")
		}
		pods := e.WaitForPods(t, e.ns, time.Minute, "one group bound whole", func(p []v1.Pod) bool {
			na, nb := boundIn(p, a), boundIn(p, b)
			return (na == 4 && nb == 0) || (na == 0 && nb == 4)
		})
		winner, loser := a, b
		if boundIn(pods, b) == 4 {
			winner, loser = b, a
		}
		// The loser waits whole while the winner holds the free rack.
		time.Sleep(3 * time.Second)
		pods = e.WaitForPods(t, e.ns, time.Second, "state", func([]v1.Pod) bool { return true })
		if n := boundIn(pods, loser); n != 0 {
			t.Fatalf("try %d: %d members of the waiting group %s bound", try, n, loser)
		}
		if got := domainsOf(t, e.Cluster, pods, winner, topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b1/r1"}) {
			t.Errorf("try %d: the winner is in racks %v, want z1/b1/r1", try, got)
		}
		freed := time.Now()
		gone("blockers", blockers)
		pods = e.WaitForPods(t, e.ns, 30*time.Second, "the waiting group bound", func(p []v1.Pod) bool { return boundIn(p, loser) == 4 })
		delay := time.Since(freed)
		delays = append(delays, delay)
		if got := domainsOf(t, e.Cluster, pods, loser, topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b1/r2"}) {
			t.Errorf("try %d: the waiting group went to racks %v, want z1/b1/r2", try, got)
		}
		if delay > 10*time.Second {
			t.Errorf("try %d: the waiting group was bound %v after the rack was freed, want within 10 s", try, delay)
		}
		var all []v1.Pod
		for _, p := range pods {
			all = append(all, p)
		}
		gone("try's pods", all)
	}
	slices.Sort(delays)
	t.Logf("bound after the rack was freed, %d tries: min %v, median %v, max %v", tries, delays[0], delays[len(delays)/2], delays[len(delays)-1])
}

// Bad topologyLevels stop the scheduler at start-up, naming the field.
func TestGangTopologyLevelsCheckedAtStartUp(t *testing.T) {
	c := harness.StartCluster(t)
	for levels, want := range map[string]string{
		"[berth.dev/rack, berth.dev/rack]": `topologyLevels[1]: Duplicate value: "berth.dev/rack"`,
		`[berth.dev/rack, ""]`:             "topologyLevels[1]: Required value",
		`["not a label"]`:                  `topologyLevels[0]: Invalid value: "not a label": not a valid node label key`,
	} {
		config := berthConfig(c, fmt.Sprintf("pluginConfig:\n- name: Gang\n  args: {topologyLevels: %s}\n", levels))
		_, _, err := harness.SetupScheduler(context.Background(), t, config)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Gang") {
			t.Errorf("topologyLevels %s: start-up error %v, want one naming Gang and %q", levels, err, want)
		}
	}
}

// A high-priority group that needs a whole rack, in a cluster full of low-priority pods: the pods
// evicted for it are all in one rack, the group is bound whole in that rack, and the other rack's
// pods stay. Rounds on one control plane: two in make test, ten in the soak run.
func TestGangTopologyPreemptsInsideOneRack(t *testing.T) {
	var nodes []*v1.Node
	for _, r := range []string{"r1", "r2"} {
		for i := range 2 {
			nodes = append(nodes, rackedNode(fmt.Sprintf("%s-%d", r, i), "b1", r, "2"))
		}
	}
	e := startQuotaEnv(t, nodes...)
	e.ActAsKubelet(t)
	ctx := context.Background()
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := e.Client.SchedulingV1().PriorityClasses().Create(ctx, high, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	rackOf := func(node string) string { return strings.SplitN(node, "-", 2)[0] }
	for round := range harness.Tries(1, 10) {
		low, jobs := e.Namespace(t, fmt.Sprint("low-", round)), e.Namespace(t, fmt.Sprint("jobs-", round))
		for i := range 8 {
			e.CreatePod(t, cpuPod(low, fmt.Sprint("low-", i), "1"))
		}
		lows := e.WaitForPods(t, low, time.Minute, "eight low-priority pods filling both racks", func(p []v1.Pod) bool { return harness.Bound(p) == 8 })
		lowRack := map[string]string{}
		for _, p := range lows {
			lowRack[p.Name] = rackOf(p.Spec.NodeName)
		}
		evicted := watchEvictions(t, e.Cluster, low)

		pg := &v1alpha1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: jobs, Name: "train", Annotations: map[string]string{topology.RequiredAnnotation: topology.RackLabel}},
			Spec:       v1alpha1.PodGroupSpec{MinMember: 4},
		}
		if _, err := e.eq.SchedulingV1alpha1().PodGroups(jobs).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			p := cpuPod(jobs, fmt.Sprintf("train-%d", i), "1")
			p.Labels = map[string]string{v1alpha1.PodGroupLabel: "train"}
			p.Spec.PriorityClassName = "high"
			e.CreatePod(t, p)
		}
		start := time.Now()
		pods := e.WaitForPods(t, jobs, time.Minute, "the group bound whole", func(p []v1.Pod) bool { return harness.Bound(p) == 4 })
		took := time.Since(start)
		racks := map[string]bool{}
		for _, p := range pods {
			racks[rackOf(p.Spec.NodeName)] = true
		}
		if len(racks) != 1 {
			t.Fatalf("round %d: the group is in racks %v, want one", round, racks)
		}
		victims := evicted()
		victimRacks := map[string]bool{}
		for _, v := range victims {
			victimRacks[lowRack[v]] = true
		}
		if len(victims) != 4 || len(victimRacks) != 1 || !racks[sortedKeys(victimRacks)[0]] {
			t.Errorf("round %d: evicted %v from racks %v, want the 4 pods of the group's rack %v", round, victims, victimRacks, racks)
		}
		t.Logf("round %d: bound in %v after evicting %d pods", round, took.Round(time.Millisecond), len(victims))
		for _, ns := range []string{jobs, low} {
			left, err := e.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range left.Items {
				e.deletePod(t, ns, p.Name)
			}
			e.WaitForPods(t, ns, time.Minute, ns+" empty", func(p []v1.Pod) bool { return len(p) == 0 })
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// GPU memory counts in a domain's room: a group of three 8-unit GPU pods goes to the rack whose
// GPUs hold all three, though the other rack has cpu for many more.
func TestGangTopologyCountsGPUs(t *testing.T) {
	e := startGangEnv(t, "gpu-topology")
	for _, n := range []struct{ name, rack string }{{"r1-a", "r1"}, {"r2-a", "r2"}, {"r2-b", "r2"}} {
		node := harness.GPUNode(n.name, 1, 16)
		node.Labels[topology.BlockLabel], node.Labels[topology.RackLabel] = "b1", n.rack
		e.CreateNode(t, node)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "gpus", 3, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
	for i := range 3 {
		p := harness.GPUPod(e.ns, fmt.Sprintf("gpus-%d", i), 8)
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "gpus"}
		e.CreatePod(t, p)
	}
	pods := e.WaitForPods(t, e.ns, time.Minute, "gpus bound", func(p []v1.Pod) bool { return boundIn(p, "gpus") == 3 })
	if got := domainsOf(t, e.Cluster, pods, "gpus", topology.RackLabel); !slices.Equal(got, []topology.Domain{"/b1/r2"}) {
		t.Errorf("the GPU group went to racks %v, want only /b1/r2", got)
	}
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"r1-a": {16}, "r2-a": {16}, "r2-b": {16}})
}

// A member that fits no node of its group's domain says which domain the group goes to and why
// the nodes outside it were not considered, in its PodScheduled condition and its
// FailedScheduling event; its held sibling names the domain too. Here the members select nodes
// by a label the chosen rack's one node lacks (the choice counts room, not node selectors): once
// the node has it, the group is bound there.
func TestGangTopologyFailureNamesTheDomain(t *testing.T) {
	e := startGangEnv(t, "names-domain")
	e.CreateNode(t, rackedNode("r1-a", "b1", "r1", "2"))
	e.CreateNode(t, rackedNode("r2-a", "b1", "r2", "1"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "train", 2, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
	for i := range 2 {
		e.member(t, "train", fmt.Sprint("train-", i), "1", func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"example.com/disk": "ssd"} })
	}

	chosen := "pod group " + e.ns + "/train goes to berth.dev/rack=z1/b1/r1, the berth.dev/rack domain with room for its 2 members and the least left over; nodes outside it were not considered"
	outside := "node(s) outside the pod group's domain berth.dev/rack=z1/b1/r1"
	var messages []string
	e.WaitForPods(t, e.ns, time.Minute, "both members saying why, naming the domain", func(pods []v1.Pod) bool {
		messages = messages[:0]
		sawChosen, sawOutside := false, false
		for _, p := range pods {
			msg := harness.Unschedulable(&p)
			messages = append(messages, p.Name+": "+msg)
			sawChosen = sawChosen || strings.Contains(msg, chosen)
			sawOutside = sawOutside || !strings.Contains(msg, chosen) && strings.Contains(msg, outside)
		}
		return sawChosen && sawOutside
	})
	t.Logf("conditions: %q", messages)
	ctx := context.Background()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		evs, err := e.Client.EventsV1().Events(e.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ev := range evs.Items {
			if ev.Reason == "FailedScheduling" && strings.Contains(ev.Note, chosen) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no FailedScheduling event saying %q: %v", chosen, err)
	}

	n, err := e.Client.CoreV1().Nodes().Get(ctx, "r1-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Labels["example.com/disk"] = "ssd"
	if _, err := e.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := e.WaitForPods(t, e.ns, time.Minute, "train bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 2 })
	if got := domainsOf(t, e.Cluster, pods, "train", topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b1/r1"}) {
		t.Errorf("the group went to racks %v, want only z1/b1/r1", got)
	}
}
