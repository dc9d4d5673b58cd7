package trace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadFixture(t *testing.T) {
	nodes, pods, err := Load("../testdata/trace")
	if err != nil {
		t.Fatal(err)
	}
	wantNodes := []Node{
		{Name: "fixture-node-a", MilliCPU: 32000, MemoryMiB: 131072, GPUs: 2, Model: "T4"},
		{Name: "fixture-node-b", MilliCPU: 64000, MemoryMiB: 262144, GPUs: 8, Model: "V100M32"},
		{Name: "fixture-node-c", MilliCPU: 16000, MemoryMiB: 65536, GPUs: 1, Model: "A10"},
		{Name: "fixture-node-d", MilliCPU: 96000, MemoryMiB: 393216},
	}
	if diff := cmp.Diff(wantNodes, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	var names []string
	for _, p := range pods {
		names = append(names, strings.TrimPrefix(p.Name, "fixture-pod-"))
	}
	// Pod 03 was created before 02, and the list is in order of creation.
	if diff := cmp.Diff([]string{"00", "01", "03", "02", "04", "05", "06", "07", "08", "09"}, names); diff != "" {
		t.Errorf("pod order (-want +got):\n%s", diff)
	}
	want := Pod{Name: "fixture-pod-04", MilliCPU: 6000, MemoryMiB: 24576, NumGPU: 1, GPUMilli: 250,
		GPUSpec: []string{"V100M32", "A10"}, QoS: "Burstable", CreationTime: 40}
	if diff := cmp.Diff(want, pods[4]); diff != "" {
		t.Errorf("pod 04 (-want +got):\n%s", diff)
	}
	if !pods[4].Runs("A10") || pods[4].Runs("T4") || !pods[0].Runs("T4") {
		t.Error("Runs does not follow gpu_spec")
	}
	if g := pods[2].GPUs() + pods[4].GPUs(); g != 4.25 {
		t.Errorf("4 whole GPUs and a quarter of one add up to %v GPUs", g)
	}
}

func TestReadRejects(t *testing.T) {
	const header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,creation_time\n"
	for name, rows := range map[string]string{
		"share over 1000":     "p,1,1,1,1001,,LS,0\n",
		"share of two GPUs":   "p,1,1,2,500,,LS,0\n",
		"GPU share, no GPU":   "p,1,1,0,500,,LS,0\n",
		"not a number":        "p,1,x,0,0,,LS,0\n",
		"negative cpu":        "p,-1,1,0,0,,LS,0\n",
		"no gpu_milli, 1 GPU": "p,1,1,1,,,LS,0\n",
		"column missing":      "",
	} {
		h := header
		if name == "column missing" {
			h = "name,cpu_milli\n"
		}
		if _, err := ReadPods(strings.NewReader(h + rows)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ReadNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\nn,1000,1000,2,\n")); err == nil {
		t.Error("a node with GPUs and no model: no error")
	}
}
