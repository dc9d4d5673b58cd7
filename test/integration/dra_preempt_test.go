package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/test/harness"
)

// draPreemptEnv is one DRA node with one whole (not shareable) 80Gi GPU, priority classes low
// (0), mid (500) and high (1000), the claim controller, a kubelet stand-in that finishes
// deletions, and berth.
func draPreemptEnv(t *testing.T) (*quotaEnv, string) {
	t.Helper()
	e := startQuotaEnv(t, harness.Node("dra", "32", "128Gi", nil))
	ctx := context.Background()
	if _, err := e.Client.ResourceV1().DeviceClasses().Create(ctx, draGPUClass(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Client.ResourceV1().ResourceSlices().Create(ctx, draGPUSlice("dra", 1, "80Gi", false), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, value := range map[string]int32{"low": 0, "mid": 500, "high": 1000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := e.Client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	startClaimController(t, e.Cluster)
	e.ActAsKubelet(t)
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	return e, e.Namespace(t, "dra")
}

func priorityDRAPod(ns, name, claim, priorityClass string) *v1.Pod {
	p := draPod(ns, name, claim, nil)
	p.Spec.PriorityClassName = priorityClass
	return p
}

func (e *quotaEnv) podExists(t *testing.T, ns, name string) bool {
	t.Helper()
	_, err := e.Client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// A pod whose claim needs the node's only GPU, held whole by a pod of lower priority, preempts
// it: BerthPreemption sees that the victim's claim frees the device (DynamicResources alone
// cannot), the victim goes, the resourceclaim controller frees its claim, and the pod binds
// there. Ten tries in the soak run.
func TestDRAPreemptionFreesADevice(t *testing.T) {
	e, ns := draPreemptEnv(t)
	tries := harness.Tries(1, 10)
	var took []time.Duration
	for try := range tries {
		low, high := fmt.Sprint("low-", try), fmt.Sprint("high-", try)
		quotaClaim(t, e.Cluster, ns, low, "")
		e.CreatePod(t, priorityDRAPod(ns, low, low, "low"))
		e.waitBound(t, ns, low, time.Minute)
		quotaClaim(t, e.Cluster, ns, high, "")
		start := time.Now()
		e.CreatePod(t, priorityDRAPod(ns, high, high, "high"))
		if p := e.waitBound(t, ns, high, time.Minute); p.Spec.NodeName != "dra" {
			t.Fatalf("try %d: preemptor on %q", try, p.Spec.NodeName)
		}
		took = append(took, time.Since(start))
		if e.podExists(t, ns, low) {
			t.Fatalf("try %d: the preemptor bound while its victim still exists", try)
		}
		e.deletePod(t, ns, high)
		e.deleteClaims(t, ns)
	}
	t.Logf("from the preemptor's creation to its binding, %d tries: %v", tries, took)
}

// No victim set frees a device whose claim another pod still holds: the node's GPU is held by
// one claim shared by a low-priority pod and a high-priority one; a mid-priority pod asking for
// a GPU may not evict the high one, and evicting the low one alone frees nothing, so nothing is
// evicted and the pod waits. Then the high holder finishes, and the low one is preempted for
// real. Ten tries in the soak run.
func TestDRAPreemptionNeverEvictsForAClaimStillHeld(t *testing.T) {
	e, ns := draPreemptEnv(t)
	for try := range harness.Tries(1, 10) {
		shared, lo, hi, mid := fmt.Sprint("shared-", try), fmt.Sprint("lo-", try), fmt.Sprint("hi-", try), fmt.Sprint("mid-", try)
		quotaClaim(t, e.Cluster, ns, shared, "")
		e.CreatePod(t, priorityDRAPod(ns, lo, shared, "low"))
		e.waitBound(t, ns, lo, time.Minute)
		e.CreatePod(t, priorityDRAPod(ns, hi, shared, "high"))
		e.waitBound(t, ns, hi, time.Minute)
		quotaClaim(t, e.Cluster, ns, mid, "")
		e.CreatePod(t, priorityDRAPod(ns, mid, mid, "mid"))
		e.waitUnschedulable(t, ns, mid, "cannot allocate all claims")
		// Preemption runs in the same attempt that wrote the condition, and again on retries.
		time.Sleep(3 * time.Second)
		if !e.podExists(t, ns, lo) {
			t.Fatalf("try %d: the low-priority holder was evicted though the claim stays held by the high one", try)
		}
		pods := e.WaitForPods(t, ns, time.Second, "list", func([]v1.Pod) bool { return true })
		if p := harness.Pod(pods, lo); p.DeletionTimestamp != nil {
			t.Fatalf("try %d: the low-priority holder is being deleted", try)
		}
		if p := harness.Pod(pods, mid); p.Spec.NodeName != "" || p.Status.NominatedNodeName != "" {
			t.Fatalf("try %d: the waiting pod was bound or nominated (node %q, nominated %q)", try, p.Spec.NodeName, p.Status.NominatedNodeName)
		}
		// The high holder finishes: now evicting the low one frees the claim.
		e.deletePod(t, ns, hi)
		e.waitBound(t, ns, mid, time.Minute)
		if e.podExists(t, ns, lo) {
			t.Fatalf("try %d: the waiting pod bound while the claim's last holder still exists", try)
		}
		e.deletePod(t, ns, mid)
		e.deleteClaims(t, ns)
	}
}

// A gang of DRA pods: a PodGroup of 3 whose members each claim a whole GPU, on a node that
// publishes 2, stays whole and pending (no member holds a GPU: the claims are left unallocated);
// when the driver publishes a third GPU, the group binds whole. Three tries in the soak run.
func TestGangOfDRAPods(t *testing.T) {
	for try := range harness.Tries(1, 3) {
		e := startGangEnv(t, "gang")
		e.CreateNode(t, harness.Node("dra", "32", "128Gi", nil))
		ctx := context.Background()
		if _, err := e.Client.ResourceV1().DeviceClasses().Create(ctx, draGPUClass(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		slice, err := e.Client.ResourceV1().ResourceSlices().Create(ctx, draGPUSlice("dra", 2, "80Gi", false), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stop := e.StartScheduler(t, berthConfig(e.Cluster, ""))
		e.podGroup(t, "train", 3)
		for i := range 3 {
			name := fmt.Sprint("train-", i)
			quotaClaim(t, e.Cluster, e.ns, name, "")
			p := draPod(e.ns, name, name, nil)
			p.Labels = map[string]string{"scheduling.x-k8s.io/pod-group": "train"}
			e.CreatePod(t, p)
		}
		pods := e.Settled(t, e.ns, time.Minute)
		if n := boundIn(pods, "train"); n != 0 {
			t.Fatalf("try %d: %d of 3 members bound with 2 GPUs", try, n)
		}
		time.Sleep(3 * time.Second)
		claims, err := e.Client.ResourceV1().ResourceClaims(e.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range claims.Items {
			if c.Status.Allocation != nil {
				t.Fatalf("try %d: claim %s of a group held back is allocated: %+v", try, c.Name, c.Status.Allocation.Devices.Results)
			}
		}
		more := draGPUSlice("dra", 3, "80Gi", false)
		slice.Spec.Devices = more.Spec.Devices
		slice.Spec.Pool.Generation++
		if _, err := e.Client.ResourceV1().ResourceSlices().Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		pods = e.WaitForPods(t, e.ns, time.Minute, "all 3 members bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 3 })
		claims, err = e.Client.ResourceV1().ResourceClaims(e.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		devices := map[string]bool{}
		for _, c := range claims.Items {
			if c.Status.Allocation == nil || len(c.Status.Allocation.Devices.Results) != 1 {
				t.Fatalf("try %d: claim %s of a bound member is not allocated one device", try, c.Name)
			}
			devices[c.Status.Allocation.Devices.Results[0].Device] = true
		}
		if len(devices) != 3 {
			t.Fatalf("try %d: 3 members hold %d distinct GPUs, want 3", try, len(devices))
		}
		stop()
	}
}

// Reclaim frees a DRA GPU: team-b borrows the only GPU (gpu-count min 0, max 1); team-a, whose min
// guarantees it one GPU, gets it back from team-b's pod of the same priority, which plain
// preemption would never evict. The quota rule and the DRA judgment together. Ten tries in the soak run.
func TestQuotaReclaimFreesADRAGPU(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("dra", "32", "128Gi", nil))
	ctx := context.Background()
	if _, err := e.Client.ResourceV1().DeviceClasses().Create(ctx, draGPUClass(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Client.ResourceV1().ResourceSlices().Create(ctx, draGPUSlice("dra", 1, "80Gi", false), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a, b := e.Namespace(t, "team-a"), e.Namespace(t, "team-b")
	one := v1.ResourceList{harness.GPUCount: resource.MustParse("1")}
	e.quota(t, a, one, one)
	e.quota(t, b, v1.ResourceList{harness.GPUCount: resource.MustParse("0")}, one)
	startClaimController(t, e.Cluster)
	e.ActAsKubelet(t)
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	var took []time.Duration
	tries := harness.Tries(1, 10)
	for try := range tries {
		name := fmt.Sprint("p", try)
		quotaClaim(t, e.Cluster, b, name, "")
		e.CreatePod(t, draPod(b, name, name, nil))
		e.waitBound(t, b, name, time.Minute)
		quotaClaim(t, e.Cluster, a, name, "")
		start := time.Now()
		e.CreatePod(t, draPod(a, name, name, nil))
		e.waitBound(t, a, name, time.Minute)
		took = append(took, time.Since(start))
		if e.podExists(t, b, name) {
			t.Fatalf("try %d: team-a's pod bound while team-b's still exists", try)
		}
		e.deletePod(t, a, name)
		e.deleteClaims(t, a)
		e.deleteClaims(t, b)
	}
	t.Logf("from team-a's pod created to bound, %d tries: %v", tries, took)
}
