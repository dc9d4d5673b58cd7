// Package bins finds the binaries `make binaries` builds (etcd, kube-apiserver, the stock
// kube-scheduler, berth's own) for the tests that run them as real processes.
package bins

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the root of the berth checkout, found from this file's compiled-in path.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
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
