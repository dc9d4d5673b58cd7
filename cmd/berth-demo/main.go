// berth-demo shows berth at work on a machine with no cluster: it starts a throwaway control
// plane on loopback, kwok as the nodes' kubelets and berth-scheduler as real processes, submits
// small workloads that run and finish, and reports where every pod landed and why the others
// wait. It exits non-zero if what it shows contradicts what berth promises, so it doubles as a
// smoke test. Run it with `make demo`.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/berth-sched/berth/internal/demo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status: 0 when berth did what it promises, 1 when it
// did not or the demo failed, 2 for bad flags, 128+n when stopped by signal n.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("berth-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := demo.Options{Out: stdout}
	fs.StringVar(&o.BinDir, "bin-dir", "./bin", "directory with etcd, kube-apiserver, kwok and berth-scheduler (`make binaries`)")
	fs.BoolVar(&o.Keep, "keep", false, "keep the work dir (logs, scheduler config, control plane files) and print its path")
	fs.StringVar(&o.SVG, "svg", demo.DefaultSVG, "where to draw the GPUs and the pods sharing them (SVG); empty for no picture")
	fs.StringVar(&o.TopologySVG, "topology-svg", demo.DefaultTopoSVG, "where to draw the racks and the pod groups placed in them (SVG); empty for no picture")
	fs.StringVar(&o.CRDs, "crds", demo.DefaultCRDs, "the directory of berth's CRDs, installed before the scheduler starts")
	scenarios := fs.String("scenarios", strings.Join(demo.ScenarioNames(), ","), "comma-separated scenarios to run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "berth-demo takes no arguments, got %q\n", fs.Args())
		return 2
	}
	o.Scenarios = strings.Split(*scenarios, ",")

	// Client-go's own logging would interleave with the report; every failure reaches it as an error.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	caught := make(chan syscall.Signal, 1)
	go func() {
		select {
		case sig := <-signals:
			// A second signal ends the demo at once; its children die with it (Pdeathsig).
			signal.Stop(signals)
			fmt.Fprintf(stdout, "\ncaught %v: cleaning up (send it again to quit at once)\n", sig)
			caught <- sig.(syscall.Signal)
			cancel()
		case <-ctx.Done():
		}
	}()

	_, err := demo.Run(ctx, o)
	select {
	case sig := <-caught:
		return 128 + int(sig)
	default:
	}
	if err != nil {
		// The report above has the whole story; this line is for whoever reads only stderr.
		first, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(stderr, "berth-demo: %s\n", first)
		return 1
	}
	return 0
}
