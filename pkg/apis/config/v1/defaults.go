package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	schedconfigv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/topology"
)

// Defaults live here and nowhere else: the plugins read only defaulted, validated args. The GPU
// settings' defaults are package gpu's, which berth-extender and kubectl-berth share.
const (
	DefaultScheduleTimeoutSeconds int64 = 60
	DefaultAllocatableMode              = config.Least
	// DefaultNoGPUPodScoring leaves pods without GPU memory to the other plugins, as before the
	// Fragmentation strategy.
	DefaultNoGPUPodScoring = config.NoGPUPodScoringNone
)

// defaultAllocatableResources are NodeResourcesAllocatable's resources when none are given, as in
// scheduler-plugins: a millicore weighs as much as a MiB. A function, so no caller can change them.
func defaultAllocatableResources() []schedconfigv1.ResourceSpec {
	return []schedconfigv1.ResourceSpec{{Name: "cpu", Weight: 1 << 20}, {Name: "memory", Weight: 1}}
}

// SetDefaults_GPUShareArgs fills the unset GPUShare args.
func SetDefaults_GPUShareArgs(obj *GPUShareArgs) {
	if obj.MemoryResource == nil {
		v := gpu.DefaultMemoryResource
		obj.MemoryResource = &v
	}
	if obj.CountResource == nil {
		v := gpu.DefaultCountResource
		obj.CountResource = &v
	}
	if obj.ScoringStrategy == nil {
		v := gpu.DefaultStrategyName
		obj.ScoringStrategy = &v
	}
	if obj.NoGPUPodScoring == nil {
		v := DefaultNoGPUPodScoring
		obj.NoGPUPodScoring = &v
	}
}

// SetDefaults_GangArgs fills the unset Gang args.
func SetDefaults_GangArgs(obj *GangArgs) {
	if obj.DefaultScheduleTimeoutSeconds == nil {
		v := DefaultScheduleTimeoutSeconds
		obj.DefaultScheduleTimeoutSeconds = &v
	}
	if obj.TopologyLevels == nil {
		obj.TopologyLevels = topology.DefaultLevels()
	}
}

// DefaultGPUShareArgs are the internal GPUShare args that v1 defaulting gives an empty
// pluginConfig entry: what a plugin built with no args (nil) runs with.
func DefaultGPUShareArgs() (*config.GPUShareArgs, error) {
	var v GPUShareArgs
	SetObjectDefaults_GPUShareArgs(&v)
	var args config.GPUShareArgs
	return &args, Convert_v1_GPUShareArgs_To_config_GPUShareArgs(&v, &args, nil)
}

// DefaultGangArgs are the internal Gang args that v1 defaulting gives an empty pluginConfig
// entry: what a plugin built with no args (nil) runs with.
func DefaultGangArgs() (*config.GangArgs, error) {
	var v GangArgs
	SetObjectDefaults_GangArgs(&v)
	var args config.GangArgs
	return &args, Convert_v1_GangArgs_To_config_GangArgs(&v, &args, nil)
}

// SetDefaults_NodeResourcesAllocatableArgs fills the unset NodeResourcesAllocatable args.
func SetDefaults_NodeResourcesAllocatableArgs(obj *NodeResourcesAllocatableArgs) {
	if len(obj.Resources) == 0 {
		obj.Resources = defaultAllocatableResources()
	}
	if obj.Mode == "" {
		obj.Mode = DefaultAllocatableMode
	}
}

// DefaultNodeResourcesAllocatableArgs are the internal NodeResourcesAllocatable args that v1
// defaulting gives an empty pluginConfig entry: what a plugin built with no args (nil) runs with.
func DefaultNodeResourcesAllocatableArgs() (*config.NodeResourcesAllocatableArgs, error) {
	var v NodeResourcesAllocatableArgs
	SetObjectDefaults_NodeResourcesAllocatableArgs(&v)
	var args config.NodeResourcesAllocatableArgs
	return &args, Convert_v1_NodeResourcesAllocatableArgs_To_config_NodeResourcesAllocatableArgs(&v, &args, nil)
}

// DefaultDRAResources count NVIDIA's DRA GPUs under the gpushare names, so that one quota spans
// gpushare nodes and DRA nodes: each device one aliyun.com/gpu-count, its memory capacity
// aliyun.com/gpu-mem in GiB (the gpushare device plugin's default unit).
func DefaultDRAResources() []DRAResource {
	return []DRAResource{{
		DeviceClassName: "gpu.nvidia.com",
		Driver:          "gpu.nvidia.com",
		CountResource:   gpu.DefaultCountResource,
		Capacities:      []DRACapacity{{Name: "memory", Resource: gpu.DefaultMemoryResource, Unit: resource.MustParse("1Gi")}},
	}}
}

// SetDefaults_ElasticQuotaArgs fills the unset ElasticQuota args.
func SetDefaults_ElasticQuotaArgs(obj *ElasticQuotaArgs) {
	if obj.DRAResources == nil {
		obj.DRAResources = DefaultDRAResources()
	}
	for i := range obj.DRAResources {
		for j := range obj.DRAResources[i].Capacities {
			if c := &obj.DRAResources[i].Capacities[j]; c.Unit.IsZero() {
				c.Unit = resource.MustParse("1")
			}
		}
	}
}

// DefaultElasticQuotaArgs are the internal ElasticQuota args that v1 defaulting gives an empty
// pluginConfig entry: what a plugin built with no args (nil) runs with.
func DefaultElasticQuotaArgs() (*config.ElasticQuotaArgs, error) {
	var v ElasticQuotaArgs
	SetObjectDefaults_ElasticQuotaArgs(&v)
	var args config.ElasticQuotaArgs
	return &args, Convert_v1_ElasticQuotaArgs_To_config_ElasticQuotaArgs(&v, &args, nil)
}
