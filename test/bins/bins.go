// Package bins finds the binaries `make binaries` builds (etcd, kube-apiserver, the stock
// kube-scheduler, berth's own) for the tests that run them as real processes.
package bins

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot is the root of the berth checkout: the nearest directory above the test's working
// directory (go test runs a test in its package's directory) that holds go.mod. The source path
// compiled into the binary would not do: builds use -trimpath, so that a second checkout reuses
// the build cache, and then that path names the module, not a directory.
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		panic("bins: " + err.Error())
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			panic("bins: no go.mod above " + dir)
		}
	}
}

// Dir is where the binaries are: $BERTH_BIN_DIR, or bin/ in the checkout. A missing binary among
// need fails the test: a skip would let the tests that need it vanish without a sound.
func Dir(t testing.TB, need ...string) string {
	t.Helper()
	dir := os.Getenv("BERTH_BIN_DIR")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "bin")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, bin := range need {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			t.Fatalf("%s not found in %s: run `make binaries` (or set BERTH_BIN_DIR)", bin, dir)
		}
	}
	return dir
}
