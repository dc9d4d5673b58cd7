package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"k8s.io/component-base/metrics"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"

	"github.com/berth-sched/berth/test/bins"
)

// TestMain prepares what the harness takes from the process: etcd on PATH (it starts a fresh one
// per workload) and a directory for the apiserver's certificate fixtures.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := putEtcdOnPath(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	fixtures, err := redirectCertFixtures()
	if fixtures != "" {
		defer os.RemoveAll(fixtures)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	// BERTH_BENCH_DISABLED_METRICS does in the benchmark what kube-scheduler's --disabled-metrics
	// does: what a metric costs is measured by running without it.
	if names := os.Getenv("BERTH_BENCH_DISABLED_METRICS"); names != "" {
		metrics.SetDisabledMetrics(strings.Split(names, ","))
	}
	if err := perf.InitTests(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	defer stopExtender()
	return m.Run()
}

// putEtcdOnPath puts the etcd that `make binaries` built first on PATH: the harness runs "etcd".
// berth-extender, which the extender test case runs, must be there too.
func putEtcdOnPath() error {
	for _, bin := range []string{"etcd", "berth-extender"} {
		if _, err := os.Stat(filepath.Join(binDir(), bin)); err != nil {
			return fmt.Errorf("%s not found in %s: run `make binaries` (or set BERTH_BIN_DIR)", bin, binDir())
		}
	}
	return os.Setenv("PATH", binDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// binDir holds the binaries `make binaries` builds.
func binDir() string {
	if dir := os.Getenv("BERTH_BIN_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(repoRoot(), "bin")
}

// redirectCertFixtures gives the test apiserver a writable, empty fixture directory outside vendor/.
//
// StartTestServer reads its serving certificate from a testdata/ directory beside its own source
// file, and generates and writes the certificate there when the directory exists but holds none.
// `go mod vendor` drops that directory, so in vendor mode the write fails ("failed to write cert
// fixture"). The function's one other way to find its package is Bazel's: with TEST_SRCDIR and
// TEST_WORKSPACE set it looks under $TEST_SRCDIR/$TEST_WORKSPACE/<compiled-in source path>. We use
// that to point it at a temporary directory, so vendor/ stays exactly what `go mod vendor` made,
// nothing needs the network, and the lookup works in -trimpath builds too.
//
// It returns the temporary directory, for the caller to remove.
func redirectCertFixtures() (string, error) {
	srcDir, err := os.MkdirTemp("", "berth-bench-fixtures-")
	if err != nil {
		return "", err
	}
	const workspace = "berth"
	fixtures := filepath.Join(srcDir, workspace, filepath.Dir(sourceFile(apiservertesting.StartTestServer)), "testdata")
	if err := os.MkdirAll(fixtures, 0o755); err != nil {
		return srcDir, err
	}
	if err := os.Setenv("TEST_SRCDIR", srcDir); err != nil {
		return srcDir, err
	}
	return srcDir, os.Setenv("TEST_WORKSPACE", workspace)
}

// sourceFile is the source path compiled into the binary for fn, as runtime.Caller reports it
// inside fn.
func sourceFile(fn any) string {
	pc := reflect.ValueOf(fn).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	return file
}

// repoRoot is the root of the berth checkout.
func repoRoot() string { return bins.RepoRoot() }
