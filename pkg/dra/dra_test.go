package dra

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/berth-sched/berth/pkg/gpu"
)

const gi = int64(1) << 30

// gpuDevice is a GPU as NVIDIA's DRA driver publishes it: memory capacity, productName and
// pcieRoot attributes; shared allows several claims on it, each consuming a share of memory.
func gpuDevice(name string, memory string, shared bool) resourceapi.Device {
	d := resourceapi.Device{
		Name: name,
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"type":               {StringValue: ptr.To("gpu")},
			ProductNameAttribute: {StringValue: ptr.To("NVIDIA A100-SXM4-80GB")},
			PCIeRootAttribute:    {StringValue: ptr.To("pci0000:00")},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			DefaultMemory: {Value: resource.MustParse(memory)},
		},
	}
	if shared {
		d.AllowMultipleAllocations = ptr.To(true)
	}
	return d
}

func slice(name, node string, devs ...resourceapi.Device) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: DefaultDriver, NodeName: ptr.To(node),
			Pool:    resourceapi.ResourcePool{Name: node, ResourceSliceCount: 1},
			Devices: devs,
		},
	}
}

func allocated(ns, name, pool string, pods []string, results ...resourceapi.DeviceRequestAllocationResult) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(name)}}
	for i := range results {
		results[i].Driver, results[i].Pool = DefaultDriver, pool
		if results[i].Request == "" {
			results[i].Request = "gpu"
		}
	}
	c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}}
	for _, p := range pods {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p, UID: types.UID(p)})
	}
	return c
}

func result(device string, memory string) resourceapi.DeviceRequestAllocationResult {
	r := resourceapi.DeviceRequestAllocationResult{Device: device}
	if memory != "" {
		r.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{DefaultMemory: resource.MustParse(memory)}
	}
	return r
}

// migSlices is a partitionable A100 as the driver publishes it: one slice with the counter set of
// the physical GPU, one with the whole-GPU device and two 1g.10gb partitions consuming from it.
func migSlices(node string) []*resourceapi.ResourceSlice {
	counters := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-counters"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: DefaultDriver, NodeName: ptr.To(node),
			Pool: resourceapi.ResourcePool{Name: node, ResourceSliceCount: 2},
			SharedCounters: []resourceapi.CounterSet{{Name: "gpu-0-counter-set", Counters: map[string]resourceapi.Counter{
				"memory": {Value: resource.MustParse("80Gi")}, "multiprocessors": {Value: resource.MustParse("98")},
			}}},
		},
	}
	part := func(name, memory, mps string) resourceapi.Device {
		return resourceapi.Device{
			Name:       name,
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{ProductNameAttribute: {StringValue: ptr.To("NVIDIA A100-SXM4-80GB")}, "profile": {StringValue: ptr.To(name)}},
			ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: "gpu-0-counter-set", Counters: map[string]resourceapi.Counter{
				"memory": {Value: resource.MustParse(memory)}, "multiprocessors": {Value: resource.MustParse(mps)},
			}}},
		}
	}
	devices := slice(node+"-devices", node, part("gpu-0", "80Gi", "98"), part("gpu-0-mig-1g10gb-0", "10Gi", "14"), part("gpu-0-mig-1g10gb-1", "10Gi", "14"))
	devices.Spec.Pool.ResourceSliceCount = 2
	return []*resourceapi.ResourceSlice{counters, devices}
}

func TestInventory(t *testing.T) {
	slices := []*resourceapi.ResourceSlice{
		slice("a", "node-a", gpuDevice("gpu-0", "80Gi", true), gpuDevice("gpu-1", "80Gi", false)),
		// Another driver's devices are not GPUs.
		{ObjectMeta: metav1.ObjectMeta{Name: "nic"}, Spec: resourceapi.ResourceSliceSpec{Driver: "nic.example.com", NodeName: ptr.To("node-a"),
			Pool: resourceapi.ResourcePool{Name: "node-a"}, Devices: []resourceapi.Device{{Name: "eth0"}}}},
	}
	slices = append(slices, migSlices("node-m")...)
	claims := []*resourceapi.ResourceClaim{
		allocated("ns", "share", "node-a", []string{"p1", "p2"}, result("gpu-0", "20Gi")),
		allocated("ns", "whole", "node-a", []string{"p3"}, result("gpu-1", "")),
		allocated("ns", "mig", "node-m", []string{"p4"}, result("gpu-0-mig-1g10gb-1", "")),
		// Not allocated yet: consumes nothing.
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pending"}},
	}
	nodes, errs := Inventory(DefaultConfig(), slices, claims)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	type gpuRow struct {
		Name, Product      string
		Memory, Used, Devs int64
		Holders            []string
	}
	got := map[string][]gpuRow{}
	for name, n := range nodes {
		for _, g := range n.GPUs {
			row := gpuRow{Name: g.Name, Product: g.ProductName, Memory: g.Memory / gi, Used: g.Used / gi, Devs: int64(len(g.Devices))}
			for _, h := range g.Holders {
				row.Holders = append(row.Holders, fmt.Sprintf("%s %s %dGi %v", h.Claim, h.Device, h.Memory/gi, h.Pods))
			}
			got[name] = append(got[name], row)
		}
	}
	want := map[string][]gpuRow{
		"node-a": {
			{Name: "gpu-0", Product: "NVIDIA A100-SXM4-80GB", Memory: 80, Used: 20, Devs: 1, Holders: []string{"ns/share gpu-0 20Gi [p1 p2]"}},
			{Name: "gpu-1", Product: "NVIDIA A100-SXM4-80GB", Memory: 80, Used: 80, Devs: 1, Holders: []string{"ns/whole gpu-1 80Gi [p3]"}},
		},
		"node-m": {
			{Name: "gpu-0-counter-set", Product: "NVIDIA A100-SXM4-80GB", Memory: 80, Used: 10, Devs: 3, Holders: []string{"ns/mig gpu-0-mig-1g10gb-1 10Gi [p4]"}},
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("inventory (-want +got):\n%s", d)
	}
}

func TestInventoryMalformed(t *testing.T) {
	noMemory := gpuDevice("gpu-1", "80Gi", false)
	delete(noMemory.Capacity, DefaultMemory)
	zero := gpuDevice("gpu-2", "0", false)
	orphan := resourceapi.Device{Name: "gpu-3-mig", ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: "nowhere", Counters: map[string]resourceapi.Counter{"memory": {Value: resource.MustParse("10Gi")}}}}}
	slices := []*resourceapi.ResourceSlice{
		slice("bad", "node-a", gpuDevice("gpu-0", "80Gi", false), noMemory, zero, orphan),
		slice("good", "node-b", gpuDevice("gpu-0", "40Gi", false)),
	}
	nodes, errs := Inventory(DefaultConfig(), slices, nil)
	var msgs []string
	for _, e := range errs {
		if e.Node != "node-a" {
			t.Errorf("error on node %s, want node-a: %v", e.Node, e)
		}
		msgs = append(msgs, e.Error())
	}
	want := []string{
		"ResourceSlice bad: spec.devices[1].capacity[memory]: missing: a GPU of driver gpu.nvidia.com must publish its memory",
		"ResourceSlice bad: spec.devices[2].capacity[memory]: 0 is not a GPU's memory: it must be more than 0",
		`ResourceSlice bad: spec.devices[3].consumesCounters[0].counterSet: counter set "nowhere" is not published in pool "node-a"`,
	}
	if d := cmp.Diff(want, msgs); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	// The good device of the bad slice and the other node are kept.
	if n := nodes["node-a"]; n == nil || len(n.GPUs) != 1 || n.GPUs[0].Name != "gpu-0" {
		t.Errorf("node-a: want gpu-0 only, got %+v", n)
	}
	if n := nodes["node-b"]; n == nil || len(n.GPUs) != 1 || n.GPUs[0].Memory != 40*gi {
		t.Errorf("node-b: want one 40Gi GPU, got %+v", n)
	}
}

func TestInventoryOlderPoolGenerationIgnored(t *testing.T) {
	old := slice("old", "node-a", gpuDevice("gpu-0", "40Gi", false))
	cur := slice("new", "node-a", gpuDevice("gpu-0", "80Gi", false))
	cur.Spec.Pool.Generation = 1
	nodes, _ := Inventory(DefaultConfig(), []*resourceapi.ResourceSlice{old, cur}, nil)
	if g := nodes["node-a"].GPUs; len(g) != 1 || g[0].Memory != 80*gi {
		t.Errorf("want the newer generation's one 80Gi GPU, got %+v", g)
	}
}

var (
	gpuClass = &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu.nvidia.com"}, Spec: resourceapi.DeviceClassSpec{
		Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.driver == "gpu.nvidia.com"`}}}}}
	nicClass = &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "nic"}, Spec: resourceapi.DeviceClassSpec{
		Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.driver == "nic.example.com"`}}}}}
	classes = map[string]*resourceapi.DeviceClass{gpuClass.Name: gpuClass, nicClass.Name: nicClass}
)

func claim(name, class string, count int64, memory string, selector string) *resourceapi.ResourceClaim {
	e := &resourceapi.ExactDeviceRequest{DeviceClassName: class, Count: count}
	if memory != "" {
		e.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{DefaultMemory: resource.MustParse(memory)}}
	}
	if selector != "" {
		e.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: selector}}}
	}
	return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{Name: "gpu", Exactly: e}}}}}
}

func podWithClaims(names ...string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	for _, n := range names {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: n, ResourceClaimName: ptr.To(n)})
	}
	return p
}

func getters(claims ...*resourceapi.ResourceClaim) (func(ns, name string) (*resourceapi.ResourceClaim, error), func(string) (*resourceapi.DeviceClass, error)) {
	return func(ns, name string) (*resourceapi.ResourceClaim, error) {
			for _, c := range claims {
				if c.Namespace == ns && c.Name == name {
					return c, nil
				}
			}
			return nil, fmt.Errorf("not found")
		}, func(name string) (*resourceapi.DeviceClass, error) {
			if c, ok := classes[name]; ok {
				return c, nil
			}
			return nil, fmt.Errorf("not found")
		}
}

func TestRequestOf(t *testing.T) {
	done := allocated("ns", "done", "node-a", nil, result("gpu-0", "10Gi"))
	gc, gcl := getters(claim("share", "gpu.nvidia.com", 2, "20Gi", ""), claim("nic", "nic", 0, "", ""), done)
	pr, err := RequestOf(podWithClaims("share", "nic", "done"), DefaultConfig(), gc, gcl)
	if err != nil {
		t.Fatal(err)
	}
	want := []DeviceRequest{
		{Claim: types.NamespacedName{Namespace: "ns", Name: "share"}, Request: "gpu", Class: "gpu.nvidia.com", Count: 2, Memory: 20 * gi,
			Capacity: map[resourceapi.QualifiedName]resource.Quantity{DefaultMemory: resource.MustParse("20Gi")}, Selectors: []string{`device.driver == "gpu.nvidia.com"`}},
		{Claim: types.NamespacedName{Namespace: "ns", Name: "nic"}, Request: "gpu", Class: "nic", Count: 1, Selectors: []string{`device.driver == "nic.example.com"`}},
	}
	if d := cmp.Diff(want, pr.Requests); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if len(pr.Allocated) != 1 || pr.Allocated[0] != done {
		t.Errorf("allocated = %v, want the done claim", pr.Allocated)
	}
	if _, err := RequestOf(podWithClaims("missing"), DefaultConfig(), gc, gcl); err == nil || !strings.Contains(err.Error(), "resourceclaim ns/missing") {
		t.Errorf("missing claim: err = %v, want one naming it", err)
	}
	if _, err := RequestOf(podWithClaims("x"), DefaultConfig(), func(string, string) (*resourceapi.ResourceClaim, error) {
		return claim("x", "nope", 1, "", ""), nil
	}, gcl); err == nil || !strings.Contains(err.Error(), `deviceclass "nope"`) {
		t.Errorf("missing class: err = %v, want one naming it", err)
	}
}

func TestShare(t *testing.T) {
	dev := gpuDevice("gpu-0", "80Gi", true)
	dev.Capacity[DefaultMemory] = resourceapi.DeviceCapacity{Value: resource.MustParse("80Gi"), RequestPolicy: &resourceapi.CapacityRequestPolicy{
		Default:    ptr.To(resource.MustParse("8Gi")),
		ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: ptr.To(resource.MustParse("4Gi")), Step: ptr.To(resource.MustParse("4Gi")), Max: ptr.To(resource.MustParse("40Gi"))},
	}}
	d := &Device{Memory: 80 * gi, Shared: true, Slice: &dev}
	for _, tc := range []struct {
		ask, want int64
		ok        bool
	}{{0, 8 * gi, true}, {1 * gi, 4 * gi, true}, {9 * gi, 12 * gi, true}, {40 * gi, 40 * gi, true}, {41 * gi, 0, false}} {
		got, ok := Share(d, DefaultConfig(), tc.ask)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Share(%d) = %d, %v; want %d, %v", tc.ask/gi, got/gi, ok, tc.want/gi, tc.ok)
		}
	}
	whole := gpuDevice("gpu-1", "80Gi", false)
	if got, _ := Share(&Device{Memory: 80 * gi, Slice: &whole}, DefaultConfig(), 10*gi); got != 80*gi {
		t.Errorf("a device that is not shareable is taken whole: got %d", got/gi)
	}
}

// TestViewScores: through gpu.Score, a share on a node whose GPU is partly
// used rates above one on an empty GPU under Binpack, and the other way under Spread.
func TestViewScores(t *testing.T) {
	slices := []*resourceapi.ResourceSlice{
		slice("a", "node-a", gpuDevice("gpu-0", "80Gi", true)),
		slice("b", "node-b", gpuDevice("gpu-0", "80Gi", true)),
		slice("w", "node-w", gpuDevice("gpu-0", "80Gi", false), gpuDevice("gpu-1", "80Gi", false)),
		slice("x", "node-x", gpuDevice("gpu-0", "80Gi", false), gpuDevice("gpu-1", "80Gi", false)),
	}
	slices = append(slices, migSlices("node-m")...)
	claims := []*resourceapi.ResourceClaim{
		allocated("ns", "held", "node-a", nil, result("gpu-0", "40Gi")),
		allocated("ns", "whole", "node-w", nil, result("gpu-0", "")),
		allocated("ns", "mig", "node-m", nil, result("gpu-0-mig-1g10gb-0", "")),
	}
	nodes, errs := Inventory(DefaultConfig(), slices, claims)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m := NewMatcher(DefaultConfig())
	ctx := context.Background()
	score := func(node string, r *DeviceRequest, s *gpu.Strategy) float64 {
		devs, req, ok := m.View(ctx, nodes[node], r)
		if !ok {
			t.Fatalf("%s: no GPU matches %+v", node, r)
		}
		sc, nf := gpu.Score(devs, req, s)
		if nf != nil {
			t.Fatalf("%s: %v", node, nf)
		}
		return sc
	}
	gc, gcl := getters(claim("share", "gpu.nvidia.com", 1, "20Gi", ""), claim("one", "gpu.nvidia.com", 1, "", `!has(device.attributes["gpu.nvidia.com"].profile)`),
		claim("mig", "gpu.nvidia.com", 1, "", `device.attributes["gpu.nvidia.com"].profile == "gpu-0-mig-1g10gb-1"`))
	reqs := map[string]*DeviceRequest{}
	for _, n := range []string{"share", "one", "mig"} {
		pr, err := RequestOf(podWithClaims(n), DefaultConfig(), gc, gcl)
		if err != nil {
			t.Fatal(err)
		}
		reqs[n] = &pr.Requests[0]
	}
	if a, b := score("node-a", reqs["share"], gpu.Binpack), score("node-b", reqs["share"], gpu.Binpack); a <= b {
		t.Errorf("Binpack: partly used GPU %.3f should beat empty %.3f", a, b)
	}
	if a, b := score("node-a", reqs["share"], gpu.Spread), score("node-b", reqs["share"], gpu.Spread); a >= b {
		t.Errorf("Spread: empty GPU %.3f should beat partly used %.3f", b, a)
	}
	// Whole devices: the node with one of two GPUs taken is the fuller.
	if w, x := score("node-w", reqs["one"], gpu.Binpack), score("node-x", reqs["one"], gpu.Binpack); w <= x {
		t.Errorf("Binpack whole GPU: half-used node %.3f should beat empty %.3f", w, x)
	}
	// A held whole device cannot be had: one GPU of node-w's view is full.
	devs, req, _ := m.View(ctx, nodes["node-w"], reqs["one"])
	if d := cmp.Diff([]gpu.Device{{Capacity: 1, Used: 1}, {Capacity: 1, Used: 0}}, devs); d != "" || req.PerDevice != 1 || req.Count != 1 {
		t.Errorf("whole-device view: %s %+v", d, req)
	}
	// A MIG partition: counted in bytes of its GPU's memory counter.
	devs, req, _ = m.View(ctx, nodes["node-m"], reqs["mig"])
	if d := cmp.Diff([]gpu.Device{{Capacity: 80 * gi, Used: 10 * gi}}, devs); d != "" || req.PerDevice != 10*gi {
		t.Errorf("MIG view: %s %+v", d, req)
	}
	// The NIC class matches no GPU.
	if _, _, ok := m.View(ctx, nodes["node-a"], &DeviceRequest{Count: 1, Selectors: []string{nicClass.Spec.Selectors[0].CEL.Expression}}); ok {
		t.Error("a NIC request matched a GPU")
	}
}
