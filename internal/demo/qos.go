package demo

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	qosNode          = "qos-node"
	qosPriorityClass = "demo-urgent"
)

// qosPods are listed in the order they are created: the weakest first, so that the room goes to
// the right pods only if the scheduler sorts its queue as berth promises.
var qosPods = []struct {
	name          string
	priorityClass string
	res           v1.ResourceRequirements
}{
	{name: "besteffort-a"},
	{name: "besteffort-b"},
	{name: "burstable-a", res: v1.ResourceRequirements{Requests: resources("cpu", "100m")}},
	{name: "burstable-b", res: v1.ResourceRequirements{Requests: resources("cpu", "100m")}},
	{name: "guaranteed-a", res: v1.ResourceRequirements{Requests: resources("cpu", "250m", "memory", "128Mi"), Limits: resources("cpu", "250m", "memory", "128Mi")}},
	{name: "guaranteed-b", res: v1.ResourceRequirements{Requests: resources("cpu", "250m", "memory", "128Mi"), Limits: resources("cpu", "250m", "memory", "128Mi")}},
	{name: "urgent", priorityClass: qosPriorityClass},
}

// prepareQoS creates a node with room for fewer pods than are created, and the pods, before the
// scheduler runs: it finds them all in its queue at once and must sort them.
func prepareQoS(ctx context.Context, d *demo) error {
	pc := &schedulingv1.PriorityClass{
		ObjectMeta:  metav1.ObjectMeta{Name: qosPriorityClass},
		Value:       1000,
		Description: "berth demo: more urgent than any QoS class",
	}
	if _, err := d.client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PriorityClass %s: %w", pc.Name, err)
	}
	if err := d.createNodes(ctx, newNode("qos", qosNode, resources("cpu", "8", "memory", "16Gi", "pods", "4"))); err != nil {
		return err
	}
	for _, p := range qosPods {
		pod := newPod("qos", p.name, p.res)
		pod.Spec.PriorityClassName = p.priorityClass
		if err := d.createPods(ctx, pod); err != nil {
			return err
		}
	}
	d.progress("qos: created node %s (room for 4 pods) and %d pods, weakest first, before the scheduler starts", qosNode, len(qosPods))
	return nil
}

// queueRank is a pod's place in the order berth promises: priority first, then QoS class.
type queueRank struct {
	priority int32
	class    int
}

var qosClassRank = map[v1.PodQOSClass]int{v1.PodQOSGuaranteed: 2, v1.PodQOSBurstable: 1, v1.PodQOSBestEffort: 0}

func rankOf(p *v1.Pod) queueRank {
	var prio int32
	if p.Spec.Priority != nil {
		prio = *p.Spec.Priority
	}
	return queueRank{priority: prio, class: qosClassRank[p.Status.QOSClass]}
}

func (r queueRank) above(o queueRank) bool {
	if r.priority != o.priority {
		return r.priority > o.priority
	}
	return r.class > o.class
}

func rankText(p *v1.Pod) string {
	return fmt.Sprintf("priority %d, %s", rankOf(p).priority, p.Status.QOSClass)
}

func describeRank(p *v1.Pod) string {
	return fmt.Sprintf("%s (%s)", p.Name, rankText(p))
}

func runQoS(ctx context.Context, d *demo, s *Section) error {
	pods, err := d.settle(ctx, "qos", "", len(qosPods), time.Minute)
	if err != nil {
		return err
	}
	s.Pods = pods
	node, err := d.client.CoreV1().Nodes().Get(ctx, qosNode, metav1.GetOptions{})
	if err != nil {
		return err
	}
	reportQoS(s, node, pods)
	return nil
}

// reportQoS shows where the pods went on the node and judges the order.
func reportQoS(s *Section, node *v1.Node, pods []v1.Pod) {
	room := node.Status.Allocatable.Pods().Value()
	// Shown in the order berth promises, so that the line between bound and waiting is visible.
	sort.SliceStable(pods, func(i, j int) bool { return rankOf(&pods[i]).above(rankOf(&pods[j])) })
	bound, waiting := split(pods)
	s.printf("Node %s has room for %d pods (allocatable pods=%d). %d pods were created, weakest first, before the\n", node.Name, room, room, len(pods))
	s.printf("scheduler started, so it found them all queued at once. Highest in berth's order first:\n\n")
	rows := make([][]string, 0, len(pods))
	for i := range pods {
		p := &pods[i]
		r := rankOf(p)
		rows = append(rows, []string{p.Name, orNone(p.Spec.PriorityClassName), strconv.Itoa(int(r.priority)), string(p.Status.QOSClass), orNone(p.Spec.NodeName), string(p.Status.Phase)})
	}
	s.table([]string{"POD", "PRIORITYCLASS", "PRIORITY", "QOS CLASS", "NODE", "PHASE"}, rows)
	s.whyWaiting(waiting)
	s.printf("\n")

	s.expect(fmt.Sprintf("capacity is short: the %d places are all taken and the other %d pods wait", room, int64(len(pods))-room),
		room < int64(len(pods)) && int64(len(bound)) == room,
		fmt.Sprintf("%d bound, %d waiting", len(bound), len(waiting)))

	// The first violation, named by the strongest pod that waits and the weakest that got a place.
	ok, got := true, "the places went to "+names(bound)
	for i := range waiting {
		for j := len(bound) - 1; j >= 0; j-- {
			if ok && rankOf(&waiting[i]).above(rankOf(&bound[j])) {
				ok, got = false, fmt.Sprintf("%s waits while %s got a place", describeRank(&waiting[i]), describeRank(&bound[j]))
			}
		}
	}
	s.expect("the places go by priority first, then Guaranteed before Burstable before BestEffort", ok, got)
}
