// Package normalize maps plugins' raw node scores onto the framework's score range. Score
// plugins whose raw scores have no natural bound (NodeResourcesAllocatable, PodState) share it, so
// the mapping is written and tested once.
package normalize

import (
	"math/bits"

	fwk "k8s.io/kube-scheduler/framework"
)

// MinMax maps the scores linearly onto [MinNodeScore, MaxNodeScore]: the lowest raw score gets
// MinNodeScore, the highest MaxNodeScore, and the rest are truncated towards MinNodeScore, as in
// scheduler-plugins. When all are equal the plugin tells the nodes apart in no way, and every node
// gets MinNodeScore. Raw scores may be anywhere in int64: the arithmetic is exact, in 128 bits.
func MinMax(scores fwk.NodeScoreList) {
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
			scores[i].Score = fwk.MinNodeScore
			continue
		}
		d := uint64(scores[i].Score) - uint64(lo)
		// d <= span, so d*(Max-Min) / span fits and Div64 cannot panic.
		h, l := bits.Mul64(d, uint64(fwk.MaxNodeScore-fwk.MinNodeScore))
		q, _ := bits.Div64(h, l, span)
		scores[i].Score = fwk.MinNodeScore + int64(q)
	}
}
