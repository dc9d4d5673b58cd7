// Command benchtable prints the results of berth's benchmarks, as written to a -data-items-dir, as
// one table: `go run ./test/bench/cmd/benchtable DIR`.
package main

import (
	"fmt"
	"os"

	"github.com/berth-sched/berth/test/bench/report"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtable DATA_ITEMS_DIR")
		os.Exit(2)
	}
	rounds, err := report.Load(os.Args[1])
	if err == nil && len(rounds) == 0 {
		err = fmt.Errorf("no results (*.json) in %s", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if err := report.Write(os.Stdout, rounds); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}
