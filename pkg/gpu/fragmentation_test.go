package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func gpuDemand(cpu, mem int64, req Request) Demand {
	return Demand{MilliCPU: cpu, Memory: mem, GPU: req}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestFragmentation(t *testing.T) {
	// Half the mix asks for 600 of one GPU, half for a whole 1000 GPU, both with 4 cpus.
	mix := NewMixView([]MixClass{
		{Demand: gpuDemand(4000, 0, one(600)), Weight: 3},
		{Demand: gpuDemand(4000, 0, one(1000)), Weight: 3},
		{Demand: gpuDemand(4000, 0, Request{}), Weight: 100}, // asks for no GPU: not in the mix
	})
	if mix.Len() != 2 {
		t.Fatalf("the view holds %d classes, want the 2 that ask for GPU memory", mix.Len())
	}
	tests := []struct {
		name string
		node NodeFree
		want float64
	}{
		{
			// Free: 0.5 and 1 GPU. The 0.5 is too small for either class.
			name: "a half-used GPU is fragmented for both classes",
			node: NodeFree{Devices: []Device{{Capacity: 1000, Used: 500}, {Capacity: 1000}}, MilliCPU: 8000},
			want: 0.5,
		},
		{
			// Free: 0.7 and 1 GPU. 0.7 is usable by the 600 class only.
			name: "a GPU usable by part of the mix",
			node: NodeFree{Devices: []Device{{Capacity: 1000, Used: 300}, {Capacity: 1000}}, MilliCPU: 8000},
			want: 0.5*0 + 0.5*0.7,
		},
		{
			name: "no cpu left strands every free GPU",
			node: NodeFree{Devices: []Device{{Capacity: 1000, Used: 300}, {Capacity: 1000}}, MilliCPU: 3999},
			want: 1.7,
		},
		{
			name: "a full node has nothing to strand",
			node: NodeFree{Devices: []Device{{Capacity: 1000, Used: 1000}}, MilliCPU: 0},
			want: 0,
		},
		{
			// Memory in GiB: 16 and 32 GiB GPUs, both empty; a 600 or 1000 request needs more than
			// either holds, so both GPUs are fragments, counted as one GPU each.
			name: "GPUs too small for the mix",
			node: NodeFree{Devices: []Device{{Capacity: 16}, {Capacity: 32}}, MilliCPU: 8000},
			want: 2,
		},
	}
	for _, tt := range tests {
		if got := Fragmentation(tt.node, mix); !near(got, tt.want) {
			t.Errorf("%s: Fragmentation = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFragmentationCountsGPUs(t *testing.T) {
	// One class asks for two whole GPUs of 16.
	mix := NewMixView([]MixClass{{Demand: gpuDemand(0, 0, many(2, 16)), Weight: 1}})
	one := NodeFree{Devices: []Device{{Capacity: 16}, {Capacity: 16, Used: 4}}}
	if got := Fragmentation(one, mix); !near(got, 1.75) {
		t.Errorf("one whole GPU free: Fragmentation = %v, want all 1.75 free GPUs", got)
	}
	two := NodeFree{Devices: []Device{{Capacity: 16}, {Capacity: 16, Used: 4}, {Capacity: 16}}}
	if got := Fragmentation(two, mix); !near(got, 0.75) {
		t.Errorf("two whole GPUs free: Fragmentation = %v, want the 0.75 of the used GPU", got)
	}
	if got := Fragmentation(two, MixView{}); got != 0 {
		t.Errorf("empty mix: Fragmentation = %v, want 0", got)
	}
}

// naiveFragmentation is the definition, class by class, to check the sweep against.
func naiveFragmentation(n NodeFree, v MixView) float64 {
	var total float64
	for _, d := range n.Devices {
		total += float64(d.Free()) / float64(d.Capacity)
	}
	var frag float64
	for _, c := range v.classes {
		var usable float64
		fit := 0
		for _, d := range n.Devices {
			if d.Free() >= c.GPU.PerDevice {
				usable += float64(d.Free()) / float64(d.Capacity)
				fit++
			}
		}
		if fit < c.GPU.Count || n.MilliCPU < c.MilliCPU || n.Memory < c.Memory {
			frag += c.Weight * total
		} else {
			frag += c.Weight * (total - usable)
		}
	}
	return frag
}

func randomMix(rng *rand.Rand, classes int) MixView {
	var cs []MixClass
	for range classes {
		req := one(1 + rng.Int64N(32))
		if rng.IntN(4) == 0 {
			req = many(1+rng.IntN(4), 32)
		}
		cs = append(cs, MixClass{Demand: gpuDemand(rng.Int64N(16000), rng.Int64N(64), req), Weight: rng.Float64()})
	}
	return NewMixView(cs)
}

func randomNode(rng *rand.Rand) NodeFree {
	n := NodeFree{MilliCPU: rng.Int64N(32000), Memory: rng.Int64N(128)}
	capacity := []int64{16, 24, 32}[rng.IntN(3)]
	for range 1 + rng.IntN(10) {
		n.Devices = append(n.Devices, Device{Capacity: capacity, Used: rng.Int64N(capacity + 1)})
	}
	return n
}

func TestFragmentationMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		mix, node := randomMix(rng, 1+rng.IntN(20)), randomNode(rng)
		if got, want := Fragmentation(node, mix), naiveFragmentation(node, mix); !near(got, want) {
			t.Fatalf("case %d: Fragmentation = %v, the definition gives %v (node %+v)", i, got, want, node)
		}
		req := one(1 + rng.Int64N(16))
		a, nf := Fit(node.Devices, req, Binpack)
		if nf != nil {
			continue
		}
		d := gpuDemand(rng.Int64N(2000), rng.Int64N(8), req)
		after := NodeFree{Devices: append([]Device(nil), node.Devices...), MilliCPU: node.MilliCPU - d.MilliCPU, Memory: node.Memory - d.Memory}
		Adjust(after.Devices, a, 1)
		want := naiveFragmentation(after, mix) - naiveFragmentation(node, mix)
		if got := FragmentationGrowth(node, d, a, mix); !near(got, want) {
			t.Fatalf("case %d: FragmentationGrowth = %v, the definition gives %v", i, got, want)
		}
	}
}

func TestFragmentationCost(t *testing.T) {
	// Every request of the mix asks for 8 of a 16 GPU.
	mix := NewMixView([]MixClass{{Demand: gpuDemand(1000, 0, one(8)), Weight: 1}})
	empty := NodeFree{Devices: []Device{{Capacity: 16}, {Capacity: 16}}, MilliCPU: 16000}
	stranded := NodeFree{Devices: []Device{{Capacity: 16, Used: 12}, {Capacity: 16}}, MilliCPU: 16000}
	req := gpuDemand(1000, 0, one(4))
	onEmpty, nf := FragmentationCost(empty, req, mix)
	if nf != nil {
		t.Fatal(nf)
	}
	onStranded, nf := FragmentationCost(stranded, req, mix)
	if nf != nil {
		t.Fatal(nf)
	}
	// On the empty node the 4 leaves 12 on its GPU, still usable; on the other it fills the 4 that
	// no request of the mix could use.
	if !(onStranded < 0 && onStranded < onEmpty) {
		t.Errorf("cost on the node with a stranded 4 = %v, on the empty node %v: want the stranded one cheaper, below 0", onStranded, onEmpty)
	}
	if _, nf := FragmentationCost(empty, gpuDemand(0, 0, one(17)), mix); nf == nil || nf.Resolvable {
		t.Errorf("a request larger than any GPU: error %v, want an unresolvable NoFitError", nf)
	}
	// Equal growth (nothing the mix could use changes): equal costs, whatever the nodes' fullness.
	fuller := NodeFree{Devices: []Device{{Capacity: 16, Used: 8}, {Capacity: 16}, {Capacity: 16}}, MilliCPU: 16000}
	emptier := NodeFree{Devices: []Device{{Capacity: 16}, {Capacity: 16}, {Capacity: 16}}, MilliCPU: 16000}
	whole := gpuDemand(0, 0, one(16))
	cf, _ := FragmentationCost(fuller, whole, mix)
	ce, _ := FragmentationCost(emptier, whole, mix)
	if cf != 0 || ce != 0 {
		t.Errorf("a whole GPU that leaves GPUs of 8 and 16 free costs %v on a fuller node, %v on an emptier one; want 0 on both", cf, ce)
	}
}

func TestNoGPUCost(t *testing.T) {
	// The mix asks for 8 cpus with its GPU.
	mix := NewMixView([]MixClass{{Demand: gpuDemand(8000, 0, one(8)), Weight: 1}})
	pod := gpuDemand(4000, 0, Request{})
	cpuOnly := NodeFree{MilliCPU: 64000}
	roomy := NodeFree{Devices: []Device{{Capacity: 16}}, MilliCPU: 64000}
	tight := NodeFree{Devices: []Device{{Capacity: 16}}, MilliCPU: 10000}
	busy := NodeFree{Devices: []Device{{Capacity: 16, Used: 8}}, MilliCPU: 64000}
	costs := map[string]float64{}
	for name, n := range map[string]NodeFree{"cpu-only": cpuOnly, "roomy": roomy, "tight": tight, "busy": busy} {
		costs[name] = NoGPUCost(n, pod, mix)
	}
	if costs["cpu-only"] != 0 {
		t.Errorf("a node without GPUs costs %v, want 0", costs["cpu-only"])
	}
	// tight: the pod leaves 6 cpus, too few for the mix: the whole free GPU is stranded.
	if !near(costs["tight"], 1+2*tieBreak) {
		t.Errorf("the pod strands a GPU: cost %v, want 1 GPU", costs["tight"])
	}
	if !(costs["cpu-only"] < costs["busy"] && costs["busy"] < costs["roomy"] && costs["roomy"] < costs["tight"]) {
		t.Errorf("costs %v: want cpu-only < busy (half its GPU taken) < roomy < tight", costs)
	}
	// A cost through FragmentationCost is the same, for pods without GPU memory.
	if c, nf := FragmentationCost(tight, pod, mix); nf != nil || c != costs["tight"] {
		t.Errorf("FragmentationCost of a pod without GPU = %v, %v; want NoGPUCost's %v", c, nf, costs["tight"])
	}
}

// BenchmarkScorePerNode compares the per-node work of GPUShare's Score under Binpack (gpu.Score and
// its raw score) with the fragmentation cost against a full mix and its RawScore, on an 8-GPU node.
func BenchmarkScorePerNode(b *testing.B) {
	devs := make([]Device, 8)
	for i := range devs {
		devs[i] = Device{Capacity: 80, Used: int64(i * 9)}
	}
	node := NodeFree{Devices: devs, MilliCPU: 40000, Memory: 200}
	rng := rand.New(rand.NewPCG(3, 4))
	mix := randomMix(rng, DefaultMixLimit)
	for _, req := range []Request{one(10), many(2, 10)} {
		b.Run(fmt.Sprintf("%dGPUs/Binpack", req.Count), func(b *testing.B) {
			for b.Loop() {
				score, nf := Score(devs, req, Binpack)
				if nf != nil {
					b.Fatal(nf)
				}
				sink = int64(math.Round(score * 1_000_000))
			}
		})
		b.Run(fmt.Sprintf("%dGPUs/Fragmentation", req.Count), func(b *testing.B) {
			d := gpuDemand(4000, 16, req)
			for b.Loop() {
				cost, nf := FragmentationCost(node, d, mix)
				if nf != nil {
					b.Fatal(nf)
				}
				sink = RawScore(cost, TieOrder("default/pod", "node-0001"))
			}
		})
	}
	b.Run("NoGPU", func(b *testing.B) {
		d := gpuDemand(4000, 16, Request{})
		for b.Loop() {
			sink = RawScore(NoGPUCost(node, d, mix), TieOrder("default/pod", "node-0001"))
		}
	})
}

func TestRawScore(t *testing.T) {
	// Lower cost, higher score, down to the tie-break's resolution.
	costs := []float64{math.Inf(-1), -maxRawCost, -3, -0.5, 0, tieBreak, 2 * tieBreak, 0.25, 8, 256, maxRawCost}
	for i := 1; i < len(costs); i++ {
		if costs[i-1] == math.Inf(-1) {
			if RawScore(costs[i-1], 0) != RawScore(costs[i], 0) {
				t.Errorf("cost %v is not clamped to %v", costs[i-1], costs[i])
			}
			continue
		}
		// The tie order never outweighs a difference in cost.
		lo, hi := RawScore(costs[i-1], 0), RawScore(costs[i], TieSpan-1)
		if lo <= hi {
			t.Errorf("cost %v scores %d, cost %v %d: want the lower cost higher", costs[i-1], lo, costs[i], hi)
		}
	}
	if RawScore(math.Inf(1), 0) != RawScore(maxRawCost, 0) {
		t.Error("an infinite cost is not clamped to the end")
	}
	if RawScore(1, 5) != RawScore(1, 0)+5 || RawScore(1, TieSpan+9) != RawScore(1, TieSpan-1) || RawScore(1, -3) != RawScore(1, 0) {
		t.Error("the tie order does not order equal costs within TieSpan")
	}
}

// TieOrder is the same for the same pod and node, in [0, TieSpan), and orders a cluster's nodes
// differently for different pods: each node comes first among 64 for about as many pods. (64 nodes
// and 100 pods each judge the spread as well as 256 did, in a sixteenth of the calls.)
func TestTieOrder(t *testing.T) {
	if TieOrder("ns/a", "node-1") != TieOrder("ns/a", "node-1") {
		t.Fatal("TieOrder is not a function of its arguments")
	}
	const nodes, pods = 64, 6400
	names := make([]string, nodes)
	for n := range names {
		names[n] = fmt.Sprintf("node-%04d", n)
	}
	first := make([]int, nodes)
	for p := range pods {
		pod := fmt.Sprintf("ns/pod-%d", p)
		best, bestNode := int64(-1), 0
		for n := range nodes {
			o := TieOrder(pod, names[n])
			if o < 0 || o >= TieSpan {
				t.Fatalf("TieOrder = %d, want [0, %d)", o, TieSpan)
			}
			if o > best {
				best, bestNode = o, n
			}
		}
		first[bestNode]++
	}
	// About 100 each; a fixed order, or one that hardly changes from pod to pod, puts most on a few.
	for n, count := range first {
		if count < 50 || count > 170 {
			t.Errorf("node-%04d came first for %d pods of %d, want about %d", n, count, pods, pods/nodes)
		}
	}
}

// sink keeps the benchmarks' results alive.
var sink int64
