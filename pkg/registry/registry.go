// Package registry names every berth plugin once. The berth-scheduler command, the integration
// tests and the benchmarks all build their scheduler from it, so they run the same plugins.
package registry

import (
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	// Registers GPUShareArgs and GangArgs into kube-scheduler's config scheme.
	_ "github.com/berth-sched/berth/pkg/apis/config/scheme"
	"github.com/berth-sched/berth/pkg/qossort"
)

// Registry returns berth's out-of-tree plugins by name.
func Registry() frameworkruntime.Registry {
	return frameworkruntime.Registry{
		qossort.Name: qossort.New,
	}
}

// Options registers berth's plugins with a kube-scheduler command.
func Options() []app.Option {
	var opts []app.Option
	for name, factory := range Registry() {
		opts = append(opts, app.WithPlugin(name, factory))
	}
	return opts
}
