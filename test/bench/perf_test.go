package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/test/bench/report"
	"github.com/berth-sched/berth/test/harness"
)

const (
	// perfConfig holds the workloads. The harness reads it, the templates and the scheduler
	// configurations relative to the working directory: `go test` runs in this directory.
	perfConfig = "performance-config.yaml"
	// topic names the results file: BenchmarkPerfScheduling_benchmark_<topic>_<time>.json.
	topic = "berth"
	// crdDir holds the CRDs berth's plugins need in the cluster.
	crdDir = "../../manifests/crds"
	// shortLabel marks the tiny size of each workload that TestBenchWorkloadsShort runs.
	shortLabel = "short"
)

// BenchmarkPerfScheduling runs the workloads of performance-config.yaml selected by
// -perf-scheduling-label-filter (default "performance", the full sizes), each once: run it with
// -benchtime=1x. For N rounds run the test binary N times (hack/bench.sh does): -count=N would
// repeat each workload N times in a row rather than interleave stock and berth, and put all the
// repeats in one results file. BERTH_BENCH_CASES picks the stock or berth test cases (cases_test.go).
func BenchmarkPerfScheduling(b *testing.B) {
	config, err := benchConfig(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if config == "" {
		b.Skipf("%s=%s picks no test case", casesEnv, os.Getenv(casesEnv))
	}
	start := time.Now()
	perf.RunBenchmarkPerfScheduling(b, config, topic, withCRDs(benchRegistry(), crdDir), perf.WithPrepareFn(prepareWorkload))
	if err := saveDriverResults(start); err != nil {
		b.Error(err)
	}
}

// withCRDs wraps every factory of r so that each berth plugin, before it is built, makes sure
// berth's CRDs are installed. In a real cluster they are there before the scheduler starts (Gang
// refuses to start without the PodGroup CRD); the harness starts the scheduler right after its
// apiserver and has no hook in between. Applying is idempotent and quick once the CRDs exist.
func withCRDs(r frameworkruntime.Registry, dir string) frameworkruntime.Registry {
	wrapped := make(frameworkruntime.Registry, len(r))
	for name, factory := range r {
		wrapped[name] = func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			if h.KubeConfig() == nil {
				return nil, fmt.Errorf("%s: the scheduler has no kubeconfig to install berth's CRDs with", name)
			}
			crds, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
			if err != nil {
				return nil, err
			}
			if err := controlplane.ApplyFiles(ctx, h.KubeConfig(), crds...); err != nil {
				return nil, fmt.Errorf("installing berth's CRDs before %s: %w", name, err)
			}
			return factory(ctx, obj, h)
		}
	}
	return wrapped
}

// TestBenchWorkloadsShort runs every workload of performance-config.yaml at its short size, the way
// the benchmarks run: the test binary runs itself with -test.bench. It checks that each workload
// schedules all its pods and reports its figures, and that the report reads them. How fast is for
// the benchmarks to say.
func TestBenchWorkloadsShort(t *testing.T) {
	harness.SoakOnly(t)
	want, err := shortWorkloads()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0],
		"-test.run=^$", "-test.bench=^BenchmarkPerfScheduling$", "-test.benchtime=1x", "-test.timeout=5m",
		"-perf-scheduling-label-filter="+shortLabel, "-data-items-dir="+dir)
	// Without ARTIFACTS: with it, the harness swaps klog's logger as each workload starts and ends
	// (a log file per workload), and that swap races, under -race, with the flush that a previous
	// workload's apiserver left running once a minute (orderLoggerWrites narrows the window, and
	// it still failed a CI run). The global log goes to one file here instead.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "ARTIFACTS=") })
	logPath := filepath.Join(dir, "bench.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	runErr := cmd.Run()
	if err := logFile.Close(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(logPath); err == nil {
		t.Logf("short benchmark run: %d bytes of log", info.Size())
	}
	if runErr != nil {
		out, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		t.Fatalf("short benchmark run: %v\n%s%s", runErr, raceReports(out), tail(out, 60))
	}

	rounds, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 1 {
		t.Fatalf("want the results of one round, got %d", len(rounds))
	}
	// The harness reports a workload's scheduling duration once all its measured pods are bound.
	// (Its throughput needs more than one second of scheduling, more than a short run may take.)
	var got []string
	for _, r := range rounds[0].Results {
		if r.Metric == report.SchedulingDuration && r.Data["Duration"] > 0 {
			got = append(got, r.TestCase+"/"+r.Workload)
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workloads that scheduled their pods (-want +got):\n%s", diff)
	}
	checkDriverResults(t, want, rounds[0].Results)
}

// checkDriverResults checks what the drivers (driver_test.go) reported for the workloads of their
// families: every figure there, no gang ever seen partly bound, and nodes updated while the GPU
// pods were scheduled.
func checkDriverResults(t *testing.T, workloads []string, results []report.Result) {
	t.Helper()
	want := map[string][]string{
		"GangContention": {report.GangTimeToFull, report.GangRefillDelay, report.GangPartialSeen},
		"GPUShare":       {report.NodeUpdates},
		"DRA":            {report.DRAGPUsFree},
	}
	for _, w := range workloads {
		testCase, workload, _ := strings.Cut(w, "/")
		family := testCase[:strings.LastIndex(testCase, "_")]
		for _, metric := range want[family] {
			i := slices.IndexFunc(results, func(r report.Result) bool {
				return r.TestCase == testCase && r.Workload == workload && r.Metric == metric
			})
			if i < 0 {
				t.Errorf("%s: no %s from the %s driver", w, metric, family)
				continue
			}
			switch r := results[i]; metric {
			case report.GangPartialSeen:
				if r.Data["Value"] != 0 {
					t.Errorf("%s: %v gangs seen partly bound, want 0", w, r.Data["Value"])
				}
			case report.NodeUpdates:
				if r.Data["Value"] <= 0 {
					t.Errorf("%s: %v node updates per second, want some", w, r.Data["Value"])
				}
			case report.DRAGPUsFree:
				// Every bound pod's claim allocated, and some GPU used.
				if r.Data["Claims"] == 0 || r.Data["Claims"] != r.Data["Pods"] || r.Data["Value"] >= r.Data["Total"] {
					t.Errorf("%s: %v of %v GPUs fully free, %v claims allocated for %v pods bound: want a claim allocated per pod, on some GPUs",
						w, r.Data["Value"], r.Data["Total"], r.Data["Claims"], r.Data["Pods"])
				}
			}
		}
	}
}

// shortWorkloads lists, as "testcase/workload", the workloads labelled short. It fails when a test
// case has none: CI would never run it.
func shortWorkloads() ([]string, error) {
	data, err := os.ReadFile(perfConfig)
	if err != nil {
		return nil, err
	}
	var cases []struct {
		Name      string
		Workloads []struct {
			Name   string
			Labels []string
		}
	}
	if err := yaml.Unmarshal(data, &cases); err != nil {
		return nil, fmt.Errorf("%s: %w", perfConfig, err)
	}
	var want []string
	for _, tc := range cases {
		short := 0
		for _, w := range tc.Workloads {
			if slices.Contains(w.Labels, shortLabel) {
				short++
				want = append(want, tc.Name+"/"+w.Name)
			}
		}
		if short == 0 {
			return nil, fmt.Errorf("%s: test case %s has no workload labelled %q", perfConfig, tc.Name, shortLabel)
		}
	}
	slices.Sort(want)
	return want, nil
}

func TestRaceReports(t *testing.T) {
	harness.SoakOnly(t) // the benchmark harness's own tests run with its workloads, in make soak
	out := []byte("I1123 a log line\n==================\nWARNING: DATA RACE\nWrite at 0x1 by goroutine 7:\n  f()\n==================\n" +
		"I1123 more log\n==================\nWARNING: DATA RACE\nRead at 0x2 by goroutine 9:\n  g()\n==================\nPASS\n")
	want := "WARNING: DATA RACE\nWrite at 0x1 by goroutine 7:\n  f()\n==================\n" +
		"WARNING: DATA RACE\nRead at 0x2 by goroutine 9:\n  g()\n==================\n"
	if got := string(raceReports(out)); got != want {
		t.Errorf("raceReports:\n%s\nwant:\n%s", got, want)
	}
	if got := raceReports([]byte("I1123 no race here\nPASS\n")); len(got) != 0 {
		t.Errorf("raceReports of a clean run: %q", got)
	}
}

// raceReports returns the race detector's reports in out, which a failed run's tail would cut off:
// the run fails only at its end, long after the report.
func raceReports(out []byte) []byte {
	const begin, end = "WARNING: DATA RACE", "=================="
	var reports []byte
	for {
		i := bytes.Index(out, []byte(begin))
		if i < 0 {
			return reports
		}
		out = out[i:]
		j := bytes.Index(out, []byte(end))
		if j < 0 {
			j = len(out)
		}
		reports = append(reports, out[:j]...)
		reports = append(reports, end+"\n"...)
		out = out[j:]
	}
}

// tail is the last n lines of out.
func tail(out []byte, n int) []byte {
	lines := bytes.SplitAfter(out, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, nil)
}
