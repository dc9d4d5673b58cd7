package config

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GPUShareArgs are the arguments of the GPUShare plugin.
type GPUShareArgs struct {
	metav1.TypeMeta

	// MemoryResource is the extended resource that nodes report as their total GPU memory and
	// containers put in their limits.
	MemoryResource string
	// CountResource is the node capacity that says how many GPUs hold MemoryResource.
	CountResource string
	// ScoringStrategy is Binpack, Spread or Fragmentation (gpu.BinpackName, gpu.SpreadName,
	// gpu.FragmentationName).
	ScoringStrategy string
	// NoGPUPodScoring is how the plugin scores nodes for pods that ask for no GPU memory:
	// NoGPUPodScoringNone or LeastGPUHarm.
	NoGPUPodScoring string
}

// The values of GPUShareArgs.NoGPUPodScoring.
const (
	// NoGPUPodScoringNone leaves pods without GPU memory to the other plugins' scores.
	NoGPUPodScoringNone = "None"
	// LeastGPUHarm prefers, for a pod without GPU memory, the nodes where its cpu and memory take
	// the least from future GPU requests (gpu.NoGPUCost): nodes without GPUs first. It goes with
	// the Fragmentation strategy, whose mix of requests it measures the harm against.
	LeastGPUHarm = "LeastGPUHarm"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GangArgs are the arguments of the Gang plugin.
type GangArgs struct {
	metav1.TypeMeta

	// DefaultScheduleTimeoutSeconds bounds how long Permit holds the members of a group whose
	// PodGroup does not set scheduleTimeoutSeconds.
	DefaultScheduleTimeoutSeconds int64

	// TopologyLevels are the node label keys of the cluster's topology levels, outermost first,
	// that a PodGroup's berth.dev/topology-required or -preferred annotation may name.
	TopologyLevels []string
}

// The modes of NodeResourcesAllocatable, as scheduler-plugins names them.
const (
	// Least ranks the nodes with the least allocatable resources first, keeping large nodes whole.
	Least = "Least"
	// Most ranks the nodes with the most allocatable resources first.
	Most = "Most"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodeResourcesAllocatableArgs are the arguments of the NodeResourcesAllocatable plugin, with
// scheduler-plugins' names and meaning.
type NodeResourcesAllocatableArgs struct {
	metav1.TypeMeta

	// Resources are the node's allocatable resources that make its score, each with its weight.
	Resources []schedconfig.ResourceSpec
	// Mode is Least or Most.
	Mode string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ElasticQuotaArgs are the arguments of the ElasticQuota plugin.
type ElasticQuotaArgs struct {
	metav1.TypeMeta

	// DRAResources say what a pod's DRA ResourceClaims count against its namespace's quota.
	DRAResources []DRAResource
}

// DRAResource counts the devices of one DRA driver under quota resources.
type DRAResource struct {
	// DeviceClassName is the DeviceClass that requests of a claim not yet allocated name.
	DeviceClassName string
	// Driver is the driver of the devices an allocated claim holds.
	Driver string
	// CountResource, if set, counts one for every device the claim holds or asks for.
	CountResource string
	// Capacities count a device's capacities (the share a claim consumes or asks for, or the
	// whole device's) under quota resources.
	Capacities []DRACapacity
}

// DRACapacity counts one capacity of a device under a quota resource.
type DRACapacity struct {
	// Name is the capacity's name in the ResourceSlice, such as memory.
	Name string
	// Resource is the quota resource it counts under.
	Resource string
	// Unit is how much of the capacity counts as one of Resource.
	Unit resource.Quantity
}
