package controlplane

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// stopGrace is how long a process gets to exit after SIGTERM. The data is
// throwaway, so there is no point waiting longer for a graceful shutdown.
const stopGrace = 3 * time.Second

// process is one child of the control plane. Its exit is observed by a single
// goroutine that reaps it, so callers learn about a crash at once and no
// zombie is left behind.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has exited and been reaped
	err     error         // the exit status; read only after done is closed
}

// startProcess runs bin with args, its stdout and stderr going to logPath.
func startProcess(name, bin, logPath string, args ...string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	// The child inherits its own copy of the descriptor.
	defer logFile.Close()

	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A process group of its own lets Stop signal the process and anything
		// it forks, and keeps a terminal's Ctrl-C from reaching it before the
		// caller has had a chance to call Stop.
		Setpgid: true,
		// The kernel kills the child if the thread that started it dies, so a
		// test binary that is killed outright does not leak an apiserver.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop terminates the process group, escalating to SIGKILL after stopGrace,
// and returns once the process has been reaped.
func (p *process) stop() {
	if p.exited() {
		return
	}
	pgid := p.cmd.Process.Pid // Setpgid makes the group id equal to the pid.
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
}

// exitError describes an early exit together with the end of the process's
// log, which is where the reason is.
func (p *process) exitError() error {
	return fmt.Errorf("%s exited early (%v); last lines of %s:\n%s", p.name, p.err, p.logPath, p.logTail(30))
}

func (p *process) logTail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// addrInUse reports whether the process died because a port it was given was
// taken in the short window between choosing the port and binding it.
func (p *process) addrInUse() bool {
	data, err := os.ReadFile(p.logPath)
	return err == nil && bytes.Contains(data, []byte("address already in use"))
}

var errAddrInUse = errors.New("address already in use")
