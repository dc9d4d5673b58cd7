package gpushare

import (
	"context"
	"math"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/dra"
	"github.com/berth-sched/berth/pkg/gpu"
)

// draStateKey holds a DRA GPU pod's node scores, computed once in PreScore.
const draStateKey = "PreScoreDRA" + Name

// draScoring gives pods whose ResourceClaims ask for GPUs of the DRA driver node scores from the
// plugin's strategy. The DynamicResources plugin filters and allocates them; GPUShare only scores.
type draScoring struct {
	manager fwk.SharedDRAManager
	matcher *dra.Matcher
	// layouts keeps the GPUs the slices publish and the selectors' results between pods; the
	// claims are counted anew for each pod, allocations in flight included.
	layouts *dra.LayoutCache
}

// draState is a DRA GPU pod's raw score per node name.
type draState struct {
	scores map[string]int64
}

// Clone returns the state itself: it never changes after PreScore.
func (s *draState) Clone() fwk.StateData { return s }

// newDRAScoring returns nil when the scheduler runs without DRA (its feature gate off).
func newDRAScoring(ctx context.Context, h fwk.Handle, views *nodeViews, res gpu.ResourceNames) (*draScoring, error) {
	m := h.SharedDRAManager()
	if m == nil {
		return nil, nil
	}
	cfg := dra.DefaultConfig()
	matcher := dra.NewMatcher(cfg)
	d := &draScoring{manager: m, matcher: matcher, layouts: dra.NewLayoutCache(matcher)}
	logger := klog.FromContext(ctx).WithName(Name)
	rep := dra.Reporter{Recorder: h.EventRecorder(), Logger: logger}
	informers := h.SharedInformerFactory()
	sliceLister := informers.Resource().V1().ResourceSlices().Lister()
	nodeLister := informers.Core().V1().Nodes().Lister()
	// check reports a node's malformed GPU devices and a node advertising GPUs both ways. It runs
	// in informer handlers, never in a scheduling cycle: Filter and Score stay free of side effects.
	check := func(nodeName string) {
		node, err := nodeLister.Get(nodeName)
		if err != nil {
			node = &v1.Node{}
			node.Name = nodeName
		}
		all, err := sliceLister.List(labels.Everything())
		if err != nil {
			return
		}
		generation := map[string]int64{}
		var own []*resourceapi.ResourceSlice
		for _, s := range all {
			if s.Spec.Driver == cfg.Driver && sliceNode(s, nodeName) {
				own = append(own, s)
				generation[s.Name] = s.Generation
			}
		}
		nodes, errs := dra.Inventory(cfg, own, nil)
		rep.SliceErrors(node, generation, errs)
		if n := nodes[nodeName]; n != nil && len(n.GPUs) > 0 && len(views.capacity(node)) > 0 {
			rep.BothWays(node, cfg.Driver, res.Memory)
		} else {
			rep.Clear(nodeName)
		}
	}
	onSlice := func(obj any) {
		if s, ok := obj.(*resourceapi.ResourceSlice); ok && s.Spec.Driver == cfg.Driver {
			for _, n := range sliceNodes(s) {
				check(n)
			}
		}
	}
	if _, err := informers.Resource().V1().ResourceSlices().Informer().AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    onSlice,
		UpdateFunc: func(_, cur any) { onSlice(cur) },
	}); err != nil {
		return nil, err
	}
	if _, err := informers.Core().V1().Nodes().Informer().AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if n, ok := obj.(*v1.Node); ok && len(gpuCapacity(n, res)) > 0 {
				check(n.Name)
			}
		},
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*v1.Node)
			n, ok2 := cur.(*v1.Node)
			if ok1 && ok2 && gpu.NodeChanged(o, n, res) {
				check(n.Name)
			}
		},
	}); err != nil {
		return nil, err
	}
	return d, nil
}

func gpuCapacity(n *v1.Node, res gpu.ResourceNames) []int64 {
	c, _ := gpu.DevicesOf(n, res)
	return c
}

// sliceNodes are the nodes a slice's devices are local to.
func sliceNodes(s *resourceapi.ResourceSlice) []string {
	if s.Spec.NodeName != nil {
		return []string{*s.Spec.NodeName}
	}
	var out []string
	for _, d := range s.Spec.Devices {
		if d.NodeName != nil {
			out = append(out, *d.NodeName)
		}
	}
	return out
}

func sliceNode(s *resourceapi.ResourceSlice, node string) bool {
	for _, n := range sliceNodes(s) {
		if n == node {
			return true
		}
	}
	// Counter sets of a partitionable pool may sit in a slice of their own, named by the pool.
	return s.Spec.Pool.Name == node
}

// preScore returns the pod's scores when its not yet allocated claims ask for GPUs of the
// driver, nil otherwise. A pod whose claims cannot be read is left unscored: DynamicResources
// rejects it, saying why.
func (d *draScoring) preScore(ctx context.Context, pod *v1.Pod, nodes []fwk.NodeInfo, views *nodeViews, strategy *gpu.Strategy) (*draState, error) {
	logger := klog.FromContext(ctx)
	pr, err := dra.PodRequestFrom(d.manager, pod, d.matcher.Config())
	if err != nil {
		logger.V(4).Info("Not scoring the pod's DRA GPUs: its claims cannot be read", "pod", klog.KObj(pod), "err", err)
		return nil, nil
	}
	if len(pr.Requests) == 0 {
		return nil, nil
	}
	inv, err := d.layouts.Listed(d.manager)
	if err != nil {
		return nil, err
	}
	var reqs []*dra.DeviceRequest
	for i := range pr.Requests {
		if inv.AsksForGPUs(ctx, &pr.Requests[i]) {
			reqs = append(reqs, &pr.Requests[i])
		}
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	s := &draState{scores: make(map[string]int64, len(nodes))}
	for _, ni := range nodes {
		node := ni.Node()
		if node == nil {
			continue
		}
		// A node that also advertises gpushare GPUs is not counted a second time (Reporter.BothWays).
		if !inv.Has(node.Name) || len(views.capacity(node)) > 0 {
			continue
		}
		var sum float64
		for _, r := range reqs {
			devs, req, ok := inv.View(ctx, node.Name, r)
			if !ok {
				continue
			}
			if sc, nf := gpu.Score(devs, req, strategy); nf == nil {
				sum += sc
			}
		}
		s.scores[node.Name] = int64(math.Round(sum / float64(len(reqs)) * rawScoreScale))
	}
	logger.V(5).Info("Scored DRA GPU pod", "pod", klog.KObj(pod), "scores", s.scores)
	return s, nil
}
