package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// ScoringStrategy is Binpack or Spread. Default: Binpack.
	ScoringStrategy *string `json:"scoringStrategy,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GangArgs are the arguments of the Gang plugin.
type GangArgs struct {
	metav1.TypeMeta `json:",inline"`

	// DefaultScheduleTimeoutSeconds bounds how long Permit holds the members of a group whose
	// PodGroup does not set scheduleTimeoutSeconds. Default: 60.
	DefaultScheduleTimeoutSeconds *int64 `json:"defaultScheduleTimeoutSeconds,omitempty"`
}
