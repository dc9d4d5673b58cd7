package gpushare

import (
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/gpu"
)

// nodeViews remembers each node's GPUs as the scheduler's snapshot shows them, so that the work of
// reading them is done once per change rather than once per pod and node:
//   - a node's GPU capacity is parsed once per change of its GPU fields, not per Node object
//     (a heartbeat or a label change brings a new object every few seconds);
//   - a node's devices with its pods' shares are worked out once per NodeInfo generation, which
//     the scheduler bumps whenever the node or its pods change, and are then shared by Filter,
//     Score and Reserve, which therefore count every pod, nominated ones included, the same way.
//
// It is a memo of pure functions of its inputs, so Filter and Score stay free of side effects that
// anyone could observe.
//
// Filter and Score ask about each of hundreds of nodes for every pod, from many goroutines at once.
// Finding a node by name under a lock cost them more than the rest of their work together (a
// profile of the benchmark: cache misses on the Node's name and the map, and the lock's cache line
// moving between cores), so the devices of recent generations are found first by the generation
// alone, which the scheduler draws from one process-wide counter, in one array without a lock.
// They are kept in the array itself, not behind a pointer: in the scheduler's large heap each
// pointer followed to a view stored a while ago was a miss of the processor's caches, about 0.3 µs
// a node in the benchmark, most of what Filter and Score cost.
type nodeViews struct {
	res      gpu.ResourceNames
	devices  *deviceCache
	strategy *gpu.Strategy

	// recent holds the devices of recent NodeInfo generations, each in the slot its generation
	// picks; a generation that finds its slot taken by another is looked up by name instead.
	recent [recentSlots]recentSlot

	mu sync.Mutex
	m  map[string]*nodeView
}

// recentSlots is the number of slots of nodeViews.recent: a power of two, and more than the nodes of
// a large cluster, so that few of their current generations share a slot.
const recentSlots = 1 << 14

// slotDevices is the most GPUs a node may have for its devices to be kept in a slot; the devices
// of nodes with more are found by name.
const slotDevices = 8

// deviceBuf is where devicesOn copies a node's devices out of a slot: the caller's, on its stack.
type deviceBuf [slotDevices]gpu.Device

// recentSlot is the devices of one NodeInfo generation, written by one writer at a time and read
// without a lock: seq is odd while a writer fills the slot, and a reader that sees the same even
// seq before and after reading the other fields has read what one writer stored.
type recentSlot struct {
	seq        atomic.Uint64
	generation atomic.Int64
	node       atomic.Pointer[v1.Node]
	n          atomic.Int64
	capacity   [slotDevices]atomic.Int64
	used       [slotDevices]atomic.Int64
	links      atomic.Pointer[gpu.Links]
}

// load copies the slot's devices into buf if it holds those of generation gen of node.
func (s *recentSlot) load(gen int64, node *v1.Node, buf *deviceBuf) ([]gpu.Device, bool) {
	seq := s.seq.Load()
	if seq&1 != 0 || s.generation.Load() != gen || s.node.Load() != node {
		return nil, false
	}
	n := min(int(s.n.Load()), slotDevices)
	links := s.links.Load()
	for i := range n {
		buf[i] = gpu.Device{Capacity: s.capacity[i].Load(), Used: s.used[i].Load(), Links: links}
	}
	if s.seq.Load() != seq {
		return nil, false
	}
	return buf[:n], true
}

// store keeps devs as the devices of generation gen of node, unless another writer is filling the
// slot: it is a cache, and the next call works them out again.
func (s *recentSlot) store(gen int64, node *v1.Node, devs []gpu.Device) {
	seq := s.seq.Load()
	if seq&1 != 0 || !s.seq.CompareAndSwap(seq, seq+1) {
		return
	}
	s.generation.Store(gen)
	s.node.Store(node)
	s.n.Store(int64(len(devs)))
	var links *gpu.Links // the same for every device of the node
	if len(devs) > 0 {
		links = devs[0].Links
	}
	s.links.Store(links)
	for i, d := range devs {
		s.capacity[i].Store(d.Capacity)
		s.used[i].Store(d.Used)
	}
	s.seq.Store(seq + 2)
}

type nodeView struct {
	// node is the Node object capacity was read from, or a later one with the same GPU fields.
	node     *v1.Node
	capacity []int64
	// links is how the GPUs of capacity are linked (gpu.LinksOf), nil if unknown.
	links *gpu.Links
	// devs are the devices of the NodeInfo of this generation; callers must not change them.
	generation int64
	devs       []gpu.Device
}

func newNodeViews(res gpu.ResourceNames, devices *deviceCache, strategy *gpu.Strategy) *nodeViews {
	return &nodeViews{res: res, devices: devices, strategy: strategy, m: map[string]*nodeView{}}
}

// capacity returns the memory of each of the node's GPUs (gpu.DevicesOf).
func (v *nodeViews) capacity(node *v1.Node) []int64 {
	if node == nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.entry(node).capacity
}

// devicesOn returns the node's devices with the shares of the pods nodeInfo holds, in buf or in a
// slice shared with other callers: read the result, never change it.
func (v *nodeViews) devicesOn(nodeInfo fwk.NodeInfo, buf *deviceBuf) []gpu.Device {
	node, gen := nodeInfo.Node(), nodeInfo.GetGeneration()
	if node == nil {
		// A NodeInfo whose Node is gone, which the scheduler does not offer: no GPUs.
		return nil
	}
	if gen == 0 {
		return v.devicesByName(nodeInfo, node, gen)
	}
	slot := &v.recent[gen&(recentSlots-1)]
	if devs, ok := slot.load(gen, node, buf); ok {
		return devs
	}
	devs := v.devicesByName(nodeInfo, node, gen)
	if len(devs) <= slotDevices {
		slot.store(gen, node, devs)
	}
	return devs
}

// devicesByName is devicesOn for a generation not found among the recent ones.
func (v *nodeViews) devicesByName(nodeInfo fwk.NodeInfo, node *v1.Node, gen int64) []gpu.Device {
	v.mu.Lock()
	e := v.entry(node)
	if e.generation == gen && e.generation != 0 {
		devs := e.devs
		v.mu.Unlock()
		return devs
	}
	capacity, links := e.capacity, e.links
	v.mu.Unlock()

	devs := v.devices.DevicesOn(node.Name, capacity, links, func(yield func(*v1.Pod) bool) {
		for _, pi := range nodeInfo.GetPods() {
			if !yield(pi.GetPod()) {
				return
			}
		}
	}, v.strategy)

	v.mu.Lock()
	defer v.mu.Unlock()
	// The last NodeInfo asked about is the likeliest to be asked about again. Preemption's dry
	// runs replace it with their copies for a while; the scheduler's own comes back after them.
	e = v.entry(node)
	e.generation, e.devs = gen, devs
	return devs
}

// entry returns the node's entry, reading its GPUs again if the object brings other GPU fields.
// v.mu is held.
func (v *nodeViews) entry(node *v1.Node) *nodeView {
	e, ok := v.m[node.Name]
	switch {
	case !ok:
		e = &nodeView{}
		v.m[node.Name] = e
	case e.node == node:
		return e
	case !gpu.NodeChanged(e.node, node, v.res):
		e.node = node
		return e
	}
	// Malformed GPU information is reported by the device cache's node handler; the capacity
	// DevicesOf falls back to still applies, and a node with a malformed links has none.
	e.node = node
	e.capacity, _ = gpu.DevicesOf(node, v.res)
	e.links, _ = gpu.LinksOf(node, len(e.capacity))
	e.generation, e.devs = 0, nil
	return e
}

// forget drops a deleted node's entry.
func (v *nodeViews) forget(name string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.m, name)
}
