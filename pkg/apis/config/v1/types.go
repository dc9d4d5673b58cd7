package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedconfigv1 "k8s.io/kube-scheduler/config/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GPUShareArgs are the arguments of the GPUShare plugin.
type GPUShareArgs struct {
	metav1.TypeMeta `json:",inline"`

	// MemoryResource is the extended resource that nodes report as their total GPU memory and
	// containers put in their limits. Default: aliyun.com/gpu-mem.
	MemoryResource *string `json:"memoryResource,omitempty"`
	// CountResource is the node capacity that says how many GPUs hold MemoryResource.
	// Default: aliyun.com/gpu-count.
	CountResource *string `json:"countResource,omitempty"`
	// ScoringStrategy is Binpack, Spread or Fragmentation. Default: Binpack.
	ScoringStrategy *string `json:"scoringStrategy,omitempty"`
	// NoGPUPodScoring is how nodes are scored for pods that ask for no GPU memory: None (left to
	// the other plugins) or LeastGPUHarm (nodes where the pod takes the least from future GPU
	// requests first; goes with scoringStrategy Fragmentation). Default: None.
	NoGPUPodScoring *string `json:"noGPUPodScoring,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GangArgs are the arguments of the Gang plugin.
type GangArgs struct {
	metav1.TypeMeta `json:",inline"`

	// DefaultScheduleTimeoutSeconds bounds how long Permit holds the members of a group whose
	// PodGroup does not set scheduleTimeoutSeconds. Default: 60.
	DefaultScheduleTimeoutSeconds *int64 `json:"defaultScheduleTimeoutSeconds,omitempty"`

	// TopologyLevels are the node label keys of the cluster's topology levels, outermost first,
	// that a PodGroup's berth.dev/topology-required or -preferred annotation may name. Default:
	// topology.kubernetes.io/zone, berth.dev/block, berth.dev/rack, kubernetes.io/hostname; an
	// empty list turns topology off.
	TopologyLevels []string `json:"topologyLevels,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodeResourcesAllocatableArgs are the arguments of the NodeResourcesAllocatable plugin. Names and
// meaning are scheduler-plugins' (sigs.k8s.io/scheduler-plugins/apis/config/v1), so its
// pluginConfig works unchanged.
type NodeResourcesAllocatableArgs struct {
	metav1.TypeMeta `json:",inline"`

	// Resources are the node's allocatable resources that make its score, each with a positive
	// weight: cpu in millicores, memory and ephemeral-storage in bytes, extended resources such as
	// aliyun.com/gpu-count in their own units. Default (when empty): cpu with weight 1<<20 and
	// memory with weight 1, so that a millicore weighs as much as a MiB.
	Resources []schedconfigv1.ResourceSpec `json:"resources,omitempty"`
	// Mode is Least (nodes with the least of the resources first) or Most. Default: Least. Not a
	// pointer: as in scheduler-plugins, an empty mode means the default.
	Mode string `json:"mode,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ElasticQuotaArgs are the arguments of the ElasticQuota plugin.
type ElasticQuotaArgs struct {
	metav1.TypeMeta `json:",inline"`

	// DRAResources say what a pod's DRA ResourceClaims count against its namespace's quota.
	// Default: devices of DeviceClass and driver gpu.nvidia.com count one aliyun.com/gpu-count
	// each, and their memory capacity counts under aliyun.com/gpu-mem in GiB. An empty list
	// counts no claim.
	DRAResources []DRAResource `json:"draResources,omitempty"`
}

// DRAResource counts the devices of one DRA driver under quota resources.
type DRAResource struct {
	// DeviceClassName is the DeviceClass that requests of a claim not yet allocated name.
	DeviceClassName string `json:"deviceClassName"`
	// Driver is the driver of the devices an allocated claim holds.
	Driver string `json:"driver"`
	// CountResource, if set, counts one for every device the claim holds or asks for.
	CountResource string `json:"countResource,omitempty"`
	// Capacities count a device's capacities (the share a claim consumes or asks for, or the
	// whole device's) under quota resources.
	Capacities []DRACapacity `json:"capacities,omitempty"`
}

// DRACapacity counts one capacity of a device under a quota resource.
type DRACapacity struct {
	// Name is the capacity's name in the ResourceSlice, such as memory.
	Name string `json:"name"`
	// Resource is the quota resource it counts under.
	Resource string `json:"resource"`
	// Unit is how much of the capacity counts as one of Resource. Default: 1.
	Unit resource.Quantity `json:"unit,omitempty"`
}
