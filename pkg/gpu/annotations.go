package gpu

import (
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Every annotation berth reads or writes about GPUs.
const (
	// NodeGPUMemoryAnnotation states each GPU's memory on a node with GPUs of different sizes, in
	// index order ("16,16,24,24"). Written by the cluster admin or node tooling; it overrides the
	// equal split of the node's memory capacity.
	NodeGPUMemoryAnnotation = "berth.dev/gpu-memory"
	// PodGPUCountAnnotation asks for that many GPUs with an equal share of the pod's memory on each.
	// Written by the user.
	PodGPUCountAnnotation = "berth.dev/gpu-count"
	// PodGPUDevicesAnnotation records every device a pod got, "index:memory" comma separated
	// ("0:16,1:16"). Written by berth on every GPU pod before binding.
	PodGPUDevicesAnnotation = "berth.dev/gpu-devices"

	// The gpushare protocol, written by berth for single-GPU pods so that the unchanged gpushare
	// device plugin hands the pod its GPU.

	// GPUShareIndexAnnotation is the index of the pod's GPU.
	GPUShareIndexAnnotation = "ALIYUN_COM_GPU_MEM_IDX"
	// GPUShareDeviceAnnotation is the memory of the pod's GPU.
	GPUShareDeviceAnnotation = "ALIYUN_COM_GPU_MEM_DEV"
	// GPUSharePodAnnotation is the pod's total memory.
	GPUSharePodAnnotation = "ALIYUN_COM_GPU_MEM_POD"
	// GPUShareAssignedAnnotation is "false" until the device plugin has handed out the GPU.
	GPUShareAssignedAnnotation = "ALIYUN_COM_GPU_MEM_ASSIGNED"
	// GPUShareAssumeTimeAnnotation is when the scheduler placed the pod, in Unix nanoseconds; the
	// device plugin serves the oldest pending pod first.
	GPUShareAssumeTimeAnnotation = "ALIYUN_COM_GPU_MEM_ASSUME_TIME"
)

// DeviceShare is the memory a pod holds on one device.
type DeviceShare struct {
	Index  int
	Memory int64
}

// Assignment is every device share a pod holds on its node, in index order.
type Assignment []DeviceShare

// Total is the memory of all shares.
func (a Assignment) Total() int64 {
	var t int64
	for _, d := range a {
		t += d.Memory
	}
	return t
}

// String is the value of the berth.dev/gpu-devices annotation.
func (a Assignment) String() string {
	parts := make([]string, len(a))
	for i, d := range a {
		parts[i] = strconv.Itoa(d.Index) + ":" + strconv.FormatInt(d.Memory, 10)
	}
	return strings.Join(parts, ",")
}

// ParseAssignment reads a berth.dev/gpu-devices value.
func ParseAssignment(s string) (Assignment, error) {
	if s == "" {
		return nil, fmt.Errorf("no devices")
	}
	parts := strings.Split(s, ",")
	a := make(Assignment, 0, len(parts))
	seen := make(map[int]bool, len(parts))
	for _, p := range parts {
		idx, mem, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			return nil, fmt.Errorf("%q is not index:memory", p)
		}
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i >= maxDevicesPerNode {
			return nil, fmt.Errorf("%q: device index must be a whole number from 0 to %d", p, maxDevicesPerNode-1)
		}
		m, err := strconv.ParseInt(mem, 10, 64)
		if err != nil || m <= 0 {
			return nil, fmt.Errorf("%q: memory must be a positive whole number", p)
		}
		if seen[i] {
			return nil, fmt.Errorf("device %d appears twice", i)
		}
		seen[i] = true
		a = append(a, DeviceShare{Index: i, Memory: m})
	}
	sortShares(a)
	return a, nil
}

// AssignmentOf reads the devices a pod holds from its annotations: berth.dev/gpu-devices, or for
// pods placed by the gpushare extender its ALIYUN_COM_GPU_MEM_IDX and ALIYUN_COM_GPU_MEM_POD.
// ok is false when the pod carries neither.
func AssignmentOf(pod *v1.Pod) (a Assignment, ok bool, err error) {
	if s, found := pod.Annotations[PodGPUDevicesAnnotation]; found {
		a, err := ParseAssignment(s)
		if err != nil {
			return nil, true, fmt.Errorf("annotation %s=%q: %w", PodGPUDevicesAnnotation, s, err)
		}
		return a, true, nil
	}
	idx, found := pod.Annotations[GPUShareIndexAnnotation]
	if !found {
		return nil, false, nil
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= maxDevicesPerNode {
		return nil, true, fmt.Errorf("annotation %s=%q is not a device index", GPUShareIndexAnnotation, idx)
	}
	mem := pod.Annotations[GPUSharePodAnnotation]
	m, err := strconv.ParseInt(mem, 10, 64)
	if err != nil || m <= 0 {
		return nil, true, fmt.Errorf("annotation %s=%q is not a positive amount of memory", GPUSharePodAnnotation, mem)
	}
	return Assignment{{Index: i, Memory: m}}, true, nil
}

// HasAssignment is a cheap test for the annotations AssignmentOf reads, for event filters.
func HasAssignment(pod *v1.Pod) bool {
	_, berth := pod.Annotations[PodGPUDevicesAnnotation]
	_, gpushare := pod.Annotations[GPUShareIndexAnnotation]
	return berth || gpushare
}
