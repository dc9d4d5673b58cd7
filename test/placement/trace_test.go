package placement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/normalize"
	"github.com/berth-sched/berth/test/bench/trace"
)

// The trace replay, under the FGD paper's protocol: the nodes of a trace (Alibaba's
// cluster-trace-gpu-v2023, or a part of it in the tests) receive the pods of one of its lists (a
// workload) one at a time, none ever leaving, each placed by one policy or turned away for good
// where it fits nowhere, in the order traceStream makes, until the GPUs asked for reach 130% of
// the cluster's. At each mark (the GPUs asked for reaching 100% and 130% of the cluster's) the
// replay records the GPU allocation ratio (GPUs allocated over GPUs in the cluster) and the
// fragmented share (the free GPU that the list's request mix could not use, in expectation, over
// the free GPU).
//
// A pod fits a node when its cpu and memory requests fit in what the pods placed there left, and
// its GPUs: a share of one GPU on a GPU with that much free, several whole GPUs on as many GPUs
// that are wholly free, of a model its gpu_spec names (if it names any), which the pod asks for
// as a user would: required node affinity on the GPU model label (traceAffinity).
//
// GPU memory: a trace pod asks for gpu_milli thousandths of a GPU of whatever model it gets, so a
// share is mapped onto a device as that share of the device's memory. Counted that way a pod needs
// the same fraction of a 16 GiB T4 as of a 32 GiB V100, and the models' memory sizes cancel out:
// every device has a capacity of 1000 units here (its memory in thousandths). gpu_spec still
// restricts the models a pod may use, by node affinity.
//
// A seed varies what is left to chance: the order the pods arrive in and which pods are drawn to
// make up the demand (traceStream), and which of the nodes with the best (equal) total a pod goes
// to, drawn uniformly as kube-scheduler's selectHost draws. The "by name" rows break ties by node
// name instead (the trace's nodes are listed in name order) and take the pods of seed 1.
const (
	traceDeviceCapacity = trace.WholeGPU
	gpuShareScale       = 1_000_000 // GPUShare's rawScoreScale
)

// traceMarks are the demands, as shares of the cluster's GPUs, at which the replay records.
var traceMarks = []float64{1.00, 1.30}

type traceNode struct {
	trace.Node
	free gpu.NodeShape // devices of traceDeviceCapacity, cpu in millis, memory in MiB
	// info is the node as the scheduler's snapshot holds it, with the pods placed on it, for the
	// in-tree plugins' scores.
	info *framework.NodeInfo
}

type traceCluster struct {
	nodes []traceNode
	gpus  int
	// The most cpu and GPUs one node has, which scale best fit's measure.
	maxMilliCPU int64
	maxGPUs     int
	// supply is the cluster's GPUs by model, as GPUShare counts them for gpu.MixView.WithSupply.
	supply map[string]float64
}

func newTraceCluster(nodes []trace.Node) *traceCluster {
	c := &traceCluster{supply: map[string]float64{}}
	for _, n := range nodes {
		if n.GPUs > 0 {
			c.supply[n.Model] += float64(n.GPUs)
		}
		tn := traceNode{Node: n,
			free: gpu.NodeShape{MilliCPU: n.MilliCPU, Memory: n.MemoryMiB, Model: n.Model}, info: traceNodeInfo(n)}
		if n.GPUs > 0 {
			tn.free.Devices = gpu.EmptyDevices(slices.Repeat([]int64{traceDeviceCapacity}, n.GPUs))
		}
		c.gpus += n.GPUs
		c.maxMilliCPU, c.maxGPUs = max(c.maxMilliCPU, n.MilliCPU), max(c.maxGPUs, n.GPUs)
		c.nodes = append(c.nodes, tn)
	}
	return c
}

// traceDemand is the pod's demand as GPUShare takes it from the pod object: its requests, and
// the GPU models its required node affinity allows (gpu.ModelsOf of traceAffinity).
func traceDemand(p trace.Pod) gpu.PodShape {
	d := gpu.PodShape{MilliCPU: p.MilliCPU, Memory: p.MemoryMiB}
	if p.NumGPU > 0 {
		d.GPU = gpu.Request{Total: int64(p.NumGPU) * p.GPUMilli, Count: p.NumGPU, PerDevice: p.GPUMilli}
		if aff := traceAffinity(p); aff != nil {
			d.GPUModels = gpu.ModelsOf(&v1.Pod{Spec: v1.PodSpec{Affinity: aff}})
		}
	}
	return d
}

// traceAffinity is how a user asks for a trace pod's gpu_spec: required node affinity on the GPU
// model label (gpu.ModelLabel, which GPU Feature Discovery sets); nil for a pod that names none.
func traceAffinity(p trace.Pod) *v1.Affinity {
	if p.NumGPU == 0 || len(p.GPUSpec) == 0 {
		return nil
	}
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
			{Key: gpu.ModelLabel, Operator: v1.NodeSelectorOpIn, Values: p.GPUSpec},
		}}},
	}}}
}

// fits is the Filter: cpu, memory, the pod's required node affinity (the GPU model) as the
// in-tree NodeAffinity matches it against the node's labels, and the devices.
func (n *traceNode) fits(d gpu.PodShape, affinity nodeaffinity.RequiredNodeAffinity) bool {
	if n.free.MilliCPU < d.MilliCPU || n.free.Memory < d.Memory {
		return false
	}
	if ok, _ := affinity.Match(n.info.Node()); !ok {
		return false
	}
	return d.GPU.Total == 0 || gpu.Fits(n.free.Devices, d.GPU) == nil
}

// A tracePolicy places pods: the node for a pod among the feasible ones, and its devices there.
type tracePolicy struct {
	name string
	// choose picks among feasible (indices into the cluster's nodes, never empty).
	choose func(r *traceRun, p trace.Pod, d gpu.PodShape, feasible []int) int
	// devices is how a GPU pod's devices are chosen on its node.
	devices func(r *traceRun, n *traceNode, d gpu.PodShape) gpu.Assignment
	// traceMix scores against the trace's whole mix, known in advance, instead of the mix learned
	// from the pods seen so far: what learning costs.
	traceMix bool
	// sample: only the nodes kube-scheduler scores with its default percentageOfNodesToScore are
	// feasible (see sampleSize), found from where the last pod's search stopped, as it finds them.
	sample bool
}

func fitWith(s *gpu.Strategy) func(*traceRun, *traceNode, gpu.PodShape) gpu.Assignment {
	return func(_ *traceRun, n *traceNode, d gpu.PodShape) gpu.Assignment {
		a, _ := gpu.Fit(n.free.Devices, d.GPU, s)
		return a
	}
}

// firstFitDevices is packing_test's first fit on one node.
func firstFitDevices(_ *traceRun, n *traceNode, d gpu.PodShape) gpu.Assignment {
	_, a, _ := firstFit([][]gpu.Device{n.free.Devices}, d.GPU)
	return a
}

// fragmentationDevices are the devices GPUShare's Fragmentation strategy reserves: where the
// fragmentation against the run's mix grows least (gpu.FragmentationFit), as Score rated them.
func fragmentationDevices(r *traceRun, n *traceNode, d gpu.PodShape) gpu.Assignment {
	a, _, _ := gpu.FragmentationFit(n.free, d, r.view)
	return a
}

// The policies compared. For each, noGPUHarm says how pods without GPU are placed: as the policy
// places them (false), or by gpu.NoGPUCost against the learned mix (true): on a node without GPUs
// if there is one, else where they hurt future GPU pods least. The fragmentation costs reach the
// scheduler as gpu.RawScore makes them, nodes with GPUs of equal cost ordered by gpu.TieOrder
// with the pod's key in TestTraceEndToEnd (tracePodKey), as GPUShare orders them.
//
//   - FirstFit: the first feasible node in the list (name order), and its first devices.
//   - BestFit: the FGD paper's baseline (see chooseBestFit), devices by Binpack (the GPU with the
//     least free that fits).
//   - Binpack, Spread, Fragmentation alone: GPU pods by the strategy's own rating only
//     (gpu.Score, or gpu.FragmentationCost against the learned mix), pods without GPU by
//     NodeResourcesFit's LeastAllocated.
//     Raw scores compared exactly: no scheduler does this (NormalizeScore maps them onto 0-100),
//     but it is how the FGD paper's simulator places, the ideal to compare with.
//   - -tracemix: as alone, against the trace's whole mix known in advance instead of the learned one.
//   - Binpack, Spread, Fragmentation in berth's profile: the sum the scheduler makes with every
//     plugin at weight 1: GPUShare's score normalised as it does (normalize.MinMax), plus the
//     in-tree NodeResourcesFit (LeastAllocated on cpu and memory) and
//     NodeResourcesBalancedAllocation, Kubernetes 1.37's own plugins asked for their scores
//     (intree_test.go). With noGPUHarm, pods without GPU get GPUShare's gpu.NoGPUCost score,
//     normalised the same way.
//   - -rank: GPUShare (and the NoGPUCost score) normalised by rank (rankNormalize) instead.
//   - gpushare-only: the profile with the two in-tree scores disabled at the score extension point
//     (their Filter kept): only GPUShare and the NoGPUCost score tell nodes apart.
//   - -wN: GPUShare at weight N in the profile.
//   - -sample: the nodes kube-scheduler's default percentageOfNodesToScore lets it score.
func tracePolicies() []tracePolicy {
	return []tracePolicy{
		{name: "FirstFit", choose: chooseFirst, devices: firstFitDevices},
		{name: "BestFit", choose: chooseBestFit, devices: fitWith(gpu.Binpack)},
		{name: "Binpack/alone", choose: alone(gpuScore(gpu.Binpack)), devices: fitWith(gpu.Binpack)},
		{name: "Spread/alone", choose: alone(gpuScore(gpu.Spread)), devices: fitWith(gpu.Spread)},
		{name: "Fragmentation/alone", choose: alone(fragmentationScore), devices: fragmentationDevices},
		{name: "Fragmentation/alone-tracemix", choose: alone(fragmentationScore), devices: fragmentationDevices, traceMix: true},
		{name: "Binpack/profile", choose: profile(gpuScore(gpu.Binpack), profileSpec{inTree: true}), devices: fitWith(gpu.Binpack)},
		{name: "Binpack/profile-rank", choose: profile(gpuScore(gpu.Binpack), profileSpec{inTree: true, rank: true}), devices: fitWith(gpu.Binpack)},
		{name: "Spread/profile", choose: profile(gpuScore(gpu.Spread), profileSpec{inTree: true}), devices: fitWith(gpu.Spread)},
		{name: "Fragmentation/profile", choose: profile(fragmentationScore, profileSpec{inTree: true}), devices: fragmentationDevices},
		{name: "Fragmentation/profile-rank", choose: profile(fragmentationScore, profileSpec{inTree: true, rank: true}), devices: fragmentationDevices},
		{name: "Fragmentation/gpushare-only", choose: profile(fragmentationScore, profileSpec{}), devices: fragmentationDevices},
		{name: "Fragmentation/gpushare-only-rank", choose: profile(fragmentationScore, profileSpec{rank: true}), devices: fragmentationDevices},
	}
}

// profileWeights are the weights of GPUShare in berth's profile that profilePolicies compare.
var profileWeights = []int64{1, 2, 5, 10, 100}

// profilePolicies are berth's profile as shipped before issue 25 (Binpack, GPUShare at weight 1,
// pods without GPU by the in-tree scores) and with Fragmentation at each of profileWeights, all
// normalised as GPUShare normalises, each scoring every feasible node and only kube-scheduler's
// default sample of them. Replay them with NoGPUHarm to get LeastGPUHarm.
func profilePolicies() []tracePolicy {
	var pols []tracePolicy
	for _, sample := range []bool{false, true} {
		suffix := ""
		if sample {
			suffix = "-sample"
		}
		pols = append(pols, tracePolicy{name: "Binpack/profile" + suffix, choose: profile(gpuScore(gpu.Binpack), profileSpec{inTree: true}),
			devices: fitWith(gpu.Binpack), sample: sample})
		for _, w := range profileWeights {
			pols = append(pols, tracePolicy{name: fmt.Sprintf("Fragmentation/profile-rank-w%d%s", w, suffix),
				choose: profile(fragmentationScore, profileSpec{inTree: true, rank: true, weight: w}), devices: fragmentationDevices, sample: sample})
		}
	}
	return pols
}

// A rawScore is a plugin's raw score of a node for a pod, higher better.
type rawScore func(r *traceRun, n *traceNode, d gpu.PodShape) int64

func gpuScore(s *gpu.Strategy) rawScore {
	return func(_ *traceRun, n *traceNode, d gpu.PodShape) int64 {
		score, _ := gpu.Score(n.free.Devices, d.GPU, s)
		return int64(math.Round(score * gpuShareScale))
	}
}

func fragmentationScore(r *traceRun, n *traceNode, d gpu.PodShape) int64 {
	cost, _ := gpu.FragmentationCost(n.free, d, r.view)
	return r.raw(cost, n)
}

func noGPUScore(r *traceRun, n *traceNode, d gpu.PodShape) int64 {
	return r.raw(gpu.NoGPUCost(n.free, d, r.view), n)
}

// raw is GPUShare's raw score for a fragmentation cost on n.
func (r *traceRun) raw(cost float64, n *traceNode) int64 {
	var tie int64
	if n.GPUs > 0 {
		tie = gpu.TieOrder(n.Name)
	}
	return gpu.RawScore(cost, tie)
}

// tracePodKey is the namespace/name of the k-th pod of a stream in TestTraceEndToEnd.
func tracePodKey(k int) string { return fmt.Sprintf("%s/p%05d", traceNamespace, k) }

func chooseFirst(r *traceRun, p trace.Pod, d gpu.PodShape, feasible []int) int {
	if d.GPU.Total == 0 && r.noGPUHarm {
		return r.best(feasible, func(n *traceNode) int64 { return noGPUScore(r, n, d) })
	}
	return feasible[0]
}

// chooseBestFit is the FGD paper's best fit: the node left with the least cpu and GPU, in equal
// parts, each over the most that one node of the cluster has (128 cores and 8 GPUs on the trace);
// memory is not counted. Compared exactly, in whole numbers.
func chooseBestFit(r *traceRun, p trace.Pod, d gpu.PodShape, feasible []int) int {
	if d.GPU.Total == 0 && r.noGPUHarm {
		return r.best(feasible, func(n *traceNode) int64 { return noGPUScore(r, n, d) })
	}
	gpuScale, cpuScale := int64(r.c.maxGPUs)*traceDeviceCapacity, r.c.maxMilliCPU
	return r.best(feasible, func(n *traceNode) int64 {
		var free int64
		for _, dev := range n.free.Devices {
			free += dev.Free()
		}
		return -((n.free.MilliCPU-d.MilliCPU)*gpuScale + (free-d.GPU.Total)*cpuScale)
	})
}

// alone scores GPU pods by the strategy only, pods without GPU by LeastAllocated or NoGPUCost.
func alone(score rawScore) func(*traceRun, trace.Pod, gpu.PodShape, []int) int {
	return func(r *traceRun, _ trace.Pod, d gpu.PodShape, feasible []int) int {
		switch {
		case d.GPU.Total > 0:
			return r.best(feasible, func(n *traceNode) int64 { return score(r, n, d) })
		case r.noGPUHarm:
			return r.best(feasible, func(n *traceNode) int64 { return noGPUScore(r, n, d) })
		default:
			return r.best(feasible, func(n *traceNode) int64 { return r.cycle.leastAllocated(n.info) })
		}
	}
}

// profileSpec says how the scheduler's sum over a profile is made.
type profileSpec struct {
	// inTree: NodeResourcesFit (LeastAllocated) and NodeResourcesBalancedAllocation score, at
	// weight 1 each, as in berth's profile today; without them only the GPU plugin tells nodes
	// apart (their score extension point disabled in the profile).
	inTree bool
	// rank: the GPU plugin normalises by rank (rankNormalize), not by normalize.MinMax.
	rank bool
	// weight is the GPU plugin's weight in the profile; 0 is 1.
	weight int64
}

// profile is the framework's sum over a profile: the GPU plugin (GPUShare, and for pods without
// GPU the NoGPUCost score when the run has it) normalised and weighted, plus the in-tree scores.
func profile(score rawScore, spec profileSpec) func(*traceRun, trace.Pod, gpu.PodShape, []int) int {
	return func(r *traceRun, _ trace.Pod, d gpu.PodShape, feasible []int) int {
		total := r.totals[:0]
		for _, i := range feasible {
			var t int64
			if spec.inTree {
				t = r.cycle.sum(r.c.nodes[i].info)
			}
			total = append(total, t)
		}
		var plugin rawScore
		switch {
		case d.GPU.Total > 0:
			plugin = score
		case r.noGPUHarm:
			plugin = noGPUScore
		}
		if plugin != nil {
			scores := r.scores[:0]
			for _, i := range feasible {
				scores = append(scores, fwk.NodeScore{Score: plugin(r, &r.c.nodes[i], d)})
			}
			if spec.rank {
				r.rankNormalize(scores)
			} else {
				normalize.MinMax(scores, fwk.MaxNodeScore)
			}
			weight := max(spec.weight, 1)
			for k := range total {
				total[k] += weight * scores[k].Score
			}
			r.scores = scores
		}
		r.totals = total
		return r.bestOf(feasible, total)
	}
}

// rankNormalize is GPUShare's normalisation for the Fragmentation strategy, normalize.Rank: the
// nodes with the highest raw score get MaxNodeScore, those with the next highest one less, and so
// on. MinMax spreads the raw scores linearly, so one outlier (a node whose fragmentation would jump
// by a whole GPU) squeezes all the good nodes into the same few points, where the other plugins'
// scores and chance decide among them; by rank, the best placement stays ahead of the next best by
// a point at least.
func (r *traceRun) rankNormalize(scores fwk.NodeScoreList) {
	normalize.Rank(scores)
}

// traceRun is one replay: a policy on a cluster, with its seed.
type traceRun struct {
	c         *traceCluster
	noGPUHarm bool
	byName    bool // ties to the first node in the list, not at random
	ties      *rand.Rand
	mix       *gpu.Mix
	view      gpu.MixView
	scores    fwk.NodeScoreList
	totals    []int64
	inTree    *inTreeScorers
	cycle     *inTreeCycle // the pod's, with the in-tree plugins
	next      int          // where the search for feasible nodes starts, with sample
}

// best is the feasible node with the highest score, ties broken as the run breaks them.
func (r *traceRun) best(feasible []int, score func(*traceNode) int64) int {
	totals := r.totals[:0]
	for _, i := range feasible {
		totals = append(totals, score(&r.c.nodes[i]))
	}
	r.totals = totals
	return r.bestOf(feasible, totals)
}

func (r *traceRun) bestOf(feasible []int, totals []int64) int {
	best, tied := 0, 1
	for k := 1; k < len(feasible); k++ {
		switch {
		case totals[k] > totals[best]:
			best, tied = k, 1
		case totals[k] == totals[best]:
			tied++
			if !r.byName && r.ties.IntN(tied) == 0 {
				best = k
			}
		}
	}
	return feasible[best]
}

// traceMark is the cluster at one demand mark.
type traceMark struct {
	demand     float64 // GPUs asked for so far, over the cluster's
	arrived    int
	placed     int
	allocated  float64 // GPUs
	free       float64 // GPUs
	fragmented float64 // GPUs, in expectation over the trace's mix
	gpus       int
	// remnant is the free GPU on GPUs partly taken, by tenth of a GPU free (a GPU with 0.19 free
	// counts 0.19 in remnant[1]); the rest of free is on GPUs wholly free.
	remnant [10]float64
	// turnedAway is the GPU asked for by the arrived pods that fitted nowhere, by kind of request.
	turnedAway [requestKinds]float64
}

// Kinds of GPU request, for traceMark.turnedAway.
const (
	shareOfOne = iota
	oneWhole
	severalWhole
	requestKinds
)

// requestKind is the kind of p's GPU request.
func requestKind(p trace.Pod) int {
	switch {
	case p.NumGPU > 1:
		return severalWhole
	case p.GPUMilli >= trace.WholeGPU:
		return oneWhole
	}
	return shareOfOne
}

func (m traceMark) remnants() (sum float64) {
	for _, r := range m.remnant {
		sum += r
	}
	return sum
}

func (m traceMark) turnedAwayGPUs() (sum float64) {
	for _, g := range m.turnedAway {
		sum += g
	}
	return sum
}

func (m traceMark) allocation() float64 { return m.allocated / float64(m.gpus) }

func (m traceMark) fragmentedShare() float64 {
	if m.free == 0 {
		return 0
	}
	return m.fragmented / m.free
}

// traceStream is the order the pods arrive in: the FGD paper's protocol (its simulator's workload
// tuning). The list's pods, sorted by name, are shuffled with the seed's generator; then pods
// drawn from the list at random, with replacement, are added until the next one would take the
// GPUs asked for past the last mark, or, where the list alone asks for more than that (the
// multigpu* lists), pods drawn at random are taken out until it no longer does. The lists'
// own order means nothing for arrival: the sampled ones append the pods they add at the end.
func traceStream(pods []trace.Pod, gpus int, seed uint64) []trace.Pod {
	if len(pods) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x7ace))
	limit := markMilli(len(traceMarks)-1, gpus)
	base := slices.Clone(pods)
	slices.SortStableFunc(base, func(a, b trace.Pod) int { return strings.Compare(a.Name, b.Name) })
	stream := slices.Clone(base)
	rng.Shuffle(len(stream), func(i, j int) { stream[i], stream[j] = stream[j], stream[i] })
	var demand int64
	for _, p := range stream {
		demand += p.GPUMilliTotal()
	}
	if demand > limit {
		for demand > limit {
			k := rng.IntN(len(stream))
			demand -= stream[k].GPUMilliTotal()
			stream = slices.Delete(stream, k, k+1)
		}
		return stream
	}
	for {
		p := base[rng.IntN(len(base))]
		if demand+p.GPUMilliTotal() > limit {
			return stream
		}
		stream = append(stream, p)
		demand += p.GPUMilliTotal()
	}
}

// markMilli is the GPU, in thousandths, asked for at the i-th of traceMarks on a cluster of gpus.
func markMilli(i, gpus int) int64 {
	return int64(math.Round(traceMarks[i] * float64(gpus) * trace.WholeGPU))
}

// seedStream is the stream of one seed and the ceiling at each of its marks, worked out once for
// all the replays of it that checkTraceMarks checks.
type seedStream struct {
	pods     []trace.Pod
	ceilings []traceCeiling
}

// seedStreams is the seedStream of each of seeds, in their order.
func seedStreams(t *testing.T, pods []trace.Pod, gpus int, seeds []uint64) []seedStream {
	t.Helper()
	streams := make([]seedStream, len(seeds))
	for k, seed := range seeds {
		s := seedStream{pods: traceStream(pods, gpus, seed)}
		for i, arrived := range markArrivals(s.pods, gpus) {
			c, err := ceilingOf(s.pods[:arrived], gpus)
			if err != nil {
				t.Fatalf("seed %d, mark %d: %v", seed, i, err)
			}
			s.ceilings = append(s.ceilings, c)
		}
		streams[k] = s
	}
	return streams
}

// traceMixOf is the trace's own request mix, by which the fragmented share is measured whatever
// mix a policy learned.
func traceMixOf(pods []trace.Pod) gpu.MixView {
	count := map[gpu.PodShape]float64{}
	for _, p := range pods {
		count[traceDemand(p)]++
	}
	var classes []gpu.MixClass
	for d, n := range count {
		classes = append(classes, gpu.MixClass{PodShape: d, Weight: n})
	}
	slices.SortFunc(classes, func(a, b gpu.MixClass) int { return strings.Compare(fmt.Sprint(a.PodShape), fmt.Sprint(b.PodShape)) })
	return gpu.NewMixView(classes)
}

// replayTrace runs the stream through the cluster with one policy. check, if set, is called after
// every pod with the cluster, the pod and the node it went to (-1: none).
func replayTrace(nodes []trace.Node, stream []trace.Pod, measure gpu.MixView, pol tracePolicy, noGPUHarm, byName bool, seed uint64,
	check func(c *traceCluster, p trace.Pod, node int)) []traceMark {
	c := newTraceCluster(nodes)
	inTree, err := newInTreeScorers()
	if err != nil {
		panic(err)
	}
	r := &traceRun{c: c, noGPUHarm: noGPUHarm, byName: byName, ties: rand.New(rand.NewPCG(seed, 0x71e5)),
		mix: gpu.NewMix(gpu.DefaultMixLimit, gpu.DefaultMixHalfLife), inTree: inTree}
	want := len(c.nodes)
	if pol.sample {
		want = sampleSize(len(c.nodes))
	}
	var marks []traceMark
	var allocated float64
	var demand int64 // GPU milli asked for by the pods arrived so far
	placed := 0
	var turnedAway [requestKinds]float64
	// mark records the cluster with the first arrived pods placed or turned away.
	mark := func(arrived int) {
		m := traceMark{demand: float64(demand) / float64(c.gpus*trace.WholeGPU), arrived: arrived, placed: placed, allocated: allocated, gpus: c.gpus,
			turnedAway: turnedAway}
		for i := range c.nodes {
			for _, dev := range c.nodes[i].free.Devices {
				free := float64(dev.Free()) / traceDeviceCapacity
				m.free += free
				if free > 0 && free < 1 {
					m.remnant[int(free*10)] += free
				}
			}
			m.fragmented += gpu.Fragmentation(c.nodes[i].free, measure)
		}
		marks = append(marks, m)
	}
	feasible := make([]int, 0, len(c.nodes))
	arrivals := markArrivals(stream, c.gpus)
	for k, p := range stream {
		for len(marks) < len(traceMarks) && k == arrivals[len(marks)] {
			mark(k)
		}
		d := traceDemand(p)
		// The plugin would observe each pod once, as it arrives (see the report of issue 25).
		r.mix.Observe(d)
		// GPUShare weighs the mix against the cluster's GPUs by model (its node informer counts them).
		r.view = r.mix.View().WithSupply(c.supply)
		if pol.traceMix {
			r.view = measure
		}
		pod := tracePodObject(p, k)
		affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
		if r.cycle, err = inTree.cycle(pod); err != nil {
			panic(err)
		}
		feasible = feasible[:0]
		searched := 0
		for ; searched < len(c.nodes) && len(feasible) < want; searched++ {
			if i := (r.next + searched) % len(c.nodes); c.nodes[i].fits(d, affinity) {
				feasible = append(feasible, i)
			}
		}
		if pol.sample {
			r.next = (r.next + searched) % len(c.nodes)
		}
		node := -1
		if len(feasible) > 0 {
			node = pol.choose(r, p, d, feasible)
			n := &c.nodes[node]
			if d.GPU.Total > 0 {
				a := pol.devices(r, n, d)
				gpu.Adjust(n.free.Devices, a, 1)
				allocated += float64(a.Total()) / traceDeviceCapacity
			}
			n.free.MilliCPU -= d.MilliCPU
			n.free.Memory -= d.Memory
			n.info.AddPod(pod)
			placed++
		} else {
			turnedAway[requestKind(p)] += p.GPUs()
		}
		if check != nil {
			check(c, p, node)
		}
		demand += p.GPUMilliTotal()
	}
	for len(marks) < len(traceMarks) {
		mark(len(stream))
	}
	return marks
}

// markArrivals is, for each of traceMarks, how many of the stream's pods have arrived when the
// cluster of gpus GPUs is measured. A mark is the cluster once the pods have asked for that share
// of its GPUs, as the FGD paper reports it: taken before the first pod that would ask for more. The
// stream ends at or below the last mark: a mark not passed is taken at the end.
func markArrivals(stream []trace.Pod, gpus int) []int {
	arrivals := make([]int, 0, len(traceMarks))
	var demand int64
	for k, p := range stream {
		for len(arrivals) < len(traceMarks) && demand+p.GPUMilliTotal() > markMilli(len(arrivals), gpus) {
			arrivals = append(arrivals, k)
		}
		demand += p.GPUMilliTotal()
	}
	for len(arrivals) < len(traceMarks) {
		arrivals = append(arrivals, len(stream))
	}
	return arrivals
}

// sampleSize is how many feasible nodes kube-scheduler 1.37 looks for, and scores, among
// nodes when percentageOfNodesToScore is not set (numFeasibleNodesToFind in schedule_one.go): 50%
// less a point per 125 nodes, at least 5%, and at least 100 nodes.
func sampleSize(nodes int) int {
	if nodes < 100 {
		return nodes
	}
	return max(nodes*max(50-nodes/125, 5)/100, 100)
}

// traceSeeds are the seeds of a full replay.
var traceSeeds = []uint64{1, 2, 3, 4, 5}

// traceRow is one policy's marks over the seeds, and with ties broken by name.
type traceRow struct {
	policy    string
	noGPUHarm bool
	seeds     [][]traceMark // by seed, then mark
	byName    []traceMark
}

func (r traceRow) name() string {
	if r.noGPUHarm {
		return r.policy + "+NoGPUHarm"
	}
	return r.policy
}

// stats is the mean and the range over the seeds of f at mark m.
func (r traceRow) stats(m int, f func(traceMark) float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, marks := range r.seeds {
		v := f(marks[m])
		mean += v
		lo, hi = min(lo, v), max(hi, v)
	}
	return mean / float64(len(r.seeds)), lo, hi
}

// replayAll replays every policy, with each of harms for NoGPUHarm, over the seeds and by name.
func replayAll(nodes []trace.Node, pods []trace.Pod, policies []tracePolicy, harms []bool, seeds []uint64,
	check func(pol string, c *traceCluster, p trace.Pod, node int), progress func(traceRow)) []traceRow {
	gpus := 0
	for _, n := range nodes {
		gpus += n.GPUs
	}
	measure := traceMixOf(pods)
	streams := map[uint64][]trace.Pod{}
	for _, seed := range seeds {
		streams[seed] = traceStream(pods, gpus, seed)
	}
	var rows []traceRow
	for _, pol := range policies {
		for _, harm := range harms {
			row := traceRow{policy: pol.name, noGPUHarm: harm}
			var chk func(*traceCluster, trace.Pod, int)
			if check != nil {
				chk = func(c *traceCluster, p trace.Pod, node int) { check(row.name(), c, p, node) }
			}
			for _, seed := range seeds {
				row.seeds = append(row.seeds, replayTrace(nodes, streams[seed], measure, pol, harm, false, seed, chk))
			}
			row.byName = replayTrace(nodes, streams[seeds[0]], measure, pol, harm, true, seeds[0], chk)
			rows = append(rows, row)
			if progress != nil {
				progress(row)
			}
		}
	}
	return rows
}

func traceTable(rows []traceRow) string {
	var b strings.Builder
	pct := func(x float64) string { return fmt.Sprintf("%.1f", 100*x) }
	fmt.Fprintf(&b, "%-50s", "policy")
	for _, m := range traceMarks {
		fmt.Fprintf(&b, " | alloc@%3.0f%% mean [min-max] by-name | frag@%3.0f%% mean", 100*m, 100*m)
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-50s", r.name())
		for m := range traceMarks {
			mean, lo, hi := r.stats(m, traceMark.allocation)
			frag, _, _ := r.stats(m, traceMark.fragmentedShare)
			byName := "-"
			if r.byName != nil {
				byName = pct(r.byName[m].allocation())
			}
			fmt.Fprintf(&b, " | %5s [%s-%s] %5s            | %5s        ", pct(mean), pct(lo), pct(hi), byName, pct(frag))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkTraceMarks checks the arithmetic of the marks of a replay of s's pods on nodes, and that no
// mark allocated more than its ceiling.
func checkTraceMarks(t *testing.T, name string, s seedStream, marks []traceMark) {
	t.Helper()
	stream := s.pods
	if len(marks) != len(traceMarks) {
		t.Fatalf("%s: %d marks, want %d", name, len(marks), len(traceMarks))
	}
	for i, m := range marks {
		var demand int64
		for _, p := range stream[:m.arrived] {
			demand += p.GPUMilliTotal()
		}
		limit := markMilli(i, m.gpus)
		switch {
		case demand > limit || (m.arrived < len(stream) && demand+stream[m.arrived].GPUMilliTotal() <= limit) ||
			math.Abs(m.demand*float64(m.gpus*trace.WholeGPU)-float64(demand)) > 1e-3:
			t.Errorf("%s: mark %d at demand %v after %d pods, which ask for %d milli of %d GPUs", name, i, m.demand, m.arrived, demand, m.gpus)
		case m.placed > m.arrived || m.placed <= 0:
			t.Errorf("%s: mark %d: %d placed of %d arrived", name, i, m.placed, m.arrived)
		case m.allocated > float64(demand)/trace.WholeGPU+1e-9 || m.allocation() > 1:
			t.Errorf("%s: mark %d: %v GPUs allocated, %v asked for, %d in all", name, i, m.allocated, demand, m.gpus)
		case math.Abs(m.allocated+m.free-float64(m.gpus)) > 1e-6:
			t.Errorf("%s: mark %d: %v allocated and %v free, not the %d GPUs there are", name, i, m.allocated, m.free, m.gpus)
		case m.fragmented < -1e-9 || m.fragmented > m.free+1e-9:
			t.Errorf("%s: mark %d: %v GPUs fragmented of %v free", name, i, m.fragmented, m.free)
		case m.remnants() > m.free+1e-9 || math.Abs(m.free-m.remnants()-math.Round(m.free-m.remnants())) > 1e-6:
			t.Errorf("%s: mark %d: %v GPUs free on GPUs partly taken of %v free, the rest not whole GPUs", name, i, m.remnants(), m.free)
		case math.Abs(m.turnedAwayGPUs()+m.allocated-float64(demand)/trace.WholeGPU) > 1e-6:
			t.Errorf("%s: mark %d: %v GPUs turned away and %v allocated, %v asked for", name, i, m.turnedAwayGPUs(), m.allocated, float64(demand)/trace.WholeGPU)
		}
		if m.allocated > s.ceilings[i].allocated+1e-6 {
			t.Errorf("%s: mark %d: %v GPUs allocated, above the ceiling of %v", name, i, m.allocated, s.ceilings[i].allocated)
		}
	}
}

// traceStream follows the paper's protocol on lists written for the test: a list below the last
// mark arrives whole, in an order set by the seed and not by the list's, followed by draws from
// it up to the mark; a list above it loses pods until it is no longer above it.
func TestTraceStream(t *testing.T) {
	var small []trace.Pod
	for i := range 40 {
		p := trace.Pod{Name: fmt.Sprintf("p%02d", i), MilliCPU: 1000, MemoryMiB: 1024}
		switch i % 4 {
		case 1:
			p.NumGPU, p.GPUMilli = 1, 250
		case 2:
			p.NumGPU, p.GPUMilli = 1, trace.WholeGPU
		case 3:
			p.NumGPU, p.GPUMilli = 4, trace.WholeGPU
		}
		small = append(small, p)
	}
	sum := func(pods []trace.Pod) (milli int64) {
		for _, p := range pods {
			milli += p.GPUMilliTotal()
		}
		return milli
	}
	names := func(pods []trace.Pod) []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Name)
		}
		return out
	}
	reversed := slices.Clone(small)
	slices.Reverse(reversed)
	// The 40 pods ask for 52.5 GPUs: at 130%, a cluster of 100 GPUs asks for more, one of 30 for less.
	for _, gpus := range []int{100, 30} {
		limit := markMilli(len(traceMarks)-1, gpus)
		s1 := traceStream(small, gpus, 1)
		if !slices.Equal(names(s1), names(traceStream(reversed, gpus, 1))) {
			t.Errorf("%d GPUs: the list's order changes the stream", gpus)
		}
		if slices.Equal(names(s1), names(traceStream(small, gpus, 2))) {
			t.Errorf("%d GPUs: seeds 1 and 2 give the same stream", gpus)
		}
		if got := sum(s1); got > limit {
			t.Errorf("%d GPUs: the stream asks for %d milli, past the last mark's %d", gpus, got, limit)
		}
		if gpus == 100 {
			head := names(s1[:len(small)])
			if slices.Equal(head, names(small)) || !slices.Equal(slices.Sorted(slices.Values(head)), names(small)) {
				t.Errorf("%d GPUs: the stream does not start with the list shuffled: %v", gpus, head)
			}
			// Draws stop at the first that would pass the mark; none asks for more than 4 GPUs.
			if got := sum(s1); len(s1) <= len(small) || got+4*trace.WholeGPU <= limit {
				t.Errorf("%d GPUs: %d pods asking for %d milli, want draws after the list's %d up to about %d", gpus, len(s1), got, len(small), limit)
			}
			continue
		}
		// Too much: pods taken out, each of the rest once, the last taken out the one that
		// brought the demand under the mark.
		seen := map[string]bool{}
		for _, n := range names(s1) {
			if seen[n] {
				t.Errorf("%d GPUs: %s arrives twice", gpus, n)
			}
			seen[n] = true
		}
		if got := sum(s1); len(s1) >= len(small) || got+4*trace.WholeGPU <= limit {
			t.Errorf("%d GPUs: %d of %d pods asking for %d milli, want the most that stays at or below %d", gpus, len(s1), len(small), got, limit)
		}
	}
}

// TestTraceFixture replays a part of the trace with every policy, checking that no device, cpu or
// memory is ever over-committed, that a pod is turned away only where it fits nowhere, that the
// marks add up, and that with NoGPUHarm pods without GPU go to the node without GPUs while it has
// room. The part: every 30th node of the trace (each model among them), one node without GPUs,
// which the trace's GPU node list lacks, and the first 400 pods.
func TestTraceFixture(t *testing.T) {
	all, pods, err := trace.LoadShared(trace.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []trace.Node
	for i := 0; i < len(all); i += 30 {
		nodes = append(nodes, all[i])
	}
	nodes = append(nodes, trace.Node{Name: "no-gpu", MilliCPU: 96000, MemoryMiB: 393216})
	pods = pods[:400]
	check := func(pol string, c *traceCluster, p trace.Pod, node int) {
		for i := range c.nodes {
			n := &c.nodes[i]
			if n.free.MilliCPU < 0 || n.free.Memory < 0 {
				t.Fatalf("%s: node %s over-committed: %d cpu, %d MiB left", pol, n.Name, n.free.MilliCPU, n.free.Memory)
			}
			for k, d := range n.free.Devices {
				if d.Used > d.Capacity || d.Used < 0 {
					t.Fatalf("%s: node %s GPU %d holds %d of %d", pol, n.Name, k, d.Used, d.Capacity)
				}
			}
			if node < 0 && n.fits(traceDemand(p), nodeaffinity.GetRequiredNodeAffinity(tracePodObject(p, 0))) {
				t.Fatalf("%s: %s turned away, yet it fits on %s", pol, p.Name, n.Name)
			}
		}
		if node >= 0 && p.NumGPU > 0 && !p.Runs(c.nodes[node].Model) {
			t.Fatalf("%s: %s (GPUs %v) placed on %s's %s", pol, p.Name, p.GPUSpec, c.nodes[node].Name, c.nodes[node].Model)
		}
		// In the profile NoGPUCost is one score of four and may be outweighed; elsewhere it decides.
		if strings.HasSuffix(pol, "+NoGPUHarm") && !strings.Contains(pol, "/profile") && node >= 0 && p.NumGPU == 0 && c.nodes[node].GPUs > 0 {
			for i := range c.nodes {
				// Nodes without GPUs have the room they had when the pod was placed elsewhere.
				if c.nodes[i].GPUs == 0 && c.nodes[i].fits(traceDemand(p), nodeaffinity.GetRequiredNodeAffinity(tracePodObject(p, 0))) {
					t.Fatalf("%s: %s went to %s, which has GPUs, while %s has none and room", pol, p.Name, c.nodes[node].Name, c.nodes[i].Name)
				}
			}
		}
	}
	seeds := []uint64{1, 2}
	rows := replayAll(nodes, pods, append(tracePolicies(), profilePolicies()...), []bool{false, true}, seeds, check, nil)
	gpus := newTraceCluster(nodes).gpus
	streams := seedStreams(t, pods, gpus, seeds)
	for _, r := range rows {
		for k, seed := range seeds {
			checkTraceMarks(t, fmt.Sprintf("%s seed %d", r.name(), seed), streams[k], r.seeds[k])
		}
		checkTraceMarks(t, r.name()+" by name", streams[0], r.byName)
	}
	t.Logf("fixture, %d nodes, %d GPUs, %d pods:\n%s", len(nodes), gpus, len(pods), traceTable(rows))
}

// traceDir is $BERTH_TRACE_DIR, the directory holding the trace's lists; the test is skipped
// without it.
func traceDir(tb testing.TB) string {
	dir := trace.Dir()
	if dir == "" {
		tb.Skipf("set %s to the directory holding %s and the %s lists of Alibaba's cluster-trace-gpu-v2023 (never commit them)",
			trace.DirEnv, trace.NodeFile, trace.PodFile("*"))
	}
	return dir
}

// TestTraceWorkloads replays each published workload (from $BERTH_TRACE_DIR; one of them with
// -run 'TestTraceWorkloads/^multigpu50$') with first fit, best fit and the shipped profile
// (shippedPolicy, with LeastGPUHarm) over the seeds, checks the marks' arithmetic, and logs the
// GPUs allocated at each mark, mean and range over the seeds, beside the FGD paper's figure where
// it published one (trace.PaperFGD); run it with -v.
func TestTraceWorkloads(t *testing.T) {
	dir := traceDir(t)
	shipped, err := shippedPolicy()
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		pol  tracePolicy
		harm bool
	}
	runs := []run{{pol: shipped, harm: true}, {pol: tracePolicyNamed("FirstFit")}, {pol: tracePolicyNamed("BestFit")}}
	var summary strings.Builder
	fmt.Fprintf(&summary, "%-12s", "workload")
	for _, r := range runs {
		fmt.Fprintf(&summary, " | %s: GPUs allocated at 100%% [min-max], at 130%%", traceRow{policy: r.pol.name, noGPUHarm: r.harm}.name())
	}
	summary.WriteString(" | FGD, the paper: at 100%, at 130%\n")
	for _, w := range trace.Workloads {
		t.Run(w, func(t *testing.T) {
			nodes, pods, err := trace.Load(dir, w)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			gpus := newTraceCluster(nodes).gpus
			measure := traceMixOf(pods)
			streams := seedStreams(t, pods, gpus, traceSeeds)
			var rows []traceRow
			for _, r := range runs {
				row := traceRow{policy: r.pol.name, noGPUHarm: r.harm}
				for k, seed := range traceSeeds {
					marks := replayTrace(nodes, streams[k].pods, measure, r.pol, r.harm, false, seed, nil)
					checkTraceMarks(t, fmt.Sprintf("%s seed %d", row.name(), seed), streams[k], marks)
					row.seeds = append(row.seeds, marks)
				}
				rows = append(rows, row)
			}
			fmt.Fprintf(&summary, "%-12s", w)
			for _, r := range rows {
				mean, lo, hi := r.stats(0, traceMark.allocation)
				end, _, _ := r.stats(len(traceMarks)-1, traceMark.allocation)
				fmt.Fprintf(&summary, " | %.2f [%.2f-%.2f], %.2f", 100*mean, 100*lo, 100*hi, 100*end)
			}
			paper := trace.PaperFGD[w]
			fmt.Fprintf(&summary, " | %s, %s\n", paperFigure(paper[0]), paperFigure(paper[1]))
			t.Logf("%s, %d pods, seeds %v, %v:\n%s", w, len(pods), traceSeeds, time.Since(start).Round(time.Second), traceTable(rows))
		})
	}
	t.Logf("GPUs allocated, %% of the cluster's, mean over seeds %v:\n%s", traceSeeds, summary.String())
}

// paperFigure is one of trace.PaperFGD's figures, "-" where the paper published none.
func paperFigure(f float64) string {
	if f == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", f)
}

// tracePolicyNamed is the policy of tracePolicies with that name.
func tracePolicyNamed(name string) tracePolicy {
	for _, p := range tracePolicies() {
		if p.name == name {
			return p
		}
	}
	panic("no trace policy " + name)
}

// TestTraceReplay replays the trace's default workload (from $BERTH_TRACE_DIR) with every policy
// and seed and logs the table; run it with -v. It checks the marks' arithmetic, as the fixture
// test does.
func TestTraceReplay(t *testing.T) {
	dir := traceDir(t)
	nodes, pods, err := trace.Load(dir, trace.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rows := replayAll(nodes, pods, tracePolicies(), []bool{false, true}, traceSeeds, nil, func(r traceRow) { t.Logf("%s done after %v", r.name(), time.Since(start).Round(time.Second)) })
	checkAndLogTraceRows(t, dir, nodes, pods, rows)
}

// TestTraceUnallocated replays the trace's default workload (from $BERTH_TRACE_DIR) with the
// shipped profile, first fit and best fit, and logs where the GPUs not allocated at each mark are:
// wholly free GPUs, or the free part of GPUs partly taken (by tenth of a GPU), and what the pods
// turned away asked for. It checks the marks' arithmetic: the parts add up to the free GPUs, and
// what was turned away to what was asked for less what was placed.
func TestTraceUnallocated(t *testing.T) {
	dir := traceDir(t)
	nodes, pods, err := trace.Load(dir, trace.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := shippedPolicy()
	if err != nil {
		t.Fatal(err)
	}
	gpus := newTraceCluster(nodes).gpus
	measure := traceMixOf(pods)
	streams := seedStreams(t, pods, gpus, traceSeeds)
	var b strings.Builder
	for _, r := range []struct {
		pol  tracePolicy
		harm bool
	}{{shipped, true}, {tracePolicyNamed("FirstFit"), false}, {tracePolicyNamed("BestFit"), false}} {
		row := traceRow{policy: r.pol.name, noGPUHarm: r.harm}
		mean := make([]traceMark, len(traceMarks))
		for k, seed := range traceSeeds {
			marks := replayTrace(nodes, streams[k].pods, measure, r.pol, r.harm, false, seed, nil)
			checkTraceMarks(t, fmt.Sprintf("%s seed %d", row.name(), seed), streams[k], marks)
			for i, m := range marks {
				mean[i].free += m.free / float64(len(traceSeeds))
				for k := range m.remnant {
					mean[i].remnant[k] += m.remnant[k] / float64(len(traceSeeds))
				}
				for k := range m.turnedAway {
					mean[i].turnedAway[k] += m.turnedAway[k] / float64(len(traceSeeds))
				}
			}
		}
		for i, m := range mean {
			fmt.Fprintf(&b, "%-32s at %3.0f%%: %6.1f GPUs free: %5.1f wholly free GPUs, %6.1f on GPUs partly taken, by tenth free %4.1f; "+
				"turned away: shares of a GPU %5.1f, one GPU %5.1f, several GPUs %5.1f\n",
				row.name(), 100*traceMarks[i], m.free, m.free-m.remnants(), m.remnants(), m.remnant, m.turnedAway[shareOfOne], m.turnedAway[oneWhole], m.turnedAway[severalWhole])
		}
	}
	t.Logf("%s, %d GPUs, mean over seeds %v:\n%s", trace.DefaultWorkload, gpus, traceSeeds, b.String())
}

// checkAndLogTraceRows checks every seed's marks of rows against the stream it replayed, then logs
// the table.
func checkAndLogTraceRows(t *testing.T, dir string, nodes []trace.Node, pods []trace.Pod, rows []traceRow) {
	t.Helper()
	gpus := newTraceCluster(nodes).gpus
	streams := seedStreams(t, pods, gpus, traceSeeds)
	for _, r := range rows {
		for k, seed := range traceSeeds {
			checkTraceMarks(t, fmt.Sprintf("%s seed %d", r.name(), seed), streams[k], r.seeds[k])
		}
	}
	t.Logf("%s: %d nodes, %d GPUs, %d pods; seeds %v:\n%s", dir, len(nodes), gpus, len(pods), traceSeeds, traceTable(rows))
}

// TestTraceProfileWeights replays the trace's default workload (from $BERTH_TRACE_DIR) through berth's profile
// with Binpack as shipped before issue 25, and with Fragmentation and LeastGPUHarm at each of
// GPUShare's profileWeights, over the seeds, and logs the table; run it with -v.
func TestTraceProfileWeights(t *testing.T) {
	dir := traceDir(t)
	nodes, pods, err := trace.Load(dir, trace.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var rows []traceRow
	for _, pol := range profilePolicies() {
		harm := strings.HasPrefix(pol.name, "Fragmentation")
		rows = append(rows, replayAll(nodes, pods, []tracePolicy{pol}, []bool{harm}, traceSeeds, nil, func(r traceRow) {
			mean, lo, hi := r.stats(0, traceMark.allocation)
			t.Logf("%s done after %v: %.1f%% [%.1f-%.1f] at 100%%", r.name(), time.Since(start).Round(time.Second), 100*mean, 100*lo, 100*hi)
		})...)
	}
	checkAndLogTraceRows(t, dir, nodes, pods, rows)
}

// BenchmarkTracePlacement is TestTraceReplay as benchmark lines (run it with -benchtime=1x): for
// each policy, the GPU allocation ratio and the fragmented share at each mark, means over the
// seeds. ns/op is the time to replay all seeds.
func BenchmarkTracePlacement(b *testing.B) {
	nodes, pods, err := trace.Load(traceDir(b), trace.DefaultWorkload)
	if err != nil {
		b.Fatal(err)
	}
	gpus := newTraceCluster(nodes).gpus
	measure := traceMixOf(pods)
	for _, pol := range tracePolicies() {
		for _, harm := range []bool{false, true} {
			row := traceRow{policy: pol.name, noGPUHarm: harm}
			b.Run(row.name(), func(b *testing.B) {
				for b.Loop() {
					row.seeds = row.seeds[:0]
					for _, seed := range traceSeeds {
						row.seeds = append(row.seeds, replayTrace(nodes, traceStream(pods, gpus, seed), measure, pol, harm, false, seed, nil))
					}
				}
				for m, at := range traceMarks {
					alloc, _, _ := row.stats(m, traceMark.allocation)
					frag, _, _ := row.stats(m, traceMark.fragmentedShare)
					b.ReportMetric(alloc, fmt.Sprintf("alloc@%.0f%%", 100*at))
					b.ReportMetric(frag, fmt.Sprintf("frag@%.0f%%", 100*at))
				}
			})
		}
	}
}
