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
// moving between cores), so the views of recent generations are found first by the generation
// alone, which the scheduler draws from one process-wide counter: one atomic load, no lock.
type nodeViews struct {
	res      gpu.Resources
	devices  *deviceCache
	strategy *gpu.Strategy

	// recent holds the devices of recent NodeInfo generations, each in the slot its generation
	// picks; a generation that finds its slot taken by another is looked up by name instead.
	recent [recentSlots]atomic.Pointer[recentView]

	mu sync.Mutex
	m  map[string]*nodeView
}

// recentSlots is the number of slots of nodeViews.recent: a power of two, and more than the nodes of
// a large cluster, so that few of their current generations share a slot.
const recentSlots = 1 << 14

// recentView is the devices of one NodeInfo generation; it is never changed once stored.
type recentView struct {
	generation int64
	node       *v1.Node
	devs       []gpu.Device
}

type nodeView struct {
	// node is the Node object capacity was read from, or a later one with the same GPU fields.
	node     *v1.Node
	capacity []int64
	// devs are the devices of the NodeInfo of this generation; callers must not change them.
	generation int64
	devs       []gpu.Device
}

func newNodeViews(res gpu.Resources, devices *deviceCache, strategy *gpu.Strategy) *nodeViews {
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

// devicesOn returns the node's devices with the shares of the pods nodeInfo holds. The result is
// shared: read it, never change it.
func (v *nodeViews) devicesOn(nodeInfo fwk.NodeInfo) []gpu.Device {
	node, gen := nodeInfo.Node(), nodeInfo.GetGeneration()
	if node == nil {
		// A NodeInfo whose Node is gone, which the scheduler does not offer: no GPUs.
		return nil
	}
	if gen == 0 {
		return v.devicesByName(nodeInfo, node, gen)
	}
	slot := &v.recent[gen&(recentSlots-1)]
	if r := slot.Load(); r != nil && r.generation == gen && r.node == node {
		return r.devs
	}
	devs := v.devicesByName(nodeInfo, node, gen)
	slot.Store(&recentView{generation: gen, node: node, devs: devs})
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
	capacity := e.capacity
	v.mu.Unlock()

	devs := v.devices.DevicesOn(node.Name, capacity, func(yield func(*v1.Pod) bool) {
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
	// DevicesOf falls back to still applies.
	e.node = node
	e.capacity, _ = gpu.DevicesOf(node, v.res)
	e.generation, e.devs = 0, nil
	return e
}

// forget drops a deleted node's entry.
func (v *nodeViews) forget(name string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.m, name)
}
