// Package testplane starts the control plane that berth's integration tests run against, and lets
// the tests that a test runner's worker runs one after another share one: a control plane costs a
// test process about 4 CPU seconds to start (kube-apiserver builds its API and OpenAPI), and a
// test of berth's usually costs less than that.
//
// The runner starts a shared one (StartShared) and names its folder in $BERTH_SHARED_CONTROL_PLANE;
// a test takes it (TakeShared) only after it holds again what it held when it started, so a test
// meets the same empty cluster as on a control plane of its own.
package testplane

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/test/bins"
)

// Env names the folder of the shared control plane a test may take.
const Env = "BERTH_SHARED_CONTROL_PLANE"

// Unusable begins what a test logs when it could not take the shared control plane and starts one
// of its own: it still passes, at about 4 CPU seconds more, so the test runner counts such tests.
const Unusable = "could not take the shared control plane"

// apiServerFlags are the same for every test, so that a test meets the same API whether it has a
// control plane of its own or shares one:
//   - 1.37's own pod groups (scheduling.k8s.io/v1beta1, feature gate GenericWorkload; with
//     TopologyAwareWorkloadScheduling they keep their schedulingConstraints), beside
//     scheduler-plugins' PodGroup CRD;
//   - TaintTolerationComparisonOperators, for tolerations with Gt and Lt.
//
// A feature gate on here changes only what the API accepts and keeps: what the scheduler does
// follows the gates of the scheduler's own process, which each test sets for itself.
var apiServerFlags = []string{
	"--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true,TaintTolerationComparisonOperators=true",
	"--runtime-config=scheduling.k8s.io/v1beta1=true",
}

// Start starts etcd and kube-apiserver from binDir, with the CRDs of manifests/crds installed
// (berth's Gang refuses to start without the PodGroup CRD, as it would in a real cluster). An
// empty workDir is a temporary folder that Stop removes.
func Start(ctx context.Context, binDir, workDir string, logf func(string, ...any)) (*controlplane.ControlPlane, error) {
	cp, err := controlplane.Start(ctx, controlplane.Options{BinDir: binDir, WorkDir: workDir, Logf: logf, APIServerFlags: apiServerFlags})
	if err != nil {
		return nil, err
	}
	if err := applyCRDs(ctx, cp); err != nil {
		cp.Stop()
		return nil, err
	}
	return cp, nil
}

func applyCRDs(ctx context.Context, cp *controlplane.ControlPlane) error {
	crds, err := filepath.Glob(filepath.Join(bins.RepoRoot(), "manifests", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		return fmt.Errorf("no CRDs in manifests/crds: %v", err)
	}
	if err := controlplane.ApplyFiles(ctx, cp.RESTConfig(), crds...); err != nil {
		return fmt.Errorf("installing CRDs: %w", err)
	}
	return nil
}

// snapshotFile keeps, in the shared control plane's folder, what it held when it started.
const snapshotFile = "snapshot.json"

// StartShared starts a control plane in dir as Start does, for tests to take in turn.
func StartShared(ctx context.Context, binDir, dir string, logf func(string, ...any)) (*controlplane.ControlPlane, error) {
	cp, err := Start(ctx, binDir, dir, logf)
	if err != nil {
		return nil, err
	}
	s, err := cp.Snapshot(ctx)
	if err == nil {
		err = s.WriteFile(filepath.Join(dir, snapshotFile))
	}
	if err != nil {
		cp.Stop()
		return nil, fmt.Errorf("taking the snapshot of a shared control plane: %w", err)
	}
	return cp, nil
}

// TakeShared returns the shared control plane in dir once it holds again only what it held when
// it started: every object a test before made is deleted (controlplane.Reset), and the CRDs are as
// manifests/crds has them. changed names what a test before changed or deleted of what it held
// (Reset does not undo that; a CRD is applied again). Stop on it stops nothing.
func TakeShared(ctx context.Context, dir string) (_ *controlplane.ControlPlane, changed []string, err error) {
	cp, err := controlplane.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := controlplane.ReadSnapshot(filepath.Join(dir, snapshotFile))
	if err != nil {
		return nil, nil, err
	}
	if changed, err = cp.Reset(ctx, s); err != nil {
		return nil, nil, err
	}
	if slices.ContainsFunc(changed, func(key string) bool { return strings.HasPrefix(key, crdKeyPrefix) }) {
		if err := applyCRDs(ctx, cp); err != nil {
			return nil, nil, err
		}
	}
	return cp, changed, nil
}

// crdKeyPrefix begins a CustomResourceDefinition's key in a controlplane.Snapshot.
const crdKeyPrefix = "apiextensions.k8s.io/customresourcedefinitions/"
