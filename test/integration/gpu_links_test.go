package integration

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/test/harness"
)

// On a node annotated with its nvidia-smi topo -m matrix (4 GPUs, NVLink bridges on GPU0-1 and
// GPU2-3, PCIe switches pairing them the other way), a 2-GPU pod is bound to an NVLink pair: with
// GPU0 partly taken, GPU2 and GPU3, where berth without links gives GPU1 and GPU2.
func TestGPULinksTwoGPUPodGetsAnNVLinkPair(t *testing.T) {
	matrix, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "pkg", "gpu", "testdata", "links", "nvlink-pairs-4gpu.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c := harness.StartCluster(t)
	node := harness.GPUNode("gpu-nv", 4, 16)
	node.Annotations = map[string]string{gpu.NodeGPULinksAnnotation: string(matrix)}
	c.CreateNode(t, node)
	ns := c.Namespace(t, "links")
	c.StartScheduler(t, berthConfig(c, ""))

	c.CreatePod(t, harness.GPUPod(ns, "small", 4))
	c.WaitForPods(t, ns, time.Minute, "the one-GPU pod bound", func(pods []v1.Pod) bool { return harness.Bound(pods) == 1 })
	pair := harness.GPUPod(ns, "pair", 32)
	pair.Annotations = map[string]string{gpu.PodGPUCountAnnotation: "2"}
	c.CreatePod(t, pair)
	pods := c.WaitForPods(t, ns, time.Minute, "both pods bound", func(pods []v1.Pod) bool { return harness.Bound(pods) == 2 })

	if got := harness.Shares(t, harness.Pod(pods, "small")); len(got) != 1 || got[0] != 4 {
		t.Errorf("the one-GPU pod holds %v, want 4 on GPU0 (the lowest index: every GPU breaks one NVLink pair)", got)
	}
	got := harness.Shares(t, harness.Pod(pods, "pair"))
	if len(got) != 2 || got[2] != 16 || got[3] != 16 {
		t.Errorf("the 2-GPU pod holds %v (berth.dev/gpu-devices=%q), want 16 on each of the NVLink pair GPU2-GPU3",
			got, harness.Pod(pods, "pair").Annotations[gpu.PodGPUDevicesAnnotation])
	}
}
