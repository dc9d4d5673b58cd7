package gpu

import (
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// BenchmarkFitAndScore is the per-node work of Filter and Score on an 8-GPU node.
func BenchmarkFitAndScore(b *testing.B) {
	devs := make([]Device, 8)
	for i := range devs {
		devs[i] = Device{Capacity: 80, Used: int64(i * 9)}
	}
	req := many(2, 10)
	for b.Loop() {
		if _, err := Fit(devs, req, Binpack); err != nil {
			b.Fatal(err)
		}
		if _, err := Score(devs, req, Binpack); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckCapacity is PreFilter's cluster-wide check on 5000 nodes, once the index is built.
func BenchmarkCheckCapacity(b *testing.B) {
	c := NewCache(testResources)
	for i := range 5000 {
		count := 1 + i%8
		if err := c.AddOrUpdateNode(gpuNode(fmt.Sprintf("bench-%d", i), fmt.Sprint(count), fmt.Sprint(count*(16+8*(i%3)))).Obj()); err != nil {
			b.Fatal(err)
		}
	}
	req := many(4, 20)
	_ = c.CheckCapacity(req) // builds the index
	for b.Loop() {
		if err := c.CheckCapacity(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNodeView is a node's devices read from the cache alone; BenchmarkDevicesOn is the same
// node judged by a snapshot's pods (16 of them, every one known to the cache), which is what the
// plugin's Filter, Score and Reserve pay per node.
func BenchmarkNodeView(b *testing.B) {
	c, node, _ := benchNode(b)
	for b.Loop() {
		if devs := c.NodeView(node.Name); len(devs) != 8 {
			b.Fatal(devs)
		}
	}
}

func BenchmarkDevicesOn(b *testing.B) {
	c, node, pods := benchNode(b)
	capacity, _ := DevicesOf(node, testResources)
	for b.Loop() {
		if devs := c.DevicesOn(node.Name, capacity, slices.Values(pods), Binpack); len(devs) != 8 {
			b.Fatal(devs)
		}
	}
}

func benchNode(b *testing.B) (*Cache, *v1.Node, []*v1.Pod) {
	c := NewCache(testResources)
	node := gpuNode("bench", "8", "640").Obj()
	if err := c.AddOrUpdateNode(node); err != nil {
		b.Fatal(err)
	}
	var pods []*v1.Pod
	for i := range 16 {
		p := boundPod(fmt.Sprintf("p%d", i), "bench", fmt.Sprintf("%d:10", i%8))
		if err := c.AddOrUpdatePod(p); err != nil {
			b.Fatal(err)
		}
		pods = append(pods, p)
	}
	return c, node, pods
}
