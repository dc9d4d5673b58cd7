package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/internal/waitreason"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/test/harness"
)

// The scheduler publishes why a long-waiting pod waits: a pod held by a full ElasticQuota gets the
// berth.dev/WaitingFor condition (reason Quota, the numbers in the message) and one WaitingFor
// event; then, with nothing changing, the publisher writes nothing more over several periods (its
// condition stays as it was, to the transition time); when the quota's max changes, the condition and a second event say the
// new numbers; kubectl berth why shows the published answer.
func TestWaitReasonPublished(t *testing.T) {
	const period = 300 * time.Millisecond
	c := harness.StartCluster(t)
	ctx := context.Background()
	sp, err := pgclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	c.CreateNode(t, harness.Node("node", "8", "16Gi", nil))
	ns := c.Namespace(t, "waiting")
	eq, err := sp.SchedulingV1alpha1().ElasticQuotas(ns).Create(ctx, &v1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quota"},
		Spec:       v1alpha1.ElasticQuotaSpec{Max: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := waitreason.DefaultConfig()
	cfg.Period, cfg.After = period, time.Second
	c.StartSchedulerWith(t, berthConfig(c, ""), cfg)
	c.CreatePod(t, pod(ns, "holder", "", harness.Container("c", "1500m", "64Mi")))
	waitBound(t, c, ns, "holder", time.Minute)
	c.CreatePod(t, pod(ns, "over-quota", "", harness.Container("c", "1", "64Mi")))

	first := waitCondition(t, c, ns, "over-quota", "1500m used of max 2, and the pod asks 1; 500m over")
	if !strings.HasPrefix(first.Message, "Quota: ElasticQuota "+ns+"/quota is full in cpu") ||
		!strings.Contains(first.Message, "would unblock: ") {
		t.Errorf("the condition's message is not the cause, the summary and what would unblock it: %q", first.Message)
	}
	p, err := c.Client.CoreV1().Pods(ns).Get(ctx, "over-quota", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing changes: over 10 periods the publisher does not write the pod again. The scheduler may:
	// its PodScheduled condition can land after the publisher's (seen in 2 of about 30 runs, a
	// loaded machine's: the pod had no PodScheduled condition when the publisher, counting from the
	// pod's creation, answered). So a write is judged by the condition the publisher owns, which a
	// write of the publisher's always changes (it stamps the transition time).
	w, err := c.Client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", "over-quota").String(), ResourceVersion: p.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	quiet := time.After(10 * period)
watching:
	for {
		select {
		case e := <-w.ResultChan():
			switch e.Type {
			case watch.Deleted:
				t.Errorf("the pod was deleted while it waited")
			case watch.Modified:
				got := e.Object.(*v1.Pod)
				_, before := podutil.GetPodCondition(&p.Status, waitreason.ConditionType)
				_, after := podutil.GetPodCondition(&got.Status, waitreason.ConditionType)
				if after == nil || !apiequality.Semantic.DeepEqual(*after, *before) {
					t.Errorf("the publisher wrote the pod again though nothing changed: resourceVersion %s -> %s, %s %+v -> %+v",
						p.ResourceVersion, got.ResourceVersion, waitreason.ConditionType, before, after)
				} else {
					_, was := podutil.GetPodCondition(&p.Status, v1.PodScheduled)
					_, is := podutil.GetPodCondition(&got.Status, v1.PodScheduled)
					t.Logf("the pod was written, its %s condition unchanged: resourceVersion %s -> %s, %s %+v -> %+v",
						waitreason.ConditionType, p.ResourceVersion, got.ResourceVersion, v1.PodScheduled, was, is)
				}
				p = got
			}
		case <-quiet:
			break watching
		}
	}
	w.Stop()
	if n := waitingForEvents(t, c, ns, "over-quota"); len(n) != 1 {
		t.Errorf("%d WaitingFor events, want 1: %q", len(n), n)
	}
	out := mustKubectlBerth(t, c, "-n", ns, "why", "over-quota")
	if !strings.Contains(out, "Published by berth (berth.dev/WaitingFor Quota") || !strings.Contains(out, "500m over") {
		t.Errorf("kubectl berth why does not show the published answer:\n%s", out)
	}

	// The cause changes its numbers: a max of 2200m leaves the pod 300m over.
	// The scheduler writes the quota's status meanwhile: an update can conflict, and is retried.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		eq, err = sp.SchedulingV1alpha1().ElasticQuotas(ns).Get(ctx, eq.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		eq.Spec.Max[v1.ResourceCPU] = resource.MustParse("2200m")
		_, err = sp.SchedulingV1alpha1().ElasticQuotas(ns).Update(ctx, eq, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, c, ns, "over-quota", "1500m used of max 2200m, and the pod asks 1; 300m over")
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return len(waitingForEvents(t, c, ns, "over-quota")) == 2, nil
	})
	if err != nil {
		t.Errorf("want 2 WaitingFor events after the change, have %q", waitingForEvents(t, c, ns, "over-quota"))
	}
}

// waitCondition waits for the pod's berth.dev/WaitingFor condition to say says.
func waitCondition(t *testing.T, c *harness.Cluster, ns, name, says string) v1.PodCondition {
	t.Helper()
	var got v1.PodCondition
	p := waitPod(t, c, ns, name, time.Minute, "berth.dev/WaitingFor saying "+says, func(p *v1.Pod) bool {
		for _, cond := range p.Status.Conditions {
			if cond.Type == waitreason.ConditionType {
				got = cond
				return cond.Status == v1.ConditionTrue && cond.Reason == "Quota" && strings.Contains(cond.Message, says)
			}
		}
		return false
	})
	t.Logf("%s/%s: %s %s: %s", ns, name, waitreason.ConditionType, got.Reason, got.Message)
	_ = p
	return got
}

// waitingForEvents are the notes of the WaitingFor events about the pod.
func waitingForEvents(t *testing.T, c *harness.Cluster, ns, name string) []string {
	t.Helper()
	events, err := c.Client.EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, e := range events.Items {
		if e.Reason == waitreason.EventReason && e.Regarding.Name == name {
			notes = append(notes, e.Note)
		}
	}
	return notes
}

// A group that requires one rack by the scheduler's own topologyLevels (a label the shipped levels
// do not name) and that no rack can hold: its members' published answer names that level and the
// largest room any rack has. Read by the shipped levels the annotation names no level of theirs,
// and the answer would be another (the answer reads the profile's Gang, not the default).
func TestWaitReasonForAGroupByItsProfilesLevels(t *testing.T) {
	const rack = "example.com/rack"
	e := startGangEnv(t, "waiting")
	for i, r := range []string{"r1", "r2"} {
		n := harness.Node(fmt.Sprint("n", i), "4", "16Gi", nil)
		n.Labels[rack] = r
		e.CreateNode(t, n)
	}
	cfg := waitreason.DefaultConfig()
	cfg.Period, cfg.After = 300*time.Millisecond, time.Second
	e.StartSchedulerWith(t, berthConfig(e.Cluster, "pluginConfig:\n- name: Gang\n  args: {topologyLevels: ["+rack+", kubernetes.io/hostname]}\n"), cfg)
	e.podGroup(t, "train", 2, topologyAnnotation(topology.RequiredAnnotation, rack))
	e.members(t, "train", 2, "3")
	want := "requires one " + rack + " (berth.dev/topology-required) for its 2 members still to place; the largest room any " + rack + " has is 1"
	for _, name := range []string{"train-0", "train-1"} {
		waitPod(t, e.Cluster, e.ns, name, time.Minute, "berth.dev/WaitingFor saying "+want, func(p *v1.Pod) bool {
			for _, cond := range p.Status.Conditions {
				if cond.Type == waitreason.ConditionType {
					return cond.Status == v1.ConditionTrue && cond.Reason == "Topology" && strings.Contains(cond.Message, want)
				}
			}
			return false
		})
		// The event follows the condition's write.
		_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			return len(waitingForEvents(t, e.Cluster, e.ns, name)) > 0, nil
		})
		if n := waitingForEvents(t, e.Cluster, e.ns, name); len(n) != 1 || !strings.Contains(n[0], want) {
			t.Errorf("%s: WaitingFor events %q, want one saying %q", name, n, want)
		}
	}
}
