package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	"github.com/berth-sched/berth/test/bench/report"
)

// Some workloads need what the harness's ops cannot do: update every node at a steady rate while
// pods are scheduled, release gangs as they are bound, watch for gangs bound in part. A driver does
// it for a workload family, in the workload's process, from the harness's prepare hook (after its
// apiserver and scheduler start, before the first op) until the workload ends. What a driver
// measures is added to the harness's results file of the round (saveDriverResults).
type driver func(ctx context.Context, tCtx ktesting.TContext, w workloadID) ([]report.Result, error)

// drivers, by workload family (the test case name up to its last underscore).
var drivers = map[string]driver{
	"GPUShare":       churnNodes,
	"GangContention": driveGangContention,
	"DRA":            countFreeDRAGPUs,
}

// workloadID names a workload as the results do.
type workloadID struct{ testCase, workload string }

func (w workloadID) result(metric, unit string, data map[string]float64) report.Result {
	return report.Result{TestCase: w.testCase, Workload: w.workload, Metric: metric, Unit: unit, Data: data}
}

// driverResults collects what the drivers measured during one run of BenchmarkPerfScheduling.
var driverResults struct {
	sync.Mutex
	results []report.Result
}

// startDriver starts the driver of the workload's family, if it has one, from the harness's prepare
// hook. The driver stops when the workload ends (the cleanup registered here runs before the
// workload's context is cancelled and the harness checks for leaked goroutines); an error fails
// the workload.
func startDriver(tCtx ktesting.TContext) error {
	// The name is BenchmarkPerfScheduling/<test case>/<workload>.
	parts := strings.Split(tCtx.Name(), "/")
	if len(parts) != 3 {
		return fmt.Errorf("workload name %q: want BenchmarkPerfScheduling/<test case>/<workload>", tCtx.Name())
	}
	w := workloadID{testCase: parts[1], workload: parts[2]}
	family := w.testCase
	if i := strings.LastIndex(w.testCase, "_"); i >= 0 {
		family = w.testCase[:i]
	}
	drive, ok := drivers[family]
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(tCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		results, err := drive(ctx, tCtx, w)
		if err != nil {
			tCtx.Errorf("%s driver: %v", family, err)
			return
		}
		for _, r := range results {
			tCtx.Logf("%s driver: %s %v %s", family, r.Metric, r.Data, r.Unit)
		}
		driverResults.Lock()
		driverResults.results = append(driverResults.results, results...)
		driverResults.Unlock()
	}()
	tCtx.TB().Cleanup(func() {
		cancel()
		<-done
	})
	return nil
}

// saveDriverResults adds what the drivers measured to the results file the harness wrote since
// start, so that they stay in their round. Without -data-items-dir the harness writes none and
// there is nothing to add to.
func saveDriverResults(start time.Time) error {
	driverResults.Lock()
	results := driverResults.results
	driverResults.results = nil
	driverResults.Unlock()
	if len(results) == 0 {
		return nil
	}
	f := flag.Lookup("data-items-dir")
	if f == nil || f.Value.String() == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(f.Value.String(), "BenchmarkPerfScheduling_benchmark_"+topic+"_*.json"))
	if err != nil {
		return err
	}
	var newest string
	var newestTime time.Time
	for _, file := range files {
		fi, err := os.Stat(file)
		if err != nil {
			return err
		}
		if fi.ModTime().After(newestTime) {
			newest, newestTime = file, fi.ModTime()
		}
	}
	if newest == "" || newestTime.Before(start) {
		return fmt.Errorf("no results file of this run in %s to add the drivers' %d results to", f.Value.String(), len(results))
	}
	return report.Append(newest, "BenchmarkPerfScheduling", results)
}
