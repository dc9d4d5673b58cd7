package validation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
	"github.com/berth-sched/berth/pkg/gpu"
)

func TestValidateGPUShareArgs(t *testing.T) {
	defaults, err := configv1.DefaultGPUShareArgs()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(*config.GPUShareArgs)
		want   []string // substrings of the error; none means valid
	}{
		{name: "defaults are valid", mutate: func(*config.GPUShareArgs) {}},
		{name: "spread", mutate: func(a *config.GPUShareArgs) { a.ScoringStrategy = gpu.SpreadName }},
		{name: "fragmentation with least GPU harm", mutate: func(a *config.GPUShareArgs) {
			a.ScoringStrategy, a.NoGPUPodScoring = gpu.FragmentationName, config.LeastGPUHarm
		}},
		{name: "unknown no-GPU pod scoring", mutate: func(a *config.GPUShareArgs) { a.NoGPUPodScoring = "Least" },
			want: []string{"noGPUPodScoring", "Least", "None", "LeastGPUHarm"}},
		{name: "empty no-GPU pod scoring", mutate: func(a *config.GPUShareArgs) { a.NoGPUPodScoring = "" },
			want: []string{"noGPUPodScoring"}},
		{name: "other resource names", mutate: func(a *config.GPUShareArgs) {
			a.MemoryResource, a.CountResource = "example.com/vram", "example.com/gpus"
		}},
		{name: "unknown strategy", mutate: func(a *config.GPUShareArgs) { a.ScoringStrategy = "Random" },
			want: []string{"scoringStrategy", "Random", "Binpack", "Spread", "Fragmentation"}},
		{name: "empty memory resource", mutate: func(a *config.GPUShareArgs) { a.MemoryResource = "" },
			want: []string{"memoryResource", "Required"}},
		{name: "native resource", mutate: func(a *config.GPUShareArgs) { a.CountResource = "cpu" },
			want: []string{"countResource", "extended resource"}},
		{name: "kubernetes.io resources are not extended", mutate: func(a *config.GPUShareArgs) { a.MemoryResource = "kubernetes.io/gpu" },
			want: []string{"memoryResource"}},
		{name: "the same resource twice", mutate: func(a *config.GPUShareArgs) { a.CountResource = a.MemoryResource },
			want: []string{"countResource", "must differ from memoryResource"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := *defaults
			tt.mutate(&args)
			checkErr(t, ValidateGPUShareArgs(nil, &args), tt.want)
		})
	}
}

func TestValidateGangArgs(t *testing.T) {
	defaults, err := configv1.DefaultGangArgs()
	if err != nil {
		t.Fatal(err)
	}
	if defaults.DefaultScheduleTimeoutSeconds != 60 {
		t.Errorf("default timeout %d, want 60", defaults.DefaultScheduleTimeoutSeconds)
	}
	for _, tt := range []struct {
		timeout int64
		want    []string
	}{
		{timeout: 60},
		{timeout: 1},
		{timeout: MaxScheduleTimeoutSeconds},
		{timeout: 0, want: []string{"defaultScheduleTimeoutSeconds", "between 1 and 900"}},
		{timeout: -5, want: []string{"defaultScheduleTimeoutSeconds"}},
		{timeout: MaxScheduleTimeoutSeconds + 1, want: []string{"defaultScheduleTimeoutSeconds"}},
	} {
		checkErr(t, ValidateGangArgs(nil, &config.GangArgs{DefaultScheduleTimeoutSeconds: tt.timeout}), tt.want)
	}
}

// The shipped levels are the default; an empty list is allowed (topology off); a key that is empty,
// no label key, or named twice is refused with its index in the path.
func TestValidateGangTopologyLevels(t *testing.T) {
	defaults, err := configv1.DefaultGangArgs()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"topology.kubernetes.io/zone", "berth.dev/block", "berth.dev/rack", "kubernetes.io/hostname"}
	if diff := cmp.Diff(want, defaults.TopologyLevels); diff != "" {
		t.Errorf("default topologyLevels (-want +got):\n%s", diff)
	}
	path := field.NewPath("args")
	for _, tt := range []struct {
		levels []string
		want   []string
	}{
		{levels: want},
		{levels: []string{}},
		{levels: []string{"nvidia.com/gpu.clique", "rack"}},
		{levels: []string{"berth.dev/rack", ""}, want: []string{"args.topologyLevels[1]", "Required"}},
		{levels: []string{"berth.dev/rack", "berth.dev/rack"}, want: []string{"args.topologyLevels[1]", "Duplicate"}},
		{levels: []string{"not a label"}, want: []string{"args.topologyLevels[0]", "not a valid node label key"}},
		{levels: []string{"a/b/c"}, want: []string{"args.topologyLevels[0]"}},
	} {
		checkErr(t, ValidateGangArgs(path, &config.GangArgs{DefaultScheduleTimeoutSeconds: 60, TopologyLevels: tt.levels}), tt.want)
	}
}

// scheduler-plugins' cases (positive weights, a known mode) and what berth refuses on top: a
// resource the node's allocatable cannot hold and a resource named twice. The paths are full.
func TestValidateNodeResourcesAllocatableArgs(t *testing.T) {
	defaults, err := configv1.DefaultNodeResourcesAllocatableArgs()
	if err != nil {
		t.Fatal(err)
	}
	want := []schedconfig.ResourceSpec{{Name: "cpu", Weight: 1 << 20}, {Name: "memory", Weight: 1}}
	if diff := cmp.Diff(want, defaults.Resources); diff != "" || defaults.Mode != config.Least {
		t.Errorf("defaults: mode %q, resources (-want +got):\n%s", defaults.Mode, diff)
	}
	path := field.NewPath("profiles").Index(0).Child("pluginConfig").Index(2).Child("args")
	res := func(rs ...schedconfig.ResourceSpec) []schedconfig.ResourceSpec { return rs }
	tests := []struct {
		name string
		args config.NodeResourcesAllocatableArgs
		want []string // substrings of the error; none means valid
	}{
		{name: "defaults", args: *defaults},
		{name: "cpu and memory, least", args: config.NodeResourcesAllocatableArgs{
			Resources: res(schedconfig.ResourceSpec{Name: "cpu", Weight: 1}, schedconfig.ResourceSpec{Name: "memory", Weight: 2}), Mode: config.Least}},
		{name: "GPU count and memory, most", args: config.NodeResourcesAllocatableArgs{
			Resources: res(schedconfig.ResourceSpec{Name: "aliyun.com/gpu-count", Weight: 8}, schedconfig.ResourceSpec{Name: "aliyun.com/gpu-mem", Weight: 1}), Mode: config.Most}},
		{name: "ephemeral storage and hugepages", args: config.NodeResourcesAllocatableArgs{
			Resources: res(schedconfig.ResourceSpec{Name: "ephemeral-storage", Weight: 1}, schedconfig.ResourceSpec{Name: "hugepages-2Mi", Weight: 1}), Mode: config.Least}},
		{name: "weights not positive", args: config.NodeResourcesAllocatableArgs{
			Resources: res(schedconfig.ResourceSpec{Name: "cpu", Weight: 0}, schedconfig.ResourceSpec{Name: "memory", Weight: -1}), Mode: config.Least},
			want: []string{path.String() + ".resources[0].weight: Invalid value: 0: must be positive", "resources[1].weight: Invalid value: -1"}},
		{name: "unknown mode", args: config.NodeResourcesAllocatableArgs{Resources: defaults.Resources, Mode: "not existent"},
			want: []string{path.String() + ".mode: Unsupported value: \"not existent\"", `"Least", "Most"`}},
		{name: "mode is case-sensitive", args: config.NodeResourcesAllocatableArgs{Resources: defaults.Resources, Mode: "least"},
			want: []string{"mode: Unsupported value"}},
		{name: "no resources", args: config.NodeResourcesAllocatableArgs{Mode: config.Least},
			want: []string{path.String() + ".resources: Required value"}},
		{name: "pods are not an allocatable amount it reads", args: config.NodeResourcesAllocatableArgs{
			Resources: res(schedconfig.ResourceSpec{Name: "pods", Weight: 1}), Mode: config.Least},
			want: []string{path.String() + `.resources[0].name: Invalid value: "pods"`, "extended resource"}},
		{name: "a name without a domain", args: config.NodeResourcesAllocatableArgs{
			Resources: res(schedconfig.ResourceSpec{Name: "cpu", Weight: 1}, schedconfig.ResourceSpec{Name: "gpu-count", Weight: 1}), Mode: config.Least},
			want: []string{`resources[1].name: Invalid value: "gpu-count"`}},
		{name: "a resource twice", args: config.NodeResourcesAllocatableArgs{
			Resources: res(schedconfig.ResourceSpec{Name: "cpu", Weight: 1}, schedconfig.ResourceSpec{Name: "cpu", Weight: 2}), Mode: config.Least},
			want: []string{`resources[1].name: Duplicate value: "cpu"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErr(t, ValidateNodeResourcesAllocatableArgs(path, &tt.args), tt.want)
		})
	}
}

func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}
