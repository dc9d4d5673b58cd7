package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/berth-sched/berth/test/testplane"
)

// A test that repeats runs in both targets; a soak-only one, directly or through a helper of its
// package, runs only in the soak run and is not even listed for make test.
func TestTopLevelTestsSplitsTheTargets(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import (
	"testing"

	"github.com/berth-sched/berth/test/harness"
)

func TestPlain(t *testing.T) {}

func TestRepeats(t *testing.T) {
	for range harness.Tries(2, 10) {
	}
}

func TestSimulation(t *testing.T) { harness.SoakOnly(t) }

func TestThroughAHelper(t *testing.T) { longRun(t) }

func longRun(t *testing.T) { harness.SoakOnly(t) }

func TestMain(m *testing.M) {}
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		soak bool
		want []string
	}{
		{false, []string{"TestPlain", "TestRepeats"}},
		{true, []string{"TestRepeats", "TestSimulation", "TestThroughAHelper"}},
	} {
		got, err := topLevelTests(dir, c.soak)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("soak=%v: %v, want %v", c.soak, got, c.want)
		}
	}
}

// Every test process runs without the race runtime's second of sleep at exit, unless GORACE
// already says how long to sleep; other GORACE options are kept.
func TestRaceEnv(t *testing.T) {
	for gorace, want := range map[string]string{
		"":                                    "GORACE=atexit_sleep_ms=0",
		"halt_on_error=1":                     "GORACE=halt_on_error=1 atexit_sleep_ms=0",
		"atexit_sleep_ms=500 halt_on_error=1": "GORACE=atexit_sleep_ms=500 halt_on_error=1",
	} {
		if got := raceEnv(gorace); got != want {
			t.Errorf("raceEnv(%q) = %q, want %q", gorace, got, want)
		}
	}
}

// A split test that logs that it could not take the shared control plane is counted, once however
// often it says so; a whole package's job is not, and neither is a test that took it.
func TestReadCountsTestsThatStartedTheirOwnControlPlane(t *testing.T) {
	events := func(test string, lines ...string) *strings.Reader {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(`{"Action":"output","Package":"p","Test":"` + test + `","Output":"` + l + `\n"}` + "\n")
		}
		b.WriteString(`{"Action":"pass","Package":"p","Test":"` + test + `","Elapsed":1}` + "\n")
		return strings.NewReader(b.String())
	}
	r := &runner{}
	own := "    harness.go:104: " + testplane.Unusable + " in /tmp/x, starting one of its own: no kubeconfig"
	r.read(job{pkg: pkg{ImportPath: "p"}, test: "TestA"}, events("TestA", own, own))
	r.read(job{pkg: pkg{ImportPath: "p"}, test: "TestB"}, events("TestB", "    harness.go:108: took the shared control plane at https://127.0.0.1:1 in 1s"))
	r.read(job{pkg: pkg{ImportPath: "p"}}, events("TestC", own))
	if r.ownPlanes != 1 {
		t.Errorf("counted %d tests that started their own control plane, want 1", r.ownPlanes)
	}
}
