package trace

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Load reads every published list as the workplace keeps it (trace.Shared), both headers: the
// whole node list, and for each workload its pods, how many ask for no GPU, a share of one GPU,
// several GPUs or GPU models, and the GPU they ask for in all, as the files hold them.
func TestLoad(t *testing.T) {
	type counts struct {
		pods, noGPU, shares, multi, spec int
		milli                            int64
	}
	want := map[string]counts{
		"default":     {8152, 1088, 3078, 75, 0, 6086800},
		"cpu0":        {7064, 0, 3078, 75, 0, 6086800},
		"cpu037":      {7336, 272, 3078, 75, 0, 6086800},
		"cpu050":      {7439, 375, 3078, 75, 0, 6086800},
		"cpu072":      {7608, 544, 3078, 75, 0, 6086800},
		"cpu100":      {7853, 789, 3078, 75, 0, 6086800},
		"cpu200":      {8832, 1768, 3078, 75, 0, 6086800},
		"cpu235":      {9240, 2176, 3078, 75, 0, 6086800},
		"cpu250":      {9420, 2356, 3078, 75, 0, 6086800},
		"cpu300":      {10094, 3030, 3078, 75, 0, 6086800},
		"gpushare20":  {8152, 1088, 2324, 87, 0, 6531500},
		"gpushare40":  {8152, 1088, 4001, 62, 0, 5641250},
		"gpushare60":  {8152, 1088, 5233, 30, 0, 4908340},
		"gpushare80":  {8152, 1088, 6279, 17, 0, 4408190},
		"gpushare100": {8152, 1088, 7064, 0, 0, 3952670},
		"gpuspec05":   {8152, 1088, 3078, 75, 369, 6086800},
		"gpuspec10":   {8152, 1088, 3078, 75, 732, 6086800},
		"gpuspec20":   {8152, 1088, 3078, 75, 1444, 6086800},
		"gpuspec25":   {8152, 1088, 3078, 75, 1759, 6086800},
		"gpuspec33":   {8152, 1088, 3078, 75, 2388, 6086800},
		"multigpu20":  {8324, 1088, 3078, 247, 0, 7086800},
		"multigpu30":  {8508, 1088, 3078, 431, 0, 8086800},
		"multigpu40":  {8746, 1088, 3078, 669, 0, 9442800},
		"multigpu50":  {9061, 1088, 3078, 984, 0, 11358800},
	}
	if len(want) != len(Workloads) {
		t.Fatalf("%d workloads, want the %d published", len(Workloads), len(want))
	}
	for _, w := range Workloads {
		nodes, pods, err := LoadShared(w)
		if err != nil {
			t.Errorf("%s: %v", w, err)
			continue
		}
		if len(nodes) != 1213 {
			t.Errorf("%d nodes, want the trace's 1,213", len(nodes))
		}
		if diff := cmp.Diff(Node{Name: "openb-node-0000", MilliCPU: 64000, MemoryMiB: 262144, GPUs: 2, Model: "P100"}, nodes[0]); diff != "" {
			t.Errorf("the first node (-want +got):\n%s", diff)
		}
		var got counts
		got.pods = len(pods)
		for _, p := range pods {
			switch {
			case p.NumGPU == 0:
				got.noGPU++
			case p.NumGPU == 1 && p.GPUMilli < WholeGPU:
				got.shares++
			case p.NumGPU > 1:
				got.multi++
			}
			if len(p.GPUSpec) > 0 {
				got.spec++
			}
			got.milli += p.GPUMilliTotal()
		}
		if got != want[w] {
			t.Errorf("%s: pods, without GPU, sharing one, on several, with GPU models, GPU milli in all: %+v, want %+v", w, got, want[w])
		}
		// The observed list and the first sampled one of five columns start alike.
		if w == DefaultWorkload || w == "multigpu20" {
			if diff := cmp.Diff(Pod{Name: "openb-pod-0000", MilliCPU: 12000, MemoryMiB: 16384, NumGPU: 1, GPUMilli: 1000}, pods[0]); diff != "" {
				t.Errorf("%s: the first pod (-want +got):\n%s", w, diff)
			}
		}
	}
}

// The readers on lists written for the test: columns found by name, a node without GPUs, pods
// in the list's order under either published header, gpu_spec's models, and a share of a GPU.
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
	wantPods := []Pod{
		{Name: "pod-00", MilliCPU: 8000, MemoryMiB: 32768, NumGPU: 1, GPUMilli: 1000},
		{Name: "pod-01", MilliCPU: 4000, MemoryMiB: 16384, NumGPU: 1, GPUMilli: 500},
		{Name: "pod-02", MilliCPU: 2000, MemoryMiB: 8192},
		{Name: "pod-03", MilliCPU: 16000, MemoryMiB: 65536, NumGPU: 4, GPUMilli: 1000, GPUSpec: []string{"V100M32"}},
		{Name: "pod-04", MilliCPU: 6000, MemoryMiB: 24576, NumGPU: 1, GPUMilli: 250, GPUSpec: []string{"V100M32", "A10"}},
	}
	for name, list := range map[string]string{
		// The observed list's header, with the columns the replay does not read; pod 03 was
		// created before 02 and still comes after it.
		"eleven columns": `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
pod-00,8000,32768,1,1000,,LS,Running,0,900,0
pod-01,4000,16384,1,500,,BE,Running,10,950,10
pod-02,2000,8192,0,0,,BE,Running,30,990,30
pod-03,16000,65536,4,1000,V100M32,LS,Running,20,1000,20
pod-04,6000,24576,1,250,V100M32|A10,Burstable,Succeeded,40,700,40
`,
		// The multigpu* lists' header, and columns in another order.
		"five columns": `name,num_gpu,gpu_milli,cpu_milli,memory_mib
pod-00,1,1000,8000,32768
pod-01,1,500,4000,16384
pod-02,0,0,2000,8192
pod-03,4,1000,16000,65536
pod-04,1,250,6000,24576
`,
	} {
		want := wantPods
		if name == "five columns" {
			want = slices.Clone(wantPods)
			want[3].GPUSpec, want[4].GPUSpec = nil, nil
		}
		pods, err := ReadPods(strings.NewReader(list))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(want, pods); diff != "" {
			t.Errorf("%s: pods (-want +got):\n%s", name, diff)
		}
	}
	p := wantPods
	if !p[4].Runs("A10") || p[4].Runs("T4") || !p[0].Runs("T4") {
		t.Error("Runs does not follow gpu_spec")
	}
	if g, m := p[3].GPUs()+p[4].GPUs(), p[3].GPUMilliTotal()+p[4].GPUMilliTotal(); g != 4.25 || m != 4250 {
		t.Errorf("4 whole GPUs and a quarter of one add up to %v GPUs, %d milli", g, m)
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
		"no name":             ",1,1,0,0,,LS,0\n",
		"short row":           "p,1,1,0,0\n",
	} {
		h := header
		if name == "column missing" {
			h = "name,cpu_milli,memory_mib,num_gpu\n"
		}
		if _, err := ReadPods(strings.NewReader(h + rows)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ReadNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\nn,1000,1000,2,\n")); err == nil {
		t.Error("a node with GPUs and no model: no error")
	}
}
