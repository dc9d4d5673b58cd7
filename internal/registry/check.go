package registry

import (
	"fmt"
	"slices"

	schedulerconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"

	"github.com/berth-sched/berth/pkg/gpushare"
)

// binders are the plugins, in-tree or berth's, that serve the bind extension point.
var binders = []string{defaultbinder.Name, gpushare.Name}

// CheckProfiles refuses a configuration that berth's plugins cannot work under, with a message
// saying how to fix it. profiles are as kube-scheduler decoded them, defaults merged in.
//
// A profile that enables GPUShare must run it before every other binder: the scheduler binds a
// pod with the first bind plugin that does not skip it, and any other binder would bind a GPU pod
// without its devices.
func CheckProfiles(profiles []schedulerconfig.KubeSchedulerProfile) error {
	for _, p := range profiles {
		if !enables(p.Plugins, gpushare.Name) {
			continue
		}
		order := bindOrder(p.Plugins)
		if len(order) > 0 && order[0] == gpushare.Name {
			continue
		}
		return fmt.Errorf("profile %q: bind plugins run in the order %v, but %s must run first, or GPU pods are bound without their devices; "+
			"enable it under both multiPoint and bind (plugins: {multiPoint: {enabled: [{name: %s}]}, bind: {enabled: [{name: %s}]}}), as berth's shipped profiles do",
			p.SchedulerName, order, gpushare.Name, gpushare.Name, gpushare.Name)
	}
	return nil
}

// enables reports whether the plugin is enabled at any extension point, multiPoint included.
func enables(plugins *schedulerconfig.Plugins, name string) bool {
	if plugins == nil {
		return false
	}
	for _, set := range []schedulerconfig.PluginSet{plugins.MultiPoint, plugins.PreEnqueue, plugins.PreFilter, plugins.Filter,
		plugins.PostFilter, plugins.PreScore, plugins.Score, plugins.Reserve, plugins.Permit, plugins.PreBind, plugins.Bind, plugins.PostBind} {
		if slices.ContainsFunc(set.Enabled, func(p schedulerconfig.Plugin) bool { return p.Name == name }) {
			return true
		}
	}
	return false
}

// bindOrder is the order in which the framework runs a profile's bind plugins, following its
// expansion of multiPoint (expandMultiPointPlugins): plugins enabled both at bind and under
// multiPoint, in their bind order; then the other multiPoint plugins, in their order; then the
// plugins enabled at bind only. A plugin disabled at bind is left out, and "*" leaves out every
// multiPoint plugin.
func bindOrder(plugins *schedulerconfig.Plugins) []string {
	var explicit []string
	for _, p := range plugins.Bind.Enabled {
		explicit = append(explicit, p.Name)
	}
	disabled := map[string]bool{}
	for _, p := range plugins.Bind.Disabled {
		disabled[p.Name] = true
	}
	var multiPoint []string
	if !disabled["*"] {
		for _, p := range plugins.MultiPoint.Enabled {
			if slices.Contains(binders, p.Name) && !disabled[p.Name] && !slices.Contains(multiPoint, p.Name) {
				multiPoint = append(multiPoint, p.Name)
			}
		}
	}
	var order []string
	for _, name := range explicit {
		if slices.Contains(multiPoint, name) {
			order = append(order, name)
		}
	}
	for _, name := range multiPoint {
		if !slices.Contains(explicit, name) {
			order = append(order, name)
		}
	}
	for _, name := range explicit {
		if !slices.Contains(multiPoint, name) {
			order = append(order, name)
		}
	}
	return order
}
