package harness

import (
	"os"
	"testing"
)

// Soak reports whether this is the soak run (`make soak`, BERTH_SOAK=1): the run that repeats
// behaviours often enough to catch a race and runs the long simulations. `make test` runs every
// behaviour too, only fewer times.
func Soak() bool { return os.Getenv("BERTH_SOAK") == "1" }

// Tries is how many times a test repeats the behaviour it shows: quick in `make test`, enough to
// show it; soak in `make soak`, enough to catch a race (ten or more).
func Tries(quick, soak int) int {
	if Soak() {
		return soak
	}
	return quick
}

// SoakOnly skips t outside the soak run: for simulations and long repetitions whose behaviour a
// shorter test in `make test` already shows.
func SoakOnly(t testing.TB) {
	t.Helper()
	if !Soak() {
		t.Skip("runs in `make soak` (BERTH_SOAK=1)")
	}
}
