// Package registry names every berth plugin once. The berth-scheduler command, the integration
// tests and the benchmarks all build their scheduler from it, so they run the same plugins.
package registry

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/berth-sched/berth/internal/waitreason"
	"github.com/berth-sched/berth/pkg/allocatable"
	"github.com/berth-sched/berth/pkg/topology"
	// Registers berth's args kinds (GPUShareArgs, GangArgs, NodeResourcesAllocatableArgs) into
	// kube-scheduler's config scheme.
	_ "github.com/berth-sched/berth/pkg/apis/config/scheme"
	"github.com/berth-sched/berth/pkg/elasticquota"
	"github.com/berth-sched/berth/pkg/gang"
	"github.com/berth-sched/berth/pkg/gpushare"
	"github.com/berth-sched/berth/pkg/podstate"
	"github.com/berth-sched/berth/pkg/preemption"
	"github.com/berth-sched/berth/pkg/qossort"
)

// Registry returns berth's out-of-tree plugins by name, with the publisher of why pods wait at
// its defaults.
func Registry() frameworkruntime.Registry {
	cfg := waitreason.DefaultConfig()
	return RegistryWith(&cfg)
}

// RegistryWith is Registry with the publisher of why pods wait configured by wait, read when the
// plugins are built (after berth-scheduler has parsed its flags). Every factory starts it
// (waitreason.Start), so that every profile that enables any of berth's plugins is answered for,
// by one publisher per process.
func RegistryWith(wait *waitreason.Config) frameworkruntime.Registry {
	r := berthPlugins()
	for name, factory := range r {
		r[name] = func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			if err := waitreason.Start(ctx, h, *wait); err != nil {
				return nil, err
			}
			pl, err := factory(ctx, args, h)
			if g, ok := pl.(interface{ TopologyLevels() topology.Levels }); ok && err == nil {
				waitreason.UseLevels(h, g.TopologyLevels())
			}
			return pl, err
		}
	}
	return r
}

func berthPlugins() frameworkruntime.Registry {
	return frameworkruntime.Registry{
		qossort.Name:      qossort.New,
		gpushare.Name:     gpushare.New,
		gang.Name:         gang.New,
		elasticquota.Name: elasticquota.New,
		// One preemption plugin, with the victim rules of quotas and groups.
		preemption.Name: preemption.Factory(elasticquota.VictimRule, gang.VictimRule),
		// Registered, not in Profile: see docs/scoring.md.
		allocatable.Name: allocatable.New,
		podstate.Name:    podstate.New,
	}
}

// Profile is berth's scheduling profile under schedulerName, as an item of a
// KubeSchedulerConfiguration's `profiles:` list: Plugins, GPUShare's weight and its arguments. The
// manifests ship the same (a test holds them to it).
//
// GPUShare places GPU pods by the Fragmentation strategy and pods without GPU by LeastGPUHarm, at
// weight GPUShareWeight: on Alibaba's GPU-sharing trace that allocated about ten points more of
// the GPUs than Binpack at weight 1, in a replay of the scoring code and end to end
// (docs/gpushare-strategies.md).
func Profile(schedulerName string) string {
	return Plugins(schedulerName) + fmt.Sprintf(`    score:
      enabled: [{name: GPUShare, weight: %d}]
  pluginConfig:
  - name: GPUShare
    args: {scoringStrategy: Fragmentation, noGPUPodScoring: LeastGPUHarm}
`, GPUShareWeight)
}

// GPUShareWeight is GPUShare's score weight in Profile. The Fragmentation strategy ranks nodes a
// point apart (normalize.Rank), and the in-tree NodeResourcesFit and
// NodeResourcesBalancedAllocation, at weight 1, tell nodes apart by up to 150 points: at this
// weight the fragmentation measure decides among nodes with GPUs, while among nodes GPUShare rates
// alike (the nodes without GPUs, for a pod without GPU) the in-tree scores still spread pods. On
// the trace, weights 1 to 10 allocated 94.9% to 95.0% of the GPUs, 100 95.2%.
const GPUShareWeight = 100

// Plugins is Profile with every plugin at weight 1 and the plugins' own default arguments, to
// which tests add their own: QOSSort sorts the queue, GPUShare and Gang join the default plugins
// at every point they serve, ElasticQuota enforces quotas, BerthPreemption replaces
// DefaultPreemption (it is DefaultPreemption plus the quota and group victim rules; listed first,
// so that its PostFilter, and its PodGroupPostFilter for a native group's failed cycle, run before
// Gang's, where DefaultPreemption's did), Gang places the
// native pod groups of the GenericWorkload gate too: upstream's GangScheduling, which that gate
// adds to the default plugins, keeps its PreEnqueue (a group's pods wait until minCount exist, as
// in Gang) and the count the framework asks of it alone while it tries a native group's members
// together (PlacementFeasible: give up the cycle when too few are left to reach minCount, which
// gives back what the others reserved), and loses Permit, so Gang alone decides a round's quorum
// and what it waits for; and GPUShare binds
// before DefaultBinder, so that a GPU pod is bound by the one Binding that carries its devices
// (CheckProfiles enforces it). Gang filters first, only for a group the cluster's free room cannot
// hold at all: it turns every node away as Pending, which the queue alone lets skip its backoff
// when room appears (pkg/gang/roomsum.go); behind NodeResourcesFit it would never be asked. Then
// GPUShare: it turns a node with no room on its GPUs away in a fraction of the time
// NodeResourcesFit takes to check any node (docs/gpushare.md). The nodes that pass are the same in
// any order; a node two would reject is reported as the first's.
func Plugins(schedulerName string) string {
	return fmt.Sprintf(`- schedulerName: %s
  plugins:
    queueSort:
      enabled: [{name: QOSSort}]
      disabled: [{name: "*"}]
    multiPoint:
      enabled: [{name: BerthPreemption}, {name: GPUShare}, {name: Gang}, {name: ElasticQuota}]
      disabled: [{name: DefaultPreemption}]
    filter:
      enabled: [{name: Gang}, {name: GPUShare}]
    permit:
      disabled: [{name: GangScheduling}]
    bind:
      enabled: [{name: GPUShare}]
`, schedulerName)
}

// Options registers berth's plugins with a kube-scheduler command.
func Options() []app.Option {
	cfg := waitreason.DefaultConfig()
	return OptionsWith(&cfg)
}

// OptionsWith is Options with the publisher of why pods wait configured by wait (RegistryWith).
func OptionsWith(wait *waitreason.Config) []app.Option {
	var opts []app.Option
	for name, factory := range RegistryWith(wait) {
		opts = append(opts, app.WithPlugin(name, factory))
	}
	return opts
}
