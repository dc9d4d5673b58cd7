package gpushare

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

// TestPreFilterJudgesTheSnapshot: whether any node could hold the pod is judged on the nodes of the
// scheduler's snapshot, the nodes whose events requeue the pod, not on the device cache, which its
// own informer handler may fill a moment later. On a cache-based check a GPU node that had just
// joined was not seen, the pod was rejected as unresolvable, and the event that let it in was spent.
func TestPreFilterJudgesTheSnapshot(t *testing.T) {
	e := newEnv(t, args(gpu.BinpackName), gpuNode("known", 1, 8).Obj())
	pod := gpuPod("p", 12).Obj()
	prefilter := func(nodes ...*v1.Node) *fwk.Status {
		infos, err := internalcache.NewSnapshot(nil, nodes).NodeInfos().List()
		if err != nil {
			t.Fatal(err)
		}
		_, status := e.pl.PreFilter(e.ctx, framework.NewCycleState(), pod, infos)
		return status
	}
	// The device cache has not seen this node: only the scheduler's snapshot has it.
	joined := gpuNode("joined", 2, 32).Obj()
	if status := prefilter(gpuNode("known", 1, 8).Obj(), joined); !status.IsSuccess() {
		t.Errorf("a node the snapshot has and the device cache has not seen yet: %v, want success", status)
	}
	// The device cache still has a node the snapshot no longer has.
	if err := e.pl.devices.AddOrUpdateNode(joined); err != nil {
		t.Fatal(err)
	}
	want := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "pod asks for 12 aliyun.com/gpu-mem on one GPU, but the largest GPU of any node holds 8")
	if diff := cmp.Diff(want, prefilter(gpuNode("known", 1, 8).Obj()), statusText); diff != "" {
		t.Errorf("a node only the device cache still has (-want +got):\n%s", diff)
	}
}

// TestNodeViews: a node's devices are worked out once per NodeInfo generation and its GPUs read
// once per change of its GPU fields, however often Filter, Score and Reserve ask and however often
// the Node object is replaced.
func TestNodeViews(t *testing.T) {
	e := newEnv(t, args(gpu.BinpackName))
	views := e.pl.views
	node := gpuNode("n1", 2, 32).Obj()
	ni := framework.NewNodeInfo(boundPod("a", "n1", "0:4").Obj())
	ni.SetNode(node)

	first := views.devicesOn(ni, new(deviceBuf))
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 4}, {Capacity: 16}}, first); diff != "" {
		t.Fatalf("devices (-want +got):\n%s", diff)
	}
	// A pod slipped into the NodeInfo without a new generation, which the scheduler never does:
	// devices worked out once per generation do not see it.
	gen := ni.Generation
	ni.AddPod(boundPod("unseen", "n1", "1:2").Obj())
	ni.Generation = gen
	if diff := cmp.Diff(first, views.devicesOn(ni, new(deviceBuf))); diff != "" {
		t.Errorf("the same NodeInfo generation was worked out twice (-want +got):\n%s", diff)
	}
	if err := ni.RemovePod(klog.Background(), boundPod("unseen", "n1", "1:2").Obj()); err != nil {
		t.Fatal(err)
	}
	capacity := views.capacity(node)

	// A heartbeat: a new Node object (and a new generation) with the same GPUs.
	beat := node.DeepCopy()
	beat.Labels = map[string]string{"touched": "yes"}
	ni.SetNode(beat)
	if got := views.capacity(beat); &got[0] != &capacity[0] {
		t.Error("a Node object with unchanged GPU fields was parsed again")
	}
	if diff := cmp.Diff(first, views.devicesOn(ni, new(deviceBuf))); diff != "" {
		t.Errorf("after a heartbeat (-want +got):\n%s", diff)
	}

	// A pod arrives: a new generation, new devices.
	ni.AddPod(boundPod("b", "n1", "1:8").Obj())
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 4}, {Capacity: 16, Used: 8}}, views.devicesOn(ni, new(deviceBuf))); diff != "" {
		t.Errorf("after a pod arrived (-want +got):\n%s", diff)
	}

	// The GPUs change: read again.
	grown := st.MakeNode().Name("n1").Capacity(map[v1.ResourceName]string{countResource: "2", memoryResource: "48"}).Obj()
	ni.SetNode(grown)
	if diff := cmp.Diff([]gpu.Device{{Capacity: 24, Used: 4}, {Capacity: 24, Used: 8}}, views.devicesOn(ni, new(deviceBuf))); diff != "" {
		t.Errorf("after the GPUs grew (-want +got):\n%s", diff)
	}

	views.forget("n1")
	if _, ok := views.m["n1"]; ok {
		t.Error("a deleted node's view was kept")
	}
	if got := views.devicesOn(framework.NewNodeInfo(), new(deviceBuf)); got != nil {
		t.Errorf("a NodeInfo without a Node has devices %v", got)
	}
}

// TestNodeViewsSharedSlot: two NodeInfos whose generations pick the same slot of the recent views,
// asked about in turn, each get their own node's devices, every time.
func TestNodeViewsSharedSlot(t *testing.T) {
	e := newEnv(t, args(gpu.BinpackName))
	a := framework.NewNodeInfo(boundPod("a", "n1", "0:4").Obj())
	a.SetNode(gpuNode("n1", 2, 32).Obj())
	b := framework.NewNodeInfo(boundPod("b", "n2", "1:8").Obj())
	b.SetNode(gpuNode("n2", 2, 32).Obj())
	b.Generation = a.Generation + recentSlots
	want := map[*framework.NodeInfo][]gpu.Device{
		a: {{Capacity: 16, Used: 4}, {Capacity: 16}},
		b: {{Capacity: 16}, {Capacity: 16, Used: 8}},
	}
	for i := range 4 {
		for _, ni := range []*framework.NodeInfo{a, b} {
			if diff := cmp.Diff(want[ni], e.pl.views.devicesOn(ni, new(deviceBuf))); diff != "" {
				t.Errorf("try %d, node %s (-want +got):\n%s", i, ni.Node().Name, diff)
			}
		}
	}
	// As Filter and Score ask, from many goroutines at once: the slot is read while others fill it
	// with the other node's devices, and no reader ever gets a mix of the two.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			var buf deviceBuf
			for i := range 2000 {
				ni := []*framework.NodeInfo{a, b}[(g+i)%2]
				if devs := e.pl.views.devicesOn(ni, &buf); !slices.Equal(devs, want[ni]) {
					t.Errorf("goroutine %d, try %d, node %s: %v, want %v", g, i, ni.Node().Name, devs, want[ni])
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkNodeViews is what Filter, Score and Reserve pay per node to learn its devices: for a
// NodeInfo whose generation was seen (every call after the first in a cycle, and every cycle until
// the node or its pods change); for a new generation (a pod came or went: two NodeInfos of the same
// node, asked about in turn); and for a new generation with a new Node object carrying the same GPUs
// (a heartbeat: the devices are worked out again, the GPUs are not read again). The node has 8 GPUs
// and 16 GPU pods, all known to the device cache.
func BenchmarkNodeViews(b *testing.B) {
	e := newEnv(b, args(gpu.BinpackName))
	node := gpuNode("n1", 8, 640).Obj()
	var pods []*v1.Pod
	for i := range 16 {
		pod := boundPod(fmt.Sprintf("p%d", i), "n1", fmt.Sprintf("%d:10", i%8)).Obj()
		// In a running scheduler the device cache has seen the bound pods.
		if err := e.pl.devices.AddOrUpdatePod(pod); err != nil {
			b.Fatal(err)
		}
		pods = append(pods, pod)
	}
	infos := [2]*framework.NodeInfo{framework.NewNodeInfo(pods...), framework.NewNodeInfo(pods...)}
	beat := node.DeepCopy()
	infos[0].SetNode(node)
	infos[1].SetNode(beat)
	b.Run("sameGeneration", func(b *testing.B) {
		for b.Loop() {
			e.pl.views.devicesOn(infos[0], new(deviceBuf))
		}
	})
	// Every call below brings a generation not seen before, as the scheduler's counter would.
	gen := int64(1 << 40)
	b.Run("newGeneration", func(b *testing.B) {
		infos[1].SetNode(node)
		i := 0
		for b.Loop() {
			i++
			gen++
			infos[i%2].Generation = gen
			e.pl.views.devicesOn(infos[i%2], new(deviceBuf))
		}
	})
	b.Run("heartbeat", func(b *testing.B) {
		infos[1].SetNode(beat)
		i := 0
		for b.Loop() {
			i++
			gen++
			infos[i%2].Generation = gen
			e.pl.views.devicesOn(infos[i%2], new(deviceBuf))
		}
	})
}

// BenchmarkNodeViewsParallel is Filter's and Score's lookup as the scheduler makes it: many
// goroutines at once (the framework checks nodes in parallel), each asking about NodeInfos of 1000
// nodes whose generation was seen.
func BenchmarkNodeViewsParallel(b *testing.B) {
	e := newEnv(b, args(gpu.BinpackName))
	infos := make([]*framework.NodeInfo, 1000)
	for i := range infos {
		name := fmt.Sprintf("gpu-node-%04d", i)
		pod := boundPod(fmt.Sprintf("p%d", i), name, fmt.Sprintf("%d:10", i%8)).Obj()
		if err := e.pl.devices.AddOrUpdatePod(pod); err != nil {
			b.Fatal(err)
		}
		infos[i] = framework.NewNodeInfo(pod)
		infos[i].SetNode(gpuNode(name, 8, 128).Obj())
		e.pl.views.devicesOn(infos[i], new(deviceBuf))
	}
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if devs := e.pl.views.devicesOn(infos[i%len(infos)], new(deviceBuf)); len(devs) != 8 {
				b.Fatal(devs)
			}
		}
	})
}

// BenchmarkFilter is Filter on a node whose GPUs hold the pod (most nodes Filter sees) and on one
// whose GPUs are full, for a generation already seen.
func BenchmarkFilter(b *testing.B) {
	e := newEnv(b, args(gpu.BinpackName))
	state := framework.NewCycleState()
	req, err := gpu.RequestOf(gpuPod("p", 8).Obj(), memoryResource)
	if err != nil {
		b.Fatal(err)
	}
	state.Write(preFilterStateKey, &preFilterState{req: req})
	for _, tc := range []struct {
		name, used string
		fits       bool
	}{{"fits", "0:10", true}, {"full", "0:16,1:16,2:16,3:16,4:16,5:16,6:16,7:16", false}} {
		b.Run(tc.name, func(b *testing.B) {
			ni := framework.NewNodeInfo(boundPod("a", "n1", tc.used).Obj())
			ni.SetNode(gpuNode("n1", 8, 128).Obj())
			b.ReportAllocs()
			for b.Loop() {
				if status := e.pl.Filter(e.ctx, state, nil, ni); status.IsSuccess() != tc.fits {
					b.Fatal(status)
				}
			}
		})
	}
}
