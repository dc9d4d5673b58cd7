package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"

	"github.com/berth-sched/berth/internal/waitreason"
	"github.com/berth-sched/berth/pkg/why"
	"github.com/berth-sched/berth/test/harness"
)

// The scheduler and kubectl berth answer the same about one node (pkg/noderoom): a node tainted
// example.com/class=5:NoSchedule, with 4 cpu and two GPUs of 16, holding a pod that runs, a pod
// being deleted (kept by a finalizer), a finished pod and two GPU shares of 10. The deleting pod
// holds its room and the finished one does not, so 1800m cpu and 6 on each GPU are free. The
// scheduler leaves a pod asking 2 cpu, a pod asking 8 on one GPU and a pod tolerating another
// value of the taint pending, and binds one asking 1700m; the
// wait-reason publisher in the scheduler's process and kubectl berth why name the same cause, with
// the same numbers, for each pending pod. (The apiserver refuses the Gt and Lt operators while
// their alpha gate is off; pkg/noderoom's tests judge them against the scheduler's filters.)
func TestNodeRoomSchedulerAndCLIAgree(t *testing.T) {
	c := harness.StartCluster(t)
	ctx := context.Background()
	node := harness.Node("room", "4", "16Gi", v1.ResourceList{
		harness.GPUCount: resource.MustParse("2"), harness.GPUMemory: resource.MustParse("32"),
	})
	node.Spec.Taints = []v1.Taint{{Key: "example.com/class", Value: "5", Effect: v1.TaintEffectNoSchedule}}
	c.CreateNode(t, node)
	ns := c.Namespace(t, "room")
	tolerates := []v1.Toleration{{Key: "example.com/class", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	cpuPod := func(name, cpu string) *v1.Pod {
		p := pod(ns, name, "", harness.Container("c", cpu, "64Mi"))
		p.Spec.Tolerations = tolerates
		return p
	}

	// What the node holds, bound by someone else.
	running := cpuPod("running", "1")
	running.Spec.NodeName = "room"
	c.CreatePod(t, running)
	deleting := cpuPod("deleting", "1")
	deleting.Spec.NodeName = "room"
	deleting.Finalizers = []string{"example.com/hold"}
	c.CreatePod(t, deleting)
	t.Cleanup(func() {
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		if _, err := c.Client.CoreV1().Pods(ns).Patch(context.Background(), "deleting", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Logf("releasing the deleting pod: %v", err)
		}
	})
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, "deleting", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	finished := cpuPod("finished", "1")
	finished.Spec.NodeName = "room"
	finished = c.CreatePod(t, finished)
	finished.Status.Phase = v1.PodSucceeded
	if _, err := c.Client.CoreV1().Pods(ns).UpdateStatus(ctx, finished, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"share-0", "share-1"} {
		p := harness.BoundByGPUShare(ns, name, "room", 10, 16)
		p.Annotations["ALIYUN_COM_GPU_MEM_IDX"] = []string{"0", "1"}[i]
		c.CreatePod(t, p)
	}

	cfg := waitreason.DefaultConfig()
	cfg.Period, cfg.After = 300*time.Millisecond, time.Second
	c.StartSchedulerWith(t, berthConfig(c, ""), cfg)
	gpuPod := harness.GPUPod(ns, "gpu", 8)
	gpuPod.Spec.Tolerations = tolerates
	other := cpuPod("other", "100m")
	other.Spec.Tolerations = []v1.Toleration{{Key: "example.com/class", Operator: v1.TolerationOpEqual, Value: "4", Effect: v1.TaintEffectNoSchedule}}
	for _, p := range []*v1.Pod{cpuPod("big", "2"), gpuPod, other} {
		c.CreatePod(t, p)
	}
	for _, tc := range []struct{ pod, cause, says string }{
		{"big", why.CauseResources, "lacks cpu (asks 2, 1800m free)"},
		{"gpu", why.CauseGPUFragmented, "it fits in total on node room (12 free over 2 GPUs), but no GPU has 8 free; the most on one GPU is 6"},
		{"other", why.CauseNodeConstraints, "1 node by taint example.com/class=5:NoSchedule"},
	} {
		var published v1.PodCondition
		p := waitPod(t, c, ns, tc.pod, time.Minute, "the scheduler's process publishing "+tc.cause, func(p *v1.Pod) bool {
			for _, cond := range p.Status.Conditions {
				if cond.Type == waitreason.ConditionType && cond.Status == v1.ConditionTrue {
					published = cond
					return true
				}
			}
			return false
		})
		if p.Spec.NodeName != "" {
			t.Errorf("%s: bound to %s, want pending", tc.pod, p.Spec.NodeName)
		}
		if published.Reason != tc.cause || !strings.Contains(published.Message, tc.says) {
			t.Errorf("%s: the scheduler's process published %s: %q, want %s saying %q", tc.pod, published.Reason, published.Message, tc.cause, tc.says)
		}
		out := mustKubectlBerth(t, c, "-n", ns, "why", tc.pod)
		if !strings.Contains(out, "is pending: "+tc.cause+" ") || !strings.Contains(out, tc.says) {
			t.Errorf("%s: kubectl berth why does not say %s, %q:\n%s", tc.pod, tc.cause, tc.says, out)
		}
	}
	// The finished pod's room is free, the deleting pod's is not: 1700m fits, where 2 did not.
	c.CreatePod(t, cpuPod("fits", "1700m"))
	waitBound(t, c, ns, "fits", time.Minute)
}

// kubectl berth judges a node's taints as the scheduler does when it is given the scheduler's
// --feature-gates. The apiserver (as every test's) and the scheduler run with
// TaintTolerationComparisonOperators on; a node is tainted example.com/class=5:NoSchedule, and
// pods tolerate it with Gt 3. The scheduler binds one asking 1 cpu and leaves one asking 8 pending
// for cpu. kubectl berth why, in a process whose gate is off (the default), blames the taint; with
// --feature-gates as the scheduler's, it names the scheduler's cause with the scheduler's numbers.
func TestKubectlBerthWhyFeatureGates(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.TaintTolerationComparisonOperators, true)
	c := harness.StartCluster(t)
	node := harness.Node("gated", "4", "16Gi", nil)
	node.Spec.Taints = []v1.Taint{{Key: "example.com/class", Value: "5", Effect: v1.TaintEffectNoSchedule}}
	c.CreateNode(t, node)
	ns := c.Namespace(t, "gates")
	tolerant := func(name, cpu string) *v1.Pod {
		p := pod(ns, name, "", harness.Container("c", cpu, "64Mi"))
		p.Spec.Tolerations = []v1.Toleration{{Key: "example.com/class", Operator: v1.TolerationOpGt, Value: "3", Effect: v1.TaintEffectNoSchedule}}
		return p
	}

	cfg := waitreason.DefaultConfig()
	cfg.Period, cfg.After = 300*time.Millisecond, time.Second
	stop := c.StartSchedulerWith(t, berthConfig(c, ""), cfg)
	c.CreatePod(t, tolerant("fits", "1"))
	waitBound(t, c, ns, "fits", time.Minute)
	c.CreatePod(t, tolerant("big", "8"))
	const says = "lacks cpu (asks 8, 3 free)"
	var published v1.PodCondition
	waitPod(t, c, ns, "big", time.Minute, "the scheduler's process publishing "+why.CauseResources, func(p *v1.Pod) bool {
		for _, cond := range p.Status.Conditions {
			if cond.Type == waitreason.ConditionType && cond.Status == v1.ConditionTrue {
				published = cond
				return true
			}
		}
		return false
	})
	if published.Reason != why.CauseResources || !strings.Contains(published.Message, says) {
		t.Fatalf("the scheduler's process published %s: %q, want %s saying %q", published.Reason, published.Message, why.CauseResources, says)
	}

	// This process now stands for a kubectl berth without the scheduler's gates.
	stop()
	if err := utilfeature.DefaultMutableFeatureGate.Set("TaintTolerationComparisonOperators=false"); err != nil {
		t.Fatal(err)
	}
	out := mustKubectlBerth(t, c, "-n", ns, "why", "big")
	if !strings.Contains(out, "is pending: "+why.CauseNodeConstraints+" ") || !strings.Contains(out, "taint example.com/class=5:NoSchedule") {
		t.Errorf("kubectl berth why without the gate does not blame the taint:\n%s", out)
	}
	out = mustKubectlBerth(t, c, "-n", ns, "why", "big", "--feature-gates=TaintTolerationComparisonOperators=true")
	if !strings.Contains(out, "is pending: "+why.CauseResources+" ") || !strings.Contains(out, says) {
		t.Errorf("kubectl berth why --feature-gates=TaintTolerationComparisonOperators=true does not say %s, %q:\n%s", why.CauseResources, says, out)
	}
}
