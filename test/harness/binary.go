package harness

import (
	"os"
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
	bin := filepath.Join(BinDir(t, name), name)
	p, err := proc.Start(name, filepath.Join(t.TempDir(), name+".log"), bin, args...)
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
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return StartBinary(t, "berth-scheduler", append([]string{"--config", path, "--secure-port", "0"}, args...)...)
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
