package placement

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/berth-sched/berth/pkg/allocatable"
	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/normalize"
	"github.com/berth-sched/berth/test/bench/report"
)

// The packing simulation: a cluster of identical GPU nodes, filled with a fixed random mix of
// requests until the first one fits nowhere.
const (
	packingNodes     = 100
	packingGPUs      = 8
	packingGPUMemory = 16 // GiB, as the gpushare device plugin counts by default
	packingSeed      = 1
)

// A mix is a fixed random sequence of requests. Each asks for a share of one GPU (2 to 16 GiB),
// except that, when wholeEvery is set, one in wholeEvery on average asks for 2 or 4 whole GPUs.
type mix struct {
	name       string
	wholeEvery int
}

var mixes = []mix{
	{name: "Shares", wholeEvery: 0},
	{name: "SharesAndWhole", wholeEvery: 10},
}

// workload names the cluster and the mix in the results.
func (m mix) workload() string {
	return fmt.Sprintf("%dNodes_%dx%dGiB_%s", packingNodes, packingGPUs, packingGPUMemory, m.name)
}

// requests returns the mix's requests, one per call.
func (m mix) requests() func() gpu.Request {
	rng := rand.New(rand.NewPCG(packingSeed, packingSeed))
	return func() gpu.Request {
		if m.wholeEvery > 0 && rng.IntN(m.wholeEvery) == 0 {
			n := 2 << rng.IntN(2)
			return gpu.Request{Total: int64(n) * packingGPUMemory, Count: n, PerDevice: packingGPUMemory}
		}
		size := 2 + rng.Int64N(packingGPUMemory-1)
		return gpu.Request{Total: size, Count: 1, PerDevice: size}
	}
}

// A placer picks a node and its devices for a request, or reports that it fits nowhere.
type placer func(nodes [][]gpu.Device, req gpu.Request) (node int, a gpu.Assignment, ok bool)

// placers are the ways of placing compared: berth's strategies, choosing the node the way the
// GPUShare plugin scores it (the best gpu.Score, the lowest index among equals), and first fit.
var placers = []struct {
	name  string
	place placer
}{
	{"Binpack", scored(gpu.Binpack)},
	{"Spread", scored(gpu.Spread)},
	{"FirstFit", firstFit},
}

func scored(s *gpu.Strategy) placer {
	return func(nodes [][]gpu.Device, req gpu.Request) (int, gpu.Assignment, bool) {
		best, bestScore := -1, 0.0
		for i, devs := range nodes {
			score, nf := gpu.Score(devs, req, s)
			if nf == nil && (best < 0 || score > bestScore) {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			return 0, nil, false
		}
		a, nf := gpu.Fit(nodes[best], req, s)
		return best, a, nf == nil
	}
}

// firstFit is the baseline: the first node, in order, with enough devices that have the share free,
// and on it the first such devices.
func firstFit(nodes [][]gpu.Device, req gpu.Request) (int, gpu.Assignment, bool) {
	for i, devs := range nodes {
		var a gpu.Assignment
		for j, d := range devs {
			if d.Free() >= req.PerDevice && len(a) < req.Count {
				a = append(a, gpu.DeviceShare{Index: j, Memory: req.PerDevice})
			}
		}
		if len(a) == req.Count {
			return i, a, true
		}
	}
	return 0, nil, false
}

type packing struct {
	nodes            [][]gpu.Device
	placed, capacity int64
	pods             int
	misfit           gpu.Request
}

// pack places the mix until a request fits nowhere.
func pack(m mix, place placer) packing {
	p := packing{nodes: make([][]gpu.Device, packingNodes)}
	for i := range p.nodes {
		p.nodes[i] = make([]gpu.Device, packingGPUs)
		for j := range p.nodes[i] {
			p.nodes[i][j].Capacity = packingGPUMemory
			p.capacity += packingGPUMemory
		}
	}
	next := m.requests()
	for {
		req := next()
		n, a, ok := place(p.nodes, req)
		if !ok {
			p.misfit = req
			return p
		}
		for _, share := range a {
			p.nodes[n][share.Index].Used += share.Memory
		}
		p.placed += a.Total()
		p.pods++
	}
}

func (p packing) share() float64 { return float64(p.placed) / float64(p.capacity) }

// dataItemsDir is where the packing benchmarks write their figures for cmd/benchtable: the flag
// of scheduler_perf's harness of that name, which hack/bench.sh passes to every benchmark binary.
var dataItemsDir = flag.String("data-items-dir", "", "directory for the packing benchmarks' results (cmd/benchtable reads it)")

// BenchmarkGPUPacking reports, for each way of placing, the share of the cluster's GPU memory
// placed before the first request that no longer fits (placed-share), and how many pods that was.
// With -data-items-dir it also writes them there for the report. ns/op is the time to simulate
// the whole fill.
func BenchmarkGPUPacking(b *testing.B) {
	var results []report.Result
	for _, m := range mixes {
		for _, p := range placers {
			var last packing
			b.Run(m.name+"/"+p.name, func(b *testing.B) {
				for b.Loop() {
					last = pack(m, p.place)
				}
				b.ReportMetric(last.share(), "placed-share")
				b.ReportMetric(float64(last.pods), "pods")
			})
			if last.capacity == 0 {
				continue // filtered out by -test.bench
			}
			results = append(results, report.Result{
				TestCase: p.name,
				Workload: m.workload(),
				Metric:   report.GPUPacking,
				Unit:     "share",
				Data:     map[string]float64{"Value": last.share()},
			})
		}
	}
	if *dataItemsDir != "" && len(results) > 0 {
		if err := report.Save(*dataItemsDir, "BenchmarkGPUPacking", results); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGPUPacking checks the simulation behind BenchmarkGPUPacking: every placement stays within
// the devices' memory, the request it stops at really fits on no node, and Binpack, berth's
// default, packs at least as much as Spread.
func TestGPUPacking(t *testing.T) {
	for _, m := range mixes {
		t.Run(m.name, func(t *testing.T) { testPacking(t, m) })
	}
}

func testPacking(t *testing.T, m mix) {
	shares := map[string]float64{}
	for _, p := range placers {
		res := pack(m, p.place)
		var used int64
		for i, devs := range res.nodes {
			for j, d := range devs {
				if d.Used > d.Capacity {
					t.Errorf("%s: node %d GPU %d holds %d of %d", p.name, i, j, d.Used, d.Capacity)
				}
				used += d.Used
			}
			if _, nf := gpu.Fit(devs, res.misfit, gpu.Binpack); nf == nil {
				t.Errorf("%s: stopped at %+v, which fits on node %d", p.name, res.misfit, i)
			}
		}
		if used != res.placed {
			t.Errorf("%s: devices hold %d, placements add up to %d", p.name, used, res.placed)
		}
		if res.pods == 0 {
			t.Errorf("%s: placed no pod", p.name)
		}
		shares[p.name] = res.share()
		t.Logf("%s: %d pods, %.3f of the GPU memory, stopped at %+v", p.name, res.pods, res.share(), res.misfit)
	}
	if shares["Binpack"] < shares["Spread"] {
		t.Errorf("Binpack placed %.3f of the GPU memory, less than Spread's %.3f", shares["Binpack"], shares["Spread"])
	}
}

// The whole-node simulation: GPU jobs come and go on a cluster of nodes with 2, 4 and 8 GPUs. Most
// jobs ask for a share of one GPU; one in wholeEvery asks for every GPU of a node of one of the
// three sizes, and fits only on such a node (or a larger one) with all those GPUs free. A job that
// fits nowhere when it arrives is turned away; a placed job leaves after an exponentially
// distributed time. Jobs ask for cpu and memory in proportion to their GPUs, as nodes have them.
//
// The nodes are chosen by the scheduling framework's own scoring, with the Score plugins that
// rank by resources in berth's profile: the in-tree NodeResourcesFit (LeastAllocated on cpu and
// memory) and NodeResourcesBalancedAllocation with their default args, GPUShare's score (its
// gpu.Score on the simulated devices, normalised as GPUShare does), and, to compare,
// NodeResourcesAllocatable in Least mode on aliyun.com/gpu-count; each at weight 1, ties broken at
// random. The plugins that look at anything else (taints, affinity, spreading, images) would give
// every simulated node the same score and are left out.
const (
	wholeNodesPerSize = 12 // nodes of each size: 168 GPUs in all
	wholeEvery        = 10 // one job in wholeEvery asks for a whole node
	wholeArrivals     = 20000
	wholeWarmUp       = 1000 // arrivals before the counting starts: the mean job stays for about 150
	// wholeTestArrivals is the part of the stream that TestWholeNodePacking runs, to keep `make
	// test` (with -race) short.
	wholeTestArrivals = 4000
	wholeLoad         = 0.85 // the GPUs the jobs ask for on average, over the GPUs the cluster has
	wholeSeed         = 1
	// Per GPU, nodes have (and jobs ask for, in proportion to their share) this much cpu and memory.
	wholeCPUPerGPU    = 8
	wholeMemoryPerGPU = 64 << 30
)

var wholeNodeSizes = []int{2, 4, 8}

// A wholeNodeScorer is one profile to compare: GPUShare's strategy, whether GPUShare scores nodes
// at all, and whether NodeResourcesAllocatable is enabled. Without a node score the strategy
// still chooses the devices on the node the other plugins chose: that is the stock scheduler with
// berth-extender configured without prioritizeVerb (filter and bind only).
type wholeNodeScorer struct {
	name        string
	strategy    *gpu.Strategy
	noNodeScore bool
	allocatable bool
}

var wholeNodeScorers = []wholeNodeScorer{
	{name: "Binpack", strategy: gpu.Binpack},
	{name: "Binpack+NodeResourcesAllocatable", strategy: gpu.Binpack, allocatable: true},
	{name: "Spread", strategy: gpu.Spread},
	{name: "Spread+NodeResourcesAllocatable", strategy: gpu.Spread, allocatable: true},
	{name: "DevicesOnly", strategy: gpu.Binpack, noNodeScore: true},
	{name: "DevicesOnly+NodeResourcesAllocatable", strategy: gpu.Binpack, noNodeScore: true, allocatable: true},
}

// job is one arrival of the stream: the pod and how long it stays once placed.
type job struct {
	pod      *v1.Pod
	req      gpu.Request
	whole    bool
	lifetime float64
}

// wholeNodeStream is the fixed random sequence of jobs that every scorer is given. The mean
// lifetime is set so that the jobs ask, on average, for wholeLoad of the cluster's GPUs.
func wholeNodeStream(tb testing.TB) []job {
	rng := rand.New(rand.NewPCG(wholeSeed, wholeSeed))
	var meanGPUs float64 // per job, in GPUs: shares are 2 to 16 GiB of 16, whole nodes 2, 4 or 8
	meanGPUs += (1 - 1.0/wholeEvery) * (2 + packingGPUMemory) / 2 / packingGPUMemory
	gpus := 0
	for _, n := range wholeNodeSizes {
		meanGPUs += 1.0 / wholeEvery / float64(len(wholeNodeSizes)) * float64(n)
		gpus += n * wholeNodesPerSize
	}
	meanLifetime := wholeLoad * float64(gpus) / meanGPUs
	jobs := make([]job, wholeArrivals)
	for i := range jobs {
		j := &jobs[i]
		count, memory := 1, 2+rng.Int64N(packingGPUMemory-1)
		if rng.IntN(wholeEvery) == 0 {
			count = wholeNodeSizes[rng.IntN(len(wholeNodeSizes))]
			memory, j.whole = int64(count)*packingGPUMemory, true
		}
		j.pod = wholeNodePod(i, count, memory)
		req, err := gpu.RequestOf(j.pod, gpuMemoryResource)
		if err != nil {
			tb.Fatal(err)
		}
		j.req = req
		j.lifetime = rng.ExpFloat64() * meanLifetime
	}
	return jobs
}

const (
	gpuMemoryResource v1.ResourceName = "aliyun.com/gpu-mem"
	gpuCountResource  v1.ResourceName = "aliyun.com/gpu-count"
)

// wholeNodePod asks for memory GiB of GPU memory over count GPUs, and the matching cpu and memory.
func wholeNodePod(i, count int, memory int64) *v1.Pod {
	gpus := float64(memory) / packingGPUMemory
	requests := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(int64(gpus*wholeCPUPerGPU*1000), resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(int64(gpus*wholeMemoryPerGPU), resource.BinarySI),
	}
	limits := requests.DeepCopy()
	limits[gpuMemoryResource] = *resource.NewQuantity(memory, resource.DecimalSI)
	name := fmt.Sprintf("job-%d", i)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name)},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: requests, Limits: limits}}}},
	}
	if count > 1 {
		pod.Annotations = map[string]string{gpu.PodGPUCountAnnotation: fmt.Sprint(count)}
	}
	return pod
}

// wholeNodeCluster is the simulated cluster: each node's devices, and the node with its pods as
// the scheduler's snapshot holds it.
type wholeNodeCluster struct {
	devices [][]gpu.Device
	infos   []*framework.NodeInfo
	index   map[string]int // node name to position
}

func newWholeNodeCluster() *wholeNodeCluster {
	c := &wholeNodeCluster{index: map[string]int{}}
	for _, n := range wholeNodeSizes {
		for i := range wholeNodesPerSize {
			res := v1.ResourceList{
				v1.ResourceCPU:    *resource.NewQuantity(int64(n*wholeCPUPerGPU), resource.DecimalSI),
				v1.ResourceMemory: *resource.NewQuantity(int64(n*wholeMemoryPerGPU), resource.BinarySI),
				v1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
				gpuCountResource:  *resource.NewQuantity(int64(n), resource.DecimalSI),
				gpuMemoryResource: *resource.NewQuantity(int64(n)*packingGPUMemory, resource.DecimalSI),
			}
			ni := framework.NewNodeInfo()
			ni.SetNode(&v1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gpu%d-%d", n, i)},
				Status:     v1.NodeStatus{Capacity: res, Allocatable: res},
			})
			c.index[ni.Node().Name] = len(c.infos)
			c.infos = append(c.infos, ni)
			c.devices = append(c.devices, gpu.EmptyDevices(slices.Repeat([]int64{packingGPUMemory}, n)))
		}
	}
	return c
}

// gpuShareScore is GPUShare's Score and NormalizeScore over the simulated devices: the plugin
// itself reads them from its device cache, which needs informers.
type gpuShareScore struct {
	c        *wholeNodeCluster
	strategy *gpu.Strategy
}

func (pl *gpuShareScore) Name() string { return "GPUShare" }

func (pl *gpuShareScore) Score(_ context.Context, _ fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	req, err := gpu.RequestOf(pod, gpuMemoryResource)
	if err != nil {
		return 0, fwk.AsStatus(err)
	}
	score, nf := gpu.Score(pl.c.devices[pl.c.index[ni.Node().Name]], req, pl.strategy)
	if nf != nil {
		return 0, fwk.AsStatus(nf)
	}
	return int64(math.Round(score * 1_000_000)), nil
}

func (pl *gpuShareScore) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore is GPUShare's: equal raw scores all get MaxNodeScore.
func (pl *gpuShareScore) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	normalize.MinMax(scores, fwk.MaxNodeScore)
	return nil
}

// newWholeNodeFramework is the scheduling framework that scores the simulated nodes.
func newWholeNodeFramework(tb testing.TB, c *wholeNodeCluster, s wholeNodeScorer) framework.Framework {
	ctx := context.Background()
	schedmetrics.Register() // the framework records into the scheduler's metrics
	intree := frameworkplugins.NewInTreeRegistry()
	register := []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(names.NodeResourcesFit, intree[names.NodeResourcesFit], "PreScore", "Score"),
		tf.RegisterPluginAsExtensions(names.NodeResourcesBalancedAllocation, intree[names.NodeResourcesBalancedAllocation], "PreScore", "Score"),
	}
	if !s.noNodeScore {
		register = append(register, tf.RegisterScorePlugin("GPUShare", func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
			return &gpuShareScore{c: c, strategy: s.strategy}, nil
		}, 1))
	}
	if s.allocatable {
		register = append(register, tf.RegisterScorePlugin(allocatable.Name, allocatable.New, 1),
			func(_ *frameworkruntime.Registry, p *schedconfig.KubeSchedulerProfile) {
				for i := range p.PluginConfig {
					if p.PluginConfig[i].Name == allocatable.Name {
						p.PluginConfig[i].Args = &config.NodeResourcesAllocatableArgs{
							Resources: []schedconfig.ResourceSpec{{Name: string(gpuCountResource), Weight: 1}}, Mode: config.Least,
						}
					}
				}
			})
	}
	// One node at a time: the simulation scores a few dozen nodes, where goroutines cost more than they save.
	f, err := tf.NewFramework(ctx, register, "berth-scheduler", frameworkruntime.WithParallelism(1))
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// wholeNodeResult counts, after the warm-up, the jobs of each kind that arrived and were placed.
type wholeNodeResult struct {
	wholeArrived, wholePlaced   map[int]int // by GPUs asked for
	sharesArrived, sharesPlaced int
}

func (r wholeNodeResult) wholeShare() float64 {
	arrived, placed := 0, 0
	for n, a := range r.wholeArrived {
		arrived, placed = arrived+a, placed+r.wholePlaced[n]
	}
	return float64(placed) / float64(arrived)
}

func (r wholeNodeResult) wholeShareOf(n int) float64 {
	return float64(r.wholePlaced[n]) / float64(r.wholeArrived[n])
}

func (r wholeNodeResult) sharesShare() float64 {
	return float64(r.sharesPlaced) / float64(r.sharesArrived)
}

// departure is a placed job that will leave.
type departure struct {
	at   float64
	node int
	job  job
	a    gpu.Assignment
}

// simulateWholeNodes runs the stream through the cluster with one scorer. check, if set, is
// called on every decision with the cluster as the job found it and the node chosen (-1: none).
func simulateWholeNodes(tb testing.TB, s wholeNodeScorer, jobs []job, check func(c *wholeNodeCluster, j job, node int)) wholeNodeResult {
	c := newWholeNodeCluster()
	f := newWholeNodeFramework(tb, c, s)
	logger := klog.Background()
	ties := rand.New(rand.NewPCG(wholeSeed, 2))
	res := wholeNodeResult{wholeArrived: map[int]int{}, wholePlaced: map[int]int{}}
	var leaving []departure // sorted by time, latest first
	for i, j := range jobs {
		now := float64(i)
		for len(leaving) > 0 && leaving[len(leaving)-1].at <= now {
			d := leaving[len(leaving)-1]
			leaving = leaving[:len(leaving)-1]
			gpu.Adjust(c.devices[d.node], d.a, -1)
			if err := c.infos[d.node].RemovePod(logger, d.job.pod); err != nil {
				tb.Fatal(err)
			}
		}
		node := chooseNode(tb, f, c, j, ties)
		if check != nil {
			check(c, j, node)
		}
		counted := i >= wholeWarmUp
		if counted && j.whole {
			res.wholeArrived[j.req.Count]++
		} else if counted {
			res.sharesArrived++
		}
		if node < 0 {
			continue
		}
		a, nf := gpu.Fit(c.devices[node], j.req, s.strategy)
		if nf != nil {
			tb.Fatalf("job %d: node %d was chosen but the job does not fit: %v", i, node, nf)
		}
		gpu.Adjust(c.devices[node], a, 1)
		placed := j.pod.DeepCopy()
		placed.Spec.NodeName = c.infos[node].Node().Name
		j.pod = placed
		c.infos[node].AddPod(placed)
		d := departure{at: now + j.lifetime, node: node, job: j, a: a}
		at, _ := slices.BinarySearchFunc(leaving, d, func(x, y departure) int { return cmp.Compare(y.at, x.at) })
		leaving = slices.Insert(leaving, at, d)
		if counted && j.whole {
			res.wholePlaced[j.req.Count]++
		} else if counted {
			res.sharesPlaced++
		}
	}
	return res
}

// chooseNode is the scheduler's choice: among the nodes whose GPUs can hold the job (GPUShare's
// Filter; cpu and memory, asked for in proportion, never run out first), the highest total of
// the framework's PreScore and Score, ties broken uniformly at random as selectHost does. -1 if
// the job fits nowhere.
func chooseNode(tb testing.TB, f framework.Framework, c *wholeNodeCluster, j job, ties *rand.Rand) int {
	var feasible []fwk.NodeInfo
	for i, devs := range c.devices {
		if _, nf := gpu.Fit(devs, j.req, gpu.Binpack); nf == nil {
			feasible = append(feasible, c.infos[i])
		}
	}
	if len(feasible) == 0 {
		return -1
	}
	ctx := context.Background()
	state := framework.NewCycleState()
	if status := f.RunPreScorePlugins(ctx, state, j.pod, feasible); !status.IsSuccess() {
		tb.Fatal(status)
	}
	scores, status := f.RunScorePlugins(ctx, state, j.pod, feasible)
	if !status.IsSuccess() {
		tb.Fatal(status)
	}
	best, bestTotal, tied := -1, int64(-1), 0
	for _, s := range scores {
		switch {
		case s.TotalScore > bestTotal:
			best, bestTotal, tied = c.index[s.Name], s.TotalScore, 1
		case s.TotalScore == bestTotal:
			tied++
			if ties.IntN(tied) == 0 {
				best = c.index[s.Name]
			}
		}
	}
	return best
}

// BenchmarkWholeNodePacking reports, for each profile, the share of whole-node GPU jobs placed
// (whole-placed), by size (whole-N-placed), and the share of single-GPU share jobs placed
// (shares-placed). With -data-items-dir it also writes the whole-node share for the report. ns/op
// is the time to simulate the whole stream.
func BenchmarkWholeNodePacking(b *testing.B) {
	jobs := wholeNodeStream(b)
	var results []report.Result
	for _, s := range wholeNodeScorers {
		var last wholeNodeResult
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				last = simulateWholeNodes(b, s, jobs, nil)
			}
			b.ReportMetric(last.wholeShare(), "whole-placed")
			for _, n := range wholeNodeSizes {
				b.ReportMetric(last.wholeShareOf(n), fmt.Sprintf("whole-%d-placed", n))
			}
			b.ReportMetric(last.sharesShare(), "shares-placed")
		})
		if last.wholeArrived == nil {
			continue // filtered out by -test.bench
		}
		results = append(results, report.Result{
			TestCase: s.name,
			Workload: fmt.Sprintf("%dx{2,4,8}GPUNodes_1in%dWhole_load%.2f", wholeNodesPerSize, wholeEvery, wholeLoad),
			Metric:   report.WholeNodeJobsPlaced,
			Unit:     "share",
			Data:     map[string]float64{"Value": last.wholeShare()},
		})
	}
	if *dataItemsDir != "" && len(results) > 0 {
		if err := report.Save(*dataItemsDir, "BenchmarkWholeNodePacking", results); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWholeNodePacking checks the simulation behind BenchmarkWholeNodePacking: no device is ever
// over capacity, a job is turned away only when it fits on no node, and, with either GPU
// strategy, NodeResourcesAllocatable places more whole-node jobs than the profile without it, and
// so does GPUShare's node score.
func TestWholeNodePacking(t *testing.T) {
	jobs := wholeNodeStream(t)[:wholeTestArrivals]
	results := map[string]wholeNodeResult{}
	for _, s := range wholeNodeScorers {
		results[s.name] = simulateWholeNodes(t, s, jobs, func(c *wholeNodeCluster, j job, node int) {
			for i, devs := range c.devices {
				for k, d := range devs {
					if d.Used > d.Capacity || d.Used < 0 {
						t.Fatalf("%s: node %d GPU %d holds %d of %d", s.name, i, k, d.Used, d.Capacity)
					}
				}
				if _, nf := gpu.Fit(devs, j.req, s.strategy); node < 0 && nf == nil {
					t.Fatalf("%s: %+v turned away, yet it fits on node %d", s.name, j.req, i)
				}
			}
		})
		r := results[s.name]
		t.Logf("%-33s whole-node jobs placed %.3f (2 GPUs %.3f, 4 GPUs %.3f, 8 GPUs %.3f); share jobs placed %.4f",
			s.name, r.wholeShare(), r.wholeShareOf(2), r.wholeShareOf(4), r.wholeShareOf(8), r.sharesShare())
	}
	// Without GPUShare's node score (berth-extender without prioritize) small jobs spread over the
	// nodes by cpu and memory, and whole nodes are left free less often.
	if scored, unscored := results["Binpack"], results["DevicesOnly"]; scored.wholeShare() <= unscored.wholeShare() {
		t.Errorf("GPUShare's node score placed %.3f of the whole-node jobs, no more than %.3f without it",
			scored.wholeShare(), unscored.wholeShare())
	}
	for _, strategy := range []string{"Binpack", "Spread", "DevicesOnly"} {
		without, with := results[strategy], results[strategy+"+NodeResourcesAllocatable"]
		if with.wholeShare() <= without.wholeShare() {
			t.Errorf("%s: NodeResourcesAllocatable placed %.3f of the whole-node jobs, no more than %.3f without it",
				strategy, with.wholeShare(), without.wholeShare())
		}
	}
}
