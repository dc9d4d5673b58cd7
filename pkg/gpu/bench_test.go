package gpu

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/prometheus/common/expfmt"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/metrics"
)

// BenchmarkFitAndScore is the per-node work of Filter and Score on an 8-GPU node: Filter asks
// whether the request fits, Score rates the placement, Reserve (once per pod) picks the devices.
func BenchmarkFitAndScore(b *testing.B) {
	devs := make([]Device, 8)
	for i := range devs {
		devs[i] = Device{Capacity: 80, Used: int64(i * 9)}
	}
	for _, req := range []Request{one(10), many(2, 10)} {
		b.Run(fmt.Sprintf("%dGPUs/filter", req.Count), func(b *testing.B) {
			for b.Loop() {
				if err := filterCheck(devs, req); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%dGPUs/score", req.Count), func(b *testing.B) {
			for b.Loop() {
				if _, nf := Score(devs, req, Binpack); nf != nil {
					b.Fatal(nf)
				}
			}
		})
		b.Run(fmt.Sprintf("%dGPUs/fit", req.Count), func(b *testing.B) {
			for b.Loop() {
				if _, nf := Fit(devs, req, Binpack); nf != nil {
					b.Fatal(nf)
				}
			}
		})
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
		if devs := c.DevicesOn(node.Name, capacity, nil, slices.Values(pods), Binpack); len(devs) != 8 {
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

// BenchmarkMetricsScrape is one scrape of the GPU metrics of 5000 nodes with 8 GPUs each: gather
// and write the text a Prometheus reads. perNode is what berth serves (two series a node, from the
// cache); perDevice is the same memory as one series a GPU, as gauges updated on placement, the
// way berth served it before, for comparison. Each reports the bytes of one scrape.
func BenchmarkMetricsScrape(b *testing.B) {
	const nodes, gpus = 5000, 8
	c := &Cache{res: testResources, nodes: map[string]*nodeState{}, pods: map[types.UID]*podState{}}
	for i := range nodes {
		if err := c.AddOrUpdateNode(gpuNode(fmt.Sprintf("node-%04d", i), fmt.Sprint(gpus), fmt.Sprint(gpus*16)).Obj()); err != nil {
			b.Fatal(err)
		}
		if err := c.Hold(types.UID(fmt.Sprintf("pod-%04d", i)), fmt.Sprintf("node-%04d", i), Assignment{{Index: i % gpus, Memory: 8}}); err != nil {
			b.Fatal(err)
		}
	}
	scrape := func(b *testing.B, reg metrics.KubeRegistry) {
		var size int
		for b.Loop() {
			families, err := reg.Gather()
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			for _, mf := range families {
				if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
					b.Fatal(err)
				}
			}
			size = buf.Len()
		}
		b.ReportMetric(float64(size), "bytes/scrape")
	}
	b.Run("perNode", func(b *testing.B) {
		reg := metrics.NewKubeRegistry()
		reg.CustomMustRegister(&cacheOnly{c: c})
		scrape(b, reg)
	})
	b.Run("perDevice", func(b *testing.B) {
		reg := metrics.NewKubeRegistry()
		capacity := metrics.NewGaugeVec(&metrics.GaugeOpts{Name: "berth_gpu_memory_capacity", Help: "h", StabilityLevel: metrics.ALPHA}, []string{"node", "device"})
		allocated := metrics.NewGaugeVec(&metrics.GaugeOpts{Name: "berth_gpu_memory_allocated", Help: "h", StabilityLevel: metrics.ALPHA}, []string{"node", "device"})
		reg.MustRegister(capacity, allocated)
		for name, n := range c.nodes {
			for i := range n.capacity {
				capacity.WithLabelValues(name, fmt.Sprint(i)).Set(float64(n.capacity[i]))
				allocated.WithLabelValues(name, fmt.Sprint(i)).Set(float64(n.used[i]))
			}
		}
		scrape(b, reg)
	})
}

// cacheOnly is the collector over one cache, so a benchmark measures its cache alone.
type cacheOnly struct {
	metrics.BaseStableCollector
	c *Cache
}

func (*cacheOnly) DescribeWithStability(ch chan<- *metrics.Desc) {
	(&collector{}).DescribeWithStability(ch)
}

func (o *cacheOnly) CollectWithStability(ch chan<- metrics.Metric) {
	o.c.collect(ch, map[string]bool{})
}

// filterCheck is what the plugin's Filter asks of a node's devices.
func filterCheck(devs []Device, req Request) *NoFitError {
	return Fits(devs, req)
}

// BenchmarkFragmentationCost is Score's per-node work with the Fragmentation strategy against a
// mix of DefaultMixLimit kinds: FragmentationCost, which rates every distinct amount of free memory
// that could take a share of one GPU, beside one growth on Binpack's devices (what it rated
// before it chose the GPU by the measure). "spread": the 8 GPUs all with different free memory,
// the worst case; "typical": two amounts (used and empty GPUs). "-models": each kind also comes
// restricted to GPU models (on A, on B, on A or B) besides anywhere, 4 sets of models to a kind as
// a learned Mix keeps them, on a node of model A; "-supply": the same weighed against a cluster's
// GPUs of each model (WithSupply), as GPUShare scores when some pods name models.
func BenchmarkFragmentationCost(b *testing.B) {
	var classes, restricted []MixClass
	for i := range DefaultMixLimit {
		req := one(int64(5 + 5*i))
		if i%5 == 4 {
			req = many(2, 80)
		}
		c := MixClass{PodShape: gpuDemand(int64(1000*(i%8)), 0, req), Weight: float64(1 + i%3)}
		classes = append(classes, c)
		for _, models := range []string{"", "A", "B", "A|B"} {
			c.GPUModels = models
			restricted = append(restricted, c)
		}
	}
	mixes := map[string]MixView{"": NewMixView(classes), "-models": NewMixView(restricted),
		"-models-supply": NewMixView(restricted).WithSupply(map[string]float64{"A": 800, "B": 200, "": 4000})}
	nodes := map[string][]Device{"spread": make([]Device, 8), "typical": make([]Device, 8)}
	for i := range 8 {
		nodes["spread"][i] = Device{Capacity: 80, Used: int64(i * 9)}
		nodes["typical"][i] = Device{Capacity: 80, Used: int64(i%2) * 40}
	}
	d := gpuDemand(2000, 0, one(10))
	for _, name := range []string{"spread", "typical"} {
		for _, variant := range []string{"", "-models", "-models-supply"} {
			n, mix := NodeShape{Devices: nodes[name], MilliCPU: 64000, Memory: 1 << 20, Model: "A"}, mixes[variant]
			b.Run(name+variant+"/cost", func(b *testing.B) {
				for b.Loop() {
					if _, nf := FragmentationCost(n, d, mix); nf != nil {
						b.Fatal(nf)
					}
				}
			})
			b.Run(name+variant+"/binpack-growth", func(b *testing.B) {
				for b.Loop() {
					a, nf := Fit(n.Devices, d.GPU, Binpack)
					if nf != nil {
						b.Fatal(nf)
					}
					FragmentationGrowth(n, d, a, mix)
				}
			})
		}
	}
}
