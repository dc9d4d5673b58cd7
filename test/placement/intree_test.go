package placement

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	schedconfigv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/test/bench/trace"
)

// inTreeScorers are Kubernetes 1.37's NodeResourcesFit (LeastAllocated) and
// NodeResourcesBalancedAllocation, the real plugins with their default args, which the replay asks
// for the scores they give a node (a framework.NodeInfo holding the pods placed there) as in the
// scheduler's profile.
type inTreeScorers struct {
	fit, balanced fwk.ScorePlugin
}

// noDRAHandle is the one thing the two plugins ask of their handle when DRA's extended resources
// are off: a DRA manager, which they then never use.
type noDRAHandle struct{ fwk.Handle }

func (noDRAHandle) SharedDRAManager() fwk.SharedDRAManager { return nil }

func newInTreeScorers() (*inTreeScorers, error) {
	var fitV1 schedconfigv1.NodeResourcesFitArgs
	var balancedV1 schedconfigv1.NodeResourcesBalancedAllocationArgs
	var fitArgs schedconfig.NodeResourcesFitArgs
	var balancedArgs schedconfig.NodeResourcesBalancedAllocationArgs
	scheme.Scheme.Default(&fitV1)
	scheme.Scheme.Default(&balancedV1)
	if err := scheme.Scheme.Convert(&fitV1, &fitArgs, nil); err != nil {
		return nil, err
	}
	if err := scheme.Scheme.Convert(&balancedV1, &balancedArgs, nil); err != nil {
		return nil, err
	}
	ctx := context.Background()
	fit, err := noderesources.NewFit(ctx, &fitArgs, noDRAHandle{}, feature.Features{})
	if err != nil {
		return nil, fmt.Errorf("NodeResourcesFit: %w", err)
	}
	balanced, err := noderesources.NewBalancedAllocation(ctx, &balancedArgs, noDRAHandle{}, feature.Features{})
	if err != nil {
		return nil, fmt.Errorf("NodeResourcesBalancedAllocation: %w", err)
	}
	return &inTreeScorers{fit: fit.(fwk.ScorePlugin), balanced: balanced.(fwk.ScorePlugin)}, nil
}

// inTreeCycle is one pod's scoring cycle of the two plugins: PreScore once, then Score per node.
type inTreeCycle struct {
	s        *inTreeScorers
	pod      *v1.Pod
	state    fwk.CycleState
	balanced bool // BalancedAllocation's PreScore did not skip the pod
}

func (s *inTreeScorers) cycle(pod *v1.Pod) (*inTreeCycle, error) {
	ctx := context.Background()
	c := &inTreeCycle{s: s, pod: pod, state: framework.NewCycleState()}
	if st := s.fit.(fwk.PreScorePlugin).PreScore(ctx, c.state, pod, nil); !st.IsSuccess() {
		return nil, st.AsError()
	}
	st := s.balanced.(fwk.PreScorePlugin).PreScore(ctx, c.state, pod, nil)
	switch {
	case st.IsSuccess():
		c.balanced = true
	case !st.IsSkip():
		return nil, st.AsError()
	}
	return c, nil
}

// leastAllocated is NodeResourcesFit's score of the node.
func (c *inTreeCycle) leastAllocated(n fwk.NodeInfo) int64 {
	score, st := c.s.fit.Score(context.Background(), c.state, c.pod, n)
	if !st.IsSuccess() {
		panic(st.AsError())
	}
	return score
}

// sum is NodeResourcesFit's and NodeResourcesBalancedAllocation's scores of the node added, each
// at weight 1 as in the default profile.
func (c *inTreeCycle) sum(n fwk.NodeInfo) int64 {
	total := c.leastAllocated(n)
	if c.balanced {
		score, st := c.s.balanced.Score(context.Background(), c.state, c.pod, n)
		if !st.IsSuccess() {
			panic(st.AsError())
		}
		total += score
	}
	return total
}

// tracePodObject is the trace pod as the scheduler would see its cpu and memory and its GPU
// models (traceAffinity).
func tracePodObject(p trace.Pod, uid int) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, UID: types.UID(fmt.Sprint(uid))},
		Spec: v1.PodSpec{Affinity: traceAffinity(p), Containers: []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(p.MilliCPU, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(p.MemoryMiB<<20, resource.BinarySI),
		}}}}},
	}
}

// traceNodeInfo is the trace node as the scheduler's snapshot holds it, without pods, its GPU
// model as GPU Feature Discovery labels it.
func traceNodeInfo(n trace.Node) *framework.NodeInfo {
	res := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(n.MilliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(n.MemoryMiB<<20, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(10_000, resource.DecimalSI),
	}
	info := framework.NewNodeInfo()
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name}, Status: v1.NodeStatus{Capacity: res, Allocatable: res}}
	if n.Model != "" {
		node.Labels = map[string]string{gpu.ModelLabel: n.Model}
	}
	info.SetNode(node)
	return info
}
