// berth-scheduler is kube-scheduler with berth's plugins registered: it takes every kube-scheduler
// flag, and a KubeSchedulerConfiguration enables berth's plugins by name.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/internal/waitreason"
)

func main() {
	// The publisher of why pods wait (internal/waitreason) is configured by berth's own flags, read
	// when the plugins are built, after the flags are parsed.
	wait := waitreason.DefaultConfig()
	cmd := app.NewSchedulerCommand(registry.OptionsWith(&wait)...)
	wait.AddFlags(cmd.Flags())
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := wait.Validate(); err != nil {
			return err
		}
		return checkConfig(cmd, args)
	}
	os.Exit(cli.Run(cmd))
}

// checkConfig refuses, before anything starts, a configuration that berth's plugins cannot work
// under (registry.CheckProfiles). kube-scheduler reads the file again itself; both read it the
// same way, through its own config scheme.
func checkConfig(cmd *cobra.Command, _ []string) error {
	flag := cmd.Flags().Lookup("config")
	if flag == nil || flag.Value.String() == "" {
		return nil
	}
	cfg, err := options.LoadConfigFromFile(klog.Background(), flag.Value.String())
	if err != nil {
		// kube-scheduler says what is wrong with the file, in its own words.
		return nil
	}
	if err := registry.CheckProfiles(cfg.Profiles); err != nil {
		return fmt.Errorf("invalid configuration in %s: %w", flag.Value.String(), err)
	}
	return nil
}
