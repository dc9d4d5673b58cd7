package validation

import (
	"strings"
	"testing"

	"github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
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
		{name: "spread", mutate: func(a *config.GPUShareArgs) { a.ScoringStrategy = config.Spread }},
		{name: "other resource names", mutate: func(a *config.GPUShareArgs) {
			a.MemoryResource, a.CountResource = "example.com/vram", "example.com/gpus"
		}},
		{name: "unknown strategy", mutate: func(a *config.GPUShareArgs) { a.ScoringStrategy = "Random" },
			want: []string{"scoringStrategy", "Random", "Binpack", "Spread"}},
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
