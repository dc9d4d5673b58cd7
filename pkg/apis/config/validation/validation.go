// Package validation checks berth's plugin args. Each plugin's New calls its validator before
// anything else, so a bad pluginConfig stops the scheduler at start-up with the field's full path.
package validation

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/topology"
)

// MaxScheduleTimeoutSeconds is the framework's own cap on how long Permit may hold a pod.
const MaxScheduleTimeoutSeconds = 15 * 60

// ValidateGPUShareArgs checks the GPUShare args; path is where they sit in the configuration.
// berth-extender checks its flags by the same rules (gpu.ValidateSettings).
func ValidateGPUShareArgs(path *field.Path, args *config.GPUShareArgs) error {
	errs := gpu.ValidateSettings(path, args.MemoryResource, args.CountResource, args.ScoringStrategy)
	switch args.NoGPUPodScoring {
	case config.NoGPUPodScoringNone, config.LeastGPUHarm:
	default:
		errs = append(errs, field.NotSupported(path.Child("noGPUPodScoring"), args.NoGPUPodScoring,
			[]string{config.NoGPUPodScoringNone, config.LeastGPUHarm}))
	}
	return errs.ToAggregate()
}

// ValidateGangArgs checks the Gang args; path is where they sit in the configuration.
func ValidateGangArgs(path *field.Path, args *config.GangArgs) error {
	if t := args.DefaultScheduleTimeoutSeconds; t <= 0 || t > MaxScheduleTimeoutSeconds {
		return field.Invalid(path.Child("defaultScheduleTimeoutSeconds"), t,
			fmt.Sprintf("must be between 1 and %d", MaxScheduleTimeoutSeconds))
	}
	return topology.ValidateLevels(path.Child("topologyLevels"), args.TopologyLevels).ToAggregate()
}

// ValidateNodeResourcesAllocatableArgs checks the NodeResourcesAllocatable args; path is where they
// sit in the configuration. Besides what scheduler-plugins checks (positive weights, a known
// mode), it refuses what scheduler-plugins silently scores as zero: a resource the node's
// allocatable cannot hold (such as pods or a name without a domain), or one named twice.
func ValidateNodeResourcesAllocatableArgs(path *field.Path, args *config.NodeResourcesAllocatableArgs) error {
	var errs field.ErrorList
	resources := path.Child("resources")
	if len(args.Resources) == 0 {
		errs = append(errs, field.Required(resources, "at least one resource to score by"))
	}
	seen := sets.New[string]()
	for i, r := range args.Resources {
		name := v1.ResourceName(r.Name)
		switch {
		case name == v1.ResourceCPU || name == v1.ResourceMemory || name == v1.ResourceEphemeralStorage ||
			schedutil.IsScalarResourceName(name):
		default:
			errs = append(errs, field.Invalid(resources.Index(i).Child("name"), r.Name,
				"must be cpu, memory, ephemeral-storage, hugepages-<size> or an extended resource such as aliyun.com/gpu-count"))
		}
		if seen.Has(r.Name) {
			errs = append(errs, field.Duplicate(resources.Index(i).Child("name"), r.Name))
		}
		seen.Insert(r.Name)
		if r.Weight <= 0 {
			errs = append(errs, field.Invalid(resources.Index(i).Child("weight"), r.Weight, "must be positive"))
		}
	}
	switch args.Mode {
	case config.Least, config.Most:
	default:
		errs = append(errs, field.NotSupported(path.Child("mode"), args.Mode, []string{config.Least, config.Most}))
	}
	return errs.ToAggregate()
}

// ValidateElasticQuotaArgs checks the ElasticQuota args; path is where they sit in the
// configuration. A claim's devices count under extended resources only: counted as cpu or memory
// they would be confused with what pods request of the node.
func ValidateElasticQuotaArgs(path *field.Path, args *config.ElasticQuotaArgs) error {
	var errs field.ErrorList
	drivers, classes := sets.New[string](), sets.New[string]()
	for i, r := range args.DRAResources {
		p := path.Child("draResources").Index(i)
		for _, f := range []struct{ name, value string }{{"deviceClassName", r.DeviceClassName}, {"driver", r.Driver}} {
			for _, msg := range utilvalidation.IsDNS1123Subdomain(f.value) {
				errs = append(errs, field.Invalid(p.Child(f.name), f.value, msg))
			}
		}
		if drivers.Has(r.Driver) {
			errs = append(errs, field.Duplicate(p.Child("driver"), r.Driver))
		}
		if classes.Has(r.DeviceClassName) {
			errs = append(errs, field.Duplicate(p.Child("deviceClassName"), r.DeviceClassName))
		}
		drivers.Insert(r.Driver)
		classes.Insert(r.DeviceClassName)
		counted := sets.New[string]()
		checkResource := func(fp *field.Path, name string) {
			if !schedutil.IsScalarResourceName(v1.ResourceName(name)) {
				errs = append(errs, field.Invalid(fp, name, "must be an extended resource such as aliyun.com/gpu-mem"))
			}
			if counted.Has(name) {
				errs = append(errs, field.Duplicate(fp, name))
			}
			counted.Insert(name)
		}
		if r.CountResource != "" {
			checkResource(p.Child("countResource"), r.CountResource)
		}
		for j, c := range r.Capacities {
			cp := p.Child("capacities").Index(j)
			if c.Name == "" {
				errs = append(errs, field.Required(cp.Child("name"), "the device capacity to count, such as memory"))
			}
			checkResource(cp.Child("resource"), c.Resource)
			if c.Unit.Sign() <= 0 {
				errs = append(errs, field.Invalid(cp.Child("unit"), c.Unit.String(), "must be positive"))
			}
		}
	}
	return errs.ToAggregate()
}
