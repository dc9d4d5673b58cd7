package gpu

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func one(share int64) Request { return Request{Total: share, Count: 1, PerDevice: share} }

func many(count int, share int64) Request {
	return Request{Total: int64(count) * share, Count: count, PerDevice: share}
}

func TestStrategyNamed(t *testing.T) {
	for name, want := range map[string]*Strategy{"Binpack": Binpack, "Spread": Spread, "Fragmentation": FragmentationStrategy} {
		got, err := StrategyNamed(name)
		if err != nil || got != want {
			t.Errorf("StrategyNamed(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := StrategyNamed("binpack"); err == nil {
		t.Error("StrategyNamed accepted a misspelt strategy")
	}
	// Fragmentation chooses devices as Binpack: Reserve's choice is the one FragmentationCost judged.
	devs := []Device{{Capacity: 16, Used: 4}, {Capacity: 16, Used: 10}, {Capacity: 16}}
	for _, r := range []Request{one(4), many(2, 4), one(12)} {
		want, _ := Fit(devs, r, Binpack)
		if got, _ := Fit(devs, r, FragmentationStrategy); !slices.Equal(got, want) {
			t.Errorf("Fit(%v) with Fragmentation = %v, Binpack's is %v", r, got, want)
		}
	}
}

func TestFit(t *testing.T) {
	// Free memory: 4, 12, 16, 12.
	devs := []Device{{Capacity: 16, Used: 12}, {Capacity: 16, Used: 4}, {Capacity: 16}, {Capacity: 16, Used: 4}}
	tests := []struct {
		name     string
		devs     []Device
		req      Request
		strategy *Strategy
		want     Assignment
		wantErr  *NoFitError
		wantMsg  string
	}{
		{
			name: "binpack takes the tightest fit", devs: devs, req: one(4), strategy: Binpack,
			want: Assignment{{Index: 0, Memory: 4}},
		},
		{
			name: "binpack skips devices too small and takes the lower index among equals", devs: devs, req: one(8), strategy: Binpack,
			want: Assignment{{Index: 1, Memory: 8}},
		},
		{
			name: "spread takes the most free", devs: devs, req: one(4), strategy: Spread,
			want: Assignment{{Index: 2, Memory: 4}},
		},
		{
			name: "binpack several GPUs", devs: devs, req: many(2, 10), strategy: Binpack,
			want: Assignment{{Index: 1, Memory: 10}, {Index: 3, Memory: 10}},
		},
		{
			name: "spread several GPUs", devs: devs, req: many(2, 10), strategy: Spread,
			want: Assignment{{Index: 1, Memory: 10}, {Index: 2, Memory: 10}},
		},
		{
			name: "a whole GPU", devs: devs, req: one(16), strategy: Binpack,
			want: Assignment{{Index: 2, Memory: 16}},
		},
		{
			name: "over-committed devices have nothing free", devs: []Device{{Capacity: 8, Used: 12}, {Capacity: 8, Used: 2}}, req: one(4), strategy: Binpack,
			want: Assignment{{Index: 1, Memory: 4}},
		},
		{
			name: "no room now, but preemption could help", devs: devs, req: many(2, 14), strategy: Binpack,
			wantErr: &NoFitError{Request: many(2, 14), Devices: 4, Fitting: 1, LargestFree: 16, Resolvable: true},
			wantMsg: "GPU memory: pod asks for 2 GPUs with 14 free each; 1 GPU(s) of this node have that much, the most free on one GPU is 16",
		},
		{
			name: "single GPU without room", devs: devs[:2], req: one(14), strategy: Spread,
			wantErr: &NoFitError{Request: one(14), Devices: 2, Fitting: 0, LargestFree: 12, Resolvable: true},
			wantMsg: "GPU memory: pod asks for 14 on one GPU; the most free on one GPU of this node is 12",
		},
		{
			name: "larger than any GPU", devs: devs, req: one(20), strategy: Binpack,
			wantErr: &NoFitError{Request: one(20), Devices: 4, Fitting: 0, LargestFree: 16},
			wantMsg: "GPU memory: pod asks for 20 on one GPU, more than any GPU of this node holds",
		},
		{
			name: "more GPUs than the node has", devs: devs, req: many(5, 1), strategy: Binpack,
			wantErr: &NoFitError{Request: many(5, 1), Devices: 4, Fitting: 4, LargestFree: 16},
			wantMsg: "GPU memory: pod asks for 5 GPUs with 1 each, but this node has fewer than 5 GPUs that large",
		},
		{
			name: "no GPUs", req: one(1), strategy: Binpack,
			wantErr: &NoFitError{Request: one(1)},
			wantMsg: "node has no GPUs",
		},
		{
			name: "nothing asked", devs: devs, strategy: Binpack,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, nf := Fit(tt.devs, tt.req, tt.strategy)
			if diff := cmp.Diff(tt.wantErr, nf); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var msg string
			if nf != nil {
				msg = nf.Error()
			}
			if diff := cmp.Diff(tt.wantMsg, msg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("assignment (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScore(t *testing.T) {
	nodes := map[string][]Device{
		// One GPU half used: the pod can fill it, or have the other GPU to itself.
		"half-used": {{Capacity: 16, Used: 8}, {Capacity: 16}},
		// Less in use, on both GPUs: the pod shares a GPU either way.
		"lightly-used": {{Capacity: 16, Used: 4}, {Capacity: 16, Used: 2}},
		"empty":        {{Capacity: 16}, {Capacity: 16}},
		// An empty GPU on a node that is busy elsewhere.
		"busy-node": {{Capacity: 16, Used: 16}, {Capacity: 16}},
	}
	tests := []struct {
		name     string
		strategy *Strategy
		req      Request
		// order lists the nodes from best to worst.
		order []string
	}{
		{
			name: "binpack prefers filling a GPU, then filling a node", strategy: Binpack, req: one(8),
			order: []string{"half-used", "busy-node", "lightly-used", "empty"},
		},
		{
			name: "spread prefers empty GPUs on empty nodes", strategy: Spread, req: one(8),
			order: []string{"empty", "half-used", "lightly-used", "busy-node"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores := map[string]float64{}
			for name, devs := range nodes {
				s, nf := Score(devs, tt.req, tt.strategy)
				if nf != nil {
					t.Fatalf("%s: %v", name, nf)
				}
				if s < 0 || s > 1 {
					t.Errorf("%s: score %v out of [0, 1]", name, s)
				}
				scores[name] = s
			}
			for i := 1; i < len(tt.order); i++ {
				better, worse := tt.order[i-1], tt.order[i]
				if scores[better] <= scores[worse] {
					t.Errorf("%s scores %v, not above %s with %v", better, scores[better], worse, scores[worse])
				}
			}
		})
	}
}

func TestScoreValues(t *testing.T) {
	devs := []Device{{Capacity: 16, Used: 8}, {Capacity: 16}}
	// Binpack fills GPU 0 (fullness 1) and leaves the node half full: (1 + 0.5) / 2.
	if got, _ := Score(devs, one(8), Binpack); got != 0.75 {
		t.Errorf("binpack score = %v, want 0.75", got)
	}
	// Spread takes GPU 1 (fullness 0.5), the node is half full all the same: 1 - (0.5 + 0.5) / 2.
	if got, _ := Score(devs, one(8), Spread); got != 0.5 {
		t.Errorf("spread score = %v, want 0.5", got)
	}
	if _, nf := Score(devs, one(20), Binpack); nf == nil {
		t.Error("Score of a request that does not fit returned no error")
	}
}

func TestAdjust(t *testing.T) {
	tests := []struct {
		name string
		a    Assignment
		sign int64
		want []int64
	}{
		{name: "a pod arriving", a: Assignment{{Index: 0, Memory: 4}, {Index: 1, Memory: 4}}, sign: 1, want: []int64{10, 6}},
		{name: "a pod leaving", a: Assignment{{Index: 1, Memory: 2}}, sign: -1, want: []int64{6, 0}},
		{name: "never below zero", a: Assignment{{Index: 1, Memory: 5}}, sign: -1, want: []int64{6, 0}},
		{name: "a device the node no longer has", a: Assignment{{Index: 7, Memory: 5}}, sign: 1, want: []int64{6, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			devs := []Device{{Capacity: 16, Used: 6}, {Capacity: 16, Used: 2}}
			Adjust(devs, tt.a, tt.sign)
			var got []int64
			for _, d := range devs {
				got = append(got, d.Used)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("use (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFitChoosesAsSorting: Fit, which picks devices in one pass each without sorting, takes the
// devices a stable sort of the fitting devices by the strategy would take, on many random nodes
// (with devices of equal free memory, full ones and overcommitted ones); Fits, Filter's check,
// says exactly what Fit says about whether the request fits; and Score rates the devices so taken.
func TestFitChoosesAsSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	for n := range 20000 {
		devs := make([]Device, rng.IntN(12))
		for i := range devs {
			devs[i].Capacity = int64(4 * (1 + rng.IntN(4)))
			devs[i].Used = int64(2 * rng.IntN(10))
		}
		req := many(1+rng.IntN(4), int64(2*(1+rng.IntN(8))))
		for _, s := range []*Strategy{Binpack, Spread} {
			want, wantErr := fitBySorting(devs, req, s)
			got, nf := Fit(devs, req, s)
			if diff := cmp.Diff(want, got); diff != "" || !reflect.DeepEqual(wantErr, nf) {
				t.Fatalf("case %d, %v on %v by %s: Fit = %v, %v; sorting takes %v, %v (-want +got):\n%s", n, req, devs, s, got, nf, want, wantErr, diff)
			}
			if nf := Fits(devs, req); !reflect.DeepEqual(wantErr, nf) {
				t.Fatalf("case %d, %v on %v: Fits = %v, Fit = %v", n, req, devs, nf, wantErr)
			}
			score, nf := Score(devs, req, s)
			if !reflect.DeepEqual(wantErr, nf) {
				t.Fatalf("case %d, %v on %v: Score's error %v, Fit's %v", n, req, devs, nf, wantErr)
			}
			if wantErr == nil {
				if wantScore := scoreOf(devs, want, req, s); score != wantScore {
					t.Fatalf("case %d, %v on %v by %s: Score = %v, want %v for %v", n, req, devs, s, score, wantScore, want)
				}
			}
		}
	}
}

// fitBySorting is Fit as a stable sort of the fitting devices by the strategy.
func fitBySorting(devs []Device, req Request, s *Strategy) (Assignment, *NoFitError) {
	var candidates []int
	for i, d := range devs {
		if d.Free() >= req.PerDevice {
			candidates = append(candidates, i)
		}
	}
	if len(candidates) < req.Count {
		return nil, noFit(devs, req)
	}
	slices.SortStableFunc(candidates, func(a, b int) int {
		fa, fb := devs[a].Free(), devs[b].Free()
		switch {
		case fa == fb:
			return 0
		case s.before(fa, fb):
			return -1
		default:
			return 1
		}
	})
	a := make(Assignment, req.Count)
	for i, idx := range candidates[:req.Count] {
		a[i] = DeviceShare{Index: idx, Memory: req.PerDevice}
	}
	sortShares(a)
	return a, nil
}

// scoreOf is Score's rating of placing req on the devices a names.
func scoreOf(devs []Device, a Assignment, req Request, s *Strategy) float64 {
	var deviceFull float64
	for _, d := range a {
		deviceFull += fullness(devs[d.Index].Used+d.Memory, devs[d.Index].Capacity)
	}
	deviceFull /= float64(len(a))
	var used, capacity int64
	for _, d := range devs {
		used += min(d.Used, d.Capacity)
		capacity += d.Capacity
	}
	return s.rate((deviceFull + fullness(used+req.Total, capacity)) / 2)
}
