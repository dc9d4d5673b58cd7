package v1

import (
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
