// Command scheduler is a kube-scheduler main as another team writes one to run berth's plugins
// beside its own, the way teams run scheduler-plugins': upstream's command with berth's plugins
// registered from their public packages. It imports nothing of berth's internal/ (a module other
// than berth's cannot), so it lacks what lives only there: the publisher of why pods wait
// (berth.dev/WaitingFor, which `kubectl berth why` reads) and berth-scheduler's start-up check
// that GPUShare binds first. test/integration's TestBerthPluginsInAnotherSchedulerMain builds and
// runs it; the README's "In your own scheduler" shows the same lines.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	// Registers the plugins' args kinds (GPUShareArgs, GangArgs, ...) into kube-scheduler's config
	// scheme, so a profile's pluginConfig for them is decoded, defaulted and validated.
	_ "github.com/berth-sched/berth/pkg/apis/config/scheme"
	"github.com/berth-sched/berth/pkg/elasticquota"
	"github.com/berth-sched/berth/pkg/gang"
	"github.com/berth-sched/berth/pkg/gpushare"
	"github.com/berth-sched/berth/pkg/preemption"
	"github.com/berth-sched/berth/pkg/qossort"
)

func main() {
	cmd := app.NewSchedulerCommand(
		app.WithPlugin(qossort.Name, qossort.New),
		app.WithPlugin(gpushare.Name, gpushare.New),
		app.WithPlugin(gang.Name, gang.New),
		app.WithPlugin(elasticquota.Name, elasticquota.New),
		// One preemption plugin that asks both quotas and groups which victims may go; it takes
		// DefaultPreemption's place in the profile.
		app.WithPlugin(preemption.Name, preemption.Factory(elasticquota.VictimRule, gang.VictimRule)),
	)
	os.Exit(cli.Run(cmd))
}
