// Package validation checks berth's plugin args. Each plugin's New calls its validator before
// anything else, so a bad pluginConfig stops the scheduler at start-up with the field's full path.
package validation

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"

	"github.com/berth-sched/berth/pkg/apis/config"
)

// MaxScheduleTimeoutSeconds is the framework's own cap on how long Permit may hold a pod.
const MaxScheduleTimeoutSeconds = 15 * 60

// ValidateGPUShareArgs checks the GPUShare args; path is where they sit in the configuration.
func ValidateGPUShareArgs(path *field.Path, args *config.GPUShareArgs) error {
	var errs field.ErrorList
	errs = append(errs, validateExtendedResource(path.Child("memoryResource"), args.MemoryResource)...)
	errs = append(errs, validateExtendedResource(path.Child("countResource"), args.CountResource)...)
	if args.MemoryResource != "" && args.MemoryResource == args.CountResource {
		errs = append(errs, field.Invalid(path.Child("countResource"), args.CountResource, "must differ from memoryResource"))
	}
	switch args.ScoringStrategy {
	case config.Binpack, config.Spread:
	default:
		errs = append(errs, field.NotSupported(path.Child("scoringStrategy"), args.ScoringStrategy,
			[]string{config.Binpack, config.Spread}))
	}
	return errs.ToAggregate()
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

// ValidateGangArgs checks the Gang args; path is where they sit in the configuration.
func ValidateGangArgs(path *field.Path, args *config.GangArgs) error {
	if t := args.DefaultScheduleTimeoutSeconds; t <= 0 || t > MaxScheduleTimeoutSeconds {
		return field.Invalid(path.Child("defaultScheduleTimeoutSeconds"), t,
			fmt.Sprintf("must be between 1 and %d", MaxScheduleTimeoutSeconds))
	}
	return nil
}
