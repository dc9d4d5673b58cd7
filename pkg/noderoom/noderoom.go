// Package noderoom is the room a node has for more pods: its allocatable less what the pods that
// still hold room there request (podroom.Holds), what its GPUs hold (pkg/gpu), and whether a pod
// may use it at all (a cordon or a taint it does not tolerate). It is the one model of a node's
// room: the plugins read it from the scheduler's snapshot (FreeOn), the wait-reason publisher and
// kubectl berth from API objects (Of), and both count in amount.Amount, so that the scheduler process and
// the CLI answer the same about one node.
package noderoom

import (
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/podroom"
)

// RequestOf is what pod asks of a node, as the scheduler counts it (containers, init containers,
// overhead; each resource rounded as amount.Whole), without its pod slot. A running pod resized in
// place counts as the scheduler's cache counts it (framework.PodInfo.CalculateResource): the more
// of what it asks and what the kubelet says it holds, so that room a resize only asked for is not
// room yet.
func RequestOf(pod *v1.Pod) amount.Amount {
	out := amount.Amount{}
	for name, q := range resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{
		UseStatusResources: utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScaling),
		InPlacePodLevelResourcesVerticalScalingEnabled: utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodLevelResourcesVerticalScaling),
		SkipPodLevelResources:                          !utilfeature.DefaultFeatureGate.Enabled(features.PodLevelResources),
		UseDRANodeAllocatableResourceClaimStatus:       utilfeature.DefaultFeatureGate.Enabled(features.DRANodeAllocatableResources),
	}) {
		out[name] = amount.Whole(name, q)
	}
	return out
}

// NeedOf is what pod needs of a node's room: its request and one pod slot.
func NeedOf(pod *v1.Pod) amount.Amount {
	need := RequestOf(pod)
	need[amount.Pods] = amount.One
	return need
}

// AllocatableOf is what node offers pods in all, pod slots included, as the scheduler counts it.
func AllocatableOf(node *v1.Node) amount.Amount {
	out := make(amount.Amount, len(node.Status.Allocatable))
	for name, q := range node.Status.Allocatable {
		out[name] = amount.Whole(name, q)
	}
	return out
}

// AllocatableGrew reports whether cur's allocatable holds more of some resource than old's (a
// resource new to it counts): the node update that can let a waiting pod in.
func AllocatableGrew(old, cur *v1.Node) bool {
	for name, q := range cur.Status.Allocatable {
		if was, ok := old.Status.Allocatable[name]; !ok || q.Cmp(was) > 0 {
			return true
		}
	}
	return false
}

// FreeOn is how much of name node n has free in the scheduler's snapshot, in thousandths (the
// scheduler's own count, amount.FromScheduler): its allocatable less what its pods request. The
// scheduler's cache holds the pods that still hold room, so this is Of's Free for the node, read
// where the plugins read a node.
func FreeOn(n fwk.NodeInfo, name v1.ResourceName) int64 {
	alloc, used := n.GetAllocatable(), n.GetRequested()
	var free int64
	switch name {
	case v1.ResourceCPU:
		free = alloc.GetMilliCPU() - used.GetMilliCPU()
	case v1.ResourceMemory:
		free = alloc.GetMemory() - used.GetMemory()
	case v1.ResourceEphemeralStorage:
		free = alloc.GetEphemeralStorage() - used.GetEphemeralStorage()
	case v1.ResourcePods:
		free = int64(alloc.GetAllowedPodNumber() - len(n.GetPods()))
	default:
		free = alloc.GetScalarResources()[name] - used.GetScalarResources()[name]
	}
	return amount.FromScheduler(name, free)
}

// FreeFor is what node n has free of the resources member names, and pod slots, in the scheduler's
// snapshot; with preemptor, counting as free what the pods of lower priority than it hold, which
// preemption could give it.
func FreeFor(n fwk.NodeInfo, member amount.Amount, preemptor *v1.Pod) amount.Amount {
	free := amount.Amount{amount.Pods: FreeOn(n, amount.Pods)}
	for name := range member {
		free[name] = FreeOn(n, name)
	}
	if preemptor == nil {
		return free
	}
	for _, pi := range n.GetPods() {
		if p := pi.GetPod(); corev1helpers.PodPriority(p) < corev1helpers.PodPriority(preemptor) {
			free[amount.Pods] += amount.One
			for name, v := range RequestOf(p) {
				if _, asked := free[name]; asked {
					free[name] += v
				}
			}
		}
	}
	return free
}

// FitsOn is amount.Fits of what node n has free in the scheduler's snapshot, without an Amount
// for the node: Gang asks it of every node of the cluster.
func FitsOn(n fwk.NodeInfo, member amount.Amount) int {
	return amount.FitsIn(member, func(name v1.ResourceName) int64 { return FreeOn(n, name) })
}

// Node is one node's room as the API shows it.
type Node struct {
	Node *v1.Node
	// Free is the node's allocatable less what Pods request, pod slots included; negative where
	// the node is overcommitted.
	Free amount.Amount
	// GPUs are the node's GPUs, by index, as pkg/gpu reads them; none on a node without.
	GPUs []GPU
	// Pods are the pods bound to the node that still hold room, in the order given.
	Pods []Pod
}

// Pod is a pod that holds room on a node, and what it asks.
type Pod struct {
	Pod     *v1.Pod
	Request amount.Amount
}

// GPU is one GPU of a node: its memory, what is free of it, and the pods that hold shares of it.
type GPU struct {
	Capacity, Free int64
	Shares         []Share
}

// Share is the memory of one GPU a pod holds.
type Share struct {
	Pod    *v1.Pod
	Memory int64
}

// Of is the room on each node, by name, from API objects: every pod bound to a node counts there
// while it holds room (podroom.Holds: a deleting pod does, a finished one does not), by its request
// and by the GPU shares its annotations record, counted as GPUShare counts them (gpu.DevicesHeld).
// res names the GPU resources, for the GPUs.
func Of(nodes []v1.Node, pods []v1.Pod, res gpu.ResourceNames) []*Node {
	out := make([]*Node, 0, len(nodes))
	byName := make(map[string]*Node, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		r := &Node{Node: n, Free: AllocatableOf(n)}
		out = append(out, r)
		byName[n.Name] = r
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node.Name < out[j].Node.Name })
	for i := range pods {
		p := &pods[i]
		r := byName[p.Spec.NodeName]
		if r == nil || !podroom.Holds(p) {
			continue
		}
		req := RequestOf(p)
		r.Pods = append(r.Pods, Pod{Pod: p, Request: req})
		r.Free.Add(req, -1)
		r.Free[amount.Pods] -= amount.One
	}
	for _, r := range out {
		r.GPUs = gpusOf(r, res)
	}
	return out
}

// gpusOf is the node's GPUs less what its pods hold, and who holds each share.
func gpusOf(r *Node, res gpu.ResourceNames) []GPU {
	// A malformed berth.dev/gpu-memory annotation leaves the GPUs its allocatable implies, as
	// GPUShare reads them (kubectl berth gpus reports the error).
	caps, _ := gpu.DevicesOf(r.Node, res)
	var shares [][]Share
	devs := gpu.DevicesHeld(caps, nil, func(yield func(*v1.Pod) bool) {
		for _, p := range r.Pods {
			if !yield(p.Pod) {
				return
			}
		}
	}, func(p *v1.Pod, a gpu.Assignment) {
		if shares == nil {
			shares = make([][]Share, len(caps))
		}
		for _, s := range a {
			if s.Index < len(shares) {
				shares[s.Index] = append(shares[s.Index], Share{Pod: p, Memory: s.Memory})
			}
		}
	})
	if len(devs) == 0 {
		return nil
	}
	out := make([]GPU, len(devs))
	for i, d := range devs {
		out[i] = GPU{Capacity: d.Capacity, Free: d.Capacity - d.Used}
		if shares != nil {
			out[i].Shares = shares[i]
		}
	}
	return out
}

// Clone copies the room, for placing pods on it in turn; the pods and shares are shared.
func (n *Node) Clone() *Node {
	c := *n
	c.Free = n.Free.Clone()
	c.GPUs = slices.Clone(n.GPUs)
	return &c
}

// Release gives back what pod p holds on the node: its request, its pod slot and its GPU shares.
func (n *Node) Release(p Pod) {
	n.Free.Add(p.Request, 1)
	n.Free[amount.Pods] += amount.One
	if a, ok, err := gpu.AssignmentOf(p.Pod); ok && err == nil {
		for _, s := range a {
			if s.Index < len(n.GPUs) {
				n.GPUs[s.Index].Free += s.Memory
			}
		}
	}
}
