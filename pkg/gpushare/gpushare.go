// Package gpushare is the GPUShare scheduler plugin: it places pods that ask for a share of GPU
// memory onto concrete GPUs, speaking the gpushare device plugin's annotation protocol. The
// accounting itself is package gpu; this package maps it onto the scheduling framework.
package gpushare

import (
	"context"
	"fmt"
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
	"github.com/berth-sched/berth/pkg/apis/config/validation"
	"github.com/berth-sched/berth/pkg/cyclestate"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/normalize"
	"github.com/berth-sched/berth/pkg/tombstone"
)

const (
	// Name of the plugin in the registry and in scheduler configurations.
	Name = "GPUShare"

	preFilterStateKey = "PreFilter" + Name
	preScoreStateKey  = "PreScore" + Name

	// rawScoreScale is the resolution of Score's raw scores, which NormalizeScore maps onto
	// [0, MaxNodeScore]; fine enough that nodes a few units of memory apart still rank apart.
	rawScoreScale = 1_000_000
)

// GPUShare assigns GPUs to pods that ask for GPU memory, and binds them with the assignment
// recorded on the pod.
type GPUShare struct {
	handle   fwk.Handle
	devices  *deviceCache
	views    *nodeViews
	res      gpu.ResourceNames
	strategy *gpu.Strategy
	// leastGPUHarm is noGPUPodScoring LeastGPUHarm: pods without GPU memory are scored too.
	leastGPUHarm bool
	// signerKey names the pod's GPU request in its signature; demandSignerKey its whole demand,
	// which the fragmentation scores depend on.
	signerKey       string
	demandSignerKey string
	// dra scores pods whose claims ask for DRA GPUs; nil without DRA.
	dra *draScoring
}

// New builds the plugin from its args (nil means the defaults).
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := config.ArgsOf(obj, configv1.DefaultGPUShareArgs, validation.ValidateGPUShareArgs)
	if err != nil {
		return nil, err
	}
	strategy, err := gpu.StrategyNamed(args.ScoringStrategy)
	if err != nil {
		return nil, err
	}
	res := gpu.ResourceNames{Memory: v1.ResourceName(args.MemoryResource), Count: v1.ResourceName(args.CountResource)}
	// The profile's ElasticQuota counts GPU memory under the same name.
	gpu.SetProfileResourceNames(ctx, h, res)
	devices, err := deviceCacheFor(ctx, h, res)
	if err != nil {
		return nil, err
	}
	views := newNodeViews(res, devices, strategy)
	if _, err := h.SharedInformerFactory().Core().V1().Nodes().Informer().AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if node, ok := tombstone.As[*v1.Node](obj); ok {
				views.forget(node.Name)
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	draScores, err := newDRAScoring(ctx, h, views, res)
	if err != nil {
		return nil, fmt.Errorf("watching DRA GPUs: %w", err)
	}
	return &GPUShare{
		dra:             draScores,
		handle:          h,
		devices:         devices,
		views:           views,
		res:             res,
		strategy:        strategy,
		leastGPUHarm:    args.NoGPUPodScoring == config.LeastGPUHarm,
		signerKey:       "berth.dev/GPURequest(" + args.MemoryResource + ")",
		demandSignerKey: "berth.dev/GPUDemand(" + args.MemoryResource + ")",
	}, nil
}

// Name returns the name of the plugin.
func (pl *GPUShare) Name() string { return Name }

// preFilterState is the pod's request, computed once per cycle.
type preFilterState struct {
	req gpu.Request
}

// Clone returns the state itself: it never changes after PreFilter.
func (s *preFilterState) Clone() fwk.StateData { return s }

// noGPUState is the state of every pod without GPU memory, most pods of a cluster: one value,
// not one allocation per scheduling cycle.
var noGPUState = &preFilterState{}

func getPreFilterState(state fwk.CycleState) (*preFilterState, error) {
	return stateOf[*preFilterState](state, preFilterStateKey)
}

// stateOf reads what an earlier extension point of this cycle wrote under key.
func stateOf[T fwk.StateData](state fwk.CycleState, key fwk.StateKey) (T, error) {
	var zero T
	c, err := state.Read(key)
	if err != nil {
		return zero, fmt.Errorf("reading %q from cycleState: %w", key, err)
	}
	s, ok := c.(T)
	if !ok {
		return zero, fmt.Errorf("invalid %s state, got type %T", key, c)
	}
	return s, nil
}

var _ fwk.PreFilterPlugin = &GPUShare{}

// PreFilter reads the pod's request once, skips pods without GPU memory, and rejects at once a
// pod that no node's GPUs could hold even if they were empty. It judges the nodes of the
// scheduler's snapshot, the same nodes whose events requeue the pod: a pod rejected here is tried
// again on the very event that brings a node that could hold it, never on a cache that has yet
// to see that event.
func (pl *GPUShare) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	req, err := gpu.RequestOf(pod, pl.res.Memory)
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	// Reserve and Bind read the state too, also for pods whose Filter and Score are skipped.
	if req.Total == 0 {
		state.Write(preFilterStateKey, noGPUState)
		return nil, fwk.NewStatus(fwk.Skip)
	}
	state.Write(preFilterStateKey, &preFilterState{req: req})
	if err := pl.devices.waitForSync(ctx); err != nil {
		return nil, fwk.AsStatus(err)
	}
	err = pl.res.CheckCapacity(req, func(yield func([]int64) bool) {
		for _, n := range nodes {
			if !yield(pl.views.capacity(n.Node())) {
				return
			}
		}
	})
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	return nil, nil
}

// PreFilterExtensions returns nil: see Filter.
func (pl *GPUShare) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

var _ fwk.FilterPlugin = &GPUShare{}

// Filter passes a node if the pod's request fits on its devices. It changes nothing.
//
// The devices' use comes from the pods nodeInfo holds, not from the device cache's own idea of
// the node, so preemption needs no PreFilterExtensions: its dry runs add and remove victims and
// nominated pods on a copy of nodeInfo, and Filter sees them come and go.
func (pl *GPUShare) Filter(_ context.Context, state fwk.CycleState, _ *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return fwk.AsStatus(err)
	}
	var buf deviceBuf
	return noFitStatus(gpu.Fits(pl.views.devicesOn(nodeInfo, &buf), s.req))
}

// noFitStatus turns Fit's error into a rejection: Unschedulable when evicting pods could free
// enough memory, UnschedulableAndUnresolvable when the node's GPUs are too small or too few. The
// message is formatted only if someone reads it: most rejected nodes' statuses are dropped unread
// once another node takes the pod.
func noFitStatus(nf *gpu.NoFitError) *fwk.Status {
	switch {
	case nf == nil:
		return nil
	case nf.Resolvable:
		return fwk.NewStatus(fwk.Unschedulable).WithError(nf)
	default:
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithError(nf)
	}
}

var _ fwk.PreScorePlugin = &GPUShare{}

// preScoreState is what the fragmentation scores need beyond the GPU request, computed once per
// cycle: the pod's whole demand and the mix of requests as it stands.
type preScoreState struct {
	demand gpu.PodShape
	view   gpu.MixView
}

// Clone returns the state itself: it never changes after PreScore.
func (s *preScoreState) Clone() fwk.StateData { return s }

func getPreScoreState(state fwk.CycleState) (*preScoreState, error) {
	return stateOf[*preScoreState](state, preScoreStateKey)
}

// byFragmentation reports whether the nodes are scored for req by how much the placement grows
// their fragmentation (gpu.FragmentationCost): GPU requests with the Fragmentation strategy, and
// pods without GPU memory, which reach Score only with LeastGPUHarm.
func (pl *GPUShare) byFragmentation(req gpu.Request) bool {
	return req.Total == 0 || pl.strategy == gpu.FragmentationStrategy
}

// PreScore skips Score for pods without GPU memory (PreFilter's Skip does not reach Score), unless
// noGPUPodScoring is LeastGPUHarm. For the fragmentation scores it takes the pod's demand and the
// mix once for the cycle.
func (pl *GPUShare) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return fwk.AsStatus(err)
	}
	// A pod asking for DRA GPUs (and no gpushare memory) is scored on the DRA devices by the same
	// strategy; DynamicResources filters and allocates it.
	if s.req.Total == 0 && pl.dra != nil && len(pod.Spec.ResourceClaims) > 0 {
		ds, err := pl.dra.preScore(ctx, pod, nodes, pl.views, pl.strategy)
		if err != nil {
			return fwk.AsStatus(err)
		}
		if ds != nil {
			state.Write(draStateKey, ds)
			return nil
		}
	}
	if s.req.Total == 0 && !pl.leastGPUHarm {
		return fwk.NewStatus(fwk.Skip)
	}
	if !pl.byFragmentation(s.req) {
		return nil
	}
	// PreFilter waited for pods with GPU memory only.
	if err := pl.devices.waitForSync(ctx); err != nil {
		return fwk.AsStatus(err)
	}
	state.Write(preScoreStateKey, &preScoreState{demand: shapeOf(pod, s.req), view: pl.mixView()})
	return nil
}

// mixView is the mix as it stands, weighed against the cluster's GPUs of each model when some of
// its pods are restricted to models (gpu.MixView.WithSupply).
func (pl *GPUShare) mixView() gpu.MixView {
	return pl.devices.supply.weigh(pl.devices.mix.View())
}

// demandAndMix is the pod's demand and the mix as PreScore took them for the cycle, or as they
// stand where PreScore did not run (the scheduler skips scoring when one node is feasible).
func (pl *GPUShare) demandAndMix(state fwk.CycleState, pod *v1.Pod, req gpu.Request) (gpu.PodShape, gpu.MixView) {
	if ps, err := getPreScoreState(state); err == nil {
		return ps.demand, ps.view
	}
	return shapeOf(pod, req), pl.mixView()
}

var _ fwk.ScorePlugin = &GPUShare{}

// noFitScore is the fragmentation scores' raw score of a node the request no longer fits, below
// any cost's (gpu.RawScore bounds them): the lowest, as 0 is the lowest of the strategies' scores.
const noFitScore = math.MinInt64

// Score rates the node by the strategy, judging the devices the pod would get and the node; with
// the fragmentation scores, by how much placing the pod there grows the node's fragmentation
// against the mix (gpu.FragmentationCost, or gpu.NoGPUCost for a pod without GPU memory), with
// the node's cpu and memory as the scheduler counts them, allocatable less requested. Nodes with
// GPUs of equal cost are ordered by gpu.TieOrder; nodes without GPUs (a pod without GPU memory
// costs nothing on any of them) stay tied, for the other plugins to choose among.
func (pl *GPUShare) Score(_ context.Context, state fwk.CycleState, _ *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	s, err := getPreFilterState(state)
	if err != nil {
		return 0, fwk.AsStatus(err)
	}
	if ds := pl.draStateOf(s, state); ds != nil {
		return ds.scores[nodeInfo.Node().Name], nil
	}
	var buf deviceBuf
	devs := pl.views.devicesOn(nodeInfo, &buf)
	if pl.byFragmentation(s.req) {
		ps, err := getPreScoreState(state)
		if err != nil {
			return 0, fwk.AsStatus(err)
		}
		free := nodeShape(nodeInfo, devs)
		cost, nf := gpu.FragmentationCost(free, ps.demand, ps.view)
		if nf != nil {
			// As below.
			return noFitScore, nil
		}
		var tie int64
		if len(devs) > 0 {
			tie = gpu.TieOrder(nodeInfo.Node().Name)
		}
		return gpu.RawScore(cost, tie), nil
	}
	score, nf := gpu.Score(devs, s.req, pl.strategy)
	if nf != nil {
		// The node's devices filled up since Filter; Reserve will say so if it is chosen.
		return 0, nil
	}
	return int64(math.Round(score * rawScoreScale)), nil
}

// ScoreExtensions returns the plugin itself, for NormalizeScore.
func (pl *GPUShare) ScoreExtensions() fwk.ScoreExtensions { return pl }

var _ fwk.ScoreExtensions = &GPUShare{}

// NormalizeScore spreads the raw scores over [0, MaxNodeScore], best node highest: the strategy
// decides among the nodes at hand, and the plugin's weight decides how much that counts against
// other plugins. Binpack and Spread map the raw scores linearly; equal raw scores all get
// MaxNodeScore (normalize.MinMax states the tie rule). The fragmentation scores go by rank
// (normalize.Rank): the best node 100, the next 99, and so on, so that a node whose fragmentation
// would jump does not squeeze the good ones into a few points where the other plugins decide.
func (pl *GPUShare) NormalizeScore(_ context.Context, state fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	if pl.strategy == gpu.FragmentationStrategy || pl.leastGPUHarm {
		s, err := getPreFilterState(state)
		if err != nil {
			return fwk.AsStatus(err)
		}
		if pl.byFragmentation(s.req) && pl.draStateOf(s, state) == nil {
			normalize.Rank(scores)
			return nil
		}
	}
	normalize.MinMax(scores, fwk.MaxNodeScore)
	return nil
}

// nodeShape is what the node has left for the fragmentation measure: its devices, its cpu and
// memory as the scheduler counts them (allocatable less requested: millicores and bytes), and its
// GPU model.
func nodeShape(nodeInfo fwk.NodeInfo, devs []gpu.Device) gpu.NodeShape {
	return gpu.NodeShape{
		Devices:  devs,
		MilliCPU: noderoom.FreeOn(nodeInfo, v1.ResourceCPU),
		Memory:   noderoom.FreeOn(nodeInfo, v1.ResourceMemory) / amount.One,
		Model:    nodeInfo.Node().Labels[gpu.ModelLabel],
	}
}

// draStateOf is the DRA GPU pod's scores, nil for any other pod. Pods with gpushare memory never
// have them, and skip the read.
func (pl *GPUShare) draStateOf(s *preFilterState, state fwk.CycleState) *draState {
	if s.req.Total != 0 || pl.dra == nil {
		return nil
	}
	// Score asks this for every node, and most pods have no DRA state: stateOf would format an
	// error for each (1.5 s of CPU in scheduler_perf's Gang workload, 3% of the run).
	ds, _ := cyclestate.Of[*draState](state, draStateKey)
	return ds
}

var _ fwk.ReservePlugin = &GPUShare{}

// Reserve picks the pod's devices on the chosen node, judged on the same snapshot as Filter, and
// records them in the device cache. Scheduling cycles run one at a time and each cycle's snapshot
// holds every pod reserved before it, so two pods never get the same free memory. With the
// Fragmentation strategy they are the devices Score rated the node by (gpu.FragmentationFit).
func (pl *GPUShare) Reserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if s.req.Total == 0 {
		return nil
	}
	nodeInfo, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(nodeName)
	if err != nil {
		return fwk.AsStatus(err)
	}
	var buf deviceBuf
	devs := pl.views.devicesOn(nodeInfo, &buf)
	var a gpu.Assignment
	var nf *gpu.NoFitError
	if pl.strategy == gpu.FragmentationStrategy {
		demand, view := pl.demandAndMix(state, pod, s.req)
		a, _, nf = gpu.FragmentationFit(nodeShape(nodeInfo, devs), demand, view)
	} else {
		a, nf = gpu.Fit(devs, s.req, pl.strategy)
	}
	// Filter passed this node, on the snapshot with nominated pods added; should the pod not fit
	// without them, say why as Filter would.
	if st := noFitStatus(nf); st != nil {
		return st
	}
	if err := pl.devices.Hold(pod.UID, nodeName, a); err != nil {
		return fwk.AsStatus(err)
	}
	klog.FromContext(ctx).V(4).Info("Reserved GPUs", "pod", klog.KObj(pod), "node", nodeName, "devices", a)
	return nil
}

// Unreserve releases what Reserve held for the pod. The framework calls it when anything after
// Reserve fails, Bind included.
func (pl *GPUShare) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	pl.devices.Unreserve(pod.UID)
}

var _ fwk.BindPlugin = &GPUShare{}

// Bind binds a GPU pod together with its devices, in one request (gpu.Bind). Pods without GPU
// memory are left to the next binder. A profile must run GPUShare before any other binder, or GPU
// pods would be bound without their devices; berth-scheduler refuses one that does not
// (registry.CheckProfiles).
func (pl *GPUShare) Bind(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if s.req.Total == 0 {
		return fwk.NewStatus(fwk.Skip)
	}
	on, a, ok := pl.devices.PodAssignment(pod.UID)
	if !ok || on != nodeName {
		return fwk.AsStatus(fmt.Errorf("pod holds no GPUs on node %q; it may have been deleted", nodeName))
	}
	// The node as the informer has it now, which is never older than the snapshot Reserve read; the
	// snapshot itself belongs to the scheduling cycle that runs while this pod binds.
	node, err := pl.handle.SharedInformerFactory().Core().V1().Nodes().Lister().Get(nodeName)
	if err != nil {
		return fwk.AsStatus(fmt.Errorf("reading node %q: %w", nodeName, err))
	}
	if err := gpu.Bind(ctx, pl.handle.ClientSet(), pod, nodeName, a, pl.views.capacity(node), time.Now()); err != nil {
		return fwk.AsStatus(err)
	}
	gpu.ObservePodPlaced()
	return nil
}

var _ fwk.EnqueueExtensions = &GPUShare{}

// EventsToRegister lists what can make a pod this plugin rejected fit: GPU memory freed by a
// deleted or finished pod (the scheduler's informer drops finished pods, a delete), a node that
// gains GPUs or larger ones, and a change to the pod's own GPU count.
func (pl *GPUShare) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: pl.isSchedulableAfterPodDelete},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeAnnotation}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: fwk.ClusterEvent{Resource: fwk.TargetPod, ActionType: fwk.Update}, QueueingHintFn: pl.isSchedulableAfterPodUpdate},
	}, nil
}

// isSchedulableAfterPodDelete queues the pod when the deleted pod held GPU memory: it carries an
// assignment, or it asked for memory and was reserved when its binding failed.
func (pl *GPUShare) isSchedulableAfterPodDelete(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	deleted, _, err := schedutil.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if gpu.HasAssignment(deleted) {
		if v := logger.V(5); v.Enabled() {
			// Not built when off: the queue asks every waiting pod on every event.
			v.Info("A pod holding GPUs was deleted", "pod", klog.KObj(pod), "deletedPod", klog.KObj(deleted))
		}
		return fwk.Queue, nil
	}
	if req, err := gpu.RequestOf(deleted, pl.res.Memory); err == nil && req.Total > 0 {
		if v := logger.V(5); v.Enabled() {
			v.Info("A pod that asked for GPU memory was deleted", "pod", klog.KObj(pod), "deletedPod", klog.KObj(deleted))
		}
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// isSchedulableAfterNodeChange queues the pod when a node appears or its GPUs grow such that they
// could hold the pod.
func (pl *GPUShare) isSchedulableAfterNodeChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	old, cur, err := schedutil.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if old != nil && sameGPUs(old, cur, pl.res) {
		// Most node updates the queue asks about change other annotations: answered before
		// reading the pod's request and both nodes' GPUs, which allocates.
		return fwk.QueueSkip, nil
	}
	curDevs, _ := gpu.DevicesOf(cur, pl.res)
	if len(curDevs) == 0 {
		// A node without GPUs, the most of a cluster's: answered before reading the pod's
		// request, which allocates. A deep backlog of GPU pods asks this of every node that joins
		// or grows (issue 42).
		return fwk.QueueSkip, nil
	}
	req, err := gpu.RequestOf(pod, pl.res.Memory)
	if err != nil || req.Total == 0 {
		// Rejected for its own request, which no node can fix.
		return fwk.QueueSkip, nil
	}
	if !gpu.CanHold(curDevs, req) {
		return fwk.QueueSkip, nil
	}
	if old != nil {
		oldDevs, _ := gpu.DevicesOf(old, pl.res)
		if !grew(oldDevs, curDevs) {
			return fwk.QueueSkip, nil
		}
	}
	if v := logger.V(5); v.Enabled() {
		v.Info("A node has GPUs that could hold the pod", "pod", klog.KObj(pod), "node", klog.KObj(cur))
	}
	return fwk.Queue, nil
}

// sameGPUs reports whether the two nodes have the same inputs to gpu.DevicesOf.
func sameGPUs(old, cur *v1.Node, res gpu.ResourceNames) bool {
	same := func(name v1.ResourceName) bool {
		a, okA := old.Status.Allocatable[name]
		b, okB := cur.Status.Allocatable[name]
		return okA == okB && a.Cmp(b) == 0
	}
	return same(res.Count) && same(res.Memory) &&
		old.Annotations[gpu.NodeGPUMemoryAnnotation] == cur.Annotations[gpu.NodeGPUMemoryAnnotation]
}

func grew(old, cur []int64) bool {
	if len(cur) > len(old) {
		return true
	}
	for i, c := range cur {
		if c > old[i] {
			return true
		}
	}
	return false
}

// isSchedulableAfterPodUpdate queues the pod when its GPU count annotation changes, which can
// turn a malformed or unplaceable request into one that fits.
func (pl *GPUShare) isSchedulableAfterPodUpdate(_ klog.Logger, _ *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	old, cur, err := schedutil.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if old.Annotations[gpu.PodGPUCountAnnotation] != cur.Annotations[gpu.PodGPUCountAnnotation] {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

var _ fwk.SignPlugin = &GPUShare{}

// SignPod signs the pod's GPU request (memory and GPU count), so that only pods asking for the
// same are batched together. Pods with a malformed request are not signed. A pod without GPU
// memory adds no fragment: its signature is the one the other plugins give it, which no GPU
// pod's shares, and the framework spends no reflection on an empty request.
//
// The fragmentation scores also depend on the pod's cpu and memory requests, which the pods of a
// batch must then share too: with them the signature holds the pod's whole demand, as
// NodeResourcesFit signs its requests (for pods without GPU memory with LeastGPUHarm, the
// demand is all that their score reads of the pod). The mix they measure against is the
// scheduler's, not the pod's; it moves by one pod's weight in thousands with each pod created, so
// the pods of a batch see the same mix, to within what changes no ranking worth recomputing. The
// tie order (gpu.TieOrder) is the same for every pod.
func (pl *GPUShare) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	req, err := gpu.RequestOf(pod, pl.res.Memory)
	if err != nil {
		return nil, fwk.NewStatus(fwk.Unschedulable, err.Error())
	}
	var fragments []fwk.SignFragment
	if req.Total > 0 {
		fragments = append(fragments, fwk.SignFragment{Key: pl.signerKey, Value: req})
	}
	if (req.Total > 0 && pl.strategy == gpu.FragmentationStrategy) || (req.Total == 0 && pl.leastGPUHarm) {
		fragments = append(fragments, fwk.SignFragment{Key: pl.demandSignerKey, Value: shapeOf(pod, req)})
	}
	return fragments, nil
}
