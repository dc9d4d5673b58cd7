package trace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Load reads the trace as the workplace keeps it (trace.Shared): every node and pod, in order of
// creation.
func TestLoad(t *testing.T) {
	nodes, pods, err := Load(Shared())
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1213 || len(pods) != 8152 {
		t.Errorf("%d nodes and %d pods, want the trace's 1,213 and 8,152", len(nodes), len(pods))
	}
	if diff := cmp.Diff(Node{Name: "openb-node-0000", MilliCPU: 64000, MemoryMiB: 262144, GPUs: 2, Model: "P100"}, nodes[0]); diff != "" {
		t.Errorf("the first node (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Pod{Name: "openb-pod-0000", MilliCPU: 12000, MemoryMiB: 16384, NumGPU: 1, GPUMilli: 1000, QoS: "LS"}, pods[0]); diff != "" {
		t.Errorf("the first pod (-want +got):\n%s", diff)
	}
	for i := 1; i < len(pods); i++ {
		if pods[i].CreationTime < pods[i-1].CreationTime {
			t.Fatalf("%s created at %d comes after %s created at %d", pods[i].Name, pods[i].CreationTime, pods[i-1].Name, pods[i-1].CreationTime)
		}
	}
}

// The readers on a list written for the test: columns found by name, a node without GPUs, the
// pods put in order of creation, gpu_spec's models, and a share of a GPU.
func TestReadLists(t *testing.T) {
	nodes, err := ReadNodes(strings.NewReader(`sn,cpu_milli,memory_mib,gpu,model
node-a,32000,131072,2,T4
node-b,64000,262144,8,V100M32
node-c,16000,65536,1,A10
node-d,96000,393216,0,
`))
	if err != nil {
		t.Fatal(err)
	}
	wantNodes := []Node{
		{Name: "node-a", MilliCPU: 32000, MemoryMiB: 131072, GPUs: 2, Model: "T4"},
		{Name: "node-b", MilliCPU: 64000, MemoryMiB: 262144, GPUs: 8, Model: "V100M32"},
		{Name: "node-c", MilliCPU: 16000, MemoryMiB: 65536, GPUs: 1, Model: "A10"},
		{Name: "node-d", MilliCPU: 96000, MemoryMiB: 393216},
	}
	if diff := cmp.Diff(wantNodes, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	pods, err := ReadPods(strings.NewReader(`name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
pod-00,8000,32768,1,1000,,LS,Running,0,900,0
pod-01,4000,16384,1,500,,BE,Running,10,950,10
pod-02,2000,8192,0,0,,BE,Running,30,990,30
pod-03,16000,65536,4,1000,V100M32,LS,Running,20,1000,20
pod-04,6000,24576,1,250,V100M32|A10,Burstable,Succeeded,40,700,40
pod-05,12000,49152,0,0,,LS,Running,50,800,50
`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods {
		names = append(names, strings.TrimPrefix(p.Name, "pod-"))
	}
	// Pod 03 was created before 02, and the list is in order of creation.
	if diff := cmp.Diff([]string{"00", "01", "03", "02", "04", "05"}, names); diff != "" {
		t.Errorf("pod order (-want +got):\n%s", diff)
	}
	want := Pod{Name: "pod-04", MilliCPU: 6000, MemoryMiB: 24576, NumGPU: 1, GPUMilli: 250,
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
