package gpu

import (
	"fmt"
	"testing"
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
