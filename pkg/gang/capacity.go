package gang

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
)

// capacityShortfall says which of want the cluster's free capacity cannot cover, or "" if it
// covers all. Free capacity is every node's allocatable minus what its pods request, summed; the
// group's own placed members (placed) count as free, since they are part of what want asks for.
// It checks the sum only: a group can still fail to pack, which Filter and PostFilter handle.
func capacityShortfall(nodes []fwk.NodeInfo, want v1.ResourceList, placed []*v1.Pod) string {
	free := make(map[v1.ResourceName]int64, len(want))
	for _, n := range nodes {
		if n.Node() == nil {
			continue
		}
		for name := range want {
			free[name] += freeOn(n, name)
		}
	}
	for _, pod := range placed {
		requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		for name := range want {
			switch name {
			case v1.ResourcePods:
				free[name]++
			case v1.ResourceCPU:
				q := requests[name]
				free[name] += q.MilliValue()
			default:
				q := requests[name]
				free[name] += q.Value()
			}
		}
	}

	var short []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		q := want[name]
		needed, have := q.Value(), resource.NewQuantity(free[name], q.Format)
		if name == v1.ResourceCPU {
			needed, have = q.MilliValue(), resource.NewMilliQuantity(free[name], q.Format)
		}
		if needed > free[name] {
			short = append(short, fmt.Sprintf("%s: %s wanted, %s free", name, q.String(), have.String()))
		}
	}
	return strings.Join(short, "; ")
}

// freeOn is how much of name node n has free in the scheduler's snapshot: its allocatable less
// what its pods request, in millicores for cpu and a count of pod slots for pods.
func freeOn(n fwk.NodeInfo, name v1.ResourceName) int64 {
	alloc, used := n.GetAllocatable(), n.GetRequested()
	switch name {
	case v1.ResourceCPU:
		return alloc.GetMilliCPU() - used.GetMilliCPU()
	case v1.ResourceMemory:
		return alloc.GetMemory() - used.GetMemory()
	case v1.ResourceEphemeralStorage:
		return alloc.GetEphemeralStorage() - used.GetEphemeralStorage()
	case v1.ResourcePods:
		return int64(alloc.GetAllowedPodNumber() - len(n.GetPods()))
	default:
		return alloc.GetScalarResources()[name] - used.GetScalarResources()[name]
	}
}
