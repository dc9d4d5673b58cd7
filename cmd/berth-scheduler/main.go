// berth-scheduler is kube-scheduler with berth's plugins registered: it takes every kube-scheduler
// flag, and a KubeSchedulerConfiguration enables berth's plugins by name.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/berth-sched/berth/pkg/registry"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand(registry.Options()...)))
}
