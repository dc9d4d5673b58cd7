package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/berth-sched/berth/internal/kwok"
	"github.com/berth-sched/berth/internal/proc"
)

// StartBinary runs bin/<name> with args until the test ends, stopped by its PID, its output in a
// log file shown when the test fails.
func StartBinary(t testing.TB, name string, args ...string) *proc.Process {
	t.Helper()
	return StartProgram(t, filepath.Join(BinDir(t, name), name), args...)
}

// StartProgram is StartBinary for the program at path, wherever it was built.
func StartProgram(t testing.TB, path string, args ...string) *proc.Process {
	t.Helper()
	name := filepath.Base(path)
	p, err := proc.Start(name, filepath.Join(t.TempDir(), name+".log"), path, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("%s log:\n%s", name, p.LogTail(40))
		}
	})
	return p
}

// StartSchedulerBinary runs bin/berth-scheduler with config until the test ends, as a user runs
// it. Leader election belongs here rather than in StartScheduler: kube-scheduler exits the whole
// process when it stops leading, which would end the test binary too.
func (c *Cluster) StartSchedulerBinary(t testing.TB, config string, args ...string) *proc.Process {
	t.Helper()
	return c.StartSchedulerProgram(t, filepath.Join(BinDir(t, "berth-scheduler"), "berth-scheduler"), config, args...)
}

// StartSchedulerProgram is StartSchedulerBinary for any kube-scheduler command at path: one built
// from upstream's app package takes the same flags.
func (c *Cluster) StartSchedulerProgram(t testing.TB, path, config string, args ...string) *proc.Process {
	t.Helper()
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return StartProgram(t, path, append([]string{"--config", file, "--secure-port", "0"}, args...)...)
}

// BuildProgram builds the main package pkg (relative to the repository's root, "./cmd/...") as
// every build of berth is built (Makefile's GOFLAGS_BUILD, hack/patches' overlay included, static),
// with the go command on PATH, into the test's temporary directory, and returns the program's path.
func BuildProgram(t testing.TB, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-mod=vendor", "-trimpath", "-overlay=hack/patches/overlay.json", "-o", out, pkg)
	// The overlay's paths are relative to the root.
	cmd.Dir = RepoRoot()
	// Static as make build's binaries are, so that it compiles only its main package: with cgo on
	// (the test binary's setting, for the race detector) every vendored package above net would be
	// compiled once more.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// StartKwok runs bin/kwok against the cluster until the test ends, as the kubelet of every node
// (internal/kwok): bound pods go Running, and those annotated by kwok.RunsFor succeed when their
// time is up.
func (c *Cluster) StartKwok(t testing.TB) *proc.Process {
	t.Helper()
	stages, err := kwok.WriteStages(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return StartBinary(t, kwok.Binary, kwok.Args(c.KubeconfigPath(), stages)...)
}
