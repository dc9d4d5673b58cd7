// Package allocatable is the NodeResourcesAllocatable scheduler plugin, with scheduler-plugins'
// name, args and scores: it ranks nodes by the weighted sum of their allocatable resources, the
// smallest first (Least) or the largest first (Most). With Least on GPU count, small GPU jobs fill
// the small GPU nodes first and the large nodes stay whole for the jobs that need all their GPUs.
//
// A node's score depends on the node alone, never on the pod or on what the node already runs:
// Score reads the node's allocatable resources from the snapshot and allocates nothing.
package allocatable

import (
	"context"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
	"github.com/berth-sched/berth/pkg/apis/config/validation"
	"github.com/berth-sched/berth/pkg/normalize"
)

var (
	_ fwk.ScorePlugin     = &Allocatable{}
	_ fwk.ScoreExtensions = &Allocatable{}
	_ fwk.SignPlugin      = &Allocatable{}
)

// Name of the plugin in the registry and in scheduler configurations: scheduler-plugins' name,
// so that its configurations work unchanged.
const Name = "NodeResourcesAllocatable"

// Allocatable scores nodes by their allocatable resources.
type Allocatable struct {
	resources []weighted
	weightSum float64
	// sign is -1 for Least, so that the smallest node has the highest raw score, and 1 for Most.
	sign float64
}

// weighted is one resource of the args, with the way to read it from a node's allocatable
// resources chosen once, in New.
type weighted struct {
	amount func(fwk.Resource) int64
	weight float64
}

// New builds the plugin from its args (nil means the defaults).
func New(_ context.Context, obj runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	args, err := config.ArgsOf(obj, configv1.DefaultNodeResourcesAllocatableArgs, validation.ValidateNodeResourcesAllocatableArgs)
	if err != nil {
		return nil, err
	}
	pl := &Allocatable{sign: 1}
	if args.Mode == config.Least {
		pl.sign = -1
	}
	for _, r := range args.Resources {
		pl.resources = append(pl.resources, weighted{amount: amountOf(v1.ResourceName(r.Name)), weight: float64(r.Weight)})
		pl.weightSum += float64(r.Weight)
	}
	return pl, nil
}

// amountOf reads a resource from a node's allocatable resources: the native ones from their own
// fields, every other (validation admits only scalar resources) from the scalar map, where an
// extended resource such as aliyun.com/gpu-count lives, and is zero on nodes without it.
func amountOf(name v1.ResourceName) func(fwk.Resource) int64 {
	switch name {
	case v1.ResourceCPU:
		return fwk.Resource.GetMilliCPU
	case v1.ResourceMemory:
		return fwk.Resource.GetMemory
	case v1.ResourceEphemeralStorage:
		return fwk.Resource.GetEphemeralStorage
	default:
		return func(r fwk.Resource) int64 { return r.GetScalarResources()[name] }
	}
}

// Name returns the name of the plugin.
func (pl *Allocatable) Name() string { return Name }

// SignPod returns no fragments: the score depends on the node only, so every pod may share a
// batch's scores as far as this plugin is concerned.
func (pl *Allocatable) SignPod(context.Context, *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return nil, nil
}

// Score is the weighted mean of the node's allocatable resources, negated in Least mode. The mean
// is taken in float64, so that large weights (scheduler-plugins sets no upper bound) cannot
// overflow; it never exceeds the largest amount, and the bound only guards the conversion back.
func (pl *Allocatable) Score(_ context.Context, _ fwk.CycleState, _ *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	alloc := nodeInfo.GetAllocatable()
	var sum float64
	for _, r := range pl.resources {
		sum += r.weight * float64(r.amount(alloc))
	}
	const bound = 1 << 62
	return int64(math.Trunc(min(max(pl.sign*sum/pl.weightSum, -bound), bound))), nil
}

// ScoreExtensions returns the plugin itself, for NormalizeScore.
func (pl *Allocatable) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore maps the raw scores onto [0, MaxNodeScore], the best node highest.
func (pl *Allocatable) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	normalize.MinMax(scores, fwk.MinNodeScore)
	return nil
}
