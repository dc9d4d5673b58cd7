package demo

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

const (
	// scenarioLabel ties a scenario's pods to its nodes (through a node selector), so that the
	// scenarios share one cluster without taking each other's room.
	scenarioLabel = "berth.dev/demo-scenario"
	// pauseImage is never pulled: no kubelet runs.
	pauseImage = "registry.k8s.io/pause:3.10"
	// quietPeriod is how long nothing may change before a scenario counts as settled.
	quietPeriod = 1500 * time.Millisecond
)

func (d *demo) namespace(ctx context.Context, name string) error {
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := d.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

// newNode is a simulated node of a scenario: Ready, untainted, with capacity and allocatable as
// a kubelet would report them. The API keeps a status given at creation.
func newNode(scenario, name string, capacity v1.ResourceList) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name, scenarioLabel: scenario}},
		Status: v1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "SimulatedByBerthDemo"}},
		},
	}
}

// resources builds a resource list from name/quantity pairs.
func resources(pairs ...string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

// newPod is a pod of a scenario with one container, kept to the scenario's nodes.
func newPod(scenario, name string, res v1.ResourceRequirements) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: scenario},
		Spec: v1.PodSpec{
			NodeSelector: map[string]string{scenarioLabel: scenario},
			Containers:   []v1.Container{{Name: "main", Image: pauseImage, Resources: res}},
		},
	}
}

func (d *demo) createNodes(ctx context.Context, nodes ...*v1.Node) error {
	for _, n := range nodes {
		if _, err := d.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating node %s: %w", n.Name, err)
		}
	}
	return nil
}

func (d *demo) createPods(ctx context.Context, pods ...*v1.Pod) error {
	for _, p := range pods {
		if _, err := d.client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// scenarioNodes lists a scenario's nodes, by name.
func (d *demo) scenarioNodes(ctx context.Context, scenario string) ([]v1.Node, error) {
	list, err := d.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: scenarioLabel + "=" + scenario})
	if err != nil {
		return nil, err
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items, nil
}

// unschedulable returns the scheduler's PodScheduled=False condition with reason Unschedulable,
// or nil if the pod has none.
func unschedulable(p *v1.Pod) *v1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// verdict is the scheduler's decision on a pod: its node, or that it cannot be placed; detail
// adds the scheduler's message. ok is false while the scheduler has not decided.
func verdict(p *v1.Pod) (decision, detail string, ok bool) {
	if p.Spec.NodeName != "" {
		return "bound to " + p.Spec.NodeName, "", true
	}
	if c := unschedulable(p); c != nil {
		return "unschedulable", c.Message, true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return fmt.Sprintf("PodScheduled=%s %s", c.Status, c.Reason), c.Message, false
		}
	}
	return "not looked at by the scheduler yet", "", false
}

// settle waits until the scheduler has decided about every pod in ns matching selector (there
// must be want of them): each is bound or reported unschedulable, and no decision has changed
// for quietPeriod. Messages may change meanwhile (a gang that retries says when it will try
// again); decisions may not. It returns the pods by name.
func (d *demo) settle(ctx context.Context, ns, selector string, want int, timeout time.Duration) ([]v1.Pod, error) {
	return d.settleUntil(ctx, ns, selector, want, timeout, nil)
}

// settleUntil is settle that also waits for ready, if not nil, to hold for the pods.
func (d *demo) settleUntil(ctx context.Context, ns, selector string, want int, timeout time.Duration, ready func([]v1.Pod) bool) ([]v1.Pod, error) {
	var (
		pods      []v1.Pod
		decisions string
		details   string
		stableAt  time.Time
	)
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := d.exited(); err != nil {
			return false, err
		}
		list, err := d.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, nil // the apiserver may be briefly busy; the timeout bounds this
		}
		pods = list.Items
		sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
		var dec, det strings.Builder
		done := len(pods) == want && (ready == nil || ready(pods))
		for i := range pods {
			decision, detail, ok := verdict(&pods[i])
			done = done && ok
			fmt.Fprintf(&dec, "%s %s\n", pods[i].Name, decision)
			fmt.Fprintf(&det, "%s %s %s\n", pods[i].Name, decision, detail)
		}
		details = det.String()
		if !done || dec.String() != decisions {
			decisions, stableAt = dec.String(), time.Now()
			return false, nil
		}
		return time.Since(stableAt) >= quietPeriod, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if exit := d.exited(); exit != nil {
			return nil, exit
		}
		return nil, fmt.Errorf("waiting for the scheduler to settle %d pod(s) in namespace %s: %w; last seen:\n%s", want, ns, err, indent(details, "  "))
	}
	bound, waiting := split(pods)
	d.progress("%s: the scheduler has settled: %d bound, %d unschedulable", ns, len(bound), len(waiting))
	return pods, nil
}

// split separates bound pods from waiting ones, keeping their order.
func split(pods []v1.Pod) (bound, waiting []v1.Pod) {
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			bound = append(bound, p)
		} else {
			waiting = append(waiting, p)
		}
	}
	return bound, waiting
}

func names(pods []v1.Pod) string {
	n := make([]string, len(pods))
	for i, p := range pods {
		n[i] = p.Name
	}
	return strings.Join(n, ", ")
}

// orNone is a node name, or what kubectl shows when a pod has none.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
