package quota

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berth-sched/berth/pkg/amount"
)

func TestDominantShare(t *testing.T) {
	pool := vec("cpu", "10", string(gpuMem), "32")
	tests := []struct {
		name     string
		borrowed amount.Amount
		weight   int64
		want     float64
	}{
		{name: "nothing borrowed", borrowed: amount.Amount{}, want: 0},
		{name: "GPU memory dominates", borrowed: vec("cpu", "2", string(gpuMem), "16"), want: 0.5},
		{name: "weight 2 halves it", borrowed: vec("cpu", "2", string(gpuMem), "16"), weight: 2000, want: 0.25},
		{name: "weight 0 counts as 1", borrowed: vec("cpu", "5"), weight: 0, want: 0.5},
		{name: "a resource the pool lacks", borrowed: vec("memory", "1"), want: math.Inf(1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DominantShare(tc.borrowed, pool, tc.weight); got != tc.want {
				t.Errorf("DominantShare = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFairShares(t *testing.T) {
	g := string(gpuMem)
	tests := []struct {
		name   string
		pool   amount.Amount
		claims []Claim
		want   map[string]amount.Amount
	}{{
		name:   "two alike that both want more than the pool: halves",
		pool:   vec("cpu", "12"),
		claims: []Claim{{Name: "a", Wants: vec("cpu", "100")}, {Name: "b", Wants: vec("cpu", "100")}},
		want:   map[string]amount.Amount{"a": vec("cpu", "6"), "b": vec("cpu", "6")},
	}, {
		name: "weights 1:1:2 on GPU memory: 25/25/50",
		pool: vec(g, "64"),
		claims: []Claim{
			{Name: "a", Weight: 1000, Wants: vec(g, "100")}, {Name: "b", Wants: vec(g, "100")}, {Name: "c", Weight: 2000, Wants: vec(g, "100")},
		},
		want: map[string]amount.Amount{"a": vec(g, "16"), "b": vec(g, "16"), "c": vec(g, "32")},
	}, {
		name:   "what one does not want goes to the other",
		pool:   vec("cpu", "12"),
		claims: []Claim{{Name: "small", Wants: vec("cpu", "2")}, {Name: "big", Wants: vec("cpu", "100")}},
		want:   map[string]amount.Amount{"small": vec("cpu", "2"), "big": vec("cpu", "10")},
	}, {
		// The DRF paper's example: 9 cpu, 18 memory; A's tasks ask 1 cpu and 4 memory, B's 3 cpu
		// and 1 memory. Equal dominant shares, 2/3 each, when cpu runs out.
		name:   "several resources: each by its dominant one",
		pool:   vec("cpu", "9", "memory", "18"),
		claims: []Claim{{Name: "a", Wants: vec("cpu", "30", "memory", "120")}, {Name: "b", Wants: vec("cpu", "90", "memory", "30")}},
		want:   map[string]amount.Amount{"a": vec("cpu", "3", "memory", "12"), "b": vec("cpu", "6", "memory", "2")},
	}, {
		name:   "a claim that needs what the pool lacks gets nothing",
		pool:   vec("cpu", "8"),
		claims: []Claim{{Name: "gpu", Wants: vec("cpu", "1", g, "8")}, {Name: "cpu", Wants: vec("cpu", "20")}},
		want:   map[string]amount.Amount{"gpu": {}, "cpu": vec("cpu", "8")},
	}, {
		name:   "a resource that is not the claim's dominant one can be what stops it",
		pool:   vec("cpu", "4", g, "32"),
		claims: []Claim{{Name: "mixed", Wants: vec("cpu", "8", g, "8")}, {Name: "gpu", Wants: vec(g, "100")}},
		// At dominant share s, mixed holds 4s cpu and 4s GPU memory, gpu 32s GPU memory: GPU
		// memory runs out at s = 8/9, before cpu would (s = 1).
		want: map[string]amount.Amount{"mixed": {"cpu": 3555, gpuMem: 3555}, "gpu": {gpuMem: 28444}},
	}, {
		name: "nothing to share",
		pool: amount.Amount{},
		want: map[string]amount.Amount{},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FairShares(tc.pool, tc.claims)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FairShares (-want +got):\n%s", diff)
			}
			used := amount.Amount{}
			for _, v := range got {
				used.Add(v, 1)
			}
			for name, x := range used {
				if x > tc.pool[name] {
					t.Errorf("%s: %d given out of %d", name, x, tc.pool[name])
				}
			}
		})
	}
}

func TestFairToTake(t *testing.T) {
	tests := []struct {
		name                                    string
		preemptorAfter, victimAfter, victimFair float64
		want                                    bool
	}{
		{name: "victim stays above both", preemptorAfter: 0.2, victimAfter: 0.5, victimFair: 0.3, want: true},
		{name: "equal after: allowed, and the way back is not", preemptorAfter: 0.4, victimAfter: 0.4, victimFair: 0.3, want: true},
		{name: "preemptor would end above the victim", preemptorAfter: 0.5, victimAfter: 0.4, victimFair: 0.3, want: false},
		{name: "victim would fall below its fair share", preemptorAfter: 0.1, victimAfter: 0.2, victimFair: 0.3, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FairToTake(tc.preemptorAfter, tc.victimAfter, tc.victimFair); got != tc.want {
				t.Errorf("FairToTake = %v, want %v", got, tc.want)
			}
		})
	}
	// No ping-pong: once a takes from b, b cannot take the same back. a borrows 2, b 6 of 10 cpu,
	// equal weights, pods of 1 cpu.
	pool := vec("cpu", "10")
	share := func(cpu string) float64 { return DominantShare(vec("cpu", cpu), pool, 0) }
	if !FairToTake(share("3"), share("5"), share("3")) {
		t.Fatal("a (2 -> 3) taking from b (6 -> 5): want allowed")
	}
	if FairToTake(share("6"), share("2"), share("2")) {
		t.Error("b (5 -> 6) taking back from a (3 -> 2): want refused")
	}
}
