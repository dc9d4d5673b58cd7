package demo

import (
	_ "embed"
	"os"
	"path/filepath"
	"time"

	"github.com/berth-sched/berth/internal/proc"
)

// DefaultKwok is kwok's binary in Options.BinDir (`make kwok`, part of `make binaries`).
const DefaultKwok = "kwok"

// runsForAnnotation makes a pod on a demo node succeed that long after it started; pods without
// it run until the demo ends. kwok reads it (kwok-stages.yaml).
const runsForAnnotation = "berth.dev/demo-runs-for"

// kwokStages is the pod lifecycle kwok plays: start at once, succeed after berth.dev/demo-runs-for.
//
//go:embed kwok-stages.yaml
var kwokStages []byte

// startKwok runs kwok against the control plane, managing every node: it plays the kubelet, so
// that bound pods run and, if they say how long, finish.
func (d *demo) startKwok() error {
	stages := filepath.Join(d.res.WorkDir, "kwok-stages.yaml")
	if err := os.WriteFile(stages, kwokStages, 0o600); err != nil {
		return err
	}
	var err error
	d.kwok, err = proc.Start("kwok", filepath.Join(d.res.WorkDir, "kwok.log"), filepath.Join(d.opts.BinDir, d.opts.Kwok),
		"--kubeconfig="+d.cp.KubeconfigPath(),
		"--manage-all-nodes=true",
		"--config="+stages,
		// No kubelet API (logs, exec) is served: nothing here asks for it, and no port is taken.
		"--node-port=0",
	)
	if err != nil {
		return err
	}
	d.res.PIDs = append(d.res.PIDs, d.kwok.PID())
	d.progress("started kwok (pid %d): it plays the kubelet of every node, so bound pods run, and finish if they say when", d.kwok.PID())
	return nil
}

// exited returns why a child the demo needs stopped, or nil while they all run.
func (d *demo) exited() error {
	for _, p := range []*proc.Process{d.sched, d.kwok} {
		if p == nil {
			continue
		}
		if err := p.Exited(); err != nil {
			return err
		}
	}
	return nil
}

// runsFor marks a pod to succeed that long after it starts.
func runsFor(annotations map[string]string, d time.Duration) map[string]string {
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[runsForAnnotation] = d.String()
	return annotations
}
