package gpu

import (
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
