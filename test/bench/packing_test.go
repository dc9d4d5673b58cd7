package bench

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/test/bench/report"
)

// The packing simulation: a cluster of identical GPU nodes, filled with a fixed random mix of
// requests until the first one fits nowhere.
const (
	packingNodes     = 100
	packingGPUs      = 8
	packingGPUMemory = 16 // GiB, as the gpushare device plugin counts by default
	packingSeed      = 1
)

// A mix is a fixed random sequence of requests. Each asks for a share of one GPU (2 to 16 GiB),
// except that, when wholeEvery is set, one in wholeEvery on average asks for 2 or 4 whole GPUs.
type mix struct {
	name       string
	wholeEvery int
}

var mixes = []mix{
	{name: "Shares", wholeEvery: 0},
	{name: "SharesAndWhole", wholeEvery: 10},
}

// workload names the cluster and the mix in the results.
func (m mix) workload() string {
	return fmt.Sprintf("%dNodes_%dx%dGiB_%s", packingNodes, packingGPUs, packingGPUMemory, m.name)
}

// requests returns the mix's requests, one per call.
func (m mix) requests() func() gpu.Request {
	rng := rand.New(rand.NewPCG(packingSeed, packingSeed))
	return func() gpu.Request {
		if m.wholeEvery > 0 && rng.IntN(m.wholeEvery) == 0 {
			n := 2 << rng.IntN(2)
			return gpu.Request{Total: int64(n) * packingGPUMemory, Count: n, PerDevice: packingGPUMemory}
		}
		size := 2 + rng.Int64N(packingGPUMemory-1)
		return gpu.Request{Total: size, Count: 1, PerDevice: size}
	}
}

// A placer picks a node and its devices for a request, or reports that it fits nowhere.
type placer func(nodes [][]gpu.Device, req gpu.Request) (node int, a gpu.Assignment, ok bool)

// placers are the ways of placing compared: berth's strategies, choosing the node the way the
// GPUShare plugin scores it (the best gpu.Score, the lowest index among equals), and first fit.
var placers = []struct {
	name  string
	place placer
}{
	{"Binpack", scored(gpu.Binpack)},
	{"Spread", scored(gpu.Spread)},
	{"FirstFit", firstFit},
}

func scored(s *gpu.Strategy) placer {
	return func(nodes [][]gpu.Device, req gpu.Request) (int, gpu.Assignment, bool) {
		best, bestScore := -1, 0.0
		for i, devs := range nodes {
			score, err := gpu.Score(devs, req, s)
			if err == nil && (best < 0 || score > bestScore) {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			return 0, nil, false
		}
		a, err := gpu.Fit(nodes[best], req, s)
		return best, a, err == nil
	}
}

// firstFit is the baseline: the first node, in order, with enough devices that have the share free,
// and on it the first such devices.
func firstFit(nodes [][]gpu.Device, req gpu.Request) (int, gpu.Assignment, bool) {
	for i, devs := range nodes {
		var a gpu.Assignment
		for j, d := range devs {
			if d.Free() >= req.PerDevice && len(a) < req.Count {
				a = append(a, gpu.DeviceShare{Index: j, Memory: req.PerDevice})
			}
		}
		if len(a) == req.Count {
			return i, a, true
		}
	}
	return 0, nil, false
}

type packing struct {
	nodes            [][]gpu.Device
	placed, capacity int64
	pods             int
	misfit           gpu.Request
}

// pack places the mix until a request fits nowhere.
func pack(m mix, place placer) packing {
	p := packing{nodes: make([][]gpu.Device, packingNodes)}
	for i := range p.nodes {
		p.nodes[i] = make([]gpu.Device, packingGPUs)
		for j := range p.nodes[i] {
			p.nodes[i][j].Capacity = packingGPUMemory
			p.capacity += packingGPUMemory
		}
	}
	next := m.requests()
	for {
		req := next()
		n, a, ok := place(p.nodes, req)
		if !ok {
			p.misfit = req
			return p
		}
		for _, share := range a {
			p.nodes[n][share.Index].Used += share.Memory
		}
		p.placed += a.Total()
		p.pods++
	}
}

func (p packing) share() float64 { return float64(p.placed) / float64(p.capacity) }

// BenchmarkGPUPacking reports, for each way of placing, the share of the cluster's GPU memory
// placed before the first request that no longer fits (placed-share), and how many pods that was.
// With -data-items-dir it also writes them there for the report. ns/op is the time to simulate
// the whole fill.
func BenchmarkGPUPacking(b *testing.B) {
	var results []report.Result
	for _, m := range mixes {
		for _, p := range placers {
			var last packing
			b.Run(m.name+"/"+p.name, func(b *testing.B) {
				for b.Loop() {
					last = pack(m, p.place)
				}
				b.ReportMetric(last.share(), "placed-share")
				b.ReportMetric(float64(last.pods), "pods")
			})
			if last.capacity == 0 {
				continue // filtered out by -test.bench
			}
			results = append(results, report.Result{
				TestCase: p.name,
				Workload: m.workload(),
				Metric:   report.GPUPacking,
				Unit:     "share",
				Data:     map[string]float64{"Value": last.share()},
			})
		}
	}
	// The harness defines -data-items-dir.
	if dir := flag.Lookup("data-items-dir"); dir != nil && dir.Value.String() != "" && len(results) > 0 {
		if err := report.Save(dir.Value.String(), "BenchmarkGPUPacking", results); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGPUPacking checks the simulation behind BenchmarkGPUPacking: every placement stays within
// the devices' memory, the request it stops at really fits on no node, and Binpack, berth's
// default, packs at least as much as Spread.
func TestGPUPacking(t *testing.T) {
	for _, m := range mixes {
		t.Run(m.name, func(t *testing.T) { testPacking(t, m) })
	}
}

func testPacking(t *testing.T, m mix) {
	shares := map[string]float64{}
	for _, p := range placers {
		res := pack(m, p.place)
		var used int64
		for i, devs := range res.nodes {
			for j, d := range devs {
				if d.Used > d.Capacity {
					t.Errorf("%s: node %d GPU %d holds %d of %d", p.name, i, j, d.Used, d.Capacity)
				}
				used += d.Used
			}
			if _, err := gpu.Fit(devs, res.misfit, gpu.Binpack); err == nil {
				t.Errorf("%s: stopped at %+v, which fits on node %d", p.name, res.misfit, i)
			}
		}
		if used != res.placed {
			t.Errorf("%s: devices hold %d, placements add up to %d", p.name, used, res.placed)
		}
		if res.pods == 0 {
			t.Errorf("%s: placed no pod", p.name)
		}
		shares[p.name] = res.share()
		t.Logf("%s: %d pods, %.3f of the GPU memory, stopped at %+v", p.name, res.pods, res.share(), res.misfit)
	}
	if shares["Binpack"] < shares["Spread"] {
		t.Errorf("Binpack placed %.3f of the GPU memory, less than Spread's %.3f", shares["Binpack"], shares["Spread"])
	}
}
