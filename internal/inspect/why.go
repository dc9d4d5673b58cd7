package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/pkg/why"
)

// Why is the answer of pkg/why as kubectl berth why prints it: as a table, or as the answer's
// fields in JSON or YAML.
type Why struct {
	*why.Answer
}

// ErrPodNotFound is returned by ExplainPod for a pod that does not exist.
var ErrPodNotFound = errors.New("not found")

// ExplainPod reads what why.Of needs from the cluster and answers for pod ns/name, reading
// topology domains by the shipped profile's levels.
func ExplainPod(ctx context.Context, client kubernetes.Interface, groups versioned.Interface, res gpu.ResourceNames, ns, name string) (*Why, error) {
	return ExplainPodByLevels(ctx, client, groups, res, topology.DefaultLevels(), ns, name)
}

// ExplainPodByLevels is ExplainPod reading topology domains by levels, the scheduler's
// topologyLevels (outermost first), as Gang reads them.
func ExplainPodByLevels(ctx context.Context, client kubernetes.Interface, groups versioned.Interface, res gpu.ResourceNames, levels topology.Levels, ns, name string) (*Why, error) {
	pod, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("pod %s/%s %w", ns, name, ErrPodNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("getting pod %s/%s: %w", ns, name, err)
	}
	in := why.Input{Pod: pod, Resources: res, Levels: levels}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	in.Nodes = nodes.Items
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
		fields.OneTermNotEqualSelector("status.phase", string(v1.PodSucceeded)),
		fields.OneTermNotEqualSelector("status.phase", string(v1.PodFailed))).String()})
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	in.Pods = pods.Items
	events, err := client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("regarding.uid", string(pod.UID)).String()})
	if err != nil {
		return nil, fmt.Errorf("listing events: %w", err)
	}
	in.Events = events.Items
	// Clusters without scheduler-plugins' CRDs have no quotas and no groups: that is an answer.
	if qs, err := groups.SchedulingV1alpha1().ElasticQuotas(metav1.NamespaceAll).List(ctx, metav1.ListOptions{}); err == nil {
		in.Quotas = qs.Items
	}
	// The pod's group as the API names it, whatever this process's own feature gates.
	if key, ok := podgroup.APIKeyOf(pod); ok {
		if _, native := podgroup.NativeName(key); native {
			if in.Groups, _, err = nativeGroups(ctx, client, ns); err != nil {
				return nil, err
			}
		} else if in.Groups, err = pluginsGroups(ctx, groups, ns); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	return &Why{Answer: why.Of(in)}, nil
}

// WriteTable prints the answer as sentences under headings; wide adds nothing.
func (w *Why) WriteTable(out io.Writer, _ bool) error {
	var b strings.Builder
	owner := "outside berth"
	if w.Berth {
		owner = "berth"
	}
	if w.Cause == why.CauseNotPending {
		fmt.Fprintf(&b, "Pod %s/%s is %s.\n", w.Namespace, w.Name, w.Summary)
	} else {
		fmt.Fprintf(&b, "Pod %s/%s is pending: %s (%s).\n", w.Namespace, w.Name, w.Cause, owner)
		fmt.Fprintf(&b, "  %s\n", w.Summary)
		for _, d := range w.Details {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if len(w.Unblock) > 0 {
		b.WriteString("What would unblock it:\n")
		for _, u := range w.Unblock {
			fmt.Fprintf(&b, "  - %s\n", u)
		}
	}
	if w.Preemption != "" {
		fmt.Fprintf(&b, "Preemption: %s\n", w.Preemption)
	}
	if s := w.Scheduler; s != nil && w.Cause != why.CauseNotPending {
		fmt.Fprintf(&b, "Scheduler's last word (%s, %s ago): %s\n", s.Reason, age(s.Since.Time), s.Message)
	}
	if s := w.Published; s != nil && w.Cause != why.CauseNotPending {
		fmt.Fprintf(&b, "Published by berth (%s %s, %s ago): %s\n", why.WaitingForCondition, s.Reason, age(s.Since.Time), s.Message)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func age(t time.Time) string {
	if t.IsZero() {
		return "some time"
	}
	return time.Since(t).Round(time.Second).String()
}
