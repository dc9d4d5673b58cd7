package gpu

import (
	"math"
	"slices"
	"sync"
)

// Mix learns the mix of GPU requests from the pods a scheduler sees, for the fragmentation
// measure. It keeps at most Limit kinds of request (exact shapes: cpu, memory and GPU), each with
// a weight that decays by half every HalfLife observations, so the mix follows a workload that
// changes and a rare kind seen long ago fades out. Within each kind it keeps, the same way, how
// much of its weight pods restricted to GPU models bring, by set of models (at most
// modelSetsPerKind sets; the rest runs on any model): the models decide where a kind may run, not
// what fragments a node's GPUs for it, so they do not multiply the kinds (MixView).
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
	classes []MixClass // GPUModels "": the kinds' shapes and all their weight
	// models[i] is the part of classes[i].Weight that pods restricted to GPU models brought, by
	// set of models (GPUModels set, same shape).
	models [][]MixClass
	view   MixView
	stale  bool
}

// modelSetsPerKind bounds the sets of GPU models kept within one kind of request. On Alibaba's
// trace with a third of its GPU pods restricted (gpuspec33), a frequent shape comes with up to 15
// sets, of which a few carry most of its restricted pods.
const modelSetsPerKind = 8

// The defaults. Scoring a node costs time in proportion to the kinds kept. Alibaba's GPU-sharing
// trace has 126 kinds of GPU request (the 16 most frequent make 74% of its GPU pods, 64 make 98%), yet its replay
// (test/placement, TestTraceReplay) placed as many GPUs with 16 kinds kept as with 64, within the
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
	models := d.GPUModels
	d.GPUModels = ""
	i, ok := m.index[d]
	switch {
	case ok:
		m.classes[i].Weight += m.inc
	case len(m.classes) < m.limit:
		i = len(m.classes)
		m.index[d] = i
		m.classes = append(m.classes, MixClass{PodShape: d, Weight: m.inc})
		m.models = append(m.models, nil)
	default:
		i = lightest(m.classes)
		delete(m.index, m.classes[i].PodShape)
		m.index[d] = i
		// The weight taken over is of pods of another shape, whose models say nothing of this one:
		// it counts as running anywhere.
		m.classes[i] = MixClass{PodShape: d, Weight: m.classes[i].Weight + m.inc}
		m.models[i] = m.models[i][:0]
	}
	if models != "" {
		m.models[i] = observeModels(m.models[i], PodShape{MilliCPU: d.MilliCPU, Memory: d.Memory, GPU: d.GPU, GPUModels: models}, m.inc)
	}
	m.inc *= m.growth
	if m.inc > rescaleAbove {
		for i := range m.classes {
			m.classes[i].Weight /= m.inc
			for j := range m.models[i] {
				m.models[i][j].Weight /= m.inc
			}
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
		var classes []MixClass
		for i, c := range m.classes {
			for _, r := range m.models[i] {
				// Space-Saving may have counted more of a set than the kind holds.
				r.Weight = min(r.Weight, c.Weight)
				c.Weight -= r.Weight
				classes = append(classes, r)
			}
			classes = append(classes, c)
		}
		m.view = NewMixView(classes)
		m.stale = false
	}
	return m.view
}

// lightest is the index of the class of least weight.
func lightest(classes []MixClass) int {
	l := 0
	for i, c := range classes {
		if c.Weight < classes[l].Weight {
			l = i
		}
	}
	return l
}

// observeModels adds w to the set of models of d among sets, Space-Saving bounded to
// modelSetsPerKind sets as the kinds are.
func observeModels(sets []MixClass, d PodShape, w float64) []MixClass {
	if j := slices.IndexFunc(sets, func(c MixClass) bool { return c.GPUModels == d.GPUModels }); j >= 0 {
		sets[j].Weight += w
		return sets
	}
	if len(sets) < modelSetsPerKind {
		return append(sets, MixClass{PodShape: d, Weight: w})
	}
	j := lightest(sets)
	sets[j] = MixClass{PodShape: d, Weight: sets[j].Weight + w}
	return sets
}
