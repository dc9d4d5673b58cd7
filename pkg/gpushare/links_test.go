package gpushare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-sched/berth/pkg/gpu"
)

// recordedLinks is one of pkg/gpu's recorded outputs of nvidia-smi topo -m.
func recordedLinks(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "gpu", "testdata", "links", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The plugin takes GPU links from the node's annotation through pkg/gpu: a 2-GPU pod is scored
// higher on a node that can give it an NVLink pair and gets the pair at Reserve.
func TestLinksPlacement(t *testing.T) {
	pairs := recordedLinks(t, "nvlink-pairs-4gpu.txt")
	nodes := []*v1.Node{
		// An NVLink pair free: GPU2 and GPU3.
		gpuNode("linked", 4, 64).Annotation(gpu.NodeGPULinksAnnotation, pairs).Obj(),
		// Both NVLink pairs broken by pods on GPU0 and GPU2, and fuller, which Binpack would like.
		gpuNode("broken", 4, 64).Annotation(gpu.NodeGPULinksAnnotation, pairs).Obj(),
	}
	objs := []runtime.Object{nodes[0], nodes[1],
		boundPod("a", "linked", "0:4").Obj(),
		boundPod("b", "broken", "0:8").Obj(),
		boundPod("c", "broken", "2:8").Obj(),
	}
	e := newEnv(t, args(gpu.BinpackName), objs...)
	pod := gpuPod("p", 32).Annotation(gpu.PodGPUCountAnnotation, "2").Obj()
	state, status := e.prefilter(t, pod)
	if !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
		t.Fatalf("PreScore: %v", status)
	}
	scores := map[string]int64{}
	for _, n := range nodes {
		score, status := e.pl.Score(e.ctx, state, pod, e.nodeInfo(t, n.Name))
		if !status.IsSuccess() {
			t.Fatalf("Score %s: %v", n.Name, status)
		}
		scores[n.Name] = score
	}
	if scores["linked"] <= scores["broken"] {
		t.Errorf("scores %v: the node with a free NVLink pair must score higher", scores)
	}
	if status := e.reserve(t, e.pl, state, pod, "linked"); !status.IsSuccess() {
		t.Fatalf("Reserve: %v", status)
	}
	_, a, _ := e.pl.devices.PodAssignment(pod.UID)
	if diff := cmp.Diff(gpu.Assignment{{Index: 2, Memory: 16}, {Index: 3, Memory: 16}}, a); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
}

// A malformed links annotation is reported like a malformed memory annotation, and the node's
// GPUs are placed as without links.
func TestMalformedLinksAreReported(t *testing.T) {
	bad := strings.Replace(recordedLinks(t, "nvlink-pairs-4gpu.txt"), "NV4", "NV?", 1)
	e := newEnv(t, nil, gpuNode("n1", 4, 64).Annotation(gpu.NodeGPULinksAnnotation, bad).Obj(), boundPod("a", "n1", "0:4").Obj())
	pod := gpuPod("p", 32).Annotation(gpu.PodGPUCountAnnotation, "2").Obj()
	state, status := e.prefilter(t, pod)
	if !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	want := `Warning InvalidGPUTopologyAnnotation annotation berth.dev/gpu-topology: line 2: GPU0 to GPU1 is "NV?", not one of NV#, PIX, PXB, PHB, NODE, SYS; the node's GPUs are placed without regard to their links`
	if got := nextEvent(t, e); got != want {
		t.Errorf("event:\n%s\nwant:\n%s", got, want)
	}
	if status := e.reserve(t, e.pl, state, pod, "n1"); !status.IsSuccess() {
		t.Fatalf("Reserve: %v", status)
	}
	// By index among the GPUs with 16 free, as without links (with it, the NVLink pair 2-3).
	_, a, _ := e.pl.devices.PodAssignment(pod.UID)
	if diff := cmp.Diff(gpu.Assignment{{Index: 1, Memory: 16}, {Index: 2, Memory: 16}}, a); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
}
