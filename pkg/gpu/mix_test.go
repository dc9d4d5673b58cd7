package gpu

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// weightOf is the share of the view's weight that d has, 0 if it is not there.
func weightOf(v MixView, d PodShape) float64 {
	for _, c := range v.classes {
		if c.PodShape == d {
			return c.Weight
		}
	}
	return 0
}

func TestMixCounts(t *testing.T) {
	m := NewMix(8, 1e9) // a half-life long enough not to matter
	a, b := gpuDemand(1000, 4, one(8)), gpuDemand(2000, 8, many(2, 16))
	for range 3 {
		m.Observe(a)
	}
	m.Observe(b)
	m.Observe(gpuDemand(1000, 4, Request{})) // no GPU: not counted
	v := m.View()
	if v.Len() != 2 {
		t.Fatalf("the view holds %d kinds, want 2", v.Len())
	}
	if !near(weightOf(v, a), 0.75) || !near(weightOf(v, b), 0.25) {
		t.Errorf("weights %v and %v, want 0.75 and 0.25", weightOf(v, a), weightOf(v, b))
	}
	// A view is not changed by later observations.
	m.Observe(b)
	if !near(weightOf(v, b), 0.25) {
		t.Errorf("an earlier view changed to %v", weightOf(v, b))
	}
	if w := weightOf(m.View(), b); !near(w, 0.4) {
		t.Errorf("after one more: weight %v, want 0.4", w)
	}
}

func TestMixIsBounded(t *testing.T) {
	m := NewMix(4, 1e9)
	frequent := gpuDemand(1000, 4, one(8))
	for i := range 1000 {
		m.Observe(frequent)
		m.Observe(gpuDemand(int64(i), 0, one(1))) // a new kind every time
	}
	v := m.View()
	if v.Len() != 4 {
		t.Errorf("the view holds %d kinds, want the limit of 4", v.Len())
	}
	if len(m.index) != len(m.classes) || len(m.classes) > 4 {
		t.Errorf("the table holds %d kinds and indexes %d, want at most 4 and the same", len(m.classes), len(m.index))
	}
	// Space-Saving keeps a kind that is half of all observations, whatever the churn.
	if w := weightOf(v, frequent); w < 0.3 {
		t.Errorf("the frequent kind weighs %v, want about half", w)
	}
}

func TestMixForgets(t *testing.T) {
	m := NewMix(8, 100)
	old, cur := gpuDemand(1000, 4, one(8)), gpuDemand(1000, 4, one(4))
	for range 1000 {
		m.Observe(old)
	}
	for range 300 {
		m.Observe(cur)
	}
	// Everything observed until three half-lives ago weighs 2^-3 of all: 0.125.
	w := weightOf(m.View(), old)
	if w < 0.11 || w > 0.14 {
		t.Errorf("the old kind weighs %v after three half-lives, want about 0.125", w)
	}
	// Past the rescale the weights stay finite and in proportion.
	for range 200_000 {
		m.Observe(cur)
	}
	if w := weightOf(m.View(), cur); !(w > 0.99 && w <= 1) {
		t.Errorf("after 200000 more of the current kind it weighs %v, want nearly all", w)
	}
}

func TestMixConcurrent(t *testing.T) {
	m := NewMix(16, 50)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				m.Observe(gpuDemand(int64(g*1000+i%40), 0, one(1+int64(i%7))))
				if i%10 == 0 {
					v := m.View()
					var sum float64
					for _, c := range v.classes {
						sum += c.Weight
					}
					if !near(sum, 1) {
						t.Errorf("a view's weights add up to %v", sum)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// Pods of one shape restricted to different GPU models are one kind: the models take no slot of
// the table, and the view knows how much of the kind each model may run.
func TestMixKeepsModelsWithinKinds(t *testing.T) {
	m := NewMix(2, 1e9)
	shape := gpuDemand(1000, 4, one(8))
	restricted := func(models string) PodShape { d := shape; d.GPUModels = models; return d }
	for range 2 {
		m.Observe(shape)
	}
	for range 5 {
		m.Observe(restricted("T4"))
	}
	m.Observe(restricted("T4|V100"))
	m.Observe(gpuDemand(2000, 8, many(2, 16)))
	v := m.View()
	if v.Len() != 2 {
		t.Fatalf("the view holds %d kinds, want 2 (one shape, with its models, and the other)", v.Len())
	}
	// 9 observations: the shape 8 of them (2 anywhere, 5 on T4, 1 on T4 or V100).
	k := slices.IndexFunc(v.classes, func(c MixClass) bool { return c.PodShape == shape })
	for _, tt := range []struct {
		model          string
		runs, excluded float64
	}{{"T4", 8.0 / 9, 0}, {"V100", 3.0 / 9, 5.0 / 9}, {"A10", 2.0 / 9, 6.0 / 9}, {"", 2.0 / 9, 6.0 / 9}} {
		if w := v.on(tt.model); !near(w.runs[k], tt.runs) || !near(w.excluded, tt.excluded) {
			t.Errorf("on %q the shape runs %v and %v is excluded, want %v and %v", tt.model, w.runs[k], w.excluded, tt.runs, tt.excluded)
		}
	}
	// Sets of models past modelSetsPerKind are bounded as kinds are; a set that is a large part
	// of the kind's restricted pods stays.
	for i := range 3 * modelSetsPerKind {
		m.Observe(restricted(fmt.Sprintf("M%d", i)))
	}
	if sets := len(m.models[m.index[shape]]); sets > modelSetsPerKind {
		t.Errorf("the kind keeps %d sets of models, want at most %d", sets, modelSetsPerKind)
	}
	v = m.View()
	k = slices.IndexFunc(v.classes, func(c MixClass) bool { return c.PodShape == shape })
	if w := v.on("T4"); w.runs[k] < 7.0/33-1e-6 {
		t.Errorf("after the churn of sets, on a T4 the shape runs %v, want at least the 7/33 of its pods that may", w.runs[k])
	}
}
