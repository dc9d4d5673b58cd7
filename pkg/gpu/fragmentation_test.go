package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func gpuDemand(cpu, mem int64, req Request) PodShape {
	return PodShape{MilliCPU: cpu, Memory: mem, GPU: req}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestFragmentation(t *testing.T) {
	// Half the mix asks for 600 of one GPU, half for a whole 1000 GPU, both with 4 cpus.
	mix := NewMixView([]MixClass{
		{PodShape: gpuDemand(4000, 0, one(600)), Weight: 3},
		{PodShape: gpuDemand(4000, 0, one(1000)), Weight: 3},
		{PodShape: gpuDemand(4000, 0, Request{}), Weight: 100}, // asks for no GPU: not in the mix
	})
	if mix.Len() != 2 {
		t.Fatalf("the view holds %d classes, want the 2 that ask for GPU memory", mix.Len())
	}
	tests := []struct {
		name string
		node NodeShape
		want float64
	}{
		{
			// Free: 0.5 and 1 GPU. The 0.5 is too small for either class.
			name: "a half-used GPU is fragmented for both classes",
			node: NodeShape{Devices: []Device{{Capacity: 1000, Used: 500}, {Capacity: 1000}}, MilliCPU: 8000},
			want: 0.5,
		},
		{
			// Free: 0.7 and 1 GPU. 0.7 is usable by the 600 class only.
			name: "a GPU usable by part of the mix",
			node: NodeShape{Devices: []Device{{Capacity: 1000, Used: 300}, {Capacity: 1000}}, MilliCPU: 8000},
			want: 0.5*0 + 0.5*0.7,
		},
		{
			name: "no cpu left strands every free GPU",
			node: NodeShape{Devices: []Device{{Capacity: 1000, Used: 300}, {Capacity: 1000}}, MilliCPU: 3999},
			want: 1.7,
		},
		{
			name: "a full node has nothing to strand",
			node: NodeShape{Devices: []Device{{Capacity: 1000, Used: 1000}}, MilliCPU: 0},
			want: 0,
		},
		{
			// Memory in GiB: 16 and 32 GiB GPUs, both empty; a 600 or 1000 request needs more than
			// either holds, so both GPUs are fragments, counted as one GPU each.
			name: "GPUs too small for the mix",
			node: NodeShape{Devices: []Device{{Capacity: 16}, {Capacity: 32}}, MilliCPU: 8000},
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
	mix := NewMixView([]MixClass{{PodShape: gpuDemand(0, 0, many(2, 16)), Weight: 1}})
	one := NodeShape{Devices: []Device{{Capacity: 16}, {Capacity: 16, Used: 4}}}
	if got := Fragmentation(one, mix); !near(got, 1.75) {
		t.Errorf("one whole GPU free: Fragmentation = %v, want all 1.75 free GPUs", got)
	}
	two := NodeShape{Devices: []Device{{Capacity: 16}, {Capacity: 16, Used: 4}, {Capacity: 16}}}
	if got := Fragmentation(two, mix); !near(got, 0.75) {
		t.Errorf("two whole GPUs free: Fragmentation = %v, want the 0.75 of the used GPU", got)
	}
	if got := Fragmentation(two, MixView{}); got != 0 {
		t.Errorf("empty mix: Fragmentation = %v, want 0", got)
	}
}

// naiveFragmentation is the definition, class by class, to check the sweep against: classes as
// given to NewMixView (each with its own GPUModels, weights not scaled).
func naiveFragmentation(n NodeShape, classes []MixClass) float64 {
	var total, sum float64
	for _, d := range n.Devices {
		total += float64(d.Free()) / float64(d.Capacity)
	}
	for _, c := range classes {
		sum += c.Weight
	}
	var frag float64
	for _, c := range classes {
		var usable float64
		fit := 0
		for _, d := range n.Devices {
			if d.Free() >= c.GPU.PerDevice {
				usable += float64(d.Free()) / float64(d.Capacity)
				fit++
			}
		}
		runs := c.GPUModels == "" || slices.Contains(strings.Split(c.GPUModels, "|"), n.Model)
		if !runs || fit < c.GPU.Count || n.MilliCPU < c.MilliCPU || n.Memory < c.Memory {
			frag += c.Weight / sum * total
		} else {
			frag += c.Weight / sum * (total - usable)
		}
	}
	return frag
}

// randomMix is a view of randomClasses.
func randomMix(rng *rand.Rand, classes int) MixView {
	return NewMixView(randomClasses(rng, classes))
}

// randomClasses are kinds of request of a few shapes, so that some share a shape with different
// GPU models, and with models among A and B.
func randomClasses(rng *rand.Rand, classes int) []MixClass {
	shapes := 1 + rng.IntN(classes)
	var ds []PodShape
	for range shapes {
		req := one(1 + rng.Int64N(32))
		if rng.IntN(4) == 0 {
			req = many(1+rng.IntN(4), 32)
		}
		ds = append(ds, gpuDemand(rng.Int64N(16000), rng.Int64N(64), req))
	}
	var cs []MixClass
	for range classes {
		d := ds[rng.IntN(len(ds))]
		d.GPUModels = []string{"", "", "A", "B", "A|B"}[rng.IntN(5)]
		cs = append(cs, MixClass{PodShape: d, Weight: rng.Float64()})
	}
	return cs
}

func randomNode(rng *rand.Rand) NodeShape {
	n := NodeShape{MilliCPU: rng.Int64N(32000), Memory: rng.Int64N(128), Model: []string{"", "A", "B", "C"}[rng.IntN(4)]}
	capacity := []int64{16, 24, 32}[rng.IntN(3)]
	for range 1 + rng.IntN(10) {
		n.Devices = append(n.Devices, Device{Capacity: capacity, Used: rng.Int64N(capacity + 1)})
	}
	return n
}

func TestFragmentationMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		classes, node := randomClasses(rng, 1+rng.IntN(20)), randomNode(rng)
		mix := NewMixView(classes)
		if got, want := Fragmentation(node, mix), naiveFragmentation(node, classes); !near(got, want) {
			t.Fatalf("case %d: Fragmentation = %v, the definition gives %v (node %+v)", i, got, want, node)
		}
		req := one(1 + rng.Int64N(16))
		a, nf := Fit(node.Devices, req, Binpack)
		if nf != nil {
			continue
		}
		d := gpuDemand(rng.Int64N(2000), rng.Int64N(8), req)
		after := NodeShape{Devices: append([]Device(nil), node.Devices...), MilliCPU: node.MilliCPU - d.MilliCPU, Memory: node.Memory - d.Memory, Model: node.Model}
		Adjust(after.Devices, a, 1)
		want := naiveFragmentation(after, classes) - naiveFragmentation(node, classes)
		if got := FragmentationGrowth(node, d, a, mix); !near(got, want) {
			t.Fatalf("case %d: FragmentationGrowth = %v, the definition gives %v", i, got, want)
		}
	}
}

// A kind of request that may not run on a node's GPU model counts all of the node's free GPU as
// fragmented, as the FGD paper counts it, so that a pod free to run anywhere is steered away from
// the models that the restricted requests need.
func TestFragmentationByModel(t *testing.T) {
	// Half the mix may run on T4 only; the other half anywhere. Both ask for half a GPU.
	mix := NewMixView([]MixClass{
		{PodShape: PodShape{MilliCPU: 1000, GPU: one(500), GPUModels: "T4"}, Weight: 1},
		{PodShape: gpuDemand(1000, 0, one(500)), Weight: 1},
	})
	node := func(model string, used int64) NodeShape {
		return NodeShape{Devices: []Device{{Capacity: 1000, Used: used}, {Capacity: 1000}}, MilliCPU: 16000, Model: model}
	}
	for _, tt := range []struct {
		node NodeShape
		want float64
	}{
		{node("T4", 0), 0},
		{node("T4", 700), 0.3},     // 0.3 free on one GPU: too small for both
		{node("V100", 0), 0.5 * 2}, // the T4 half can use none of the 2 free GPUs
		{node("V100", 700), 0.5*1.3 + 0.5*0.3},
		{node("", 0), 0.5 * 2}, // no model label: no restricted request runs there
	} {
		if got := Fragmentation(tt.node, mix); !near(got, tt.want) {
			t.Errorf("%s with %d used: Fragmentation = %v, want %v", tt.node.Model, tt.node.Devices[0].Used, got, tt.want)
		}
	}
	// A pod that may run anywhere costs less on the V100, which half the mix cannot use anyway.
	anywhere := gpuDemand(1000, 0, one(500))
	onT4, nf := FragmentationCost(node("T4", 0), anywhere, mix)
	if nf != nil {
		t.Fatal(nf)
	}
	onV100, _ := FragmentationCost(node("V100", 0), anywhere, mix)
	if !(onV100 < onT4) {
		t.Errorf("cost on an empty V100 %v, on an empty T4 %v: want the V100 cheaper", onV100, onT4)
	}
	// Without the restriction the two nodes are alike.
	plain := NewMixView([]MixClass{{PodShape: gpuDemand(1000, 0, one(500)), Weight: 1}})
	a, _ := FragmentationCost(node("T4", 0), anywhere, plain)
	b, _ := FragmentationCost(node("V100", 0), anywhere, plain)
	if a != b {
		t.Errorf("mix without models: cost on T4 %v, on V100 %v, want equal", a, b)
	}
}

// Weighed against the cluster's GPUs (WithSupply), a model that few GPUs have and restricted
// requests need is worth more than one that many GPUs have: a quarter of the mix may run on A
// only, a quarter on S only, and counted once each the two models look alike to a pod that may
// run anywhere; with 90 GPUs of A and 10 of S, S's pods have a tenth of the GPUs to go to, and the
// pod goes to A. This is what lost GPUs on Alibaba's lists restricted to models (gpuspec33: the
// pods that could run anywhere took the P100, V100 and G3 GPUs that restricted pods then lacked).
func TestFragmentationWithSupply(t *testing.T) {
	whole := gpuDemand(1000, 0, one(1000))
	mix := NewMixView([]MixClass{
		{PodShape: whole, Weight: 2},
		{PodShape: PodShape{MilliCPU: 1000, GPU: one(1000), GPUModels: "A"}, Weight: 1},
		{PodShape: PodShape{MilliCPU: 1000, GPU: one(1000), GPUModels: "S"}, Weight: 1},
	})
	node := func(model string) NodeShape {
		return NodeShape{Devices: []Device{{Capacity: 1000}, {Capacity: 1000}}, MilliCPU: 16000, Model: model}
	}
	cost := func(v MixView, model string) float64 {
		c, nf := FragmentationCost(node(model), whole, v)
		if nf != nil {
			t.Fatal(nf)
		}
		return c
	}
	if a, s := cost(mix, "A"), cost(mix, "S"); a != s {
		t.Fatalf("counted once: cost on A %v, on S %v, want equal", a, s)
	}
	weighed := mix.WithSupply(map[string]float64{"A": 90, "S": 10})
	// A GPU of A is worth 1/2 + 1/4 * 100/90 to the mix, one of S 1/2 + 1/4 * 100/10: taking one
	// grows the fragmentation by that less 1.
	if a, want := cost(weighed, "A"), 0.5+0.25*100/90-1; !near(a, want) {
		t.Errorf("weighed: cost on A %v, want %v", a, want)
	}
	if s, want := cost(weighed, "S"), 0.5+0.25*100/10-1; !near(s, want) {
		t.Errorf("weighed: cost on S %v, want %v", s, want)
	}
	// Nodes of a model the mix does not name, and mixes that name none, are as before.
	if got, want := cost(weighed, "B"), cost(mix, "B"); got != want {
		t.Errorf("weighed: cost on B %v, want %v as counted once", got, want)
	}
	plain := NewMixView([]MixClass{{PodShape: whole, Weight: 1}})
	if plain.NamesModels() || !reflect.DeepEqual(plain.WithSupply(map[string]float64{"A": 90}), plain) {
		t.Errorf("a mix without models changed by WithSupply")
	}
}

func TestFragmentationCost(t *testing.T) {
	// Every request of the mix asks for 8 of a 16 GPU.
	mix := NewMixView([]MixClass{{PodShape: gpuDemand(1000, 0, one(8)), Weight: 1}})
	empty := NodeShape{Devices: []Device{{Capacity: 16}, {Capacity: 16}}, MilliCPU: 16000}
	stranded := NodeShape{Devices: []Device{{Capacity: 16, Used: 12}, {Capacity: 16}}, MilliCPU: 16000}
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
	fuller := NodeShape{Devices: []Device{{Capacity: 16, Used: 8}, {Capacity: 16}, {Capacity: 16}}, MilliCPU: 16000}
	emptier := NodeShape{Devices: []Device{{Capacity: 16}, {Capacity: 16}, {Capacity: 16}}, MilliCPU: 16000}
	whole := gpuDemand(0, 0, one(16))
	cf, _ := FragmentationCost(fuller, whole, mix)
	ce, _ := FragmentationCost(emptier, whole, mix)
	if cf != 0 || ce != 0 {
		t.Errorf("a whole GPU that leaves GPUs of 8 and 16 free costs %v on a fuller node, %v on an emptier one; want 0 on both", cf, ce)
	}
}

// A share of one GPU goes to the device where it grows the fragmentation least, which is not
// always the tightest fit; among devices equal in that, to the tightest.
func TestFragmentationFit(t *testing.T) {
	// The mix asks for half a GPU. A 0.3 share on the GPU with 0.6 free would leave 0.3 that no
	// request can use; on the empty GPU it leaves 0.7, still usable.
	mix := NewMixView([]MixClass{{PodShape: gpuDemand(0, 0, one(500)), Weight: 1}})
	n := NodeShape{Devices: []Device{{Capacity: 1000, Used: 400}, {Capacity: 1000}}, MilliCPU: 8000}
	a, cost, nf := FragmentationFit(n, gpuDemand(0, 0, one(300)), mix)
	if nf != nil || len(a) != 1 || a[0].Index != 1 || cost != 0 {
		t.Errorf("FragmentationFit = %v, cost %v, %v; want device 1 at no cost", a, cost, nf)
	}
	if b, _ := Fit(n.Devices, one(300), Binpack); b[0].Index != 0 {
		t.Fatalf("Binpack takes device %d; the case needs it to take the tighter device 0", b[0].Index)
	}
	// 0.1 fills the 0.6 to 0.5, still usable, and leaves the empty GPU whole: equal growth (0) on
	// both, so Binpack's device.
	if a, cost, _ := FragmentationFit(n, gpuDemand(0, 0, one(100)), mix); a[0].Index != 0 || cost != 0 {
		t.Errorf("equal growth: FragmentationFit = %v, cost %v; want Binpack's device 0", a, cost)
	}
	if c, _ := FragmentationCost(n, gpuDemand(0, 0, one(300)), mix); c != 0 {
		t.Errorf("FragmentationCost %v, want FragmentationFit's cost 0", c)
	}
	// Random nodes: the chosen device's growth is the least of every device that fits.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		mix, node := randomMix(rng, 1+rng.IntN(12)), randomNode(rng)
		d := gpuDemand(rng.Int64N(2000), rng.Int64N(8), one(1+rng.Int64N(16)))
		a, cost, nf := FragmentationFit(node, d, mix)
		if nf != nil {
			continue
		}
		if g := FragmentationGrowth(node, d, a, mix); !near(g, cost) {
			t.Fatalf("case %d: cost %v, the growth of its devices %v", i, cost, g)
		}
		for k, dev := range node.Devices {
			if dev.Free() < d.GPU.PerDevice {
				continue
			}
			if g := FragmentationGrowth(node, d, Assignment{{Index: k, Memory: d.GPU.PerDevice}}, mix); g < cost-1e-9 {
				t.Fatalf("case %d: device %d grows the fragmentation by %v, less than the chosen %v's %v", i, k, g, a, cost)
			}
		}
	}
}

func TestNoGPUCost(t *testing.T) {
	// The mix asks for 8 cpus with its GPU.
	mix := NewMixView([]MixClass{{PodShape: gpuDemand(8000, 0, one(8)), Weight: 1}})
	pod := gpuDemand(4000, 0, Request{})
	cpuOnly := NodeShape{MilliCPU: 64000}
	roomy := NodeShape{Devices: []Device{{Capacity: 16}}, MilliCPU: 64000}
	tight := NodeShape{Devices: []Device{{Capacity: 16}}, MilliCPU: 10000}
	busy := NodeShape{Devices: []Device{{Capacity: 16, Used: 8}}, MilliCPU: 64000}
	costs := map[string]float64{}
	for name, n := range map[string]NodeShape{"cpu-only": cpuOnly, "roomy": roomy, "tight": tight, "busy": busy} {
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
	node := NodeShape{Devices: devs, MilliCPU: 40000, Memory: 200}
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
				sink = RawScore(cost, TieOrder("node-0001"))
			}
		})
	}
	b.Run("NoGPU", func(b *testing.B) {
		d := gpuDemand(4000, 16, Request{})
		for b.Loop() {
			sink = RawScore(NoGPUCost(node, d, mix), TieOrder("node-0001"))
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

// TieOrder is the same for the same node, in [0, TieSpan), and looks random against the nodes'
// names: among 8 nodes drawn from a cluster's, the one it puts first is as often the first of the
// 8 by name as the last.
func TestTieOrder(t *testing.T) {
	if TieOrder("node-1") != TieOrder("node-1") {
		t.Fatal("TieOrder is not a function of the node's name")
	}
	names := make([]string, 1024)
	for n := range names {
		names[n] = fmt.Sprintf("node-%04d", n)
		if o := TieOrder(names[n]); o < 0 || o >= TieSpan {
			t.Fatalf("TieOrder = %d, want [0, %d)", o, TieSpan)
		}
	}
	const draws, group = 6400, 8
	rng := rand.New(rand.NewPCG(5, 6))
	first := make([]int, group) // by the winner's place among the group in name order
	for range draws {
		picked := rng.Perm(len(names))[:group]
		slices.Sort(picked)
		best, place := int64(-1), 0
		for k, n := range picked {
			if o := TieOrder(names[n]); o > best {
				best, place = o, k
			}
		}
		first[place]++
	}
	// About 800 each; an order that follows the names puts nearly all on one place.
	for place, count := range first {
		if count < 600 || count > 1000 {
			t.Errorf("the %d-th of %d nodes by name came first %d times of %d, want about %d", place+1, group, count, draws, draws/group)
		}
	}
}

// sink keeps the benchmarks' results alive.
var sink int64
