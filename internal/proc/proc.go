// Package proc runs the child processes berth's control plane, demo and tests start (etcd,
// kube-apiserver, schedulers) so that none outlives its parent: each gets its own process group,
// dies with the parent however the parent dies, and is stopped by its PID.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Process is one child. A single goroutine reaps it, so a crash is seen at once and no zombie is
// left behind.
type Process struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has exited and been reaped
	err     error         // the exit status; read only after done is closed
}

// Start runs bin with args, its stdout and stderr going to logPath and never to the terminal.
func Start(name, logPath, bin string, args ...string) (*Process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own copy of the descriptor

	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A process group of its own lets Stop signal the process and anything it forks, and keeps
		// a terminal's Ctrl-C from reaching it before the parent has begun its own clean-up.
		Setpgid: true,
		// The kernel kills the child if the thread that started it dies, so a parent killed
		// outright does not leak an apiserver.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// PID is the child's process id, which is also its process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited returns why the process is gone, or nil while it runs.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s (pid %d) exited: %v", p.Name, p.PID(), p.err)
	default:
		return nil
	}
}

// Stop terminates the process group, escalating to SIGKILL after grace (at once if grace is 0),
// and returns once the process has been reaped.
func (p *Process) Stop(grace time.Duration) {
	if p.Exited() != nil {
		return
	}
	if grace <= 0 {
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
		<-p.done
		return
	}
	_ = syscall.Kill(-p.PID(), syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
		<-p.done
	}
}

// LogTail is the last n lines of the process's output, where the reason for a failure is.
func (p *Process) LogTail(n int) string {
	data, err := os.ReadFile(p.LogPath)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// LogContains reports whether the process's output so far contains s.
func (p *Process) LogContains(s string) bool {
	data, err := os.ReadFile(p.LogPath)
	return err == nil && bytes.Contains(data, []byte(s))
}
