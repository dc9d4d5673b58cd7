// Package podstate is the PodState scheduler plugin, with scheduler-plugins' name and scores: it
// prefers nodes where pods are terminating, whose room is about to be free, and avoids nodes that
// already have pods nominated to them by preemption, whose room is promised to those pods.
package podstate

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/normalize"
)

var (
	_ fwk.ScorePlugin     = &PodState{}
	_ fwk.ScoreExtensions = &PodState{}
	_ fwk.SignPlugin      = &PodState{}
)

// Name of the plugin in the registry and in scheduler configurations: scheduler-plugins' name,
// so that its configurations work unchanged.
const Name = "PodState"

// PodState scores nodes by their terminating and nominated pods.
type PodState struct {
	nominator fwk.PodNominator
}

// New builds the plugin. It takes no args, as in scheduler-plugins; args given to it are a
// mistake in the configuration, reported at start-up rather than ignored.
func New(_ context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	if obj != nil {
		return nil, fmt.Errorf("%s takes no args, got %T", Name, obj)
	}
	return &PodState{nominator: h}, nil
}

// Name returns the name of the plugin.
func (pl *PodState) Name() string { return Name }

// SignPod returns no fragments: the score depends on the node's pods, not on the pod being
// scheduled (except for its own nomination, and the framework never batches nominated pods).
func (pl *PodState) SignPod(context.Context, *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return nil, nil
}

// Score is the number of the node's terminating pods less the number of pods nominated to it.
// The pod itself does not count against the node it was nominated to: that room was freed for
// it. The scheduler's nominator is the one the framework's Filter consults; it copies a node's
// nominated pods only when there are some.
func (pl *PodState) Score(_ context.Context, _ fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	var score int64
	for _, p := range nodeInfo.GetPods() {
		if p.GetPod().DeletionTimestamp != nil {
			score++
		}
	}
	for _, p := range pl.nominator.NominatedPodsForNode(nodeInfo.Node().Name) {
		if p.GetPod().UID != pod.UID {
			score--
		}
	}
	return score, nil
}

// ScoreExtensions returns the plugin itself, for NormalizeScore.
func (pl *PodState) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore maps the raw scores onto [0, MaxNodeScore], the best node highest.
func (pl *PodState) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	normalize.MinMax(scores, fwk.MinNodeScore)
	return nil
}
