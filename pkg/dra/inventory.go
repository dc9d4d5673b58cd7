// Package dra is berth's view of the GPUs that Dynamic Resource Allocation publishes: per node, the
// physical GPUs a driver's ResourceSlices describe, what the allocated ResourceClaims consume of
// them, and what a pod's claims ask for. It reads listed objects only (the scheduler's shared DRA
// manager lists them) and is a pure function of them, so that scoring, quota and preemption count
// a DRA GPU the same way, and tests build it from plain objects.
//
// The unit of a GPU is the physical device: a whole device the driver publishes, or, for a
// partitionable GPU (MIG), the counter set its partitions consume from. Memory is in bytes.
package dra

import (
	"cmp"
	"fmt"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
)

const (
	// DefaultDriver is the driver name NVIDIA's DRA driver publishes GPUs under.
	DefaultDriver = "gpu.nvidia.com"
	// DefaultMemory is the capacity (and, for partitionable GPUs, the counter) holding a GPU's memory.
	DefaultMemory = "memory"
	// ProductNameAttribute and PCIeRootAttribute are the attributes shown beside a GPU; an
	// unqualified name is in the driver's domain.
	ProductNameAttribute = "productName"
	PCIeRootAttribute    = "resource.kubernetes.io/pcieRoot"
)

// Config names the driver whose devices are GPUs and the capacity that is their memory.
type Config struct {
	Driver string
	Memory resourceapi.QualifiedName
}

// DefaultConfig is NVIDIA's driver.
func DefaultConfig() Config {
	return Config{Driver: DefaultDriver, Memory: DefaultMemory}
}

// DeviceID names one device as allocation results do.
type DeviceID struct {
	Driver, Pool, Device string
}

func (id DeviceID) String() string { return id.Driver + "/" + id.Pool + "/" + id.Device }

// GPU is one physical GPU of a node.
type GPU struct {
	// Name is the device's name, or the counter set's for a partitionable GPU.
	Name string
	Pool string
	// ProductName and PCIeRoot are the attributes of the device (or of the first partition).
	ProductName string
	PCIeRoot    string
	// Memory is the GPU's memory in bytes; Used is what allocated claims consume of it. Used may
	// exceed Memory if claims were allocated against an older slice.
	Memory int64
	Used   int64
	// Devices are the allocatable devices on this GPU: the GPU itself, or its partitions (and, in
	// a partitionable pool, the whole-GPU device consuming every counter).
	Devices []Device
	// Holders are the allocated claims consuming it, in claim then device order.
	Holders []Holder
}

// Free is the memory not consumed by allocated claims.
func (g *GPU) Free() int64 { return max(g.Memory-g.Used, 0) }

// Device is one allocatable device and what allocating it takes from its GPU.
type Device struct {
	ID DeviceID
	// Memory is what allocating the device whole takes from its GPU: its memory capacity, or a
	// partition's memory counter.
	Memory int64
	// Shared is allowMultipleAllocations: claims consume a share of its capacity.
	Shared bool
	// Allocated is true when a claim holds the device (whole, or a share of it if Shared).
	Allocated bool
	// Slice is the published device, for selectors.
	Slice *resourceapi.Device
}

// Holder is one claim's use of a GPU.
type Holder struct {
	Claim types.NamespacedName
	UID   types.UID
	// Request and Device are the allocation result's request name and device.
	Request string
	Device  string
	// Memory is what the claim consumes of the GPU, in bytes.
	Memory int64
	// Pods are the pods the claim is reserved for.
	Pods []string
}

// NodeGPUs is one node's GPUs, in pool then name order.
type NodeGPUs struct {
	Node string
	GPUs []*GPU
}

// SliceError says what is wrong with a device of a ResourceSlice; the device is left out of the
// view, the rest of the slice is kept.
type SliceError struct {
	Slice string
	Node  string
	// Field is the path of the offending field, e.g. spec.devices[2].capacity[memory].
	Field  string
	Detail string
}

func (e *SliceError) Error() string {
	return fmt.Sprintf("ResourceSlice %s: %s: %s", e.Slice, e.Field, e.Detail)
}

// Inventory builds the GPUs of every node from the driver's node-local ResourceSlices and the
// allocated claims. Slices of other drivers, of older pool generations, and those not bound to
// one node (network-attached devices) are ignored. Malformed devices are reported and left out.
func Inventory(cfg Config, resourceSlices []*resourceapi.ResourceSlice, claims []*resourceapi.ResourceClaim) (map[string]*NodeGPUs, []*SliceError) {
	nodes, byDevice, errs := build(cfg, resourceSlices)
	for _, c := range claims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			ref, memory, ok := consumes(cfg, byDevice, &r)
			if !ok {
				continue
			}
			ref.gpu.Devices[ref.i].Allocated = true
			ref.gpu.Used += memory
			ref.gpu.Holders = append(ref.gpu.Holders, Holder{
				Claim: types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, UID: c.UID,
				Request: r.Request, Device: r.Device, Memory: memory, Pods: podsOf(c),
			})
		}
	}
	for _, n := range nodes {
		for _, g := range n.GPUs {
			slices.SortStableFunc(g.Holders, func(a, b Holder) int {
				return cmp.Or(cmp.Compare(a.Claim.String(), b.Claim.String()), cmp.Compare(a.Device, b.Device))
			})
		}
	}
	return nodes, errs
}

// deviceRef is where a device sits: its GPU and its index in the GPU's Devices.
type deviceRef struct {
	gpu *GPU
	i   int
}

// consumes is the device an allocation result holds and the memory it takes of the device's GPU;
// ok is false for a result that takes nothing of a GPU the slices publish.
func consumes(cfg Config, byDevice map[DeviceID]deviceRef, r *resourceapi.DeviceRequestAllocationResult) (ref deviceRef, memory int64, ok bool) {
	if r.Driver != cfg.Driver || (r.AdminAccess != nil && *r.AdminAccess) {
		// Admin access (monitoring) consumes nothing.
		return deviceRef{}, 0, false
	}
	ref, ok = byDevice[DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}]
	if !ok {
		return deviceRef{}, 0, false
	}
	dev := &ref.gpu.Devices[ref.i]
	memory = dev.Memory
	if q, ok := CapacityOf(r.ConsumedCapacity, cfg.Driver, cfg.Memory); ok && dev.Shared {
		memory = q.Value()
	}
	return ref, memory, true
}

// build is the part of the inventory the slices alone decide: every GPU with its devices, none
// allocated, GPUs in pool then name order.
func build(cfg Config, resourceSlices []*resourceapi.ResourceSlice) (map[string]*NodeGPUs, map[DeviceID]deviceRef, []*SliceError) {
	latest := map[string]int64{}
	for _, s := range resourceSlices {
		if s.Spec.Driver == cfg.Driver {
			latest[s.Spec.Pool.Name] = max(latest[s.Spec.Pool.Name], s.Spec.Pool.Generation)
		}
	}
	counterSets := map[string]map[string]resourceapi.CounterSet{} // pool -> name -> set
	var current []*resourceapi.ResourceSlice
	for _, s := range resourceSlices {
		if s.Spec.Driver != cfg.Driver || s.Spec.Pool.Generation != latest[s.Spec.Pool.Name] {
			continue
		}
		current = append(current, s)
		for _, cs := range s.Spec.SharedCounters {
			if counterSets[s.Spec.Pool.Name] == nil {
				counterSets[s.Spec.Pool.Name] = map[string]resourceapi.CounterSet{}
			}
			counterSets[s.Spec.Pool.Name][cs.Name] = cs
		}
	}

	nodes := map[string]*NodeGPUs{}
	gpus := map[string]*GPU{} // pool/name -> GPU
	var errs []*SliceError
	addGPU := func(node, pool, name string, dev *resourceapi.Device, memory int64) *GPU {
		key := pool + "/" + name
		g := gpus[key]
		if g == nil {
			g = &GPU{Name: name, Pool: pool, Memory: memory}
			gpus[key] = g
			n := nodes[node]
			if n == nil {
				n = &NodeGPUs{Node: node}
				nodes[node] = n
			}
			n.GPUs = append(n.GPUs, g)
		}
		if g.ProductName == "" {
			g.ProductName = stringAttribute(dev, ProductNameAttribute)
		}
		if g.PCIeRoot == "" {
			g.PCIeRoot = stringAttribute(dev, PCIeRootAttribute)
		}
		return g
	}
	for _, s := range current {
		for i := range s.Spec.Devices {
			d := &s.Spec.Devices[i]
			node := nodeOf(s, d)
			if node == "" {
				continue
			}
			fail := func(field, format string, args ...any) {
				errs = append(errs, &SliceError{Slice: s.Name, Node: node, Field: fmt.Sprintf("spec.devices[%d].%s", i, field), Detail: fmt.Sprintf(format, args...)})
			}
			id := DeviceID{Driver: cfg.Driver, Pool: s.Spec.Pool.Name, Device: d.Name}
			entry := &Device{ID: id, Shared: d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations, Slice: d}
			var g *GPU
			if len(d.ConsumesCounters) == 0 {
				c, ok := CapacityOf(d.Capacity, cfg.Driver, cfg.Memory)
				if !ok {
					fail(fmt.Sprintf("capacity[%s]", cfg.Memory), "missing: a GPU of driver %s must publish its memory", cfg.Driver)
					continue
				}
				if c.Value.Sign() <= 0 {
					fail(fmt.Sprintf("capacity[%s]", cfg.Memory), "%s is not a GPU's memory: it must be more than 0", c.Value.String())
					continue
				}
				entry.Memory = c.Value.Value()
				g = addGPU(node, id.Pool, d.Name, d, entry.Memory)
			} else {
				// A partition (or the whole GPU of a partitionable pool): its GPU is the counter
				// set it takes memory from.
				bad := false
				for j, cc := range d.ConsumesCounters {
					m, ok := cc.Counters[string(cfg.Memory)]
					if !ok {
						continue
					}
					cs, ok := counterSets[id.Pool][cc.CounterSet]
					if !ok {
						fail(fmt.Sprintf("consumesCounters[%d].counterSet", j), "counter set %q is not published in pool %q", cc.CounterSet, id.Pool)
						bad = true
						break
					}
					total, ok := cs.Counters[string(cfg.Memory)]
					if !ok || total.Value.Sign() <= 0 {
						fail(fmt.Sprintf("consumesCounters[%d].counterSet", j), "counter set %q of pool %q has no %s counter above 0", cc.CounterSet, id.Pool, cfg.Memory)
						bad = true
						break
					}
					entry.Memory = m.Value.Value()
					g = addGPU(node, id.Pool, cc.CounterSet, d, total.Value.Value())
					break
				}
				if g == nil {
					if !bad {
						fail("consumesCounters", "consumes no %s counter: a GPU partition of driver %s must take memory from a counter set", cfg.Memory, cfg.Driver)
					}
					continue
				}
			}
			g.Devices = append(g.Devices, *entry)
		}
	}
	byDevice := map[DeviceID]deviceRef{}
	for _, g := range gpus {
		for i := range g.Devices {
			byDevice[g.Devices[i].ID] = deviceRef{g, i}
		}
	}
	for _, n := range nodes {
		slices.SortFunc(n.GPUs, func(a, b *GPU) int { return cmp.Or(cmp.Compare(a.Pool, b.Pool), cmp.Compare(a.Name, b.Name)) })
	}
	return nodes, byDevice, errs
}

// nodeOf is the node a device is local to, "" if it is not local to one node.
func nodeOf(s *resourceapi.ResourceSlice, d *resourceapi.Device) string {
	if s.Spec.NodeName != nil {
		return *s.Spec.NodeName
	}
	if s.Spec.PerDeviceNodeSelection != nil && *s.Spec.PerDeviceNodeSelection && d.NodeName != nil {
		return *d.NodeName
	}
	return ""
}

func stringAttribute(d *resourceapi.Device, name resourceapi.QualifiedName) string {
	if a, ok := d.Attributes[name]; ok && a.StringValue != nil {
		return *a.StringValue
	}
	return ""
}

func podsOf(c *resourceapi.ResourceClaim) []string {
	var pods []string
	for _, r := range c.Status.ReservedFor {
		if r.Resource == "pods" && r.APIGroup == "" {
			pods = append(pods, r.Name)
		}
	}
	return pods
}
