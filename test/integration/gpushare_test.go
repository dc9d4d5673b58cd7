package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/test/harness"
)

func berthConfig(c *harness.Cluster, pluginConfig string) string {
	return c.SchedulerConfig(harness.BerthProfile("default-scheduler", pluginConfig), "")
}

// More GPU pods than fit: exactly those that fit are bound, each with the gpushare annotations the
// device plugin reads and berth's record of its device, and no device holds more than it has.
func TestGPUPodsBindExactlyWhatFits(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	c.CreateNode(t, harness.GPUNode("gpu-b", 2, 16))
	ns := c.Namespace(t, "gpu")
	begin := time.Now()
	c.StartScheduler(t, berthConfig(c, ""))

	// 6 units: two fit on each 16-unit GPU, so 8 of the 10 pods fit.
	for i := range 10 {
		c.CreatePod(t, harness.GPUPod(ns, fmt.Sprintf("p%d", i), 6))
	}
	c.CreatePod(t, pod(ns, "no-gpu", ""))
	pods := c.Settled(t, ns, 2*time.Minute)

	gpuBound := 0
	for i := range pods {
		p := &pods[i]
		if p.Name == "no-gpu" {
			if p.Spec.NodeName == "" {
				t.Errorf("a pod without GPU memory was not bound: %s", harness.Unschedulable(p))
			}
			if len(harness.Shares(t, p)) != 0 || p.Annotations["ALIYUN_COM_GPU_MEM_IDX"] != "" {
				t.Errorf("a pod without GPU memory got GPU annotations: %v", p.Annotations)
			}
			continue
		}
		if p.Spec.NodeName == "" {
			if msg := harness.Unschedulable(p); !strings.Contains(msg, "GPU") {
				t.Errorf("pending pod %s: message %q does not say it is about GPU memory", p.Name, msg)
			}
			continue
		}
		gpuBound++
		shares := harness.Shares(t, p)
		if len(shares) != 1 {
			t.Errorf("pod %s: berth.dev/gpu-devices=%q, want one device", p.Name, p.Annotations["berth.dev/gpu-devices"])
			continue
		}
		for idx, mem := range shares {
			want := map[string]string{
				"ALIYUN_COM_GPU_MEM_IDX":      strconv.Itoa(idx),
				"ALIYUN_COM_GPU_MEM_DEV":      "16",
				"ALIYUN_COM_GPU_MEM_POD":      "6",
				"ALIYUN_COM_GPU_MEM_ASSIGNED": "false",
			}
			for k, v := range want {
				if p.Annotations[k] != v {
					t.Errorf("pod %s: %s=%q, want %q", p.Name, k, p.Annotations[k], v)
				}
			}
			if mem != 6 {
				t.Errorf("pod %s holds %d on device %d, want 6", p.Name, mem, idx)
			}
			ts, err := strconv.ParseInt(p.Annotations["ALIYUN_COM_GPU_MEM_ASSUME_TIME"], 10, 64)
			// The device plugin orders pods by it: it must be the placing moment in Unix nanoseconds.
			if at := time.Unix(0, ts); err != nil || at.Before(begin) || at.After(time.Now()) {
				t.Errorf("pod %s: ALIYUN_COM_GPU_MEM_ASSUME_TIME=%q is not the time of placement in Unix nanoseconds",
					p.Name, p.Annotations["ALIYUN_COM_GPU_MEM_ASSUME_TIME"])
			}
		}
	}
	if gpuBound != 8 {
		t.Errorf("%d GPU pods bound, want exactly the 8 that fit", gpuBound)
	}
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"gpu-a": {16, 16}, "gpu-b": {16, 16}})
}

// A restarted scheduler reads the devices in use back from the bound pods before it places any
// new pod, so it never hands out memory twice.
func TestGPUAccountingSurvivesSchedulerRestart(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	ns := c.Namespace(t, "restart")
	stop := c.StartScheduler(t, berthConfig(c, ""))
	for i := range 3 {
		c.CreatePod(t, harness.GPUPod(ns, fmt.Sprintf("before-%d", i), 8))
	}
	c.WaitForPods(t, ns, time.Minute, "3 pods bound", func(p []v1.Pod) bool { return harness.Bound(p) == 3 })
	stop()

	// Created while no scheduler runs: the new scheduler sees them pending at once, with the
	// bound pods in the same initial list.
	for i := range 3 {
		c.CreatePod(t, harness.GPUPod(ns, fmt.Sprintf("after-%d", i), 8))
	}
	c.StartScheduler(t, berthConfig(c, ""))
	pods := c.Settled(t, ns, 2*time.Minute)
	if n := harness.Bound(pods); n != 4 {
		t.Errorf("%d pods bound across the restart, want 4 (two 16-unit GPUs hold four 8-unit pods)", n)
	}
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"gpu-a": {16, 16}})
}

// Pods that someone else bound with gpushare annotations hold their memory too.
func TestGPUPodsBoundByOthersAreCounted(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.GPUNode("gpu-a", 1, 16))
	ns := c.Namespace(t, "others")
	c.CreatePod(t, harness.BoundByGPUShare(ns, "bound-by-gpushare-extender", "gpu-a", 12, 16))
	c.StartScheduler(t, berthConfig(c, ""))
	c.CreatePod(t, harness.GPUPod(ns, "fits", 4))
	c.CreatePod(t, harness.GPUPod(ns, "too-big", 8))
	pods := c.Settled(t, ns, time.Minute)
	if harness.Pod(pods, "fits").Spec.NodeName != "gpu-a" {
		t.Errorf("the 4-unit pod was not bound next to the other scheduler's 12")
	}
	if n := harness.Pod(pods, "too-big").Spec.NodeName; n != "" {
		t.Errorf("the 8-unit pod was bound to %s although only 4 units were free", n)
	}
}

// A high-priority GPU pod evicts lower-priority GPU pods through the stock DefaultPreemption and
// lands on the GPU they free.
func TestGPUPreemptionLandsOnTheFreedGPU(t *testing.T) {
	c := harness.StartCluster(t)
	c.ActAsKubelet(t)
	ctx := context.Background()
	if _, err := c.Client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	ns := c.Namespace(t, "preempt")
	c.StartScheduler(t, berthConfig(c, ""))
	// Both GPUs 3/4 full: 4 units free on each, 8 free on the node, yet no GPU can take 12.
	c.CreatePod(t, harness.GPUPod(ns, "low-0", 12))
	c.CreatePod(t, harness.GPUPod(ns, "low-1", 12))
	c.WaitForPods(t, ns, time.Minute, "low-priority pods bound", func(p []v1.Pod) bool { return harness.Bound(p) == 2 })

	high := harness.GPUPod(ns, "high", 12)
	high.Spec.PriorityClassName = "high"
	c.CreatePod(t, high)
	pods := c.WaitForPods(t, ns, 2*time.Minute, "high-priority pod bound", func(p []v1.Pod) bool {
		for i := range p {
			if p[i].Name == "high" && p[i].Spec.NodeName != "" {
				return true
			}
		}
		return false
	})
	if len(pods) != 2 {
		t.Errorf("%d pods left, want one victim evicted and one low-priority pod kept", len(pods))
	}
	var victimFree int
	for idx := range harness.Shares(t, harness.Pod(pods, "high")) {
		victimFree = idx
	}
	for _, p := range pods {
		if p.Name != "high" {
			if _, ok := harness.Shares(t, &p)[victimFree]; ok {
				t.Errorf("high-priority pod placed on device %d, which %s still holds", victimFree, p.Name)
			}
		}
	}
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"gpu-a": {16, 16}})
}

// A pod can ask for N GPUs with the same share on each; the node must have N devices with room.
func TestMultiGPUPods(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.GPUNode("gpu-a", 4, 16))
	ns := c.Namespace(t, "multi")
	c.StartScheduler(t, berthConfig(c, ""))

	two := harness.GPUPod(ns, "two-by-8", 16)
	two.Annotations = map[string]string{"berth.dev/gpu-count": "2"}
	c.CreatePod(t, two)
	five := harness.GPUPod(ns, "five-by-4", 20)
	five.Annotations = map[string]string{"berth.dev/gpu-count": "5"}
	c.CreatePod(t, five)
	uneven := harness.GPUPod(ns, "uneven", 15)
	uneven.Annotations = map[string]string{"berth.dev/gpu-count": "2"}
	c.CreatePod(t, uneven)
	pods := c.Settled(t, ns, time.Minute)

	p := harness.Pod(pods, "two-by-8")
	shares := harness.Shares(t, p)
	if p.Spec.NodeName == "" || len(shares) != 2 {
		t.Fatalf("two-by-8: node %q devices %v, want bound on two devices", p.Spec.NodeName, shares)
	}
	for idx, mem := range shares {
		if mem != 8 {
			t.Errorf("two-by-8 holds %d on device %d, want 8", mem, idx)
		}
	}
	if msg := harness.Unschedulable(harness.Pod(pods, "five-by-4")); msg == "" || harness.Pod(pods, "five-by-4").Spec.NodeName != "" {
		t.Errorf("five-by-4 on a 4-GPU node: want unschedulable, got node %q", harness.Pod(pods, "five-by-4").Spec.NodeName)
	}
	if msg := harness.Unschedulable(harness.Pod(pods, "uneven")); !strings.Contains(msg, "berth.dev/gpu-count") {
		t.Errorf("uneven split: message %q does not point at berth.dev/gpu-count", msg)
	}
}

// A node that states each GPU's memory gets exactly those devices.
func TestMixedGPUSizes(t *testing.T) {
	c := harness.StartCluster(t)
	node := harness.GPUNode("mixed", 2, 16) // 32 in all, split 8 + 24 by the annotation
	node.Annotations = map[string]string{"berth.dev/gpu-memory": "8,24"}
	c.CreateNode(t, node)
	ns := c.Namespace(t, "mixed")
	c.StartScheduler(t, berthConfig(c, ""))
	c.CreatePod(t, harness.GPUPod(ns, "big", 20))
	c.WaitForPods(t, ns, time.Minute, "big bound", func(p []v1.Pod) bool { return harness.Bound(p) == 1 })
	c.CreatePod(t, harness.GPUPod(ns, "ten", 10))
	c.CreatePod(t, harness.GPUPod(ns, "six", 6))
	pods := c.Settled(t, ns, time.Minute)

	if got := harness.Shares(t, harness.Pod(pods, "big")); got[1] != 20 {
		t.Errorf("big (20) got %v, want device 1, the only one of 24", got)
	}
	if got := harness.Shares(t, harness.Pod(pods, "six")); got[0] != 6 {
		t.Errorf("six got %v, want device 0", got)
	}
	if n := harness.Pod(pods, "ten").Spec.NodeName; n != "" {
		t.Errorf("ten was bound to %s: no device has 10 free (8 and 4)", n)
	}
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"mixed": {8, 24}})
}

// Malformed annotations are reported and never break the scheduler or its accounting.
func TestMalformedGPUAnnotations(t *testing.T) {
	c := harness.StartCluster(t)
	bad := harness.GPUNode("bad-node", 2, 16)
	bad.Annotations = map[string]string{"berth.dev/gpu-memory": "sixteen,lots"}
	c.CreateNode(t, bad)
	ns := c.Namespace(t, "malformed")
	// Bound by someone else with a record berth cannot read.
	garbled := harness.GPUPod(ns, "garbled", 4)
	garbled.Spec.NodeName = "bad-node"
	garbled.Annotations = map[string]string{"berth.dev/gpu-devices": "zero:four", "ALIYUN_COM_GPU_MEM_IDX": "x"}
	c.CreatePod(t, garbled)
	c.StartScheduler(t, berthConfig(c, ""))

	wrongCount := harness.GPUPod(ns, "wrong-count", 8)
	wrongCount.Annotations = map[string]string{"berth.dev/gpu-count": "two"}
	c.CreatePod(t, wrongCount)
	for i := range 4 {
		c.CreatePod(t, harness.GPUPod(ns, fmt.Sprintf("ok-%d", i), 8))
	}
	pods := c.Settled(t, ns, time.Minute)

	if msg := harness.Unschedulable(harness.Pod(pods, "wrong-count")); !strings.Contains(msg, "berth.dev/gpu-count") {
		t.Errorf("wrong-count: message %q does not point at berth.dev/gpu-count", msg)
	}
	// The node falls back to the capacity it reports, two GPUs of 16; the garbled pod's 4 units
	// still count against the node's aliyun.com/gpu-mem as the kubelet counts them, so three of
	// the four 8-unit pods fit.
	bound := 0
	for i := range 4 {
		p := harness.Pod(pods, fmt.Sprintf("ok-%d", i))
		if p.Spec.NodeName != "" {
			bound++
		} else if msg := harness.Unschedulable(p); !strings.Contains(msg, "aliyun.com/gpu-mem") {
			t.Errorf("%s pending with %q, want a shortage of aliyun.com/gpu-mem", p.Name, msg)
		}
	}
	if bound != 3 {
		t.Errorf("%d of the 4 well-formed pods bound on the node with a malformed annotation, want 3", bound)
	}
	events, err := c.Client.CoreV1().Events("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reported := false
	for _, e := range events.Items {
		if e.InvolvedObject.Name == "bad-node" && strings.Contains(e.Message, "berth.dev/gpu-memory") {
			reported = true
		}
	}
	if !reported {
		t.Errorf("no event on bad-node reports its malformed berth.dev/gpu-memory annotation")
	}
}
