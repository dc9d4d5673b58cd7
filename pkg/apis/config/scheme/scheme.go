// Package scheme adds berth's plugin args to kube-scheduler's config scheme. Importing it (the
// berth-scheduler command does) is what makes pluginConfig entries for berth's args kinds
// (GPUShareArgs, GangArgs, NodeResourcesAllocatableArgs) decode strictly and get their defaults.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	// Registers the internal args types into kube-scheduler's builder (see there).
	_ "github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
)

// Scheme is kube-scheduler's own scheme, extended with berth's args.
var Scheme = kubeschedulerscheme.Scheme

func init() {
	AddToScheme(Scheme)
}

// AddToScheme registers the internal and v1 args types.
func AddToScheme(s *runtime.Scheme) {
	utilruntime.Must(schedconfig.AddToScheme(s))
	utilruntime.Must(configv1.AddToScheme(s))
}
