// Package demo is berth's first-run demo: a throwaway control plane on loopback, berth-scheduler
// as a real child process, a few small workloads, and a report of where every pod landed and why
// the others wait. Each scenario states what berth promises and checks it against what the API
// shows, so the demo doubles as a smoke test.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/internal/proc"
	"github.com/berth-sched/berth/internal/registry"
)

// Defaults of Options.
const (
	DefaultScheduler = "berth-scheduler"
	DefaultCRDs      = "manifests/crds"
	DefaultSVG       = "berth-demo-gpus.svg"
	DefaultTopoSVG   = "berth-demo-topology.svg"
)

// ErrContradicted is returned when what the API shows contradicts what a scenario expects.
var ErrContradicted = errors.New("berth did not do what it promises")

// Options configures Run.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kwok and the scheduler (`make binaries`).
	BinDir string
	// Kwok is kwok's binary in BinDir. Default DefaultKwok.
	Kwok string
	// Scheduler is the scheduler binary in BinDir. Default DefaultScheduler.
	Scheduler string
	// Profile is the scheduler's profiles, a YAML list. Default: berth's profile as
	// default-scheduler.
	Profile string
	// Scenarios names the scenarios to run, in the order of ScenarioNames. Default: all.
	Scenarios []string
	// CRDs is the directory of berth's CRDs (PodGroup, ElasticQuota), installed before the
	// scheduler starts: its plugins watch them. Default DefaultCRDs, relative to the working
	// directory.
	CRDs string
	// SVG is where the gpus scenario draws the GPUs; empty draws nothing.
	SVG string
	// TopologySVG is where the topology scenario draws the racks and the groups in them; empty
	// draws nothing.
	TopologySVG string
	// Keep keeps the work dir: the logs, the scheduler's config and the control plane's files.
	Keep bool
	// Out receives the progress lines and the report. Default os.Stdout.
	Out io.Writer
}

// Result is what a run did and saw. Run returns it even when it fails, with what it got to.
type Result struct {
	// WorkDir is the run's temporary directory, removed at the end unless Options.Keep.
	WorkDir string
	// PIDs is every process the run started: etcd, kube-apiserver, kwok, the scheduler.
	PIDs []int
	// Sections are the scenarios that ran, in order.
	Sections []*Section
	// SVG is the picture written, if any.
	SVG string
	// TopologySVG is the topology scenario's picture, if any.
	TopologySVG string
}

// Contradicted lists the expectations that did not hold, as "scenario: expectation".
func (r *Result) Contradicted() []string {
	var out []string
	for _, s := range r.Sections {
		for _, c := range s.Checks {
			if !c.OK {
				out = append(out, s.Name+": "+c.Expected)
			}
		}
	}
	return out
}

// Run runs the demo and cleans up after it: it stops every process it started and removes its
// work dir (unless Options.Keep) whether it succeeds, fails or ctx is cancelled. It returns
// ErrContradicted (wrapped) when a scenario's expectation did not hold.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.complete(); err != nil {
		return &Result{}, err
	}
	d := &demo{opts: o, out: o.Out, begin: time.Now(), res: &Result{}}
	err := d.run(ctx)
	if err == nil {
		err = d.summary()
	}
	if err != nil {
		d.explain(ctx, err)
	}
	d.cleanup()
	return d.res, err
}

func (o *Options) complete() error {
	if o.BinDir == "" {
		o.BinDir = "bin"
	}
	if o.Scheduler == "" {
		o.Scheduler = DefaultScheduler
	}
	if o.Kwok == "" {
		o.Kwok = DefaultKwok
	}
	if o.Profile == "" {
		o.Profile = registry.Profile(v1.DefaultSchedulerName)
	}
	if o.CRDs == "" {
		o.CRDs = DefaultCRDs
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if len(o.Scenarios) == 0 {
		o.Scenarios = ScenarioNames()
	}
	for _, name := range o.Scenarios {
		if !slices.Contains(ScenarioNames(), name) {
			return fmt.Errorf("unknown scenario %q; the scenarios are %s", name, strings.Join(ScenarioNames(), ", "))
		}
	}
	var err error
	if o.BinDir, err = filepath.Abs(o.BinDir); err != nil {
		return err
	}
	for _, bin := range []string{"etcd", "kube-apiserver", o.Kwok, o.Scheduler} {
		if _, err := os.Stat(filepath.Join(o.BinDir, bin)); err != nil {
			return fmt.Errorf("%s not found in %s: run `make binaries` first (or pass --bin-dir)", bin, o.BinDir)
		}
	}
	if o.SVG != "" {
		if o.SVG, err = filepath.Abs(o.SVG); err != nil {
			return err
		}
	}
	if o.TopologySVG != "" {
		if o.TopologySVG, err = filepath.Abs(o.TopologySVG); err != nil {
			return err
		}
	}
	return nil
}

// demo is one run.
type demo struct {
	opts  Options
	out   io.Writer
	begin time.Time
	res   *Result

	cp     *controlplane.ControlPlane
	sched  *proc.Process
	kwok   *proc.Process
	client kubernetes.Interface
	groups versioned.Interface
}

func (d *demo) progress(format string, args ...any) {
	fmt.Fprintf(d.out, "[%5.1fs] %s\n", time.Since(d.begin).Seconds(), fmt.Sprintf(format, args...))
}

func (d *demo) run(ctx context.Context) error {
	var err error
	if d.res.WorkDir, err = os.MkdirTemp("", "berth-demo-"); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "berth demo: a throwaway Kubernetes control plane on loopback, %s as a real process, and %d scenario(s): %s.\n",
		d.opts.Scheduler, len(d.opts.Scenarios), strings.Join(d.opts.Scenarios, ", "))
	fmt.Fprintf(d.out, "No kubelet runs here: kwok simulates the nodes, so bound pods run, and those that say how long finish and give their room back.\n\n")

	d.progress("starting etcd and kube-apiserver on loopback (work dir %s)", d.res.WorkDir)
	d.cp, err = controlplane.Start(ctx, controlplane.Options{
		BinDir: d.opts.BinDir, WorkDir: filepath.Join(d.res.WorkDir, "controlplane"),
		// Kubernetes' own pod groups (scheduling.k8s.io/v1beta1) are beta and off by default; the
		// gangs scenario places one beside scheduler-plugins' PodGroups.
		APIServerFlags: []string{"--feature-gates=GenericWorkload=true", "--runtime-config=scheduling.k8s.io/v1beta1=true"},
	})
	if err != nil {
		return fmt.Errorf("starting the control plane: %w", err)
	}
	pids := d.cp.PIDs()
	d.res.PIDs = append(d.res.PIDs, pids...)
	d.progress("control plane ready at %s (etcd pid %d, kube-apiserver pid %d)", d.cp.URL(), pids[0], pids[1])
	cfg := d.cp.RESTConfig()
	if d.client, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if d.groups, err = versioned.NewForConfig(cfg); err != nil {
		return err
	}

	if err := d.startKwok(); err != nil {
		return err
	}

	// Part of installing berth: its plugins watch PodGroups and ElasticQuotas from the start.
	crds, err := filepath.Glob(filepath.Join(d.opts.CRDs, "*.yaml"))
	if err == nil && len(crds) == 0 {
		err = fmt.Errorf("no *.yaml files")
	}
	if err != nil {
		return fmt.Errorf("reading the CRDs in %s: %w", d.opts.CRDs, err)
	}
	if err := controlplane.ApplyFiles(ctx, cfg, crds...); err != nil {
		return fmt.Errorf("applying the CRDs in %s: %w", d.opts.CRDs, err)
	}
	d.progress("installed berth's CRDs from %s", d.opts.CRDs)

	selected := selectedScenarios(d.opts.Scenarios)
	for _, s := range selected {
		if err := d.namespace(ctx, s.name); err != nil {
			return err
		}
		if s.prepare != nil {
			if err := s.prepare(ctx, d); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
		}
	}
	if err := d.startScheduler(); err != nil {
		return err
	}
	for i, s := range selected {
		sec := &Section{Name: s.name, Title: s.title}
		d.res.Sections = append(d.res.Sections, sec)
		if err := s.run(ctx, d, sec); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(d.out, "\n== %d/%d %s: %s (namespace %s) ==\n%s\n", i+1, len(selected), s.name, s.title, s.name, sec.text.String())
	}
	return nil
}

// startScheduler writes the scheduler's config into the work dir and starts it.
func (d *demo) startScheduler() error {
	config := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
leaderElection:
  leaderElect: false
profiles:
%s`, d.cp.KubeconfigPath(), d.opts.Profile)
	configPath := filepath.Join(d.res.WorkDir, "scheduler-config.yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		return err
	}
	var err error
	d.sched, err = proc.Start(d.opts.Scheduler, filepath.Join(d.res.WorkDir, d.opts.Scheduler+".log"),
		filepath.Join(d.opts.BinDir, d.opts.Scheduler),
		"--config="+configPath,
		// Serve native pod groups, as the apiserver does (see run).
		"--feature-gates=GenericWorkload=true",
		// Nothing here reads its endpoints: the demo watches the API.
		"--secure-port=0",
		// Enough to see every binding in the log, should the demo fail.
		"--v=2",
	)
	if err != nil {
		return err
	}
	d.res.PIDs = append(d.res.PIDs, d.sched.PID())
	d.progress("started %s (pid %d) with %s", d.opts.Scheduler, d.sched.PID(), configPath)
	return nil
}

// summary prints how each scenario went, and returns ErrContradicted if any expectation failed.
func (d *demo) summary() error {
	fmt.Fprintf(d.out, "== summary ==\n")
	checks := 0
	for _, s := range d.res.Sections {
		held := 0
		for _, c := range s.Checks {
			if c.OK {
				held++
			}
		}
		checks += len(s.Checks)
		fmt.Fprintf(d.out, "  %-8s %d of %d expectations held\n", s.Name, held, len(s.Checks))
	}
	if d.res.SVG != "" {
		fmt.Fprintf(d.out, "The GPUs as a picture: %s\n", d.res.SVG)
	}
	if d.res.TopologySVG != "" {
		fmt.Fprintf(d.out, "The racks as a picture: %s\n", d.res.TopologySVG)
	}
	bad := d.res.Contradicted()
	if len(bad) == 0 {
		fmt.Fprintf(d.out, "berth did what it promises in every scenario.\n")
		return nil
	}
	fmt.Fprintf(d.out, "Contradicted:\n")
	for _, b := range bad {
		fmt.Fprintf(d.out, "  %s\n", b)
	}
	return fmt.Errorf("%w: %d of %d expectations contradicted", ErrContradicted, len(bad), checks)
}

// explain prints what went wrong, with the end of the scheduler's and kwok's logs.
func (d *demo) explain(ctx context.Context, err error) {
	if ctx.Err() != nil {
		fmt.Fprintf(d.out, "\ninterrupted: %v\n", err)
		return
	}
	fmt.Fprintf(d.out, "\nFAILED: %v\n", err)
	if d.sched != nil {
		fmt.Fprintf(d.out, "\nlast lines of the scheduler's log %s:\n%s\n", d.sched.LogPath, indent(d.sched.LogTail(20), "  "))
	}
	if d.kwok != nil {
		fmt.Fprintf(d.out, "\nlast lines of kwok's log %s:\n%s\n", d.kwok.LogPath, indent(d.kwok.LogTail(10), "  "))
	}
	if (d.sched != nil || d.kwok != nil) && !d.opts.Keep {
		fmt.Fprintf(d.out, "(the work dir is removed below; run with --keep to keep the logs)\n")
	}
}

// cleanup stops the scheduler, kwok, then the control plane, then removes the work dir.
func (d *demo) cleanup() {
	fmt.Fprintln(d.out)
	if d.sched != nil {
		d.progress("stopping %s (pid %d)", d.opts.Scheduler, d.sched.PID())
		d.sched.Stop(schedulerStopGrace)
	}
	if d.kwok != nil {
		d.progress("stopping kwok (pid %d)", d.kwok.PID())
		d.kwok.Stop(schedulerStopGrace)
	}
	if d.cp != nil {
		pids := d.cp.PIDs()
		d.progress("stopping kube-apiserver (pid %d) and etcd (pid %d)", pids[1], pids[0])
		d.cp.Stop()
	}
	if d.res.WorkDir == "" {
		return
	}
	if d.opts.Keep {
		d.progress("kept the work dir: %s", d.res.WorkDir)
		return
	}
	if err := os.RemoveAll(d.res.WorkDir); err != nil {
		d.progress("removing the work dir %s: %v", d.res.WorkDir, err)
		return
	}
	d.progress("removed the work dir %s", d.res.WorkDir)
}

// schedulerStopGrace is how long the scheduler (and kwok) get to exit after SIGTERM before they are killed.
const schedulerStopGrace = 5 * time.Second
