package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// linked is n empty devices of 16 with links links, with the given use.
func linked(links *Links, used ...int64) []Device {
	devs := make([]Device, links.Len())
	for i := range devs {
		devs[i].Capacity = 16
		if i < len(used) {
			devs[i].Used = used[i]
		}
	}
	return WithLinks(devs, links)
}

func indices(a Assignment) []int {
	var idx []int
	for _, s := range a {
		idx = append(idx, s.Index)
	}
	return idx
}

func TestFitByLinks(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		used     []int64
		req      Request
		strategy *Strategy
		want     []int
	}{
		{name: "NVLink pairs: 2 GPUs get an NVLink pair, not the PCIe switch pair", file: nvpairs4, req: many(2, 16), want: []int{0, 1}},
		{name: "NVLink pairs: with GPU0 busy, the other NVLink pair", file: nvpairs4, used: []int64{4}, req: many(2, 16), want: []int{2, 3}},
		{name: "NVLink pairs: Spread too", file: nvpairs4, used: []int64{0, 4}, req: many(2, 8), strategy: Spread, want: []int{2, 3}},
		{name: "NVLink pairs: 3 GPUs keep an NVLink pair and its switch mate", file: nvpairs4, req: many(3, 16), want: []int{0, 1, 2}},
		{name: "PCIe box: 4 GPUs under one NUMA node, the one behind one upper switch", file: pcie8, req: many(4, 16), want: []int{0, 1, 2, 3}},
		{name: "PCIe box: with GPU0 busy, the 4 GPUs of the other NUMA node", file: pcie8, used: []int64{16}, req: many(4, 16), want: []int{4, 5, 6, 7}},
		{name: "PCIe box: 2 GPUs behind one switch", file: pcie8, used: []int64{16, 0, 0, 16}, req: many(2, 16), want: []int{4, 5}},
		{name: "PCIe box: binpack among equally linked sets takes the fullest", file: pcie8, used: []int64{0, 0, 0, 0, 0, 0, 8, 8}, req: many(2, 8), want: []int{6, 7}},
		{name: "PCIe box: spread among equally linked sets takes the emptiest", file: pcie8, used: []int64{0, 0, 0, 0, 0, 0, 8, 8}, req: many(2, 8), strategy: Spread, want: []int{0, 1}},
		{name: "NVSwitch box: all sets alike, binpack fills used GPUs first", file: nvswitch8, used: []int64{0, 0, 0, 4, 0, 4}, req: many(2, 8), want: []int{3, 5}},
		{name: "NVSwitch box: 8 GPUs", file: nvswitch8, req: many(8, 16), want: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "one GPU: the strategy still decides between unequal GPUs", file: nvpairs4, used: []int64{0, 0, 8}, req: one(4), want: []int{2}},
		{name: "one GPU: among empty GPUs, not one of the last NVLink pair", file: nvpairs4, used: []int64{0, 0, 12}, req: one(8), want: []int{3}},
		{name: "one GPU: among empty GPUs, keep the connected NUMA node whole", file: pcie8, used: []int64{16}, req: one(8), want: []int{1}},
		{name: "one GPU: on an empty node, the lowest index breaks as little as any", file: nvswitch8, req: one(8), want: []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.strategy
			if s == nil {
				s = Binpack
			}
			devs := linked(recordedLinks(t, tt.file), tt.used...)
			a, nf := Fit(devs, tt.req, s)
			if nf != nil {
				t.Fatal(nf)
			}
			if diff := cmp.Diff(tt.want, indices(a)); diff != "" {
				t.Errorf("devices (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFitWithoutLinksUnchanged: the choice on a node without links is the one the strategy
// makes by index (TestFitChoosesAsSorting checks it at length); here the contrast with a node
// with links, on the same use.
func TestFitWithoutLinksUnchanged(t *testing.T) {
	devs := linked(recordedLinks(t, nvpairs4), 0, 0, 12)
	plain := WithLinks(slices.Clone(devs), nil)
	if a, _ := Fit(plain, one(8), Binpack); !slices.Equal(indices(a), []int{0}) {
		t.Errorf("without links: %v, want GPU0", a)
	}
	if a, _ := Fit(plain, many(2, 16), Binpack); !slices.Equal(indices(a), []int{0, 1}) {
		t.Errorf("without links: %v, want GPU0 and GPU1", a)
	}
}

func TestScoreByLinks(t *testing.T) {
	pairs, pcie := recordedLinks(t, nvpairs4), recordedLinks(t, pcie8)
	nodes := map[string][]Device{
		// Both NVLink pairs broken by a pod on one GPU of each: only PIX and NODE sets are left.
		"nvpairs-broken": linked(pairs, 2, 0, 2, 0),
		// An NVLink pair free, but the node is emptier.
		"nvpairs-whole": linked(pairs),
		// Only GPUs on different NUMA nodes free: the best set is SYS.
		"pcie-scattered": linked(pcie, 0, 16, 16, 16, 0, 16, 16, 16),
		// A PIX pair free on a fuller node.
		"pcie-switch": linked(pcie, 16, 16, 16, 16, 16, 16, 0, 0),
		// No links, as full as pcie-switch.
		"unknown-full":  WithLinks(linked(pcie, 16, 16, 16, 16, 16, 16, 0, 0), nil),
		"unknown-empty": WithLinks(linked(pcie), nil),
	}
	scores := map[string]float64{}
	for name, devs := range nodes {
		s, nf := Score(devs, many(2, 16), Binpack)
		if nf != nil {
			t.Fatalf("%s: %v", name, nf)
		}
		if s < 0 || s > 1 {
			t.Errorf("%s: score %v out of [0, 1]", name, s)
		}
		scores[name] = s
	}
	order := []string{"nvpairs-whole", "pcie-switch", "nvpairs-broken", "pcie-scattered"}
	for i := 1; i < len(order); i++ {
		if better, worse := order[i-1], order[i]; scores[better] <= scores[worse] {
			t.Errorf("%s scores %v, not above %s with %v (all: %v)", better, scores[better], worse, scores[worse], scores)
		}
	}
	// Without links a node keeps the strategy's rating.
	if want, _ := Score(nodes["unknown-full"], many(2, 16), Binpack); want != scores["unknown-full"] {
		t.Errorf("no links: %v", scores["unknown-full"])
	}
	if scores["unknown-full"] <= scores["unknown-empty"] {
		t.Errorf("without links binpack must prefer the fuller node: %v", scores)
	}
	// One GPU: links do not enter the score.
	a, _ := Score(nodes["pcie-switch"], one(16), Binpack)
	b, _ := Score(nodes["unknown-full"], one(16), Binpack)
	if a != b {
		t.Errorf("one-GPU score with links %v, without %v; want them equal", a, b)
	}
}

// TestBestSetIsExact: on nodes of up to 8 GPUs with random links and use, the set chosen is one
// of the best by brute force over all sets.
func TestBestSetIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	for c := range 3000 {
		n := 2 + rng.IntN(7)
		links := &Links{n: n, links: make([]Link, n*n), numa: make([]int, n)}
		for i := range n {
			for j := range i {
				l := Link(1 + rng.IntN(int(LinkNV1)+2))
				links.links[i*n+j], links.links[j*n+i] = l, l
			}
		}
		devs := make([]Device, n)
		for i := range devs {
			devs[i] = Device{Capacity: 16, Used: int64(4 * rng.IntN(5))}
		}
		WithLinks(devs, links)
		req := many(2+rng.IntN(n-1), 4)
		for _, s := range []*Strategy{Binpack, Spread} {
			a, nf := Fit(devs, req, s)
			want, wantQ := bruteForce(devs, links, req, s)
			if nf != nil {
				if want != nil {
					t.Fatalf("case %d: Fit found nothing, brute force %v", c, want)
				}
				continue
			}
			got := indices(a)
			if q := qualityOf(devs, links, got); q != wantQ || !slices.Equal(got, want) {
				t.Fatalf("case %d (%s, %v on %s, use %v): Fit %v rated %+v, brute force %v rated %+v", c, s, req, links, devs, got, q, want, wantQ)
			}
		}
	}
}

func qualityOf(devs []Device, links *Links, set []int) setQuality {
	q := setQuality{worst: 255}
	for x, i := range set {
		q.free += devs[i].Free()
		for _, j := range set[x+1:] {
			q.worst = min(q.worst, links.Link(i, j))
			q.sum += int(links.Link(i, j))
		}
	}
	return q
}

func bruteForce(devs []Device, links *Links, req Request, s *Strategy) ([]int, setQuality) {
	var best []int
	var bestQ setQuality
	for mask := range 1 << len(devs) {
		var set []int
		for i := range devs {
			if mask&(1<<i) != 0 && devs[i].Free() >= req.PerDevice {
				set = append(set, i)
			}
		}
		if len(set) != req.Count || popcount(mask) != req.Count {
			continue
		}
		if q := qualityOf(devs, links, set); best == nil || better(s, q, set, bestQ, best) {
			best, bestQ = set, q
		}
	}
	return best, bestQ
}

func popcount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// BenchmarkBestSet is the set search Fit and Score run for a multi-GPU pod on a node with links:
// the recorded machines, and nodes of 16 GPUs in NVLink pairs on two NUMA nodes (where the search
// is bounded by setSearchBudget).
func BenchmarkBestSet(b *testing.B) {
	run := func(name string, devs []Device, req Request) {
		b.Run(name+"/fit", func(b *testing.B) {
			for b.Loop() {
				if _, nf := Fit(devs, req, Binpack); nf != nil {
					b.Fatal(nf)
				}
			}
		})
		b.Run(name+"/score", func(b *testing.B) {
			for b.Loop() {
				if _, nf := Score(devs, req, Binpack); nf != nil {
					b.Fatal(nf)
				}
			}
		})
	}
	pcie := recordedLinks(b, pcie8)
	run("pcie8/empty/4GPUs", linked(pcie), many(4, 16))
	run("pcie8/busy/2GPUs", linked(pcie, 4, 0, 8, 0, 0, 12, 0, 4), many(2, 4))
	run("nvswitch8/empty/4GPUs", linked(recordedLinks(b, nvswitch8)), many(4, 16))
	run("nvpairs4/empty/2GPUs", linked(recordedLinks(b, nvpairs4)), many(2, 16))
	run("pcie8/empty/1GPU", linked(pcie), one(8))
	big := pairs16()
	for _, k := range []int{2, 4, 8} {
		run(fmt.Sprintf("pairs16/empty/%dGPUs", k), linked(big), many(k, 16))
	}
}

// pairs16 is 16 GPUs in NVLink pairs (NV4), four pairs to a NUMA node, PIX within a group of four,
// NODE within a NUMA node, SYS across.
func pairs16() *Links {
	n := 16
	links := &Links{n: n, links: make([]Link, n*n), numa: make([]int, n)}
	for i := range n {
		links.numa[i] = i / 8
		for j := range n {
			var l Link
			switch {
			case i == j:
				continue
			case i/2 == j/2:
				l = LinkNV1 + 3
			case i/4 == j/4:
				l = LinkPIX
			case i/8 == j/8:
				l = LinkNODE
			default:
				l = LinkSYS
			}
			links.links[i*n+j] = l
		}
	}
	return links
}

// TestBestSetBounded: on 16 GPUs, where the search may run out of budget, an 8-GPU pod still gets
// one NUMA node's GPUs (NODE at worst, not SYS), and a 4-GPU pod two NVLink pairs under one switch.
func TestBestSetBounded(t *testing.T) {
	big := pairs16()
	for _, tt := range []struct {
		used []int64
		req  Request
		want []int
	}{
		{req: many(8, 16), want: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{used: []int64{4}, req: many(8, 16), want: []int{8, 9, 10, 11, 12, 13, 14, 15}},
		{used: []int64{4}, req: many(4, 16), want: []int{4, 5, 6, 7}},
	} {
		a, nf := Fit(linked(big, tt.used...), tt.req, Binpack)
		if nf != nil || !slices.Equal(indices(a), tt.want) {
			t.Errorf("%v with use %v: %v, %v; want %v", tt.req, tt.used, a, nf, tt.want)
		}
	}
}
