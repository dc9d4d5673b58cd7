package gpu

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// usage is what the cache holds on a node, per device.
func usage(c *Cache, node string) []Device { return c.NodeView(node) }

func gpuPod(uid, share string) *st.PodWrapper {
	return st.MakePod().Namespace("ns").Name(uid).UID(uid).Lim(mem(share))
}

func boundPod(uid, node, devices string) *v1.Pod {
	return st.MakePod().Namespace("ns").Name(uid).UID(uid).Node(node).Annotation(PodGPUDevicesAnnotation, devices).Obj()
}

func TestCacheNodes(t *testing.T) {
	c := NewCache(testResources)
	if err := c.AddOrUpdateNode(gpuNode("n1", "2", "32").Obj()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Device{{Capacity: 16}, {Capacity: 16}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 (-want +got):\n%s", diff)
	}

	// The node's GPUs change without a restart: grown, then mixed sizes by annotation.
	if err := c.AddOrUpdateNode(gpuNode("n1", "2", "48").Obj()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Device{{Capacity: 24}, {Capacity: 24}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 grown (-want +got):\n%s", diff)
	}
	if err := c.AddOrUpdateNode(gpuNode("n1", "3", "48").Annotation(NodeGPUMemoryAnnotation, "8,16,24").Obj()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Device{{Capacity: 8}, {Capacity: 16}, {Capacity: 24}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 mixed (-want +got):\n%s", diff)
	}

	// A malformed annotation is reported and the capacity's devices are used.
	err := c.AddOrUpdateNode(gpuNode("n1", "3", "48").Annotation(NodeGPUMemoryAnnotation, "8,16").Obj())
	if err == nil || !strings.Contains(err.Error(), NodeGPUMemoryAnnotation) {
		t.Errorf("malformed annotation: error %v", err)
	}
	if diff := cmp.Diff([]Device{{Capacity: 16}, {Capacity: 16}, {Capacity: 16}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 malformed (-want +got):\n%s", diff)
	}

	c.DeleteNode("n1")
	if got := usage(c, "n1"); got != nil {
		t.Errorf("deleted node still has devices %v", got)
	}
	if len(c.nodes) != 0 {
		t.Errorf("deleted node without pods left state behind: %v", c.nodes)
	}
}

func TestCachePodLifecycle(t *testing.T) {
	c := NewCache(testResources)
	if err := c.AddOrUpdateNode(gpuNode("n1", "2", "32").Obj()); err != nil {
		t.Fatal(err)
	}
	pod := gpuPod("p1", "8").Obj()

	a, err := c.Reserve(pod, "n1", one(8), Binpack)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Assignment{{Index: 0, Memory: 8}}, a); diff != "" {
		t.Errorf("reserved (-want +got):\n%s", diff)
	}
	reserved := []Device{{Capacity: 16, Used: 8}, {Capacity: 16}}
	if diff := cmp.Diff(reserved, usage(c, "n1")); diff != "" {
		t.Errorf("after Reserve (-want +got):\n%s", diff)
	}

	// The informer reports the annotation patch before the binding: nothing changes.
	patched := pod.DeepCopy()
	patched.Annotations = map[string]string{PodGPUDevicesAnnotation: "0:8"}
	if err := c.AddOrUpdatePod(patched); err != nil {
		t.Fatal(err)
	}
	// Then the pod bound: the reservation is confirmed, not counted twice.
	bound := patched.DeepCopy()
	bound.Spec.NodeName = "n1"
	if err := c.AddOrUpdatePod(bound); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(reserved, usage(c, "n1")); diff != "" {
		t.Errorf("after bind (-want +got):\n%s", diff)
	}
	// A late Unreserve (the binder saw an error, but the binding went through) keeps it.
	c.Unreserve(pod.UID)
	if diff := cmp.Diff(reserved, usage(c, "n1")); diff != "" {
		t.Errorf("after late Unreserve (-want +got):\n%s", diff)
	}

	// The pod finishes: its memory is free.
	done := bound.DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	if err := c.AddOrUpdatePod(done); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Device{{Capacity: 16}, {Capacity: 16}}, usage(c, "n1")); diff != "" {
		t.Errorf("after completion (-want +got):\n%s", diff)
	}
	if _, _, ok := c.PodAssignment(pod.UID); ok {
		t.Error("finished pod still holds devices")
	}
}

func TestCacheReserve(t *testing.T) {
	c := NewCache(testResources)
	if err := c.AddOrUpdateNode(gpuNode("n1", "2", "32").Obj()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reserve(gpuPod("p1", "12").Obj(), "n1", one(12), Binpack); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reserve(gpuPod("p2", "12").Obj(), "n1", one(12), Binpack); err != nil {
		t.Fatal(err)
	}
	// Both GPUs have 4 left: a third pod of 12 must not get in.
	_, err := c.Reserve(gpuPod("p3", "12").Obj(), "n1", one(12), Binpack)
	var nf *NoFitError
	if !errors.As(err, &nf) || !nf.Resolvable {
		t.Errorf("Reserve on a full node: error %v, want a resolvable *NoFitError", err)
	}
	// The same pod cannot reserve twice.
	if _, err := c.Reserve(gpuPod("p1", "4").Obj(), "n1", one(4), Binpack); err == nil {
		t.Error("a pod reserved twice")
	}
	// Unknown nodes have nothing.
	if _, err := c.Reserve(gpuPod("p4", "4").Obj(), "nowhere", one(4), Binpack); !errors.As(err, &nf) {
		t.Errorf("Reserve on an unknown node: error %v", err)
	}

	before := snapshot(c)
	a, err := c.Reserve(gpuPod("p5", "4").Obj(), "n1", one(4), Spread)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Assignment{{Index: 0, Memory: 4}}, a); diff != "" {
		t.Errorf("reserved (-want +got):\n%s", diff)
	}
	c.Unreserve("p5")
	if diff := diffState(before, snapshot(c)); diff != "" {
		t.Errorf("Unreserve did not restore the state (-before +after):\n%s", diff)
	}
	// Unreserve of a pod that reserved nothing is harmless.
	c.Unreserve("never-reserved")
	if diff := diffState(before, snapshot(c)); diff != "" {
		t.Errorf("Unreserve of an unknown pod changed the state (-before +after):\n%s", diff)
	}
}

func TestCacheForeignAndMalformedPods(t *testing.T) {
	c := NewCache(testResources)
	if err := c.AddOrUpdateNode(gpuNode("n1", "2", "32").Obj()); err != nil {
		t.Fatal(err)
	}
	// Placed by the gpushare extender under another scheduler name, before berth started.
	foreign := gpuPod("g1", "6").Node("n1").SchedulerName("gpushare").
		Annotation(GPUShareIndexAnnotation, "1").Annotation(GPUSharePodAnnotation, "6").Obj()
	if err := c.AddOrUpdatePod(foreign); err != nil {
		t.Fatal(err)
	}
	// Placed by berth on two GPUs.
	if err := c.AddOrUpdatePod(boundPod("b1", "n1", "0:4,1:4")); err != nil {
		t.Fatal(err)
	}
	want := []Device{{Capacity: 16, Used: 4}, {Capacity: 16, Used: 10}}
	if diff := cmp.Diff(want, usage(c, "n1")); diff != "" {
		t.Errorf("bound pods (-want +got):\n%s", diff)
	}

	// Someone mangles b1's annotation: reported, and b1 keeps what it held.
	err := c.AddOrUpdatePod(boundPod("b1", "n1", "0:4;1:4"))
	if err == nil || !strings.Contains(err.Error(), PodGPUDevicesAnnotation) {
		t.Errorf("malformed annotation: error %v", err)
	}
	// A new pod with a malformed annotation holds nothing.
	if err := c.AddOrUpdatePod(boundPod("b2", "n1", "zero:4")); err == nil {
		t.Error("malformed annotation on a new pod: no error")
	}
	if diff := cmp.Diff(want, usage(c, "n1")); diff != "" {
		t.Errorf("after malformed annotations (-want +got):\n%s", diff)
	}

	// Someone strips b1's annotations: reported, and b1 keeps what it held.
	err = c.AddOrUpdatePod(st.MakePod().Namespace("ns").Name("b1").UID("b1").Node("n1").Obj())
	if err == nil || !strings.Contains(err.Error(), "keeps the GPUs it held (0:4,1:4)") {
		t.Errorf("annotations removed: error %v", err)
	}
	if diff := cmp.Diff(want, usage(c, "n1")); diff != "" {
		t.Errorf("after annotations were removed (-want +got):\n%s", diff)
	}

	// A GPU pod bound without any assignment is reported; a CPU pod is not.
	err = c.AddOrUpdatePod(gpuPod("x1", "4").Node("n1").Obj())
	if err == nil || !strings.Contains(err.Error(), "names no devices") {
		t.Errorf("GPU pod without assignment: error %v", err)
	}
	if err := c.AddOrUpdatePod(st.MakePod().UID("cpu").Node("n1").Obj()); err != nil {
		t.Errorf("CPU pod: %v", err)
	}
	// A bound pod with a negative request is reported and frees nothing.
	err = c.AddOrUpdatePod(gpuPod("neg", "-8").Node("n1").Obj())
	if err == nil || !strings.Contains(err.Error(), `limit aliyun.com/gpu-mem="-8" is not a GPU memory request`) {
		t.Errorf("bound pod with a negative request: error %v", err)
	}
	if diff := cmp.Diff(want, usage(c, "n1")); diff != "" {
		t.Errorf("after a pod with a negative request (-want +got):\n%s", diff)
	}

	// Deleting frees exactly what the pods held.
	c.DeletePod(foreign.UID)
	c.DeletePod("b1")
	c.DeletePod("b1")
	if diff := cmp.Diff([]Device{{Capacity: 16}, {Capacity: 16}}, usage(c, "n1")); diff != "" {
		t.Errorf("after deletes (-want +got):\n%s", diff)
	}
}

func TestCacheBoundElsewhereReplacesReservation(t *testing.T) {
	c := NewCache(testResources)
	for _, n := range []*v1.Node{gpuNode("n1", "1", "16").Obj(), gpuNode("n2", "1", "16").Obj()} {
		if err := c.AddOrUpdateNode(n); err != nil {
			t.Fatal(err)
		}
	}
	pod := gpuPod("p1", "8").Obj()
	if _, err := c.Reserve(pod, "n1", one(8), Binpack); err != nil {
		t.Fatal(err)
	}
	// The API says the pod went to n2 on device 0: that is the truth.
	if err := c.AddOrUpdatePod(boundPod("p1", "n2", "0:8")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Device{{Capacity: 16}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Device{{Capacity: 16, Used: 8}}, usage(c, "n2")); diff != "" {
		t.Errorf("n2 (-want +got):\n%s", diff)
	}

	// A reserved pod bound by a binder that records no devices: reported, and it keeps the
	// reservation until it ends; a late Unreserve does not drop it, its deletion does.
	other := gpuPod("p2", "8").Obj()
	if _, err := c.Reserve(other, "n1", one(8), Binpack); err != nil {
		t.Fatal(err)
	}
	bound := other.DeepCopy()
	bound.Spec.NodeName = "n1"
	err := c.AddOrUpdatePod(bound)
	if err == nil || !strings.Contains(err.Error(), "bound without recording the GPUs reserved for it (0:8)") {
		t.Errorf("bound by another binder: error %v", err)
	}
	c.Unreserve(other.UID)
	if diff := cmp.Diff([]Device{{Capacity: 16, Used: 8}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 after the foreign binding (-want +got):\n%s", diff)
	}
	c.DeletePod(other.UID)
	if diff := cmp.Diff([]Device{{Capacity: 16}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 after the pod bound by another binder ended (-want +got):\n%s", diff)
	}
}

func TestCachePodsBeforeNodes(t *testing.T) {
	c := NewCache(testResources)
	// Informers may deliver bound pods before their node, and a deleted node's pods after it.
	if err := c.AddOrUpdatePod(boundPod("p1", "n1", "1:8")); err != nil {
		t.Fatal(err)
	}
	if err := c.AddOrUpdateNode(gpuNode("n1", "2", "32").Obj()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Device{{Capacity: 16}, {Capacity: 16, Used: 8}}, usage(c, "n1")); diff != "" {
		t.Errorf("n1 (-want +got):\n%s", diff)
	}
	c.DeleteNode("n1")
	if err := c.CheckCapacity(one(1)); err == nil {
		t.Error("a deleted node still counts as capacity")
	}
	c.DeletePod("p1")
	if len(c.nodes) != 0 || len(c.pods) != 0 {
		t.Errorf("state left behind: nodes %v pods %v", c.nodes, c.pods)
	}
}

func TestCacheCheckCapacity(t *testing.T) {
	c := NewCache(testResources)
	if err := c.CheckCapacity(one(1)); err == nil || err.Error() != "no node has GPUs with aliyun.com/gpu-mem" {
		t.Errorf("empty cluster: %v", err)
	}
	nodes := []*v1.Node{
		gpuNode("small", "4", "32").Obj(), // 4 x 8
		gpuNode("mixed", "4", "80").Annotation(NodeGPUMemoryAnnotation, "16,16,24,24").Obj(),
		gpuNode("big", "1", "40").Obj(),
	}
	for _, n := range nodes {
		if err := c.AddOrUpdateNode(n); err != nil {
			t.Fatal(err)
		}
	}
	// Memory in use does not matter: the question is whether GPUs that large exist.
	if _, err := c.Reserve(gpuPod("p", "40").Obj(), "big", one(40), Binpack); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		req     Request
		wantErr string
	}{
		{req: one(40)},
		{req: one(41), wantErr: "pod asks for 41 aliyun.com/gpu-mem on one GPU, but the largest GPU of any node holds 40"},
		{req: many(4, 8)},
		{req: many(4, 16)},
		{req: many(2, 24)},
		{req: many(3, 24), wantErr: "pod asks for 3 GPUs with 24 aliyun.com/gpu-mem each, but no node has more than 2 GPUs that large"},
		{req: many(5, 1), wantErr: "pod asks for 5 GPUs with 1 aliyun.com/gpu-mem each, but no node has more than 4 GPUs that large"},
		{req: many(2, 41), wantErr: "pod asks for 2 GPUs with 41 aliyun.com/gpu-mem each, but the largest GPU of any node holds 40"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.wantErr, errString(c.CheckCapacity(tt.req))); diff != "" {
			t.Errorf("CheckCapacity(%+v) (-want +got):\n%s", tt.req, diff)
		}
	}

	// Shrinking a node is seen at once.
	if err := c.AddOrUpdateNode(gpuNode("mixed", "4", "64").Obj()); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckCapacity(many(2, 24)); err == nil {
		t.Error("CheckCapacity still sees the old 24s")
	}
}

// TestCacheMetrics: a node's GPU memory, capacity and allocated, as a scrape reads it from the
// cache; a node's series go with the node, and a closed cache reports nothing.
func TestCacheMetrics(t *testing.T) {
	c := NewCache(testResources)
	node := "metrics-node"
	if err := c.AddOrUpdateNode(gpuNode(node, "2", "32").Obj()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reserve(gpuPod("m1", "8").Obj(), node, one(8), Binpack); err != nil {
		t.Fatal(err)
	}
	assertGauge(t, "berth_gpu_memory_capacity", node, 32)
	assertGauge(t, "berth_gpu_memory_allocated", node, 8)

	// Shrinking to one GPU shrinks the capacity; deleting the node drops its series.
	if err := c.AddOrUpdateNode(gpuNode(node, "1", "16").Obj()); err != nil {
		t.Fatal(err)
	}
	assertGauge(t, "berth_gpu_memory_capacity", node, 16)
	c.DeleteNode(node)
	assertGauge(t, "berth_gpu_memory_capacity", node, -1)
	assertGauge(t, "berth_gpu_memory_allocated", node, -1)
	// The pod reserved there does not bring the series back when it goes.
	c.Unreserve("m1")
	assertGauge(t, "berth_gpu_memory_allocated", node, -1)

	if err := c.AddOrUpdateNode(gpuNode(node, "1", "16").Obj()); err != nil {
		t.Fatal(err)
	}
	assertGauge(t, "berth_gpu_memory_capacity", node, 16)
	c.Close()
	assertGauge(t, "berth_gpu_memory_capacity", node, -1)
}

// TestScrapeDoesNotStallPlacement: a scrape whose consumer is slow (the registry processes each
// metric as it arrives) must not hold the cache's lock: Reserve, on the scheduling cycle's
// critical path, goes on while the scrape is paused mid-way.
func TestScrapeDoesNotStallPlacement(t *testing.T) {
	c := NewCache(testResources)
	defer c.Close()
	for _, node := range []string{"scrape-a", "scrape-b"} {
		if err := c.AddOrUpdateNode(gpuNode(node, "2", "32").Obj()); err != nil {
			t.Fatal(err)
		}
	}
	ch := make(chan metrics.Metric)
	scraped := make(chan struct{})
	go func() {
		c.collect(ch, map[string]bool{})
		close(ch)
		close(scraped)
	}()
	<-ch // the scrape is now paused, with metrics still to send

	reserved := make(chan error, 1)
	go func() {
		_, err := c.Reserve(gpuPod("during-scrape", "8").Obj(), "scrape-a", one(8), Binpack)
		reserved <- err
	}()
	select {
	case err := <-reserved:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Error("Reserve waited for a paused scrape: collect holds the cache's lock while it sends")
	}
	for range ch {
	}
	<-scraped
}

// assertGauge checks the value of a per-node GPU gauge as a scrape gathers it; -1: no series.
func assertGauge(t *testing.T, name, node string, want float64) {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := -1.0
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if testutil.LabelsMatch(m, map[string]string{"node": node}) {
				if got != -1 {
					t.Errorf("%s has two series for node %s", name, node)
				}
				got = m.GetGauge().GetValue()
			}
		}
	}
	if got != want {
		t.Errorf("%s{node=%s} = %v, want %v", name, node, got, want)
	}
}

// cacheState is a deep copy of the cache's maps, for comparisons.
type cacheState struct {
	Nodes map[string]nodeState
	Pods  map[types.UID]podState
}

func snapshot(c *Cache) cacheState {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s := cacheState{Nodes: map[string]nodeState{}, Pods: map[types.UID]podState{}}
	for name, n := range c.nodes {
		cp := *n
		cp.capacity = append([]int64(nil), n.capacity...)
		cp.used = append([]int64(nil), n.used...)
		s.Nodes[name] = cp
	}
	for uid, p := range c.pods {
		cp := *p
		cp.shares = append(Assignment(nil), p.shares...)
		s.Pods[uid] = cp
	}
	return s
}

func diffState(a, b cacheState) string {
	return cmp.Diff(a, b, cmp.AllowUnexported(nodeState{}, podState{}))
}

// TestCacheDevicesOn: a node's devices as a scheduler's snapshot has them. The pods listed are
// what the snapshot places on the node; the cache only says what each of them holds.
func TestCacheDevicesOn(t *testing.T) {
	c := NewCache(testResources)
	node := gpuNode("n1", "2", "32").Obj()
	if err := c.AddOrUpdateNode(node); err != nil {
		t.Fatal(err)
	}
	known := boundPod("known", "n1", "0:4")
	if err := c.AddOrUpdatePod(known); err != nil {
		t.Fatal(err)
	}
	if err := c.Hold("gone", "n1", Assignment{{Index: 1, Memory: 16}}); err != nil {
		t.Fatal(err)
	}
	reserved := gpuPod("reserved", "6").Node("n1").Obj()
	if err := c.Hold(reserved.UID, "n1", Assignment{{Index: 1, Memory: 6}}); err != nil {
		t.Fatal(err)
	}
	elsewhere := gpuPod("elsewhere", "2").Node("n1").Annotation(PodGPUDevicesAnnotation, "0:2").Obj()
	if err := c.Hold(elsewhere.UID, "n2", Assignment{{Index: 0, Memory: 2}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pods []*v1.Pod
		want []Device
	}{
		{name: "no pods: a pod only the cache holds does not count", want: []Device{{Capacity: 16}, {Capacity: 16}}},
		{name: "a bound pod the cache knows", pods: []*v1.Pod{known}, want: []Device{{Capacity: 16, Used: 4}, {Capacity: 16}}},
		{name: "a reserved pod without annotations counts by its reservation", pods: []*v1.Pod{reserved},
			want: []Device{{Capacity: 16}, {Capacity: 16, Used: 6}}},
		{name: "a pod the cache has not seen counts by its annotations", pods: []*v1.Pod{boundPod("unseen", "n1", "0:3,1:3")},
			want: []Device{{Capacity: 16, Used: 3}, {Capacity: 16, Used: 3}}},
		{name: "a pod the cache places on another node counts by its annotations", pods: []*v1.Pod{elsewhere},
			want: []Device{{Capacity: 16, Used: 2}, {Capacity: 16}}},
		{name: "malformed annotations and pods without GPU memory count nothing",
			pods: []*v1.Pod{boundPod("bad", "n1", "0:x"), st.MakePod().Name("cpu").UID("cpu").Node("n1").Obj()},
			want: []Device{{Capacity: 16}, {Capacity: 16}}},
		{name: "nominated pods take what they would get after the placed pods",
			pods: []*v1.Pod{gpuPod("nominated", "12").Obj(), known, reserved},
			want: []Device{{Capacity: 16, Used: 16}, {Capacity: 16, Used: 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(c)
			if diff := cmp.Diff(tt.want, c.DevicesOn("n1", []int64{16, 16}, nil, slices.Values(tt.pods), Binpack)); diff != "" {
				t.Errorf("devices (-want +got):\n%s", diff)
			}
			if diff := diffState(before, snapshot(c)); diff != "" {
				t.Errorf("DevicesOn changed the cache:\n%s", diff)
			}
		})
	}
	// The snapshot's Node object is newer than the cache's: the snapshot's GPUs count.
	want := []Device{{Capacity: 16, Used: 4}, {Capacity: 16}, {Capacity: 16}, {Capacity: 16}}
	if diff := cmp.Diff(want, c.DevicesOn("n1", []int64{16, 16, 16, 16}, nil, slices.Values([]*v1.Pod{known}), Binpack)); diff != "" {
		t.Errorf("a node with GPUs the cache has not seen yet (-want +got):\n%s", diff)
	}
	if got := c.DevicesOn("cpu-only", nil, nil, slices.Values([]*v1.Pod{known}), Binpack); got != nil {
		t.Errorf("a node without GPUs: %v", got)
	}
	if err := c.Hold(reserved.UID, "n1", Assignment{{Index: 0, Memory: 1}}); err == nil {
		t.Error("Hold for a pod that already holds devices succeeded")
	}
}

// NodeViews reads what NodeView does for each name, unknown nodes and nodes without GPUs included,
// and its views do not share memory: a caller may change one (as preempt's what-if views do).
func TestNodeViews(t *testing.T) {
	c := NewCache(testResources)
	for _, node := range []*v1.Node{gpuNode("a", "2", "32").Obj(), gpuNode("b", "3", "48").Obj(), st.MakeNode().Name("cpu").Obj()} {
		if err := c.AddOrUpdateNode(node); err != nil {
			t.Fatal(err)
		}
	}
	for _, pod := range []*v1.Pod{boundPod("p1", "a", "1:10"), boundPod("p2", "b", "0:4,2:4"), boundPod("p3", "gone", "0:2")} {
		if err := c.AddOrUpdatePod(pod); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"b", "cpu", "missing", "a", "gone", "b"}
	views := c.NodeViews(names)
	if len(views) != len(names) {
		t.Fatalf("%d views for %d names", len(views), len(names))
	}
	for i, name := range names {
		if diff := cmp.Diff(c.NodeView(name), views[i]); diff != "" {
			t.Errorf("%s (-NodeView +NodeViews):\n%s", name, diff)
		}
	}
	views[0] = append(views[0], Device{Capacity: 99})
	views[0][0].Used = 99
	if diff := cmp.Diff(c.NodeView("a"), views[3]); diff != "" {
		t.Errorf("changing b's view changed a's (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(c.NodeView("b"), views[5]); diff != "" {
		t.Errorf("changing one view of b changed the other (-want +got):\n%s", diff)
	}
}
