package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"

	"github.com/berth-sched/berth/test/harness"
)

// quotaDRAObjects creates the DeviceClass NVIDIA's driver installs and one shareable GPU of
// 80Gi on node, published as its driver does (dra_test.go's builders).
func quotaDRAObjects(t *testing.T, c *harness.Cluster, node string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Client.ResourceV1().DeviceClasses().Create(ctx, draGPUClass(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client.ResourceV1().ResourceSlices().Create(ctx, draGPUSlice(node, 1, "80Gi", true), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// quotaClaim creates a claim for a share of one GPU's memory.
func quotaClaim(t *testing.T, c *harness.Cluster, ns, name, memory string) {
	t.Helper()
	if _, err := c.Client.ResourceV1().ResourceClaims(ns).Create(context.Background(), draClaim(ns, name, memory), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// startClaimController runs the real resourceclaim controller (kube-controller-manager's) in
// this process until the test ends: it takes finished and deleted pods out of their claims'
// reservedFor and frees claims nobody holds, which is what lets a freed device be used again.
func startClaimController(t *testing.T, c *harness.Cluster) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(c.Client, 0)
	ctrl, err := resourceclaim.NewController(klog.Background(), c.Client, factory.Core().V1().Pods(),
		factory.Scheduling().V1beta1().PodGroups(), factory.Resource().V1().ResourceClaims(), factory.Resource().V1().ResourceClaimTemplates())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	// Only the informers the controller waits for: the PodGroup API is beta and off here, and
	// the controller reads it only with GenericWorkload on.
	for _, inf := range []interface{ Run(<-chan struct{}) }{
		factory.Core().V1().Pods().Informer(), factory.Resource().V1().ResourceClaims().Informer(),
		factory.Resource().V1().ResourceClaimTemplates().Informer(),
	} {
		go inf.Run(ctx.Done())
	}
	go func() {
		defer close(done)
		ctrl.Run(ctx, 2)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// draQuotaEnv is a gpushare node (one GPU of 16) and a DRA node (one GPU of 80Gi, shareable), a
// quota of 24 units of GPU memory in ns, the claim controller and berth.
func draQuotaEnv(t *testing.T) (*quotaEnv, string) {
	t.Helper()
	e := startQuotaEnv(t, harness.GPUNode("gpushare", 1, 16), harness.Node("dra", "32", "128Gi", nil))
	quotaDRAObjects(t, e.Cluster, "dra")
	ns := e.Namespace(t, "team")
	e.quota(t, ns, nil, v1.ResourceList{harness.GPUMemory: resource.MustParse("24")})
	startClaimController(t, e.Cluster)
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	return e, ns
}

func (e *quotaEnv) waitBound(t *testing.T, ns, name string, timeout time.Duration) *v1.Pod {
	t.Helper()
	pods := e.WaitForPods(t, ns, timeout, name+" bound", func(p []v1.Pod) bool {
		pod := harness.Pod(p, name)
		return pod != nil && pod.Spec.NodeName != ""
	})
	return harness.Pod(pods, name)
}

func (e *quotaEnv) waitUnschedulable(t *testing.T, ns, name, want string) {
	t.Helper()
	e.WaitForPods(t, ns, time.Minute, name+" waiting, saying "+want, func(p []v1.Pod) bool {
		pod := harness.Pod(p, name)
		return pod != nil && pod.Spec.NodeName == "" && strings.Contains(harness.Unschedulable(pod), want)
	})
}

// waitUsed waits until the quota's status.used shows want of GPU memory.
func (e *quotaEnv) waitUsedGPUMemory(t *testing.T, ns string, want int64) {
	t.Helper()
	var got resource.Quantity
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		q, err := e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Get(ctx, "quota", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		got = q.Status.Used[harness.GPUMemory]
		return got.Value() == want, nil
	})
	if err != nil {
		t.Fatalf("status.used[%s] = %s, want %d", harness.GPUMemory, got.String(), want)
	}
}

// waitClaimsGone deletes every claim of ns and waits until they are gone: the claim controller
// has freed them, so their capacity is free again.
func (e *quotaEnv) deleteClaims(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	if err := e.Client.ResourceV1().ResourceClaims(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := e.Client.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 0, nil
	})
	if err != nil {
		t.Fatalf("claims of %s not freed and deleted: %v", ns, err)
	}
}

// One ledger: a team's quota of 24 units of GPU memory counts a gpushare pod's 12 on the
// gpushare node and a DRA claim's 10Gi on the DRA node together; a second claim of 10Gi waits with
// a message naming the quota, and is admitted the moment the gpushare pod finishes. Ten tries in the soak run.
func TestQuotaCountsDRAClaimsWithGPUSharePods(t *testing.T) {
	e, ns := draQuotaEnv(t)
	tries := harness.Tries(1, 10)
	var waits []time.Duration
	for try := range tries {
		g, d1, d2 := fmt.Sprint("g", try), fmt.Sprint("d1-", try), fmt.Sprint("d2-", try)
		e.CreatePod(t, harness.GPUPod(ns, g, 12))
		if p := e.waitBound(t, ns, g, time.Minute); p.Spec.NodeName != "gpushare" {
			t.Fatalf("try %d: gpushare pod on %q", try, p.Spec.NodeName)
		}
		quotaClaim(t, e.Cluster, ns, d1, "10Gi")
		e.CreatePod(t, draPod(ns, d1, d1, nil))
		if p := e.waitBound(t, ns, d1, time.Minute); p.Spec.NodeName != "dra" {
			t.Fatalf("try %d: DRA pod on %q", try, p.Spec.NodeName)
		}
		if try == 0 {
			e.waitUsedGPUMemory(t, ns, 22)
		}
		quotaClaim(t, e.Cluster, ns, d2, "10Gi")
		e.CreatePod(t, draPod(ns, d2, d2, nil))
		e.waitUnschedulable(t, ns, d2, "quota team/quota: aliyun.com/gpu-mem used 22, requested 10, max 24")
		start := time.Now()
		e.deletePod(t, ns, g)
		if p := e.waitBound(t, ns, d2, 30*time.Second); p.Spec.NodeName != "dra" {
			t.Fatalf("try %d: second DRA pod on %q", try, p.Spec.NodeName)
		}
		waits = append(waits, time.Since(start))
		if try == 0 {
			e.waitUsedGPUMemory(t, ns, 20)
		}
		e.deletePod(t, ns, d1)
		e.deletePod(t, ns, d2)
		e.deleteClaims(t, ns)
	}
	t.Logf("from the gpushare pod's deletion to the waiting DRA pod bound, %d tries: %v", tries, waits)
}

// A claim for a whole DRA GPU counts its memory at admission, before the allocator has chosen the
// device: the least memory of the devices its class matches (here the one GPU, 80Gi). Over the
// team's 24 units it waits, saying so, where it used to be let in on its device count alone and
// overrun the quota once allocated. Ten tries in the soak run.
func TestQuotaCountsAPendingWholeDRAGPU(t *testing.T) {
	e, ns := draQuotaEnv(t)
	for try := range harness.Tries(1, 10) {
		name := fmt.Sprint("whole-", try)
		quotaClaim(t, e.Cluster, ns, name, "")
		e.CreatePod(t, draPod(ns, name, name, nil))
		e.waitUnschedulable(t, ns, name, "quota team/quota: aliyun.com/gpu-mem used 0, requested 80, max 24")
		e.deletePod(t, ns, name)
		e.deleteClaims(t, ns)
	}
}

// A claim shared by three pods counts once against the quota (16 of 24), and keeps counting while
// any of them holds it: when its first holder goes, a pod waiting for 10 more stays out; when the
// last goes and the claim is freed, it is admitted. Ten tries in the soak run.
func TestQuotaCountsASharedClaimOnce(t *testing.T) {
	e, ns := draQuotaEnv(t)
	tries := harness.Tries(1, 10)
	for try := range tries {
		shared, waiter := fmt.Sprint("shared-", try), fmt.Sprint("w-", try)
		quotaClaim(t, e.Cluster, ns, shared, "16Gi")
		var holders []string
		for i := range 3 {
			name := fmt.Sprintf("s%d-%d", i, try)
			holders = append(holders, name)
			e.CreatePod(t, draPod(ns, name, shared, nil))
			// One after another, so that the first in reservedFor is s0.
			e.waitBound(t, ns, name, time.Minute)
		}
		e.waitUsedGPUMemory(t, ns, 16)
		quotaClaim(t, e.Cluster, ns, waiter, "10Gi")
		e.CreatePod(t, draPod(ns, waiter, waiter, nil))
		e.waitUnschedulable(t, ns, waiter, "quota team/quota: aliyun.com/gpu-mem used 16, requested 10, max 24")

		e.deletePod(t, ns, holders[0])
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			c, err := e.Client.ResourceV1().ResourceClaims(ns).Get(ctx, shared, metav1.GetOptions{})
			return err == nil && len(c.Status.ReservedFor) == 2, nil
		})
		if err != nil {
			t.Fatalf("try %d: the claim controller did not take the deleted holder out of reservedFor: %v", try, err)
		}
		// The claim still counts against the holders left: the waiter must not get in.
		time.Sleep(2 * time.Second)
		e.waitUsedGPUMemory(t, ns, 16)
		pods := e.WaitForPods(t, ns, time.Second, "list", func([]v1.Pod) bool { return true })
		if p := harness.Pod(pods, waiter); p.Spec.NodeName != "" {
			t.Fatalf("try %d: the waiter was admitted while the shared claim was still held: 16+10 > 24", try)
		}
		e.deletePod(t, ns, holders[1])
		e.deletePod(t, ns, holders[2])
		e.waitBound(t, ns, waiter, 30*time.Second)
		e.waitUsedGPUMemory(t, ns, 10)
		e.deletePod(t, ns, waiter)
		e.deleteClaims(t, ns)
	}
}

// ElasticQuota's DRA args are checked at start-up, in-process and by the berth-scheduler binary,
// with the field named.
func TestElasticQuotaDRAArgsCheckedAtStartUp(t *testing.T) {
	c := harness.StartCluster(t)
	config := berthConfig(c, `pluginConfig:
- name: ElasticQuota
  args:
    draResources:
    - {deviceClassName: gpu.nvidia.com, driver: gpu.nvidia.com, countResource: cpu}
`)
	failsStartUp(t, c, config, "initializing plugin", "ElasticQuota", "draResources[0].countResource: Invalid value:", "must be an extended resource")
	config = berthConfig(c, `pluginConfig:
- name: ElasticQuota
  args:
    draResources:
    - {deviceClassName: gpu.nvidia.com, driver: gpu.nvidia.com, capacites: []}
`)
	failsStartUp(t, c, config, "ElasticQuota", "unknown field", "draResources[0].capacites")
}
