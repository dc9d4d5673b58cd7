package dra

import (
	"context"
	"strings"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/gpu"
)

// maxSelectorSets bounds the selector results a Layout keeps: classes and claims name few sets of
// selectors, but a class edited often would otherwise grow the cache for as long as the slices
// stay the same.
const maxSelectorSets = 64

// LayoutCache keeps the part of the inventory that the slices alone decide (GPUs, devices, their
// memory, which devices a request's selectors match) for as long as the listed slices are the
// same, so that scoring a pod costs one pass over the claims instead of a rebuild of everything.
//
// The claims are never cached: the scheduler's claim tracker holds allocations in flight in
// memory, which no informer event announces, and a pod's score must count the pods placed just
// before it. Whether the slices are the same is read from the slices listed, not from informer
// events, which reach handlers only after the lister has the new slice.
type LayoutCache struct {
	m  *Matcher
	mu sync.Mutex
	l  *Layout
}

// NewLayoutCache returns a cache evaluating selectors with m, for m's driver.
func NewLayoutCache(m *Matcher) *LayoutCache {
	return &LayoutCache{m: m}
}

// Layout is the inventory of a set of slices with no claim counted. It is never written after it
// is built, except for its selector results, behind mu.
type Layout struct {
	m        *Matcher
	nodes    map[string]*NodeGPUs
	byDevice map[DeviceID]deviceRef
	// from is what it was built of, by slice name; nil when the slices lack resource versions
	// (objects that never went through an API server), which are never taken as the same.
	from map[string]sliceVersion

	mu sync.Mutex
	// matches is, by selectors, whether each device (by GPU, then index) matches them.
	matches map[string]map[*GPU][]bool
}

type sliceVersion struct {
	uid             types.UID
	resourceVersion string
}

// Snapshot is a Layout with what the claims take of its GPUs at one moment: the GPUs Inventory
// would build of the same slices and claims, without the holders.
type Snapshot struct {
	layout    *Layout
	used      map[*GPU]int64
	allocated map[deviceRef]bool
}

// Listed is a Snapshot of what the scheduler's shared DRA manager lists, allocations in flight
// included, as Listed (the function) reads them.
func (c *LayoutCache) Listed(m fwk.SharedDRAManager) (*Snapshot, error) {
	slices, claims, err := listed(m)
	if err != nil {
		return nil, err
	}
	return c.Snapshot(slices, claims), nil
}

// Snapshot counts claims against the layout of slices, built anew only if slices differ from
// those the cached layout was built of.
func (c *LayoutCache) Snapshot(slices []*resourceapi.ResourceSlice, claims []*resourceapi.ResourceClaim) *Snapshot {
	c.mu.Lock()
	l := c.l
	if l == nil || !l.builtFrom(slices) {
		l = c.newLayout(slices)
		c.l = l
	}
	c.mu.Unlock()

	s := &Snapshot{layout: l, used: map[*GPU]int64{}, allocated: map[deviceRef]bool{}}
	cfg := c.m.cfg
	for _, claim := range claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for i := range claim.Status.Allocation.Devices.Results {
			if ref, memory, ok := consumes(cfg, l.byDevice, &claim.Status.Allocation.Devices.Results[i]); ok {
				s.allocated[ref] = true
				s.used[ref.gpu] += memory
			}
		}
	}
	return s
}

func (c *LayoutCache) newLayout(slices []*resourceapi.ResourceSlice) *Layout {
	cfg := c.m.cfg
	nodes, byDevice, _ := build(cfg, slices)
	l := &Layout{m: c.m, nodes: nodes, byDevice: byDevice, from: map[string]sliceVersion{}, matches: map[string]map[*GPU][]bool{}}
	for _, s := range slices {
		if s.Spec.Driver != cfg.Driver {
			continue
		}
		if s.ResourceVersion == "" {
			l.from = nil
			break
		}
		l.from[s.Name] = sliceVersion{s.UID, s.ResourceVersion}
	}
	return l
}

// builtFrom reports whether slices are, for the driver, the very slices l was built of.
func (l *Layout) builtFrom(slices []*resourceapi.ResourceSlice) bool {
	if l.from == nil {
		return false
	}
	n := 0
	for _, s := range slices {
		if s.Spec.Driver != l.m.cfg.Driver {
			continue
		}
		n++
		if v, ok := l.from[s.Name]; !ok || v != (sliceVersion{s.UID, s.ResourceVersion}) {
			return false
		}
	}
	return n == len(l.from)
}

// matchesOf is whether each device matches r's selectors, evaluated once per layout: a device's
// attributes and capacity change only with a new slice, hence a new layout. Results computed
// while ctx was ending are not kept: a selector cut short reads as no match.
func (l *Layout) matchesOf(ctx context.Context, r *DeviceRequest) map[*GPU][]bool {
	key := strings.Join(r.Selectors, "\x00")
	l.mu.Lock()
	got, ok := l.matches[key]
	l.mu.Unlock()
	if ok {
		return got
	}
	got = map[*GPU][]bool{}
	for _, n := range l.nodes {
		for _, g := range n.GPUs {
			v := make([]bool, len(g.Devices))
			for i := range g.Devices {
				v[i] = l.m.Matches(ctx, r, &g.Devices[i])
			}
			got[g] = v
		}
	}
	if ctx.Err() == nil {
		l.mu.Lock()
		if len(l.matches) >= maxSelectorSets {
			clear(l.matches)
		}
		l.matches[key] = got
		l.mu.Unlock()
	}
	return got
}

// Has reports whether node has GPUs of the driver.
func (s *Snapshot) Has(node string) bool { return s.layout.nodes[node] != nil }

// AsksForGPUs is Matcher.AsksForGPUs over the snapshot's nodes.
func (s *Snapshot) AsksForGPUs(ctx context.Context, r *DeviceRequest) bool {
	for _, v := range s.layout.matchesOf(ctx, r) {
		for _, ok := range v {
			if ok {
				return true
			}
		}
	}
	return false
}

// View is Matcher.View of node's GPUs in the snapshot; ok is false for a node without GPUs.
func (s *Snapshot) View(ctx context.Context, node string, r *DeviceRequest) (devs []gpu.Device, req gpu.Request, ok bool) {
	n := s.layout.nodes[node]
	if n == nil {
		return nil, gpu.Request{}, false
	}
	matches := s.layout.matchesOf(ctx, r)
	return view(n, r, s.layout.m.cfg,
		func(g *GPU) int64 { return s.used[g] },
		func(g *GPU, i int) bool { return s.allocated[deviceRef{g, i}] },
		func(g *GPU, i int) bool { return matches[g][i] })
}
