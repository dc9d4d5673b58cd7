package harness

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// The gpushare device plugin's resources, berth's defaults.
const (
	GPUMemory v1.ResourceName = "aliyun.com/gpu-mem"
	GPUCount  v1.ResourceName = "aliyun.com/gpu-count"
)

// GPUNode is a node with count GPUs of perGPU memory each, as the gpushare device plugin
// reports them.
func GPUNode(name string, count int, perGPU int64) *v1.Node {
	return Node(name, "32", "128Gi", v1.ResourceList{
		GPUCount:  *resource.NewQuantity(int64(count), resource.DecimalSI),
		GPUMemory: *resource.NewQuantity(int64(count)*perGPU, resource.DecimalSI),
	})
}

// GPUPod asks for memory units of GPU memory in its container's limits.
func GPUPod(ns, name string, memory int64) *v1.Pod {
	c := Container("c", "100m", "64Mi")
	c.Resources.Limits[GPUMemory] = *resource.NewQuantity(memory, resource.DecimalSI)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1.PodSpec{Containers: []v1.Container{c}},
	}
}

// BoundByGPUShare is a GPU pod that another scheduler (the gpushare extender) bound to node,
// with memory units on GPU 0 of deviceMemory, recorded in the gpushare annotations berth reads.
func BoundByGPUShare(ns, name, node string, memory, deviceMemory int64) *v1.Pod {
	pod := GPUPod(ns, name, memory)
	pod.Spec.NodeName = node
	pod.Spec.SchedulerName = "some-other-scheduler"
	pod.Annotations = map[string]string{
		"ALIYUN_COM_GPU_MEM_IDX": "0", "ALIYUN_COM_GPU_MEM_DEV": strconv.FormatInt(deviceMemory, 10),
		"ALIYUN_COM_GPU_MEM_POD":      strconv.FormatInt(memory, 10),
		"ALIYUN_COM_GPU_MEM_ASSIGNED": "true", "ALIYUN_COM_GPU_MEM_ASSUME_TIME": "1",
	}
	return pod
}

// Shares parses berth's record of the devices a pod got ("0:8,1:8").
func Shares(t testing.TB, pod *v1.Pod) map[int]int64 {
	t.Helper()
	s, ok := pod.Annotations["berth.dev/gpu-devices"]
	if !ok {
		return nil
	}
	out := map[int]int64{}
	for _, part := range strings.Split(s, ",") {
		idx, mem, ok := strings.Cut(part, ":")
		i, err1 := strconv.Atoi(idx)
		m, err2 := strconv.ParseInt(mem, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("pod %s: berth.dev/gpu-devices=%q is not index:memory,...", pod.Name, s)
		}
		out[i] = m
	}
	return out
}

// DeviceUse sums, per node and device, the memory the bound pods' annotations claim.
func DeviceUse(t testing.TB, pods []v1.Pod) map[string]map[int]int64 {
	t.Helper()
	use := map[string]map[int]int64{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" {
			continue
		}
		for idx, mem := range Shares(t, p) {
			if use[p.Spec.NodeName] == nil {
				use[p.Spec.NodeName] = map[int]int64{}
			}
			use[p.Spec.NodeName][idx] += mem
		}
	}
	return use
}

// CheckNoOvercommit fails the test if the bound pods' annotations claim more of a device than it
// has, or a device the node does not have; capacity lists each node's device sizes.
func CheckNoOvercommit(t testing.TB, pods []v1.Pod, capacity map[string][]int64) {
	t.Helper()
	for node, devs := range DeviceUse(t, pods) {
		for idx, used := range devs {
			if idx >= len(capacity[node]) {
				t.Errorf("node %s: device %d does not exist, yet pods hold %d on it", node, idx, used)
				continue
			}
			if used > capacity[node][idx] {
				t.Errorf("node %s device %d over-committed: %d of %d", node, idx, used, capacity[node][idx])
			}
		}
	}
}

// Unschedulable is the scheduler's message on a pending pod, "" if it has none yet.
func Unschedulable(pod *v1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
			return c.Message
		}
	}
	return ""
}

// ActAsKubelet finishes what a kubelet would: pods marked for deletion (preemption victims) are
// removed for good. It runs until the test ends.
func (c *Cluster) ActAsKubelet(t testing.TB) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := c.Client.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*v1.Pod)
			if !ok || ev.Type == watch.Deleted || p.DeletionTimestamp == nil {
				continue
			}
			zero := int64(0)
			_ = c.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		}
	}()
}

// Settled waits until every pod in ns is either bound or marked unschedulable by the scheduler.
func (c *Cluster) Settled(t testing.TB, ns string, timeout time.Duration) []v1.Pod {
	t.Helper()
	return c.WaitForPods(t, ns, timeout, "every pod bound or unschedulable", func(pods []v1.Pod) bool {
		for i := range pods {
			if pods[i].Spec.NodeName == "" && Unschedulable(&pods[i]) == "" {
				return false
			}
		}
		return len(pods) > 0
	})
}

// Pod finds a pod by name.
func Pod(pods []v1.Pod, name string) *v1.Pod {
	for i := range pods {
		if pods[i].Name == name {
			return &pods[i]
		}
	}
	panic(fmt.Sprintf("no pod %s", name))
}
