package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berth-sched/berth/internal/demo"
	"github.com/berth-sched/berth/test/bins"
)

// asMain makes the test binary run the command instead of the tests, so that the tests can
// signal a real berth-demo process.
const asMain = "BERTH_DEMO_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

var (
	workDirLine = regexp.MustCompile(`\(work dir (\S+)\)`)
	cpLine      = regexp.MustCompile(`etcd pid (\d+), kube-apiserver pid (\d+)`)
	kwokLine    = regexp.MustCompile(`started kwok \(pid (\d+)\)`)
	schedLine   = regexp.MustCompile(`started berth-scheduler \(pid (\d+)\)`)
)

// demoProcess is berth-demo running the qos scenario, stopped by the test once kwok and the scheduler run.
type demoProcess struct {
	cmd     *exec.Cmd
	out     bytes.Buffer // its standard output, complete once it has exited
	stderr  bytes.Buffer
	workDir string
	pids    []int // etcd, kube-apiserver, kwok, berth-scheduler
	lines   io.Reader
}

// startDemo runs berth-demo and reads its output until it has started all its processes.
func startDemo(t *testing.T) *demoProcess {
	t.Helper()
	d := &demoProcess{cmd: exec.Command(os.Args[0], "--bin-dir", bins.Dir(t, "etcd", "kube-apiserver", "kwok", "berth-scheduler"), "--scenarios", "qos", "--svg", "",
		"--crds", filepath.Join("..", "..", demo.DefaultCRDs))}
	d.cmd.Env = append(os.Environ(), asMain+"=1")
	d.cmd.Stderr = &d.stderr
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.cmd.Process.Kill() // in case the test failed before stopping it
		if t.Failed() {
			t.Logf("berth-demo's output:\n%s\nits standard error:\n%s", d.out.String(), d.stderr.String())
		}
	})
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadString('\n')
		d.out.WriteString(line)
		if err != nil {
			break
		}
		if m := workDirLine.FindStringSubmatch(line); m != nil && d.workDir == "" {
			d.workDir = m[1]
		}
		if m := cpLine.FindStringSubmatch(line); m != nil {
			d.pids = append(d.pids, atoi(t, m[1]), atoi(t, m[2]))
		}
		if m := kwokLine.FindStringSubmatch(line); m != nil {
			d.pids = append(d.pids, atoi(t, m[1]))
		}
		if m := schedLine.FindStringSubmatch(line); m != nil {
			d.pids = append(d.pids, atoi(t, m[1]))
			break
		}
	}
	if len(d.pids) != 4 || d.workDir == "" {
		t.Fatalf("berth-demo did not report its work dir and four processes; got %q and %v", d.workDir, d.pids)
	}
	d.lines = r
	return d
}

// wait reads the rest of the output and returns the exit status.
func (d *demoProcess) wait(t *testing.T) int {
	t.Helper()
	if _, err := io.Copy(&d.out, d.lines); err != nil {
		t.Fatal(err)
	}
	err := d.cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return d.cmd.ProcessState.ExitCode()
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// gone reports whether a process no longer runs: it does not exist, or is a zombie that an
// init which does not reap has yet to collect.
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// Ctrl-C (or SIGTERM) stops every process the demo started, removes its work dir, and exits
// non-zero.
func TestInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			d := startDemo(t)
			if err := d.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if got, want := d.wait(t), 128+int(sig); got != want {
				t.Errorf("exit status %d, want %d", got, want)
			}
			for _, pid := range d.pids {
				if !gone(pid) {
					t.Errorf("process %d still runs after berth-demo exited", pid)
				}
			}
			if _, err := os.Stat(d.workDir); !os.IsNotExist(err) {
				t.Errorf("work dir %s still there (stat: %v)", d.workDir, err)
			}
			if !strings.Contains(d.out.String(), "cleaning up") || !strings.Contains(d.out.String(), "removed the work dir") {
				t.Errorf("berth-demo should say that it cleans up")
			}
		})
	}
}

// Killed outright, the demo cannot clean up, but its children die with it.
func TestKilled(t *testing.T) {
	d := startDemo(t)
	t.Cleanup(func() { os.RemoveAll(d.workDir) })
	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	d.wait(t)
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range d.pids {
		for !gone(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !gone(pid) {
			t.Errorf("process %d outlived the killed berth-demo", pid)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for name, args := range map[string][]string{
		"unknown flag":     {"--no-such-flag"},
		"argument":         {"extra"},
		"unknown scenario": {"--bin-dir", bins.Dir(t, "etcd", "kube-apiserver", "kwok", "berth-scheduler"), "--scenarios", "qos,nope"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(args, &stdout, &stderr); got == 0 {
				t.Errorf("exit status 0, want non-zero")
			}
			if stderr.Len() == 0 {
				t.Errorf("nothing said on stderr")
			}
		})
	}
}
