package gpu

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"

	"github.com/berth-sched/berth/pkg/process"
)

// The names that select a Strategy: the values of GPUShare's scoringStrategy and of
// berth-extender's --scoring-strategy.
const (
	BinpackName       = "Binpack"
	SpreadName        = "Spread"
	FragmentationName = "Fragmentation"
)

// StrategyNames are the names of the strategies, as ValidateSettings lists them.
func StrategyNames() []string { return []string{BinpackName, SpreadName, FragmentationName} }

// The GPU settings' defaults, wherever they are set: GPUShare's args, berth-extender's flags and
// kubectl-berth's.
const (
	// DefaultMemoryResource is the gpushare device plugin's GPU memory resource.
	DefaultMemoryResource = "aliyun.com/gpu-mem"
	// DefaultCountResource is the gpushare device plugin's count of GPUs.
	DefaultCountResource = "aliyun.com/gpu-count"
	// DefaultStrategyName is Binpack, which keeps whole GPUs free for large requests.
	DefaultStrategyName = BinpackName
)

// DefaultResourceNames are the gpushare device plugin's resource names.
func DefaultResourceNames() ResourceNames {
	return ResourceNames{Memory: DefaultMemoryResource, Count: DefaultCountResource}
}

// ValidateSettings checks the three GPU settings as GPUShare's args name them (memoryResource,
// countResource and scoringStrategy, under path), for the plugin's args and berth-extender's flags
// alike: two different extended resource names and a known strategy.
func ValidateSettings(path *field.Path, memoryResource, countResource, scoringStrategy string) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateExtendedResource(path.Child("memoryResource"), memoryResource)...)
	errs = append(errs, validateExtendedResource(path.Child("countResource"), countResource)...)
	if memoryResource != "" && memoryResource == countResource {
		errs = append(errs, field.Invalid(path.Child("countResource"), countResource, "must differ from memoryResource"))
	}
	if _, ok := strategies[scoringStrategy]; !ok {
		errs = append(errs, field.NotSupported(path.Child("scoringStrategy"), scoringStrategy, StrategyNames()))
	}
	return errs
}

func validateExtendedResource(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if !v1helper.IsExtendedResourceName(v1.ResourceName(name)) {
		return field.ErrorList{field.Invalid(path, name, "must be an extended resource name such as example.com/gpu-mem")}
	}
	return nil
}

// profiles holds the resource names each scheduling profile's GPUShare counts GPUs under, so that the
// profile's other plugins (ElasticQuota, BerthPreemption's quota rule) count GPU memory under the
// same name. A profile is told apart by its framework handle, an opaque key here.
var profiles process.Shared[any, ResourceNames]

// SetProfileResourceNames records res as the GPU resource names of profile until ctx (the scheduler's
// lifetime) ends. GPUShare's New calls it, once: a profile has one GPUShare.
func SetProfileResourceNames(ctx context.Context, profile any, res ResourceNames) {
	_, _ = profiles.Get(ctx, profile, func() (ResourceNames, error) { return res, nil })
}

// ProfileResourceNames returns the GPU resource names recorded for profile, or the defaults for a
// profile without GPUShare. The framework builds a profile's plugins in no fixed order: read it
// once they are all built (from an informer's handler or a scheduling cycle), never in a plugin's
// New.
func ProfileResourceNames(profile any) ResourceNames {
	if res, ok := profiles.Lookup(profile); ok {
		return res
	}
	return DefaultResourceNames()
}
