package gpu

import (
	"math"
	"sync"
)

// Mix learns the mix of GPU requests from the pods a scheduler sees, for the fragmentation
// measure. It keeps at most Limit kinds of request (exact demands: cpu, memory and GPU), each with
// a weight that decays by half every HalfLife observations, so the mix follows a workload that
// changes and a rare kind seen long ago fades out.
//
// Its memory is bounded the way the Space-Saving algorithm (Metwally et al., 2005) bounds a count
// of frequent items: a new kind, when the table is full, takes the slot of the lightest kind and
// its weight. A kind that is really frequent is never lost that way; a rare one may be counted
// under a rare neighbour's weight, which changes the measure little since rare kinds weigh little.
// An observation costs a map look-up, and a scan of the table when a new kind arrives to a full
// table. Mix is safe for concurrent use.
type Mix struct {
	mu      sync.Mutex
	limit   int
	growth  float64 // what inc is multiplied by at each observation
	inc     float64 // the weight the next observation adds
	index   map[PodShape]int
	classes []MixClass
	view    MixView
	stale   bool
}

// The defaults. Scoring a node costs time in proportion to the kinds kept. Alibaba's GPU-sharing
// trace has 126 kinds of GPU request (the 16 most frequent make 74% of its GPU pods, 64 make 98%), yet its replay
// (test/bench, TestTraceReplay) placed as many GPUs with 16 kinds kept as with 64, within the
// spread over seeds, at a quarter of the cost: the kinds that decide where fragments form are the
// frequent ones. A half-life of some thousands of pods follows a cluster's workload over hours, not
// pod by pod.
const (
	DefaultMixLimit    = 16
	DefaultMixHalfLife = 4096
)

// NewMix returns an empty mix of at most limit kinds with the given half-life in observations.
func NewMix(limit int, halfLife float64) *Mix {
	limit = max(limit, 1)
	return &Mix{
		limit:  limit,
		growth: math.Exp2(1 / math.Max(halfLife, 1)),
		inc:    1,
		index:  make(map[PodShape]int, limit),
	}
}

// rescaleAbove keeps weights finite: decaying every weight at every observation would cost a pass
// over the table, so the increment grows instead, and all are scaled down once it gets large.
const rescaleAbove = 1e100

// Observe counts one pod's demand. Pods that ask for no GPU are not counted: they are not what
// fragments GPUs (their harm shows as the cpu and memory they take from GPU requests).
func (m *Mix) Observe(d PodShape) {
	if d.GPU.Total <= 0 || d.GPU.Count <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stale = true
	if i, ok := m.index[d]; ok {
		m.classes[i].Weight += m.inc
	} else if len(m.classes) < m.limit {
		m.index[d] = len(m.classes)
		m.classes = append(m.classes, MixClass{PodShape: d, Weight: m.inc})
	} else {
		lightest := 0
		for i, c := range m.classes {
			if c.Weight < m.classes[lightest].Weight {
				lightest = i
			}
		}
		delete(m.index, m.classes[lightest].PodShape)
		m.index[d] = lightest
		m.classes[lightest] = MixClass{PodShape: d, Weight: m.classes[lightest].Weight + m.inc}
	}
	m.inc *= m.growth
	if m.inc > rescaleAbove {
		for i := range m.classes {
			m.classes[i].Weight /= m.inc
		}
		m.inc = 1
	}
}

// View is the mix as it stands, to score a scheduling cycle's nodes against. It is rebuilt only
// after new observations, and the view returned is never changed afterwards: take it once per cycle
// (PreScore), not once per node.
func (m *Mix) View() MixView {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stale {
		m.view = NewMixView(m.classes)
		m.stale = false
	}
	return m.view
}
