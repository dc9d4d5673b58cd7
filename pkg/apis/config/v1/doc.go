// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/berth-sched/berth/pkg/apis/config
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=github.com/berth-sched/berth/pkg/apis/config/v1
// +groupName=kubescheduler.config.k8s.io

// Package v1 is the versioned form of berth's plugin arguments, as users write them in the
// pluginConfig of a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration.
package v1
