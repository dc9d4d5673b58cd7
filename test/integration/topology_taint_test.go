package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/test/harness"
)

// A rack's room counts only the nodes the members may use. Rack r1's only node has room for a
// group of 2 and nothing more, so it would be the rack with the least room left over; cordoned, or
// tainted NoSchedule, it is no room at all and the group goes whole to r2. Made usable again, the
// next group takes it. Rounds alternate a cordon and a taint: two in make test (each once), ten in
// the soak run.
func TestGangTopologyRoomSkipsCordonedAndTaintedNodes(t *testing.T) {
	e := startGangEnv(t, "unusable")
	e.CreateNode(t, rackedNode("r1-0", "b1", "r1", "2"))
	for i := range 3 {
		e.CreateNode(t, rackedNode(fmt.Sprintf("r2-%d", i), "b1", "r2", "2"))
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	ctx := context.Background()
	setNode := func(change func(*v1.Node)) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			n, err := e.Client.CoreV1().Nodes().Get(ctx, "r1-0", metav1.GetOptions{})
			if err != nil {
				return err
			}
			change(n)
			_, err = e.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// probe is a pod that only r1-0 could take, asking for nothing: once the scheduler says it
	// cannot go there for want (or its binding shows it can), the scheduler's snapshot holds r1-0
	// as the test left it. Node and pod events come on different watches, in no order: a probe
	// scheduled before the scheduler saw the node's change binds where a refusal is wanted, and is
	// then deleted and sent again under a new name, until the answer is the one the change makes.
	probe := func(name, want string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for try := 0; ; try++ {
			name := fmt.Sprintf("%s-%d", name, try)
			p := pod(e.ns, name, "", v1.Container{Name: "c", Image: "pause"})
			p.Spec.NodeSelector = map[string]string{topology.HostLabel: "r1-0"}
			e.CreatePod(t, p)
			pods := e.WaitForPods(t, e.ns, time.Until(deadline), name+": "+want, func(p []v1.Pod) bool {
				q := harness.Pod(p, name)
				return q != nil && (q.Spec.NodeName != "" || want != "bound" && strings.Contains(harness.Unschedulable(q), want))
			})
			bound := harness.Pod(pods, name).Spec.NodeName != ""
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
				t.Fatal(err)
			}
			if bound == (want == "bound") {
				return
			}
			t.Logf("%s bound to r1-0 before the scheduler saw the node %s: trying again", name, want)
		}
	}
	rackOf := func(pods []v1.Pod, group string) []topology.Domain {
		return domainsOf(t, e.Cluster, pods, group, topology.RackLabel)
	}
	for round := range harness.Tries(2, 10) {
		spoil, mend, reason := func(n *v1.Node) { n.Spec.Unschedulable = true }, func(n *v1.Node) { n.Spec.Unschedulable = false }, "unschedulable"
		if round%2 == 1 {
			spoil = func(n *v1.Node) {
				n.Spec.Taints = []v1.Taint{{Key: "example.com/maintenance", Effect: v1.TaintEffectNoSchedule}}
			}
			mend, reason = func(n *v1.Node) { n.Spec.Taints = nil }, "untolerated taint"
		}
		setNode(spoil)
		probe(fmt.Sprint("probe-spoilt-", round), reason)

		a, b := fmt.Sprint("a", round), fmt.Sprint("b", round)
		e.podGroup(t, a, 2, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
		e.members(t, a, 2, "1")
		pods := e.WaitForPods(t, e.ns, 30*time.Second, a+" bound", func(p []v1.Pod) bool { return boundIn(p, a) == 2 })
		if got := rackOf(pods, a); !slices.Equal(got, []topology.Domain{"z1/b1/r2"}) {
			t.Errorf("round %d (%s): the group went to racks %v, want z1/b1/r2: r1's only node is not usable", round, reason, got)
		}

		setNode(mend)
		probe(fmt.Sprint("probe-mended-", round), "bound")
		e.podGroup(t, b, 2, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
		e.members(t, b, 2, "1")
		pods = e.WaitForPods(t, e.ns, 30*time.Second, b+" bound", func(p []v1.Pod) bool { return boundIn(p, b) == 2 })
		if got := rackOf(pods, b); !slices.Equal(got, []topology.Domain{"z1/b1/r1"}) {
			t.Errorf("round %d (%s lifted): the next group went to racks %v, want z1/b1/r1, usable again and least left over", round, reason, got)
		}
		for _, p := range pods {
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
				t.Fatal(err)
			}
		}
		e.WaitForPods(t, e.ns, time.Minute, "round's pods gone", func(p []v1.Pod) bool { return len(p) == 0 })
	}
}
