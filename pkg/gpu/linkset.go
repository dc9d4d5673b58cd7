package gpu

import "slices"

// Choosing devices by their links, on nodes whose links are known (Device.Links).
//
// A pod with several GPUs gets the set of devices, among those with its share free, whose links
// are best: a set is as good as its worst pair; among sets with the same worst pair, the one with
// the better links over all its pairs (their sum) is better; then the strategy's order of their
// free memory in all (Binpack the least, Spread the most); then the set of lowest indices.
//
// A pod with one GPU gets the device the strategy takes, as without links. Among devices the
// strategy rates alike (the same free memory), where it would take the lowest index, it takes
// the one whose links to the node's wholly free GPUs are worst, so that the best connected sets of
// free GPUs stay whole for pods that need them.

// setSearchBudget bounds the devices the exact search tries to add to a partial set, for one
// choice. On up to 8 candidate GPUs the search is always exact (at most 2^8 partial sets of at
// most 8 tries each); on more it is exact unless it runs out, and then keeps the best set found,
// which is never worse than the greedy one it starts from.
const setSearchBudget = 1 << 12

// greedySeeds bounds the devices the greedy start grows a set from.
const greedySeeds = 32

// setQuality rates a set of devices; see better.
type setQuality struct {
	worst Link
	sum   int
	free  int64
}

// chooseLinked is choose on a node with links t.
func chooseLinked(devs []Device, t *Links, req Request, s *Strategy, dst []int) []int {
	if req.Count == 1 {
		return append(dst, chooseOneLinked(devs, t, req, s))
	}
	var cbuf [maxStackDevices * 2]int
	cand := cbuf[:0]
	for i, d := range devs {
		if d.Free() >= req.PerDevice {
			cand = append(cand, i)
		}
	}
	return append(dst, bestSet(devs, t, cand, req.Count, s)...)
}

// chooseOneLinked is the device a one-GPU request gets: the strategy's choice, the tie among
// equally free devices broken by links instead of by index. Enough devices must fit.
func chooseOneLinked(devs []Device, t *Links, req Request, s *Strategy) int {
	best := -1
	for i, d := range devs {
		if d.Free() < req.PerDevice {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		fb, fi := devs[best].Free(), d.Free()
		switch {
		case s.before(fi, fb):
			best = i
		case fi == fb && breaksLess(devs, t, i, best):
			best = i
		}
	}
	return best
}

// breaksLess reports whether taking device a breaks less of the connected sets of wholly free
// GPUs than taking device b: a's links to the other wholly free GPUs, best first, come before b's
// in lexicographic order (a device not wholly free breaks nothing). Equal ones break alike.
func breaksLess(devs []Device, t *Links, a, b int) bool {
	var bufA, bufB [maxStackDevices * 2]Link
	la, lb := linksToFree(devs, t, a, bufA[:0]), linksToFree(devs, t, b, bufB[:0])
	return slices.Compare(la, lb) < 0
}

// linksToFree appends to dst device i's links to the other wholly free devices, best first, and
// returns it; none if i is not wholly free itself.
func linksToFree(devs []Device, t *Links, i int, dst []Link) []Link {
	if devs[i].Used != 0 {
		return dst
	}
	for j, d := range devs {
		if j != i && d.Used == 0 && d.Capacity > 0 {
			dst = append(dst, t.Link(i, j))
		}
	}
	slices.SortFunc(dst, func(x, y Link) int { return int(y) - int(x) })
	return dst
}

// better reports whether a set rated q (with devices set) is better than one rated r (devices
// other), by the order chooseLinked documents.
func better(s *Strategy, q setQuality, set []int, r setQuality, other []int) bool {
	switch {
	case q.worst != r.worst:
		return q.worst > r.worst
	case q.sum != r.sum:
		return q.sum > r.sum
	case q.free != r.free:
		return s.before(q.free, r.free)
	default:
		return slices.Compare(set, other) < 0
	}
}

// bestSet returns k devices of cand (indices into devs, ascending, at least k of them) with the
// best links, by the order chooseLinked documents.
func bestSet(devs []Device, t *Links, cand []int, k int, s *Strategy) []int {
	if len(cand) == k {
		return slices.Clone(cand)
	}
	b := setSearch{devs: devs, t: t, cand: cand, k: k, s: s, budget: setSearchBudget}
	b.best, b.bestQ = b.greedy()
	for _, i := range cand {
		for _, j := range cand {
			b.maxLink = max(b.maxLink, t.Link(i, j))
		}
	}
	b.cur = make([]int, 0, k)
	b.search(0, 255, 0, 0)
	return b.best
}

// setSearch is a depth-first search over the sets of k candidates, in index order, that prunes
// partial sets that can no longer beat the best found.
type setSearch struct {
	devs    []Device
	t       *Links
	cand    []int
	k       int
	s       *Strategy
	maxLink Link
	budget  int

	cur   []int
	best  []int
	bestQ setQuality
}

func (b *setSearch) search(from int, worst Link, sum int, free int64) {
	if len(b.cur) == b.k {
		q := setQuality{worst: worst, sum: sum, free: free}
		if better(b.s, q, b.cur, b.bestQ, b.best) {
			b.best = append(b.best[:0], b.cur...)
			b.bestQ = q
		}
		return
	}
	need := b.k - len(b.cur)
	for x := from; x+need <= len(b.cand); x++ {
		if b.budget <= 0 {
			return
		}
		b.budget--
		i := b.cand[x]
		w, sm := worst, sum
		for _, j := range b.cur {
			l := b.t.Link(i, j)
			w = min(w, l)
			sm += int(l)
		}
		if w < b.bestQ.worst {
			continue
		}
		n := len(b.cur) + 1
		// The pairs still to come each add at most maxLink.
		if w == b.bestQ.worst && sm+(b.k*(b.k-1)-n*(n-1))/2*int(b.maxLink) < b.bestQ.sum {
			continue
		}
		b.cur = append(b.cur, i)
		b.search(x+1, w, sm, free+b.devs[i].Free())
		b.cur = b.cur[:len(b.cur)-1]
	}
}

// greedy grows a set from each of the first greedySeeds candidates, adding each time the
// candidate whose worst and then summed links to the set are best (the lowest index among
// equals), and returns the best set so grown.
func (b *setSearch) greedy() ([]int, setQuality) {
	var best []int
	var bestQ setQuality
	// On the stack for nodes of up to 16 GPUs.
	var (
		worstBuf [maxStackDevices * 2]Link
		sumBuf   [maxStackDevices * 2]int
		inBuf    [maxStackDevices * 2]bool
		setBuf   [maxStackDevices * 2]int
	)
	worstTo := append(worstBuf[:0], make([]Link, len(b.cand))...)
	sumTo := append(sumBuf[:0], make([]int, len(b.cand))...)
	in := append(inBuf[:0], make([]bool, len(b.cand))...)
	set := setBuf[:0]
	for seed := range min(len(b.cand), greedySeeds) {
		clear(in)
		for x := range b.cand {
			worstTo[x], sumTo[x] = 255, 0
		}
		set = set[:0]
		q := setQuality{worst: 255}
		add := func(x int) {
			i := b.cand[x]
			in[x] = true
			set = append(set, i)
			q.worst = min(q.worst, worstTo[x])
			q.sum += sumTo[x]
			q.free += b.devs[i].Free()
			for y, j := range b.cand {
				if !in[y] {
					l := b.t.Link(i, j)
					worstTo[y] = min(worstTo[y], l)
					sumTo[y] += int(l)
				}
			}
		}
		add(seed)
		for len(set) < b.k {
			next := -1
			for y := range b.cand {
				if in[y] {
					continue
				}
				if next < 0 || worstTo[y] > worstTo[next] || worstTo[y] == worstTo[next] && sumTo[y] > sumTo[next] {
					next = y
				}
			}
			add(next)
		}
		var sortBuf [maxStackDevices * 2]int
		sorted := append(sortBuf[:0], set...)
		slices.Sort(sorted)
		if best == nil || better(b.s, q, sorted, bestQ, best) {
			best, bestQ = append(best[:0], sorted...), q
		}
	}
	return best, bestQ
}

// WorstLink is the worst link among the GPUs of set, which has at least two: what berth ranks a
// set of GPUs by first.
func (t *Links) WorstLink(set []int) Link {
	w := Link(255)
	for x, i := range set {
		for _, j := range set[x+1:] {
			w = min(w, t.Link(i, j))
		}
	}
	return w
}

// linkScore is Score's rating of a placement on the devices chosen, given the strategy's rating.
// For several devices on a node with links it is the class of their worst link (0 for SYS to 5
// for any NV#) plus the strategy's rating, over the number of classes: a node offering a better
// connected set outranks every node offering a worse one. Otherwise it is the strategy's rating,
// unchanged: a node without links is neither credited nor penalised for links nobody stated.
func linkScore(devs []Device, chosen []int, rating float64) float64 {
	t := linksOf(devs)
	if t == nil || len(chosen) < 2 {
		return rating
	}
	return (float64(t.WorstLink(chosen).class()) + rating) / float64(linkClasses)
}
