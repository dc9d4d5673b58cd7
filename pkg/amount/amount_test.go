package amount

import (
	"math"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestWholeRoundsAsTheScheduler(t *testing.T) {
	for _, tc := range []struct {
		name v1.ResourceName
		q    string
		want int64
	}{
		{v1.ResourceCPU, "1500m", 1500},
		{v1.ResourceCPU, "0.0001", 1},
		{v1.ResourceMemory, "1Gi", 1 << 30 * One},
		{v1.ResourceMemory, "1500m", 2 * One},
		{"example.com/gpu", "2", 2 * One},
		{v1.ResourceEphemeralStorage, "100P", Max / One * One},
	} {
		if got := Whole(tc.name, resource.MustParse(tc.q)); got != tc.want {
			t.Errorf("Whole(%s, %s) = %d, want %d", tc.name, tc.q, got, tc.want)
		}
	}
}

func TestOfClamps(t *testing.T) {
	v, problems := Of(v1.ResourceList{v1.ResourceCPU: resource.MustParse("-1"), v1.ResourceMemory: resource.MustParse("1500m")})
	if v[v1.ResourceCPU] != 0 || v[v1.ResourceMemory] != 1500 || len(problems) != 1 || problems[0] != "cpu -1 is negative, counted as 0" {
		t.Errorf("Of = %v, %q", v, problems)
	}
}

func TestFitsAndText(t *testing.T) {
	free := Amount{v1.ResourceCPU: 3500, v1.ResourceMemory: 4 << 30 * One, Pods: 3 * One}
	member := Amount{v1.ResourceCPU: 1000, v1.ResourceMemory: 1 << 30 * One, Pods: One}
	if n := Fits(free, member); n != 3 {
		t.Errorf("Fits = %d, want 3 (pod slots)", n)
	}
	if got, want := (Amount{v1.ResourceCPU: 3000, v1.ResourceMemory: 192 << 20 * One, Pods: One}).String(), "cpu 3, memory 192Mi"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := (Amount{v1.ResourceCPU: 1500, Pods: One}).Listed(), "{cpu: 1500m, pods: 1}"; got != want {
		t.Errorf("Listed = %q, want %q", got, want)
	}
	if got := Text(v1.ResourceMemory, 1500); got != "1500m" {
		t.Errorf("Text = %q", got)
	}
}

func TestSumHolds(t *testing.T) {
	if Sum(math.MaxInt64-1, 5) != math.MaxInt64 || Sum(math.MinInt64+1, -5) != math.MinInt64 || Sum(2, -3) != -1 {
		t.Error("Sum overflowed")
	}
}

func TestFits(t *testing.T) {
	free := Amount{"cpu": 8000, "memory": 10 * One, Pods: 3 * One}
	for _, tt := range []struct {
		member Amount
		want   int
	}{
		{Amount{"cpu": 2000}, 3},                    // pod slots bound it
		{Amount{"cpu": 3000}, 2},                    // cpu does
		{Amount{"cpu": 1000, "memory": 6 * One}, 1}, // memory does
		{Amount{"nvidia.com/gpu": One}, 0},          // none of it free
		{Amount{}, 3},
	} {
		if got := Fits(free, tt.member); got != tt.want {
			t.Errorf("Fits(%v) = %d, want %d", tt.member, got, tt.want)
		}
	}
}
