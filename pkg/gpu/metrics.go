package gpu

import (
	"slices"
	"strings"
	"sync"
	"weak"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const metricsSubsystem = "berth"

// A node's GPU memory is served from the caches when /metrics is scraped, never updated on the
// scheduling path: placing a pod costs nothing here, and a scrape costs one read lock per cache.
// The series are per node, not per GPU: 5000 nodes of 8 GPUs are 10,000 series rather than
// 80,000, which a scrape (and scheduler_perf's once-a-second sampling) gathers and sorts each time;
// docs/gpushare.md has the measurements. Per-GPU detail is on the pods (kubectl berth gpus).
var (
	memoryCapacity = metrics.NewDesc(metricsSubsystem+"_gpu_memory_capacity",
		"GPU memory of each node, over all its GPUs, in the units the node reports.",
		[]string{"node"}, nil, metrics.ALPHA, "")
	memoryAllocated = metrics.NewDesc(metricsSubsystem+"_gpu_memory_allocated",
		"GPU memory held on each node, over all its GPUs, by bound pods and pods the scheduler has reserved it for.",
		[]string{"node"}, nil, metrics.ALPHA, "")
	podsPlaced = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "gpu_pods_placed_total",
		Help:           "GPU pods that berth assigned devices to and bound.",
		StabilityLevel: metrics.ALPHA,
	})

	registerMetrics sync.Once
)

// liveCaches are the caches the collector reports. A cache leaves when it is closed or collected
// as garbage; a process normally has one (a scheduler's, or the extender's).
var liveCaches = struct {
	sync.Mutex
	m map[weak.Pointer[Cache]]struct{}
}{m: map[weak.Pointer[Cache]]struct{}{}}

func addLiveCache(c *Cache) {
	liveCaches.Lock()
	defer liveCaches.Unlock()
	liveCaches.m[weak.Make(c)] = struct{}{}
}

// Close stops reporting the cache's nodes in the metrics.
func (c *Cache) Close() {
	liveCaches.Lock()
	defer liveCaches.Unlock()
	delete(liveCaches.m, weak.Make(c))
}

// RegisterMetrics adds the GPU metrics to the legacy registry that the scheduler serves on
// /metrics. NewCache calls it; calling it again does nothing.
func RegisterMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(podsPlaced)
		legacyregistry.CustomMustRegister(&collector{})
	})
}

// ObservePodPlaced counts a GPU pod bound with its devices.
func ObservePodPlaced() { podsPlaced.Inc() }

// collector reports every live cache's nodes. A node two caches know (two schedulers in one
// process, as tests run them) is reported once.
type collector struct {
	metrics.BaseStableCollector
}

func (*collector) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- memoryCapacity
	ch <- memoryAllocated
}

func (*collector) CollectWithStability(ch chan<- metrics.Metric) {
	liveCaches.Lock()
	var caches []*Cache
	for p := range liveCaches.m {
		if c := p.Value(); c != nil {
			caches = append(caches, c)
		} else {
			delete(liveCaches.m, p)
		}
	}
	liveCaches.Unlock()
	seen := map[string]bool{}
	for _, c := range caches {
		c.collect(ch, seen)
	}
}

// collect copies the figures under the read lock and sends them after releasing it: the channel
// is drained by the registry as it processes each metric, so sending under the lock would hold it
// for the whole gather (over 100 ms at 5000 nodes) and stall Reserve and the informers behind it.
func (c *Cache) collect(ch chan<- metrics.Metric, seen map[string]bool) {
	type figures struct {
		node           string
		capacity, used int64
	}
	c.mu.RLock()
	all := make([]figures, 0, len(c.nodes))
	for name, n := range c.nodes {
		if !n.known || len(n.capacity) == 0 || seen[name] {
			continue
		}
		seen[name] = true
		f := figures{node: name}
		for i, m := range n.capacity {
			f.capacity += m
			f.used += n.used[i]
		}
		all = append(all, f)
	}
	c.mu.RUnlock()
	// In the order the registry sorts a family's series into: its sort then only checks them (a
	// map's order cost it as much as the rest of the gather at 5000 nodes).
	slices.SortFunc(all, func(a, b figures) int { return strings.Compare(a.node, b.node) })
	for _, f := range all {
		ch <- metrics.NewLazyConstMetric(memoryCapacity, metrics.GaugeValue, float64(f.capacity), f.node)
		ch <- metrics.NewLazyConstMetric(memoryAllocated, metrics.GaugeValue, float64(f.used), f.node)
	}
}
