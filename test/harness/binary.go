package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// StartSchedulerBinary runs bin/berth-scheduler as a process with config until the test ends, as
// a user runs it. Leader election belongs here rather than in StartScheduler: kube-scheduler exits
// the whole process when it stops leading, which would end the test binary too.
func (c *Cluster) StartSchedulerBinary(t testing.TB, config string, args ...string) {
	t.Helper()
	bin := filepath.Join(BinDir(t, "berth-scheduler"), "berth-scheduler")
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "berth-scheduler.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--config", path, "--secure-port", "0"}, args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with the test binary, whatever kills it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logFile.Close()
		if t.Failed() {
			if out, err := os.ReadFile(logPath); err == nil {
				t.Logf("berth-scheduler log:\n%s", tail(string(out), 40))
			}
		}
	})
}

func tail(s string, lines int) string {
	n := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			n++
			if n > lines {
				return s[i+1:]
			}
		}
	}
	return s
}
