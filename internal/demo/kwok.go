package demo

import (
	"path/filepath"

	"github.com/berth-sched/berth/internal/kwok"
	"github.com/berth-sched/berth/internal/proc"
)

// DefaultKwok is kwok's binary in Options.BinDir (`make kwok`, part of `make binaries`).
const DefaultKwok = kwok.Binary

// startKwok runs kwok against the control plane, managing every node: it plays the kubelet, so
// that bound pods run and, if they say how long, finish.
func (d *demo) startKwok() error {
	stages, err := kwok.WriteStages(d.res.WorkDir)
	if err != nil {
		return err
	}
	d.kwok, err = proc.Start("kwok", filepath.Join(d.res.WorkDir, "kwok.log"), filepath.Join(d.opts.BinDir, d.opts.Kwok),
		kwok.Args(d.cp.KubeconfigPath(), stages)...)
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
