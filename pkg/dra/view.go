package dra

import (
	"context"

	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/berth-sched/berth/pkg/gpu"
)

// Matcher evaluates requests' CEL selectors against devices, with compiled expressions cached.
// It is safe for concurrent use.
type Matcher struct {
	cfg   Config
	cache *cel.Cache
}

// NewMatcher returns a Matcher for cfg's driver.
func NewMatcher(cfg Config) *Matcher {
	return &Matcher{cfg: cfg, cache: cel.NewCache(100, cel.Features{EnableConsumableCapacity: true})}
}

// Config is the Matcher's.
func (m *Matcher) Config() Config { return m.cfg }

// Matches reports whether dev satisfies every selector of r. A selector that does not compile, or
// fails on this device (an attribute it lacks), does not match: the allocator would not pick the
// device either.
func (m *Matcher) Matches(ctx context.Context, r *DeviceRequest, dev *Device) bool {
	if dev.Slice == nil {
		return false
	}
	in := cel.Device{Driver: dev.ID.Driver, AllowMultipleAllocations: dev.Slice.AllowMultipleAllocations,
		Attributes: dev.Slice.Attributes, Capacity: dev.Slice.Capacity}
	for _, expr := range r.Selectors {
		c := m.cache.GetOrCompile(expr)
		if c.Error != nil {
			return false
		}
		ok, _, err := c.DeviceMatches(ctx, in)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// AsksForGPUs reports whether r matches a device of any GPU of nodes: requests for other devices
// (NICs, other drivers) are none of GPUShare's business.
func (m *Matcher) AsksForGPUs(ctx context.Context, r *DeviceRequest, nodes map[string]*NodeGPUs) bool {
	for _, n := range nodes {
		for _, g := range n.GPUs {
			for i := range g.Devices {
				if m.Matches(ctx, r, &g.Devices[i]) {
					return true
				}
			}
		}
	}
	return false
}

// View presents the node's GPUs to request r in package gpu's shape, so that the strategies that
// score gpushare devices score DRA devices too: one gpu.Device per GPU with a device matching r,
// and r as a gpu.Request. Whole-device requests are counted in devices (each GPU of capacity 1,
// used if any claim holds it), shares and partitions in bytes of memory. A GPU whose matching
// devices are all taken, or too full for the share, is shown full. ok is false when no GPU of
// the node has a device matching r.
func (m *Matcher) View(ctx context.Context, n *NodeGPUs, r *DeviceRequest) (devs []gpu.Device, req gpu.Request, ok bool) {
	return view(n, r, m.cfg,
		func(g *GPU) int64 { return g.Used },
		func(g *GPU, i int) bool { return g.Devices[i].Allocated },
		func(g *GPU, i int) bool { return m.Matches(ctx, r, &g.Devices[i]) })
}

// view is View with what the claims take of each GPU (used, allocated) and which devices match r
// (matches) read through functions, so that a Snapshot's cached layout is viewed the same way.
func view(n *NodeGPUs, r *DeviceRequest, cfg Config, used func(g *GPU) int64, allocated, matches func(g *GPU, i int) bool) (devs []gpu.Device, req gpu.Request, ok bool) {
	type candidate struct {
		g      *GPU
		demand int64 // the least the request takes of g, 0 if g cannot take it now
	}
	var cands []candidate
	whole := true
	for _, g := range n.GPUs {
		matched := false
		var demand int64
		for i := range g.Devices {
			d := &g.Devices[i]
			if !matches(g, i) {
				continue
			}
			matched = true
			take, fits := Share(d, cfg, r.Memory)
			if !fits || (allocated(g, i) && !d.Shared) || take > max(g.Memory-used(g), 0) {
				continue
			}
			if demand == 0 || take < demand {
				demand = take
			}
		}
		if !matched {
			continue
		}
		if demand != 0 && demand != g.Memory {
			whole = false
		}
		cands = append(cands, candidate{g, demand})
	}
	if len(cands) == 0 {
		return nil, gpu.Request{}, false
	}
	count := r.Count
	if r.All {
		count = int64(len(cands))
	}
	devs = make([]gpu.Device, len(cands))
	if whole {
		for i, c := range cands {
			devs[i] = gpu.Device{Capacity: 1, Used: 1}
			if c.demand != 0 && used(c.g) == 0 {
				devs[i].Used = 0
			}
		}
		return devs, gpu.Request{Count: int(count), PerDevice: 1, Total: count}, true
	}
	var per int64
	for _, c := range cands {
		if c.demand != 0 && (per == 0 || c.demand < per) {
			per = c.demand
		}
	}
	for i, c := range cands {
		devs[i] = gpu.Device{Capacity: c.g.Memory, Used: used(c.g)}
		if c.demand == 0 {
			devs[i].Used = c.g.Memory
		}
	}
	if per == 0 {
		// Nothing fits now; the largest share anyone could ask, so that the view says so.
		per = 1
		for _, c := range cands {
			per = max(per, c.g.Memory)
		}
	}
	return devs, gpu.Request{Count: int(count), PerDevice: per, Total: per * count}, true
}

// LeastTake is the least that r takes of a GPU's memory on any device of nodes that matches it,
// as the allocator takes it: a share (r.Memory) rounded by the device's request policy, the
// policy's default share when r names none, a device held whole (or a partition) its memory.
// ok is false when no device matches r or takes it.
func (m *Matcher) LeastTake(ctx context.Context, r *DeviceRequest, nodes map[string]*NodeGPUs) (least int64, ok bool) {
	for _, n := range nodes {
		for _, g := range n.GPUs {
			for i := range g.Devices {
				d := &g.Devices[i]
				if !m.Matches(ctx, r, d) {
					continue
				}
				if take, fits := Share(d, m.cfg, r.Memory); fits && (!ok || take < least) {
					least, ok = take, true
				}
			}
		}
	}
	return least, ok
}

// DeviceMemory is what holding device id whole takes of its GPU's memory (the Config's capacity
// of nodes): its capacity, or a partition's counter. ok is false when nodes do not have it.
func DeviceMemory(nodes map[string]*NodeGPUs, id DeviceID) (int64, bool) {
	for _, n := range nodes {
		for _, g := range n.GPUs {
			if g.Pool != id.Pool {
				continue
			}
			for _, d := range g.Devices {
				if d.ID == id {
					return d.Memory, true
				}
			}
		}
	}
	return 0, false
}
