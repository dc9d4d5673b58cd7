package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/berth-sched/berth/test/harness"
)

// A bound pod's status reports (as its kubelet sends them: Running, Ready) leave the quota it
// holds alone, and its finishing (Succeeded) gives it back: the pod waiting for it is bound, every
// time, and status.used shows the pods that still hold quota. The ledger's pod handler passes
// over updates that change nothing it counts (issue 12); this holds what it must not pass over.
func TestQuotaFollowsKubeletReports(t *testing.T) {
	e := startQuotaEnv(t, harness.Node("n1", "32", "64Gi", nil))
	ns := e.Namespace(t, "team-a")
	e.quota(t, ns, nil, cpuList("2"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	ctx := context.Background()
	setStatus := func(name string, phase v1.PodPhase, ready v1.ConditionStatus) {
		t.Helper()
		pod, err := e.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pod.Status.Phase = phase
		pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{Type: v1.PodReady, Status: ready, LastTransitionTime: metav1.Now()})
		if _, err := e.Client.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	usedCPU := func() string {
		q, err := e.eq.SchedulingV1alpha1().ElasticQuotas(ns).Get(ctx, "quota", metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		used := q.Status.Used[v1.ResourceCPU]
		return used.String()
	}
	waitUsed := func(try int, want string) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			return usedCPU() == want, nil
		})
		if err != nil {
			t.Fatalf("try %d: status.used cpu %s, want %s", try, usedCPU(), want)
		}
	}

	tries := harness.Tries(1, 10)
	var waits []time.Duration
	for try := range tries {
		a, b, c := fmt.Sprint("a", try), fmt.Sprint("b", try), fmt.Sprint("c", try)
		e.CreatePod(t, cpuPod(ns, a, "1"))
		e.CreatePod(t, cpuPod(ns, b, "1"))
		e.WaitForPods(t, ns, time.Minute, "a and b bound", func(p []v1.Pod) bool { return harness.Bound(p) == 2 })
		setStatus(a, v1.PodRunning, v1.ConditionFalse)
		setStatus(a, v1.PodRunning, v1.ConditionTrue)
		setStatus(b, v1.PodRunning, v1.ConditionTrue)
		waitUsed(try, "2")
		e.CreatePod(t, cpuPod(ns, c, "1"))
		pods := e.Settled(t, ns, time.Minute)
		if n := harness.Bound(pods); n != 2 {
			t.Fatalf("try %d: %d pods bound under max cpu 2 after status reports, want 2", try, n)
		}
		start := time.Now()
		setStatus(a, v1.PodSucceeded, v1.ConditionFalse)
		e.WaitForPods(t, ns, 30*time.Second, "c bound once a succeeded", func(p []v1.Pod) bool {
			for i := range p {
				if p[i].Name == c {
					return p[i].Spec.NodeName != ""
				}
			}
			return false
		})
		waits = append(waits, time.Since(start))
		waitUsed(try, "2") // b and c; a holds nothing once it has finished
		for _, p := range e.WaitForPods(t, ns, time.Minute, "list", func([]v1.Pod) bool { return true }) {
			e.deletePod(t, ns, p.Name)
		}
		e.WaitForPods(t, ns, time.Minute, "namespace empty", func(p []v1.Pod) bool { return len(p) == 0 })
		waitUsed(try, "0")
	}
	t.Logf("a finished pod let the waiting pod in after %v", waits)
}
