package integration

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/test/harness"
)

// With the Fragmentation strategy, berth places a GPU pod where it fragments the GPUs least against
// the mix of requests it has seen, and with LeastGPUHarm a pod without GPU memory on the node
// without GPUs.
//
// The mix is pods asking for 12 of a GPU of 16 that wait for a node that does not exist. Of two
// nodes, "twelve" has a GPU with 12 free and "free" two GPUs with 16. A pod of 4 would leave 8 of
// "twelve"'s GPU that no request of the mix can use; on "free" it leaves 12, still usable. Binpack
// prefers "twelve", whose GPU it fills most; Fragmentation "free".
//
// GPUShare's rank puts the best node one point ahead of the next, and the in-tree scores at weight
// 1 differ by a point between a node with pods and one without (NodeResourcesBalancedAllocation
// scores the change in balance): every node here runs one pod of the same size, so that GPUShare
// alone tells them apart.
func TestFragmentationStrategy(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.GPUNode("twelve", 2, 16))
	c.CreateNode(t, harness.GPUNode("free", 2, 16))
	c.CreateNode(t, harness.Node("cpu-only", "32", "128Gi", nil))
	ns := c.Namespace(t, "frag")

	c.CreatePod(t, harness.BoundByGPUShare(ns, "held", "twelve", 4, 16))
	for _, node := range []string{"free", "cpu-only"} {
		p := pod(ns, "on-"+node, "some-other-scheduler")
		p.Spec.NodeName = node
		c.CreatePod(t, p)
	}
	for _, name := range []string{"mix-1", "mix-2", "mix-3"} {
		p := harness.GPUPod(ns, name, 12)
		p.Spec.NodeSelector = map[string]string{"berth.dev/test": "no-such-node"}
		c.CreatePod(t, p)
	}
	c.StartScheduler(t, berthConfig(c, "pluginConfig:\n- name: GPUShare\n  args: {scoringStrategy: Fragmentation, noGPUPodScoring: LeastGPUHarm}\n"))

	c.CreatePod(t, harness.GPUPod(ns, "four", 4))
	c.WaitForPods(t, ns, time.Minute, "four bound", func(p []v1.Pod) bool { return harness.Pod(p, "four").Spec.NodeName != "" })
	c.CreatePod(t, pod(ns, "no-gpu", ""))
	pods := c.Settled(t, ns, time.Minute)

	if n := harness.Pod(pods, "four").Spec.NodeName; n != "free" {
		t.Errorf("the pod of 4 went to %q, want free (on twelve it leaves 8 that the mix's requests of 12 cannot use)", n)
	}
	if n := harness.Pod(pods, "no-gpu").Spec.NodeName; n != "cpu-only" {
		t.Errorf("the pod without GPU memory went to %q, want cpu-only", n)
	}
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"twelve": {16, 16}, "free": {16, 16}})
}

// With the shipped profile, a GPU pod among nodes that its fragmentation cost and the in-tree
// scores rate alike goes to the node gpu.TieOrder puts first: the same node for every pod, where a
// random choice among equal scores would spread them. Each pod is deleted before the next comes,
// so that the nodes stay alike.
func TestFragmentationTiesByTieOrder(t *testing.T) {
	c := harness.StartCluster(t)
	nodes := []string{"gpu-a", "gpu-b", "gpu-c", "gpu-d"}
	for _, n := range nodes {
		c.CreateNode(t, harness.GPUNode(n, 2, 16))
	}
	ns := c.Namespace(t, "ties")
	c.StartScheduler(t, c.SchedulerConfig(registry.Profile("default-scheduler"), ""))

	want, best := "", int64(-1)
	for _, n := range nodes {
		if o := gpu.TieOrder(n); o > best {
			want, best = n, o
		}
	}
	for i, name := range []string{"a", "b", "c", "d", "e", "a", "b", "c", "d", "e"} {
		c.CreatePod(t, harness.GPUPod(ns, name, 16))
		pods := c.WaitForPods(t, ns, time.Minute, name+" bound", func(p []v1.Pod) bool { return harness.Bound(p) == 1 })
		if got := pods[0].Spec.NodeName; got != want {
			t.Errorf("pod %s (round %d) went to %s, want %s, first by gpu.TieOrder", name, i, got, want)
		}
		zero := int64(0)
		if err := c.Client.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
		c.WaitForPods(t, ns, time.Minute, name+" gone", func(p []v1.Pod) bool { return len(p) == 0 })
	}
}
