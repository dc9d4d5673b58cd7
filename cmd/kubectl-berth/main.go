// kubectl-berth is a kubectl plugin: installed on PATH, `kubectl berth gpus|gangs|quotas|why` shows
// how berth shares GPUs, how far each gang has got and why its members wait, and how much quota is
// used and borrowed. It reads the API only, so it works against any cluster berth, the gpushare
// scheduler extender or scheduler-plugins scheduled.
package main

import (
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/berth-sched/berth/cmd/kubectl-berth/app"
)

func main() {
	cmd := app.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
