//go:build race

package bench

// raceEnabled says whether the race detector is built in: some tests show a data race and need it.
const raceEnabled = true
