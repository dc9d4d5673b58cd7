package placement

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/berth-sched/berth/test/bench/trace"
)

// traceCeiling bounds what any placement of the pods arrived by a mark can allocate. It is computed
// as if a packer knew every one of those pods in advance and nothing but the GPUs held it back: no
// cpu, memory or GPU model, no node boundaries (a pod of several GPUs takes any free ones). So no
// policy of the replay, which has all of those and sees pods one at a time, can pass it.
//
// Both figures are optima of linear programs over the ways to fill one GPU with shares of a GPU
// (patterns), the classic relaxation of bin packing (Gilmore and Gomory); a relaxation's optimum
// is at least as good as the best packing, so each is a true bound.
type traceCeiling struct {
	// allocated is the most GPU a packer can allocate, choosing which pods to turn away.
	allocated float64
	// shareWaste is the least GPU left free on the GPUs that hold shares when every share of a
	// GPU is placed.
	shareWaste float64
}

// ceilingOf is the ceiling at a mark of gpus GPUs, after the pods in arrived.
func ceilingOf(arrived []trace.Pod, gpus int) (traceCeiling, error) {
	shares := map[int64]int{} // pods asking that share of one GPU, by milli
	var whole int             // GPUs asked for whole
	var volume float64        // GPUs asked for in shares
	for _, p := range arrived {
		switch {
		case p.NumGPU == 0:
		case p.NumGPU == 1 && p.GPUMilli < trace.WholeGPU:
			shares[p.GPUMilli]++
			volume += float64(p.GPUMilli) / trace.WholeGPU
		default:
			whole += p.NumGPU
		}
	}
	if len(shares) == 0 {
		return traceCeiling{allocated: float64(min(whole, gpus))}, nil
	}
	sizes := slices.Sorted(maps.Keys(shares))
	patterns := gpuPatterns(sizes, shares)
	allocated, err := mostAllocated(sizes, shares, patterns, whole, gpus)
	if err != nil {
		return traceCeiling{}, err
	}
	bins, err := fewestGPUs(sizes, shares, patterns)
	if err != nil {
		return traceCeiling{}, err
	}
	return traceCeiling{allocated: allocated, shareWaste: bins - volume}, nil
}

// gpuPatterns lists every way to fill one GPU with shares of the sizes (in milli, ascending), as
// counts by size, using no size more often than there are pods asking it.
func gpuPatterns(sizes []int64, count map[int64]int) [][]int {
	var patterns [][]int
	cur := make([]int, len(sizes))
	var walk func(i int, left int64)
	walk = func(i int, left int64) {
		if i == len(sizes) {
			if slices.ContainsFunc(cur, func(n int) bool { return n > 0 }) {
				patterns = append(patterns, slices.Clone(cur))
			}
			return
		}
		for n := 0; n <= count[sizes[i]] && int64(n)*sizes[i] <= left; n++ {
			cur[i] = n
			walk(i+1, left-int64(n)*sizes[i])
		}
		cur[i] = 0
	}
	walk(0, trace.WholeGPU)
	return patterns
}

// mostAllocated is the most GPU the pods can be allocated: maximise the GPU of the patterns used
// plus the whole GPUs placed, with no more GPUs than there are and no share used more often than
// it was asked. In the simplex's standard form (minimise, equalities, x >= 0), with a slack
// column per row; the slacks are the first feasible basis.
func mostAllocated(sizes []int64, count map[int64]int, patterns [][]int, whole, gpus int) (float64, error) {
	rows := 1 + len(sizes) + 1 // the GPUs, each size, the whole GPUs asked for
	cols := len(patterns) + 1 + rows
	a := mat.NewDense(rows, cols, nil)
	c := make([]float64, cols)
	b := make([]float64, rows)
	for j, pat := range patterns {
		var milli int64
		for i, n := range pat {
			a.Set(1+i, j, float64(n))
			milli += int64(n) * sizes[i]
		}
		a.Set(0, j, 1)
		c[j] = -float64(milli) / trace.WholeGPU
	}
	w := len(patterns) // the whole GPUs placed
	a.Set(0, w, 1)
	a.Set(rows-1, w, 1)
	c[w] = -1
	b[0] = float64(gpus)
	for i, s := range sizes {
		b[1+i] = float64(count[s])
	}
	b[rows-1] = float64(whole)
	basis := make([]int, rows)
	for r := range rows {
		a.Set(r, w+1+r, 1)
		basis[r] = w + 1 + r
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-10, basis)
	if err != nil {
		return 0, fmt.Errorf("most allocated: %w", err)
	}
	return -opt, nil
}

// fewestGPUs is the fewest GPUs that hold every share: minimise the patterns used, each size
// covered as often as it was asked, with a surplus column per size. A pattern of one share per
// size, used as often as that size was asked, is the first feasible basis.
func fewestGPUs(sizes []int64, count map[int64]int, patterns [][]int) (float64, error) {
	rows := len(sizes)
	cols := len(patterns) + rows
	a := mat.NewDense(rows, cols, nil)
	c := make([]float64, cols)
	b := make([]float64, rows)
	basis := make([]int, rows)
	for j, pat := range patterns {
		for i, n := range pat {
			a.Set(i, j, float64(n))
		}
		c[j] = 1
		if sumInts(pat) == 1 {
			basis[slices.Index(pat, 1)] = j
		}
	}
	for i, s := range sizes {
		b[i] = float64(count[s])
		a.Set(i, len(patterns)+i, -1)
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-10, basis)
	if err != nil {
		return 0, fmt.Errorf("fewest GPUs: %w", err)
	}
	return opt, nil
}

func sumInts(xs []int) (sum int) {
	for _, x := range xs {
		sum += x
	}
	return sum
}

// The ceilings of lists small enough to pack by hand.
func TestTraceCeilingByHand(t *testing.T) {
	share := func(milli int64) trace.Pod { return trace.Pod{NumGPU: 1, GPUMilli: milli} }
	wholeGPUs := func(n int) trace.Pod { return trace.Pod{NumGPU: n, GPUMilli: trace.WholeGPU} }
	for _, tc := range []struct {
		name string
		pods []trace.Pod
		gpus int
		want traceCeiling
	}{{
		name: "shares that pair exactly", pods: []trace.Pod{share(810), share(190), share(500), share(500), wholeGPUs(2)}, gpus: 4,
		want: traceCeiling{allocated: 4, shareWaste: 0},
	}, {
		name: "a remnant nothing fills", pods: []trace.Pod{share(810), share(810), share(810), share(470), share(90)}, gpus: 3,
		// Turn the 0.47 away: {0.81, 0.09}, {0.81}, {0.81}. Placing all needs a fourth GPU for the 0.47.
		want: traceCeiling{allocated: 2.52, shareWaste: 4 - 2.99},
	}, {
		name: "whole GPUs give way to a share", pods: []trace.Pod{share(600), share(600), wholeGPUs(1), wholeGPUs(1)}, gpus: 3,
		// Both whole GPUs and one share; the other share is turned away.
		want: traceCeiling{allocated: 2.6, shareWaste: 2 - 1.2},
	}, {
		name: "no shares", pods: []trace.Pod{wholeGPUs(8), wholeGPUs(4), {MilliCPU: 4000}}, gpus: 10,
		want: traceCeiling{allocated: 10},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ceilingOf(tc.pods, tc.gpus)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.allocated-tc.want.allocated) > 1e-6 || math.Abs(got.shareWaste-tc.want.shareWaste) > 1e-6 {
				t.Errorf("ceiling %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestTraceCeiling logs, for each published workload (from $BERTH_TRACE_DIR), the ceiling at each
// mark over the seeds: the most GPUs any placement could allocate, and what is left when every
// share is placed; run it with -v.
func TestTraceCeiling(t *testing.T) {
	dir := traceDir(t)
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s", "workload")
	for _, m := range traceMarks {
		fmt.Fprintf(&b, " | at %3.0f%%: ceiling mean [min-max], every share placed", 100*m)
	}
	b.WriteString("\n")
	for _, w := range trace.Workloads {
		nodes, pods, err := trace.Load(dir, w)
		if err != nil {
			t.Fatal(err)
		}
		gpus := newTraceCluster(nodes).gpus
		streams := seedStreams(t, pods, gpus, traceSeeds)
		fmt.Fprintf(&b, "%-12s", w)
		for i := range traceMarks {
			var mean, lo, hi, placed float64 = 0, math.Inf(1), math.Inf(-1), 0
			for _, s := range streams {
				c := s.ceilings[i]
				pct := 100 * c.allocated / float64(gpus)
				mean += pct / float64(len(traceSeeds))
				lo, hi = min(lo, pct), max(hi, pct)
				placed += 100 * (float64(gpus) - c.shareWaste) / float64(gpus) / float64(len(traceSeeds))
			}
			fmt.Fprintf(&b, " | %.2f [%.2f-%.2f], %.2f", mean, lo, hi, placed)
		}
		b.WriteString("\n")
	}
	t.Logf("GPUs allocated at most, %% of the cluster's, seeds %v:\n%s", traceSeeds, b.String())
}
