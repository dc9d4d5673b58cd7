package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/test/harness"
)

type quotaEnv struct {
	*harness.Cluster
	eq pgclient.Interface
}

func startQuotaEnv(t *testing.T, nodes ...*v1.Node) *quotaEnv {
	t.Helper()
	c := harness.StartCluster(t)
	eq, err := pgclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		c.CreateNode(t, n)
	}
	return &quotaEnv{Cluster: c, eq: eq}
}

func (e *quotaEnv) quota(t *testing.T, ns string, min, max v1.ResourceList) {
	t.Helper()
	q := &v1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quota"},
		Spec:       v1alpha1.ElasticQuotaSpec{Min: min, Max: max},
	}
	if _, err := e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Create(context.Background(), q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (e *quotaEnv) setMax(t *testing.T, ns string, max v1.ResourceList) {
	t.Helper()
	// The scheduler writes the quota's status meanwhile: an update can conflict, and is retried.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		q, err := e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Get(context.Background(), "quota", metav1.GetOptions{})
		if err != nil {
			return err
		}
		q.Spec.Max = max
		_, err = e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Update(context.Background(), q, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func cpuList(cpu string) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
}

func cpuPod(ns, name, cpu string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1.PodSpec{Containers: []v1.Container{harness.Container("c", cpu, "16Mi")}},
	}
}

func (e *quotaEnv) deletePod(t *testing.T, ns, name string) {
	t.Helper()
	zero := int64(0)
	if err := e.Client.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
}

// A pod over its quota's max waits and says why; deleting a pod of the same quota lets it in at
// once, every time; status.used shows what the scheduler holds.
func TestQuotaOverMaxWaitsSaysWhyAndIsRequeuedByARelease(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "32", "64Gi", nil))
	ns := e.Namespace(t, "team-a")
	e.quota(t, ns, nil, cpuList("2"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))

	tries := harness.Tries(1, 10)
	var waits []time.Duration
	for try := range tries {
		a, b, c := fmt.Sprint("a", try), fmt.Sprint("b", try), fmt.Sprint("c", try)
		e.CreatePod(t, cpuPod(ns, a, "1"))
		e.CreatePod(t, cpuPod(ns, b, "1"))
		e.CreatePod(t, cpuPod(ns, c, "1"))
		pods := e.Settled(t, ns, time.Minute)
		if harness.Bound(pods) != 2 {
			t.Fatalf("try %d: %d pods bound under max cpu 2, want 2", try, harness.Bound(pods))
		}
		var pending *v1.Pod
		for i := range pods {
			if pods[i].Spec.NodeName == "" {
				pending = &pods[i]
			}
		}
		want := "quota team-a/quota: cpu used 2, requested 1, max 2"
		if msg := harness.Unschedulable(pending); !strings.Contains(msg, want) {
			t.Fatalf("try %d: pending pod says %q, want it to contain %q", try, msg, want)
		}
		freed := pods[0].Name
		if freed == pending.Name {
			freed = pods[1].Name
		}
		start := time.Now()
		e.deletePod(t, ns, freed)
		e.WaitForPods(t, ns, 30*time.Second, "the waiting pod bound", func(p []v1.Pod) bool {
			for i := range p {
				if p[i].Name == pending.Name {
					return p[i].Spec.NodeName != ""
				}
			}
			return false
		})
		waits = append(waits, time.Since(start))
		if try == 0 {
			// status.used is what the ledger holds: 2 cpu, and the resources the quota names only.
			err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				q, err := e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Get(ctx, "quota", metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				used := q.Status.Used[v1.ResourceCPU]
				return len(q.Status.Used) == 1 && used.Cmp(resource.MustParse("2")) == 0, nil
			})
			if err != nil {
				q, _ := e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Get(context.Background(), "quota", metav1.GetOptions{})
				t.Fatalf("status.used = %v, want {cpu: 2}", q.Status.Used)
			}
		}
		for _, p := range e.WaitForPods(t, ns, time.Minute, "list", func([]v1.Pod) bool { return true }) {
			e.deletePod(t, ns, p.Name)
		}
		e.WaitForPods(t, ns, time.Minute, "namespace empty", func(p []v1.Pod) bool { return len(p) == 0 })
	}
	t.Logf("a release let the waiting pod in after %v", waits)
}

// Borrowing and reclaim in a full cluster across two nodes (scheduler-plugins #683): team-b
// borrows the whole cluster; team-a, below its min, takes back what it is guaranteed with pods
// that need room on both nodes, and team-b keeps its own min.
func TestQuotaBorrowAndReclaimAcrossNodes(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "4", "64Gi", nil), harness.Node("n2", "4", "64Gi", nil))
	e.ActAsKubelet(t)
	a, b := e.Namespace(t, "team-a"), e.Namespace(t, "team-b")
	e.quota(t, a, cpuList("6"), cpuList("8"))
	e.quota(t, b, cpuList("2"), cpuList("8"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))

	// team-b borrows: 8 cpu, 6 above its min, out of team-a's idle min.
	for i := range 8 {
		e.CreatePod(t, cpuPod(b, fmt.Sprint("b", i), "1"))
	}
	e.WaitForPods(t, b, time.Minute, "team-b borrowing the whole cluster", func(p []v1.Pod) bool { return harness.Bound(p) == 8 })

	// team-a's two 3-cpu pods fit on no node: each needs three of team-b's pods gone on one node.
	e.CreatePod(t, cpuPod(a, "a0", "3"))
	e.CreatePod(t, cpuPod(a, "a1", "3"))
	pods := e.WaitForPods(t, a, 2*time.Minute, "team-a reclaiming its min", func(p []v1.Pod) bool { return harness.Bound(p) == 2 })
	if pods[0].Spec.NodeName == pods[1].Spec.NodeName {
		t.Errorf("both 3-cpu pods on %s", pods[0].Spec.NodeName)
	}
	left := e.WaitForPods(t, b, time.Minute, "team-b's victims gone", func(p []v1.Pod) bool { return len(p) == 2 })
	if harness.Bound(left) != 2 {
		t.Errorf("team-b keeps %d bound pods, want its min of 2", harness.Bound(left))
	}
}

// A GPU-memory quota counts aliyun.com/gpu-mem from container limits, as GPUShare does.
func TestQuotaOfGPUMemory(t *testing.T) {
	e := startQuotaEnv(t, harness.GPUNode("gpu", 2, 16))
	ns := e.Namespace(t, "gpu-team")
	e.quota(t, ns, nil, v1.ResourceList{"aliyun.com/gpu-mem": resource.MustParse("8")})
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.CreatePod(t, harness.GPUPod(ns, "g0", 6))
	e.CreatePod(t, harness.GPUPod(ns, "g1", 6))
	pods := e.Settled(t, ns, time.Minute)
	if harness.Bound(pods) != 1 {
		t.Fatalf("%d GPU pods of 6 bound under a max of 8, want 1", harness.Bound(pods))
	}
	for i := range pods {
		if pods[i].Spec.NodeName == "" {
			want := "aliyun.com/gpu-mem used 6, requested 6, max 8"
			if msg := harness.Unschedulable(&pods[i]); !strings.Contains(msg, want) {
				t.Errorf("pending GPU pod says %q, want %q", msg, want)
			}
		}
	}
}

// A pod group is admitted against its quota as a whole: a group that does not fit holds none of
// it, and raising max lets the whole group in.
func TestQuotaAdmitsAGroupWhole(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "32", "64Gi", nil))
	ns := e.Namespace(t, "team-g")
	e.quota(t, ns, nil, cpuList("2"))
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g"}, Spec: v1alpha1.PodGroupSpec{MinMember: 3}}
	if _, err := e.eq.SchedulingV1alpha1().PodGroups(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	for i := range 3 {
		p := cpuPod(ns, fmt.Sprint("g", i), "1")
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "g"}
		e.CreatePod(t, p)
	}
	pods := e.Settled(t, ns, time.Minute)
	if harness.Bound(pods) != 0 {
		t.Fatalf("%d members bound of a group that does not fit its quota", harness.Bound(pods))
	}
	// The member tried first says what the group asks; Gang sets the others aside, saying why.
	waitForGroupRequest(t, e, ns, "requested for pod group g 3, max 2")
	everyPodSays(t, e.Cluster, ns, "requested for pod group g 3, max 2")
	// No member holds quota: a plain pod of the namespace gets all of it.
	e.CreatePod(t, cpuPod(ns, "plain", "2"))
	e.WaitForPods(t, ns, time.Minute, "plain pod bound", func(p []v1.Pod) bool { return harness.Bound(p) == 1 })
	e.deletePod(t, ns, "plain")
	e.setMax(t, ns, cpuList("3"))
	e.WaitForPods(t, ns, time.Minute, "the group bound whole", func(p []v1.Pod) bool { return harness.Bound(p) == 3 })

	// Unequal members (1, 1 and 3 cpu) ask 5 together, whichever of them is asked first: not
	// under a max of 4, at once under 5.
	ns = e.Namespace(t, "team-u")
	e.quota(t, ns, nil, cpuList("4"))
	pg = &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "u"}, Spec: v1alpha1.PodGroupSpec{MinMember: 3}}
	if _, err := e.eq.SchedulingV1alpha1().PodGroups(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, cpu := range []string{"3", "1", "1"} {
		p := cpuPod(ns, fmt.Sprint("u", i), cpu)
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "u"}
		e.CreatePod(t, p)
	}
	pods = e.Settled(t, ns, time.Minute)
	if harness.Bound(pods) != 0 {
		t.Fatalf("%d members bound of a group that does not fit its quota", harness.Bound(pods))
	}
	waitForGroupRequest(t, e, ns, "requested for pod group u 5, max 4")
	everyPodSays(t, e.Cluster, ns, "requested for pod group u 5, max 4")
	e.setMax(t, ns, cpuList("5"))
	e.WaitForPods(t, ns, time.Minute, "the unequal group bound whole", func(p []v1.Pod) bool { return harness.Bound(p) == 3 })
}

// waitForGroupRequest waits for a member's event in ns that names the group's request, want, and
// fails on one that names another request. Events are recorded asynchronously.
func waitForGroupRequest(t *testing.T, e *quotaEnv, ns, want string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		events, err := e.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		said := false
		for _, ev := range events.Items {
			if strings.Contains(ev.Message, "requested for pod group") {
				if !strings.Contains(ev.Message, want) {
					return false, fmt.Errorf("%s says %q, want %q", ev.InvolvedObject.Name, ev.Message, want)
				}
				said = true
			}
		}
		return said, nil
	})
	if err != nil {
		t.Errorf("waiting for a member's event naming the group's request: %v", err)
	}
}

// A restarted scheduler rebuilds the ledger from the API before it admits anything.
func TestQuotaLedgerRebuiltOnRestart(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "32", "64Gi", nil))
	ns := e.Namespace(t, "team-r")
	e.quota(t, ns, nil, cpuList("2"))
	stop := e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.CreatePod(t, cpuPod(ns, "r0", "1"))
	e.CreatePod(t, cpuPod(ns, "r1", "1"))
	e.WaitForPods(t, ns, time.Minute, "two bound", func(p []v1.Pod) bool { return harness.Bound(p) == 2 })
	stop()
	e.CreatePod(t, cpuPod(ns, "r2", "1"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	pods := e.Settled(t, ns, time.Minute)
	if harness.Bound(pods) != 2 {
		t.Fatalf("%d bound after the restart, want 2", harness.Bound(pods))
	}
	if msg := harness.Unschedulable(harness.Pod(pods, "r2")); !strings.Contains(msg, "cpu used 2, requested 1, max 2") {
		t.Errorf("r2 says %q", msg)
	}
}

// A running group is a victim whole or not at all: reclaimed whole by a quota below its min, and
// preempted whole by a higher-priority pod, though one member's room would have been enough.
func TestGroupsArePreemptedWhole(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "4", "64Gi", nil), harness.Node("n2", "4", "64Gi", nil))
	e.ActAsKubelet(t)
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := e.Client.SchedulingV1().PriorityClasses().Create(context.Background(), high, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	group := func(ns string) {
		t.Helper()
		e.group(t, ns, 4)
		e.WaitForPods(t, ns, time.Minute, "the group bound on both nodes", func(p []v1.Pod) bool { return harness.Bound(p) == 4 })
	}

	// Reclaim: team-b's group borrows the whole cluster; team-a, below its min, needs one
	// member's room and gets it by the whole group going.
	a, b := e.Namespace(t, "team-a"), e.Namespace(t, "team-b")
	e.quota(t, a, cpuList("4"), cpuList("8"))
	e.quota(t, b, nil, cpuList("8"))
	group(b)
	e.CreatePod(t, cpuPod(a, "a0", "2"))
	e.WaitForPods(t, a, time.Minute, "team-a's pod bound", func(p []v1.Pod) bool { return harness.Bound(p) == 1 })
	e.WaitForPods(t, b, time.Minute, "team-b's group gone whole", func(p []v1.Pod) bool { return len(p) == 0 })
	e.deletePod(t, a, "a0")

	// Priority, no quota: one high-priority pod takes the whole low-priority group.
	plain := e.Namespace(t, "plain")
	group(plain)
	p := cpuPod(plain, "important", "2")
	p.Spec.PriorityClassName = "high"
	e.CreatePod(t, p)
	e.WaitForPods(t, plain, time.Minute, "the group gone whole, the important pod bound", func(p []v1.Pod) bool {
		return len(p) == 1 && p[0].Name == "important" && p[0].Spec.NodeName != ""
	})
}

// A pod reclaiming its quota's min says so while its victims go: first when its preemption
// chooses them, then on every retry while they are still terminating, where upstream's text was
// "not eligible due to a terminating pod on the nominated node". No kubelet here: the victims stay
// terminating until the test removes them.
func TestReclaimInProgressSaysSo(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "4", "64Gi", nil))
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := e.Client.SchedulingV1().PriorityClasses().Create(context.Background(), high, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a, b := e.Namespace(t, "team-a"), e.Namespace(t, "team-b")
	e.quota(t, a, cpuList("4"), cpuList("8"))
	e.quota(t, b, nil, cpuList("8"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	for i := range 4 {
		e.CreatePod(t, cpuPod(b, fmt.Sprint("b", i), "1"))
	}
	e.WaitForPods(t, b, time.Minute, "team-b borrowing the node", func(p []v1.Pod) bool { return harness.Bound(p) == 4 })

	p := cpuPod(a, "a0", "3")
	p.Spec.PriorityClassName = "high"
	e.CreatePod(t, p)
	const want = "reclaim for quota team-a/quota in progress: 3 pods of quotas above their min are being evicted"
	saw := func() {
		t.Helper()
		var last []string
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			events, err := e.Client.CoreV1().Events(a).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=a0"})
			if err != nil {
				return false, nil
			}
			last = last[:0]
			found := false
			for _, ev := range events.Items {
				last = append(last, ev.Message)
				if strings.Contains(ev.Message, "not eligible") {
					return false, fmt.Errorf("upstream's text in %q", ev.Message)
				}
				found = found || (ev.Reason == "FailedScheduling" && strings.Contains(ev.Message, want))
			}
			return found, nil
		})
		if err != nil {
			t.Fatalf("waiting for a0's event saying %q: %v; events: %q", want, err, last)
		}
	}
	saw()
	pods := e.WaitForPods(t, a, time.Minute, "a0 nominated to n1", func(p []v1.Pod) bool { return p[0].Status.NominatedNodeName == "n1" })
	if msg := harness.Unschedulable(&pods[0]); !strings.Contains(msg, want) {
		t.Errorf("a0's PodScheduled condition says %q, want %q", msg, want)
	}

	// While its victims are still terminating, a0 is retried (a new node it does not tolerate, and
	// a pod's deletion) and still says its reclaim is in progress.
	tainted := harness.Node("tainted", "4", "64Gi", nil)
	tainted.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "other", Effect: v1.TaintEffectNoSchedule}}
	e.CreateNode(t, tainted)
	victims := e.WaitForPods(t, b, time.Minute, "three victims terminating", func(p []v1.Pod) bool {
		n := 0
		for _, x := range p {
			if x.DeletionTimestamp != nil {
				n++
			}
		}
		return n == 3
	})
	// The node may reach a0 while it is held by the preemption plugin's PreEnqueue (a retry that
	// came while the preemption's deletions were still being sent): a held pod is offered only
	// the events of the plugin that holds it, as with DefaultPreemption, and here that is a pod's
	// deletion. The team-b pod that is not a victim going away is such an event; it frees 1 cpu
	// of the 3 a0 needs, so a0 still waits for its victims.
	for _, x := range victims {
		if x.DeletionTimestamp == nil {
			e.deletePod(t, b, x.Name)
		}
	}
	// The retry is read from the pod's condition, not its events: the scheduler's event recorder
	// folds a pod's FailedScheduling events into one series, keyed by the pod's resourceVersion
	// and not by the message, so a retry that follows the last one before the informer has seen
	// its status write only counts up the old event and keeps its old message.
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("a0's last PodScheduled condition: %q", last)
			evs, _ := e.Client.EventsV1().Events(a).List(context.Background(), metav1.ListOptions{})
			for _, ev := range evs.Items {
				t.Logf("event %s %s rv=%s series=%v: %s", ev.Regarding.Name, ev.Reason, ev.Regarding.ResourceVersion, ev.Series, ev.Note)
			}
		}
	}()
	e.WaitForPods(t, a, time.Minute, "a0 retried with both nodes and told the reclaim is in progress", func(p []v1.Pod) bool {
		last = harness.Unschedulable(&p[0])
		return strings.Contains(last, "0/2 nodes are available") && strings.Contains(last, want)
	})
	for _, v := range victims {
		if v.DeletionTimestamp != nil {
			e.deletePod(t, b, v.Name)
		}
	}
	e.WaitForPods(t, a, time.Minute, "a0 bound once its victims are gone", func(p []v1.Pod) bool { return harness.Bound(p) == 1 })
}

// A newly elected leader writes status.used as soon as it holds the lease and its ledger is
// built, though it has nothing to schedule: the pod that holds quota was bound before it started.
func TestQuotaStatusFromANewLeaderAtOnce(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "4", "64Gi", nil))
	a := e.Namespace(t, "team-a")
	e.quota(t, a, cpuList("2"), cpuList("8"))
	p := cpuPod(a, "bound", "1")
	p.Spec.NodeName = "n1"
	e.CreatePod(t, p)
	cfg := strings.Replace(berthConfig(e.Cluster, ""), "leaderElect: false",
		"leaderElect: true\n  resourceNamespace: kube-system\n  resourceName: berth-quota-status", 1)
	start := time.Now()
	e.StartSchedulerBinary(t, cfg)
	var used v1.ResourceList
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		q, err := e.eq.SchedulingV1alpha1().ElasticQuotas(a).Get(ctx, "quota", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		used = q.Status.Used
		return used.Cpu().Cmp(resource.MustParse("1")) == 0, nil
	})
	if err != nil {
		t.Fatalf("status.used is %v, want cpu 1 from the pod bound before the leader started: %v", used, err)
	}
	t.Logf("status.used written %v after the scheduler started, with no scheduling cycle", time.Since(start).Round(time.Millisecond))
}

// A lender's min holds across every node of one preemption (issue 10): team-b uses 8 cpu with a
// min of 6, so exactly one of its 2-cpu pods may be reclaimed. team-a's group of two 2-cpu members
// needs a pod gone on each node: evicting one helps nothing and two would take team-b below its
// min, so nothing goes and the group waits. When a third node makes room for one member, the
// other reclaims exactly one of team-b's pods, and team-b keeps its min.
func TestReclaimKeepsTheLendersMinAcrossNodes(t *testing.T) {
	e, a, b := teamBFillsTwoNodes(t, cpuList("4"), cpuList("4"), cpuList("6"))

	e.group(t, a, 2)
	// A member's preemption, had it chosen victims, would be in the same status update that
	// marks it unschedulable: a nominated node, and a message that reclaim is in progress.
	for _, m := range e.Settled(t, a, time.Minute) {
		if m.Status.NominatedNodeName != "" || strings.Contains(harness.Unschedulable(&m), "in progress") {
			t.Errorf("%s nominated to %q, says %q: want no victims (team-b can lend one pod, the group needs two)",
				m.Name, m.Status.NominatedNodeName, harness.Unschedulable(&m))
		}
	}
	checkKept(t, e, b, 4)

	e.CreateNode(t, harness.Node("n3", "2", "64Gi", nil))
	e.WaitForPods(t, a, time.Minute, "the group bound", func(p []v1.Pod) bool { return harness.Bound(p) == 2 })
	e.WaitForPods(t, b, time.Minute, "one of team-b's pods gone", func(p []v1.Pod) bool { return len(p) <= 3 })
	checkKept(t, e, b, 3)
}

// The same for plain pods, one preemption each: team-a's two 2-cpu pods, each needing a pod of
// team-b gone, may take one of them; the second waits, and team-b keeps its min.
func TestPlainReclaimKeepsTheLendersMin(t *testing.T) {
	e, a, b := teamBFillsTwoNodes(t, cpuList("4"), cpuList("4"), cpuList("6"))
	e.CreatePod(t, cpuPod(a, "a0", "2"))
	e.CreatePod(t, cpuPod(a, "a1", "2"))
	e.WaitForPods(t, a, time.Minute, "one of team-a's pods bound", func(p []v1.Pod) bool { return harness.Bound(p) == 1 })
	e.WaitForPods(t, b, time.Minute, "one of team-b's pods gone", func(p []v1.Pod) bool { return len(p) <= 3 })
	// The other, tried next to the first or after its victim went, chose none: team-b is at its min.
	e.WaitForPods(t, a, time.Minute, "the other turned away without victims", func(p []v1.Pod) bool {
		for i := range p {
			if p[i].Spec.NodeName == "" && (harness.Unschedulable(&p[i]) == "" || p[i].Status.NominatedNodeName != "") {
				return false
			}
		}
		return true
	})
	checkKept(t, e, b, 3)
}

// teamBFillsTwoNodes starts a cluster of two 4-cpu nodes and a scheduler, with quotas for team-a
// (minA, maxA) and team-b (minB, max 8 cpu), and team-b's four 2-cpu pods filling both nodes.
func teamBFillsTwoNodes(t *testing.T, minA, maxA, minB v1.ResourceList) (e *quotaEnv, a, b string) {
	t.Helper()
	e = startQuotaEnv(t, harness.Node("n1", "4", "64Gi", nil), harness.Node("n2", "4", "64Gi", nil))
	e.ActAsKubelet(t)
	a, b = e.Namespace(t, "team-a"), e.Namespace(t, "team-b")
	e.quota(t, a, minA, maxA)
	e.quota(t, b, minB, cpuList("8"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	for i := range 4 {
		e.CreatePod(t, cpuPod(b, fmt.Sprint("b", i), "2"))
	}
	e.WaitForPods(t, b, time.Minute, "team-b filling both nodes", func(p []v1.Pod) bool { return harness.Bound(p) == 4 })
	return e, a, b
}

// group creates PodGroup g (minMember n) in ns and its n members of 2 cpu.
func (e *quotaEnv) group(t *testing.T, ns string, n int32) {
	t.Helper()
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g"}, Spec: v1alpha1.PodGroupSpec{MinMember: n}}
	if _, err := e.eq.SchedulingV1alpha1().PodGroups(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := cpuPod(ns, fmt.Sprint("g", i), "2")
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "g"}
		e.CreatePod(t, p)
	}
}

// checkKept checks that ns has n pods, all bound and none being deleted.
func checkKept(t *testing.T, e *quotaEnv, ns string, n int) {
	t.Helper()
	pods := e.WaitForPods(t, ns, time.Minute, "list", func([]v1.Pod) bool { return true })
	deleting := 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			deleting++
		}
	}
	if len(pods) != n || harness.Bound(pods) != n || deleting != 0 {
		t.Errorf("%s keeps %d pods (%d bound, %d being deleted), want %d, as its min allows", ns, len(pods), harness.Bound(pods), deleting, n)
	}
}

// A member of a group reclaims only if its whole group stays within its quota's min: team-a's min
// is 2 cpu, its group of two 2-cpu members needs 4, so it takes nothing from team-b (borrowing all
// 8 cpu), while a plain 2-cpu pod of team-a takes one of team-b's pods back.
func TestGroupBeyondItsMinReclaimsNothing(t *testing.T) {
	e, a, b := teamBFillsTwoNodes(t, cpuList("2"), cpuList("8"), nil)

	e.group(t, a, 2)
	for _, m := range e.Settled(t, a, time.Minute) {
		if m.Spec.NodeName != "" || m.Status.NominatedNodeName != "" {
			t.Errorf("%s bound to %q, nominated to %q: want it waiting, its group beyond its quota's min", m.Name, m.Spec.NodeName, m.Status.NominatedNodeName)
		}
	}
	checkKept(t, e, b, 4)

	e.CreatePod(t, cpuPod(a, "plain", "2"))
	e.WaitForPods(t, a, time.Minute, "the plain pod bound", func(p []v1.Pod) bool { return harness.Pod(p, "plain").Spec.NodeName != "" })
	e.WaitForPods(t, b, time.Minute, "one of team-b's pods gone", func(p []v1.Pod) bool { return len(p) <= 3 })
	checkKept(t, e, b, 3)
}
