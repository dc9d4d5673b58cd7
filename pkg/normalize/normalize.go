// Package normalize maps plugins' raw node scores onto the framework's score range. Every berth
// score plugin (GPUShare, NodeResourcesAllocatable, PodState) uses it, so the mapping and its tie
// rule are written and tested once.
package normalize

import (
	"math/bits"
	"slices"

	fwk "k8s.io/kube-scheduler/framework"
)

// MinMax maps the scores linearly onto [MinNodeScore, MaxNodeScore]: the lowest raw score gets
// MinNodeScore, the highest MaxNodeScore, and the rest are truncated towards MinNodeScore, as in
// scheduler-plugins. Raw scores may be anywhere in int64: the arithmetic is exact, in 128 bits.
//
// The tie rule: when all raw scores are equal (one node included) the plugin tells the nodes apart
// in no way, and every node gets the caller's equal. Which value that is changes no placement,
// since every node gets the same; it shows only in the scores the scheduler reports.
// NodeResourcesAllocatable and PodState give MinNodeScore, GPUShare MaxNodeScore.
func MinMax(scores fwk.NodeScoreList, equal int64) {
	if len(scores) == 0 {
		return
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, s := range scores[1:] {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	// Differences of int64s fit in uint64; unsigned wrap-around gives them exactly.
	span := uint64(hi) - uint64(lo)
	for i := range scores {
		if span == 0 {
			scores[i].Score = equal
			continue
		}
		d := uint64(scores[i].Score) - uint64(lo)
		// d <= span, so d*(Max-Min) / span fits and Div64 cannot panic.
		h, l := bits.Mul64(d, uint64(fwk.MaxNodeScore-fwk.MinNodeScore))
		q, _ := bits.Div64(h, l, span)
		scores[i].Score = fwk.MinNodeScore + int64(q)
	}
}

// Rank maps the scores by their rank: the nodes with the highest raw score get MaxNodeScore, those
// with the next highest distinct raw score one less, and so on, down to MinNodeScore for every
// node past the hundredth distinct raw score. Only the order of the raw scores counts, not their
// distances: GPUShare's Fragmentation strategy uses it, whose costs can differ by a whole GPU on
// one node and by a sliver on the rest, where MinMax would squeeze the good nodes into the same
// few points and leave the choice among them to the other plugins and to chance.
//
// The tie rule: nodes with equal raw scores get equal scores, and a tie takes one rank, so the
// next lower raw score is one point below it however many nodes tie. All equal (one node
// included) is all MaxNodeScore.
func Rank(scores fwk.NodeScoreList) {
	distinct := make([]int64, len(scores))
	for i, s := range scores {
		distinct[i] = s.Score
	}
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	for i := range scores {
		below, _ := slices.BinarySearch(distinct, scores[i].Score)
		scores[i].Score = max(fwk.MaxNodeScore-int64(len(distinct)-1-below), fwk.MinNodeScore)
	}
}
