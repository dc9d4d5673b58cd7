package gpu

import (
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/podroom"
)

// maxDevicesPerNode bounds what a node or an annotation may claim, so that a corrupt capacity
// cannot make the scheduler allocate without limit.
const maxDevicesPerNode = 256

// ResourceNames names the extended resources that carry GPUs on nodes and pods: names, not amounts
// (an amount of resources is amount.Amount).
type ResourceNames struct {
	// Memory is the node's GPU memory in total and what containers put in their limits.
	Memory v1.ResourceName
	// Count is the node's number of GPUs.
	Count v1.ResourceName
}

// DevicesOf lists the memory of each GPU of a node, in index order.
//
// By the gpushare convention a node has Count GPUs and Memory in total, each GPU holding
// Memory/Count. Both are read from the node's allocatable, where the scheduler and the kubelet
// read them: an update of allocatable is what the scheduler turns into a node event that requeues
// waiting pods, so a pod rejected for GPUs is judged again on exactly the change that can let it in. The berth.dev/gpu-memory annotation, if present, states each GPU's memory instead
// and must list exactly Count entries. When it is malformed, DevicesOf returns the devices derived
// from capacity together with an error for the caller to report.
func DevicesOf(node *v1.Node, res ResourceNames) ([]int64, error) {
	fromCapacity, capErr := devicesFromCapacity(node, res)
	s, ok := node.Annotations[NodeGPUMemoryAnnotation]
	if !ok {
		return fromCapacity, capErr
	}
	devs, err := parseDeviceMemory(s)
	if err == nil && len(devs) != countOf(node, res) {
		err = fmt.Errorf("lists %d GPUs but allocatable %s is %d", len(devs), res.Count, countOf(node, res))
	}
	if err != nil {
		return fromCapacity, fmt.Errorf("annotation %s=%q: %w; using %s/%s instead", NodeGPUMemoryAnnotation, s, err, res.Memory, res.Count)
	}
	return devs, nil
}

func countOf(node *v1.Node, res ResourceNames) int {
	q, ok := node.Status.Allocatable[res.Count]
	if !ok {
		return 0
	}
	return int(min(max(q.Value(), 0), maxDevicesPerNode+1))
}

func devicesFromCapacity(node *v1.Node, res ResourceNames) ([]int64, error) {
	count := countOf(node, res)
	mem, ok := node.Status.Allocatable[res.Memory]
	if count == 0 || !ok || mem.Sign() <= 0 {
		return nil, nil
	}
	if count > maxDevicesPerNode {
		return nil, fmt.Errorf("allocatable %s is more than %d GPUs; ignoring the node's GPUs", res.Count, maxDevicesPerNode)
	}
	per := mem.Value() / int64(count)
	if per == 0 {
		return nil, fmt.Errorf("allocatable %s %s is less than one unit for each of %d GPUs; ignoring the node's GPUs", res.Memory, mem.String(), count)
	}
	devs := make([]int64, count)
	for i := range devs {
		devs[i] = per
	}
	return devs, nil
}

func parseDeviceMemory(s string) ([]int64, error) {
	parts := strings.Split(s, ",")
	if len(parts) > maxDevicesPerNode {
		return nil, fmt.Errorf("more than %d GPUs", maxDevicesPerNode)
	}
	devs := make([]int64, len(parts))
	for i, p := range parts {
		m, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || m <= 0 {
			return nil, fmt.Errorf("entry %d (%q) is not a positive whole number", i, p)
		}
		devs[i] = m
	}
	return devs, nil
}

// NodeChanged reports whether an update of a node can change what DevicesOf or LinksOf
// returns, so that frequent status updates cost nothing.
func NodeChanged(old, cur *v1.Node, res ResourceNames) bool {
	return old.Annotations[NodeGPUMemoryAnnotation] != cur.Annotations[NodeGPUMemoryAnnotation] ||
		old.Annotations[NodeGPULinksAnnotation] != cur.Annotations[NodeGPULinksAnnotation] ||
		!quantityEqual(old.Status.Allocatable, cur.Status.Allocatable, res.Memory) ||
		!quantityEqual(old.Status.Allocatable, cur.Status.Allocatable, res.Count)
}

func quantityEqual(a, b v1.ResourceList, name v1.ResourceName) bool {
	qa, oka := a[name]
	qb, okb := b[name]
	return oka == okb && qa.Cmp(qb) == 0
}

// PodChanged reports whether an update of a pod can change how the cache accounts it.
func PodChanged(old, cur *v1.Pod) bool {
	return old.Spec.NodeName != cur.Spec.NodeName ||
		podroom.Holds(old) != podroom.Holds(cur) ||
		old.Annotations[PodGPUDevicesAnnotation] != cur.Annotations[PodGPUDevicesAnnotation] ||
		old.Annotations[GPUShareIndexAnnotation] != cur.Annotations[GPUShareIndexAnnotation] ||
		old.Annotations[GPUSharePodAnnotation] != cur.Annotations[GPUSharePodAnnotation]
}
