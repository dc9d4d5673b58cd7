// berth-scheduler is kube-scheduler with berth's plugins registered: it takes every kube-scheduler
// flag, and a KubeSchedulerConfiguration enables berth's plugins by name.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/component-base/term"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/internal/waitreason"
)

func main() {
	os.Exit(cli.Run(newCommand()))
}

// newCommand is kube-scheduler's command with berth's plugins and flags.
func newCommand() *cobra.Command {
	// The publisher of why pods wait (internal/waitreason) is configured by berth's own flags, read
	// when the plugins are built, after the flags are parsed.
	wait := waitreason.DefaultConfig()
	cmd := app.NewSchedulerCommand(registry.OptionsWith(&wait)...)
	berth := cliflag.NamedFlagSets{}
	wait.AddFlags(berth.FlagSet("berth"))
	cmd.Flags().AddFlagSet(berth.FlagSet("berth"))
	withSections(cmd, berth)
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := wait.Validate(); err != nil {
			return err
		}
		return checkConfig(cmd, args)
	}
	return cmd
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

// withSections appends berth's flag sections to kube-scheduler's help and usage, which print only
// the sections kube-scheduler itself named: a flag added to the command alone works but is not
// listed.
func withSections(cmd *cobra.Command, sections cliflag.NamedFlagSets) {
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	help, usage := cmd.HelpFunc(), cmd.UsageFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		help(c, args)
		cliflag.PrintSections(c.OutOrStdout(), sections, cols)
	})
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		err := usage(c)
		cliflag.PrintSections(c.OutOrStderr(), sections, cols)
		return err
	})
}
