package allocatable

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/berth-sched/berth/pkg/apis/config"
)

const (
	gpuCount  = "aliyun.com/gpu-count"
	gpuMemory = "aliyun.com/gpu-mem"
)

func init() { metrics.Register() }

// newFramework is a scheduling framework with the plugin as its only Score plugin, built from
// args as the scheduler builds it from a profile's pluginConfig. The test framework fills in the
// v1 defaults; nil args take them away, so that New gets nil.
func newFramework(t *testing.T, args runtime.Object) (framework.Framework, error) {
	_, ctx := ktesting.NewTestContext(t)
	withArgs := func(_ *frameworkruntime.Registry, p *schedconfig.KubeSchedulerProfile) {
		p.PluginConfig = slices.DeleteFunc(p.PluginConfig, func(pc schedconfig.PluginConfig) bool { return pc.Name == Name })
		if args != nil {
			p.PluginConfig = append(p.PluginConfig, schedconfig.PluginConfig{Name: Name, Args: args})
		}
	}
	return tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterScorePlugin(Name, New, 1),
		withArgs,
	}, "default-scheduler")
}

// scores runs the framework's Score and NormalizeScore over the nodes and returns each node's
// final score.
func scores(t *testing.T, f framework.Framework, pod *v1.Pod, nodes []fwk.NodeInfo) map[string]int64 {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	out, status := f.RunScorePlugins(ctx, framework.NewCycleState(), pod, nodes)
	if !status.IsSuccess() {
		t.Fatalf("RunScorePlugins: %v", status)
	}
	got := map[string]int64{}
	for _, n := range out {
		got[n.Name] = n.TotalScore
	}
	return got
}

func nodeInfo(node *v1.Node, pods ...*v1.Pod) fwk.NodeInfo {
	ni := framework.NewNodeInfo(pods...)
	ni.SetNode(node)
	return ni
}

// cpuMemNode has milliCPU millicores and memory bytes, as scheduler-plugins' tests build them.
func cpuMemNode(name string, milliCPU, memory int64) fwk.NodeInfo {
	return nodeInfo(st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
		v1.ResourceCPU:    strconv.FormatInt(milliCPU, 10) + "m",
		v1.ResourceMemory: strconv.FormatInt(memory, 10),
	}).Obj())
}

// gpuNode has gpus GPUs of 16 GiB, as the gpushare device plugin reports them.
func gpuNode(name string, gpus int64) fwk.NodeInfo {
	return nodeInfo(st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
		v1.ResourceCPU: "32", v1.ResourceMemory: "128Gi",
		gpuCount: strconv.FormatInt(gpus, 10), gpuMemory: strconv.FormatInt(16*gpus, 10),
	}).Obj())
}

func resources(kv ...any) []schedconfig.ResourceSpec {
	var out []schedconfig.ResourceSpec
	for i := 0; i < len(kv); i += 2 {
		out = append(out, schedconfig.ResourceSpec{Name: kv[i].(string), Weight: int64(kv[i+1].(int))})
	}
	return out
}

// scheduler-plugins' cases (pkg/noderesources/allocatable_test.go) as a floor, then GPUs.
func TestScore(t *testing.T) {
	milliCPUasMiB := resources("cpu", 1<<20, "memory", 1)
	milliCPUasGiB := resources("cpu", 1<<30, "memory", 1)
	cpuAndMemory := st.MakePod().Name("cpu-and-memory").Req(map[v1.ResourceName]string{v1.ResourceCPU: "1", v1.ResourceMemory: "1Gi"}).Obj()
	bigCPU := st.MakePod().Name("big-cpu").Req(map[v1.ResourceName]string{v1.ResourceCPU: "8", v1.ResourceMemory: "1Gi"}).Obj()
	noResources := st.MakePod().Name("no-resources").Obj()
	scheduled := func(node string) *v1.Pod {
		return st.MakePod().Name("on-" + node).Node(node).Req(map[v1.ResourceName]string{v1.ResourceCPU: "3"}).Obj()
	}
	smallGPUPod := st.MakePod().Name("small-gpu").Lim(map[v1.ResourceName]string{gpuMemory: "4"}).Obj()
	gpuNodes := func() []fwk.NodeInfo {
		return []fwk.NodeInfo{gpuNode("gpu8", 8), gpuNode("gpu2", 2), gpuNode("gpu4", 4)}
	}

	tests := []struct {
		name  string
		args  *config.NodeResourcesAllocatableArgs // nil: none, the defaults
		pod   *v1.Pod
		nodes []fwk.NodeInfo
		want  map[string]int64
	}{
		{
			name:  "nothing scheduled, nothing requested",
			args:  &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Least},
			pod:   noResources,
			nodes: []fwk.NodeInfo{cpuMemNode("machine1", 4000, 10000), cpuMemNode("machine2", 4000, 10000)},
			want:  map[string]int64{"machine1": 0, "machine2": 0},
		},
		{
			name:  "differently sized machines, least mode",
			args:  &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Least},
			pod:   cpuAndMemory,
			nodes: []fwk.NodeInfo{cpuMemNode("machine1", 4000, 10000), cpuMemNode("machine2", 6000, 10000)},
			want:  map[string]int64{"machine1": 100, "machine2": 0},
		},
		{
			name:  "differently sized machines, most mode",
			args:  &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Most},
			pod:   cpuAndMemory,
			nodes: []fwk.NodeInfo{cpuMemNode("machine1", 4000, 10000), cpuMemNode("machine2", 6000, 10000)},
			want:  map[string]int64{"machine1": 0, "machine2": 100},
		},
		{
			name: "pods scheduled with resources do not change the score",
			args: &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Least},
			pod:  cpuAndMemory,
			nodes: []fwk.NodeInfo{
				nodeInfo(cpuMemNode("machine1", 10000, 20000).Node(), scheduled("machine1")),
				cpuMemNode("machine2", 10000, 20000),
			},
			want: map[string]int64{"machine1": 0, "machine2": 0},
		},
		{
			name:  "the pod asks for more than either node has, least mode",
			args:  &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Least},
			pod:   bigCPU,
			nodes: []fwk.NodeInfo{cpuMemNode("machine1", 4000, 1000), cpuMemNode("machine2", 5000, 1000)},
			want:  map[string]int64{"machine1": 100, "machine2": 0},
		},
		{
			name:  "the pod asks for more than either node has, most mode",
			args:  &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Most},
			pod:   bigCPU,
			nodes: []fwk.NodeInfo{cpuMemNode("machine1", 4000, 1000), cpuMemNode("machine2", 5000, 1000)},
			want:  map[string]int64{"machine1": 0, "machine2": 100},
		},
		{
			name:  "cpu weighted so that a millicore outweighs a KiB of memory, least mode",
			args:  &config.NodeResourcesAllocatableArgs{Resources: milliCPUasGiB, Mode: config.Least},
			pod:   cpuAndMemory,
			nodes: []fwk.NodeInfo{cpuMemNode("machine1", 1000, 2000), cpuMemNode("machine2", 1005, 1000)},
			want:  map[string]int64{"machine1": 100, "machine2": 0},
		},
		{
			name:  "cpu weighted so that a millicore outweighs a KiB of memory, most mode",
			args:  &config.NodeResourcesAllocatableArgs{Resources: milliCPUasGiB, Mode: config.Most},
			pod:   cpuAndMemory,
			nodes: []fwk.NodeInfo{cpuMemNode("machine1", 1000, 2000), cpuMemNode("machine2", 1005, 1000)},
			want:  map[string]int64{"machine1": 0, "machine2": 100},
		},
		{
			name: "three sizes, least mode",
			args: &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Least},
			pod:  cpuAndMemory,
			nodes: []fwk.NodeInfo{
				cpuMemNode("machine1", 1000, 1000<<20), cpuMemNode("machine2", 2000, 2000<<20), cpuMemNode("machine3", 3000, 3000<<20),
			},
			want: map[string]int64{"machine1": 100, "machine2": 50, "machine3": 0},
		},
		{
			name: "three sizes, most mode",
			args: &config.NodeResourcesAllocatableArgs{Resources: milliCPUasMiB, Mode: config.Most},
			pod:  cpuAndMemory,
			nodes: []fwk.NodeInfo{
				cpuMemNode("machine1", 1000, 1000<<20), cpuMemNode("machine2", 2000, 2000<<20), cpuMemNode("machine3", 3000, 3000<<20),
			},
			want: map[string]int64{"machine1": 0, "machine2": 50, "machine3": 100},
		},
		{
			name: "no args: scheduler-plugins' defaults, least on cpu and memory",
			pod:  cpuAndMemory,
			nodes: []fwk.NodeInfo{
				cpuMemNode("machine1", 1000, 1000<<20), cpuMemNode("machine2", 2000, 2000<<20), cpuMemNode("machine3", 3000, 3000<<20),
			},
			want: map[string]int64{"machine1": 100, "machine2": 50, "machine3": 0},
		},
		{
			name:  "least on GPU count: the smallest GPU node first, the 8-GPU node last",
			args:  &config.NodeResourcesAllocatableArgs{Resources: resources(gpuCount, 1), Mode: config.Least},
			pod:   smallGPUPod,
			nodes: gpuNodes(),
			want:  map[string]int64{"gpu2": 100, "gpu4": 66, "gpu8": 0},
		},
		{
			name:  "most on GPU count",
			args:  &config.NodeResourcesAllocatableArgs{Resources: resources(gpuCount, 1), Mode: config.Most},
			pod:   smallGPUPod,
			nodes: gpuNodes(),
			want:  map[string]int64{"gpu2": 0, "gpu4": 33, "gpu8": 100},
		},
		{
			name:  "least on GPU memory",
			args:  &config.NodeResourcesAllocatableArgs{Resources: resources(gpuMemory, 1), Mode: config.Least},
			pod:   smallGPUPod,
			nodes: gpuNodes(),
			want:  map[string]int64{"gpu2": 100, "gpu4": 66, "gpu8": 0},
		},
		{
			name: "least on GPU count: a node without GPUs has none, the least of all",
			args: &config.NodeResourcesAllocatableArgs{Resources: resources(gpuCount, 1), Mode: config.Least},
			pod:  noResources,
			nodes: []fwk.NodeInfo{gpuNode("gpu8", 8), gpuNode("gpu2", 2), nodeInfo(st.MakeNode().Name("cpu").Capacity(map[v1.ResourceName]string{
				v1.ResourceCPU: "32", v1.ResourceMemory: "128Gi",
			}).Obj())},
			want: map[string]int64{"gpu2": 75, "gpu8": 0, "cpu": 100},
		},
		{
			name: "GPU count weighs against cpu: 2 GPUs less outweigh 16 cores more",
			args: &config.NodeResourcesAllocatableArgs{Resources: resources(gpuCount, 10000, "cpu", 1), Mode: config.Least},
			pod:  smallGPUPod,
			nodes: []fwk.NodeInfo{
				nodeInfo(st.MakeNode().Name("gpu2-48cores").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "48", gpuCount: "2"}).Obj()),
				nodeInfo(st.MakeNode().Name("gpu4-32cores").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "32", gpuCount: "4"}).Obj()),
			},
			want: map[string]int64{"gpu2-48cores": 100, "gpu4-32cores": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args runtime.Object
			if tt.args != nil {
				args = tt.args
			}
			f, err := newFramework(t, args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, scores(t, f, tt.pod, tt.nodes)); diff != "" {
				t.Errorf("node scores (-want +got):\n%s", diff)
			}
		})
	}
}

// Bad args stop the plugin from being built, naming the field: scheduler-plugins' cases.
func TestNewRefusesBadArgs(t *testing.T) {
	tests := []struct {
		name string
		args runtime.Object
		want string
	}{
		{
			name: "negative weight",
			args: &config.NodeResourcesAllocatableArgs{Resources: resources("memory", -1, "cpu", 1), Mode: config.Least},
			want: "resources[0].weight: Invalid value: -1: must be positive",
		},
		{
			name: "zero weight",
			args: &config.NodeResourcesAllocatableArgs{Resources: resources("memory", 1, "cpu", 0), Mode: config.Least},
			want: "resources[1].weight: Invalid value: 0: must be positive",
		},
		{
			name: "unknown mode",
			args: &config.NodeResourcesAllocatableArgs{Resources: resources("cpu", 1), Mode: "Balanced"},
			want: `mode: Unsupported value: "Balanced": supported values: "Least", "Most"`,
		},
		{
			name: "args of another plugin",
			args: &config.GangArgs{},
			want: "want args to be of type NodeResourcesAllocatableArgs, got *config.GangArgs",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newFramework(t, tt.args)
			if err == nil {
				t.Fatal("the framework was built with bad args")
			}
			if got := err.Error(); !strings.Contains(got, Name) || !strings.Contains(got, tt.want) {
				t.Errorf("error %q, want one naming %s and saying %q", got, Name, tt.want)
			}
		})
	}
}

// The plugin signs every pod, so a profile with it keeps opportunistic batching: the framework
// gives a signature (nil would mean no batching), the same for pods that differ in what they ask.
func TestSignPodKeepsBatching(t *testing.T) {
	f, err := newFramework(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	small := f.SignPod(ctx, st.MakePod().Name("a").Lim(map[v1.ResourceName]string{gpuMemory: "4"}).Obj())
	large := f.SignPod(ctx, st.MakePod().Name("b").Lim(map[v1.ResourceName]string{gpuMemory: "128"}).Obj())
	if small == nil || large == nil {
		t.Fatalf("signatures %q and %q: nil turns batching off", small, large)
	}
	if string(small) != string(large) {
		t.Errorf("signatures differ (%q, %q), though the plugin's score does not depend on the pod", small, large)
	}
}

// Score runs for every feasible node of every pod: it must not allocate.
func TestScoreDoesNotAllocate(t *testing.T) {
	pl, err := New(t.Context(), &config.NodeResourcesAllocatableArgs{
		Resources: resources(gpuCount, 1, gpuMemory, 1, "cpu", 1, "memory", 1), Mode: config.Least}, nil)
	if err != nil {
		t.Fatal(err)
	}
	node, pod := gpuNode("gpu8", 8), st.MakePod().Name("p").Obj()
	allocs := testing.AllocsPerRun(100, func() {
		if _, status := pl.(fwk.ScorePlugin).Score(t.Context(), nil, pod, node); !status.IsSuccess() {
			t.Fatal(status)
		}
	})
	if allocs != 0 {
		t.Errorf("Score allocates %v times per node", allocs)
	}
}

func BenchmarkScore(b *testing.B) {
	pl, err := New(b.Context(), &config.NodeResourcesAllocatableArgs{Resources: resources(gpuCount, 1, "cpu", 1), Mode: config.Least}, nil)
	if err != nil {
		b.Fatal(err)
	}
	node, pod := gpuNode("gpu8", 8), st.MakePod().Name("p").Obj()
	for b.Loop() {
		pl.(fwk.ScorePlugin).Score(b.Context(), nil, pod, node)
	}
}
