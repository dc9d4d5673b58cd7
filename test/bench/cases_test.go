package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/test/bench/report"
	"github.com/berth-sched/berth/test/harness"
)

// casesEnv picks which test cases of performance-config.yaml a run of BenchmarkPerfScheduling
// runs: "stock", those whose scheduler is the stock kube-scheduler (Stock, and the extender's,
// where the stock scheduler calls berth-extender); "berth", the others; unset, all. The harness
// runs every scheduler in the test binary's own process, so the binary decides what the stock
// scheduler is: hack/bench.sh runs the stock test cases from a binary built without berth's fixes
// of vendored Kubernetes (hack/patches/overlay-compile-only.json) and berth's from one built with
// them (hack/patches/overlay.json).
const casesEnv = "BERTH_BENCH_CASES"

// runsStock reports whether a test case runs the stock kube-scheduler.
func runsStock(testCase string) bool {
	scheduler := testCase[strings.LastIndex(testCase, "_")+1:]
	return scheduler == report.Stock || strings.HasPrefix(scheduler, "Extender")
}

// benchConfig is the configuration file that BenchmarkPerfScheduling hands the harness: perfConfig
// itself, or, with casesEnv set, a copy in dir of the test cases it picks. It is "" when none is
// picked.
func benchConfig(dir string) (string, error) {
	pick := os.Getenv(casesEnv)
	if pick == "" {
		return perfConfig, nil
	}
	if pick != "stock" && pick != "berth" {
		return "", fmt.Errorf("%s=%q: want stock or berth", casesEnv, pick)
	}
	data, err := os.ReadFile(perfConfig)
	if err != nil {
		return "", err
	}
	// Decoded whole, not by field: what the harness reads is passed on as it is. The YAML anchors
	// that berth's test cases take from the stock ones are resolved in the decoding.
	var cases []map[string]any
	if err := yaml.Unmarshal(data, &cases); err != nil {
		return "", fmt.Errorf("%s: %w", perfConfig, err)
	}
	var picked []map[string]any
	for _, tc := range cases {
		name, _ := tc["name"].(string)
		if runsStock(name) == (pick == "stock") {
			picked = append(picked, tc)
		}
	}
	if len(picked) == 0 {
		return "", nil
	}
	out, err := yaml.Marshal(picked)
	if err != nil {
		return "", err
	}
	// The harness reads the templates and scheduler configurations that the file names relative to
	// the working directory, not to the file: the copy can live anywhere.
	path := filepath.Join(dir, pick+"-"+perfConfig)
	return path, os.WriteFile(path, out, 0o644)
}

func TestRunsStock(t *testing.T) {
	harness.SoakOnly(t) // the benchmark harness's own tests run with its workloads, in make soak
	for tc, want := range map[string]bool{
		"Basic_Stock": true, "GPUShare_Extender": true, "GPUShare_ExtenderFilterOnly": true, "GangContention_Stock": true,
		"Basic_Berth": false, "GPUShare_BerthBinpack": false, "NoQuota_Berth": false, "Gang_BerthTopology": false,
	} {
		if got := runsStock(tc); got != want {
			t.Errorf("runsStock(%q) = %v, want %v", tc, got, want)
		}
	}
}

func TestBenchConfigSplitsTheCases(t *testing.T) {
	harness.SoakOnly(t) // the benchmark harness's own tests run with its workloads, in make soak
	all, err := shortWorkloads()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, pick := range []string{"stock", "berth"} {
		t.Setenv(casesEnv, pick)
		path, err := benchConfig(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Name      string
			Workloads []struct{ Name string }
		}
		if err := yaml.Unmarshal(data, &cases); err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			if runsStock(tc.Name) != (pick == "stock") {
				t.Errorf("%s=%s picked %s", casesEnv, pick, tc.Name)
			}
			if len(tc.Workloads) == 0 {
				t.Errorf("%s=%s: %s has no workloads in the copy", casesEnv, pick, tc.Name)
			}
			if prev, ok := seen[tc.Name]; ok {
				t.Errorf("%s picked by %s and %s", tc.Name, prev, pick)
			}
			seen[tc.Name] = pick
		}
	}
	// Every test case is picked once: the two runs of a round run them all.
	for _, w := range all {
		tc, _, _ := strings.Cut(w, "/")
		if _, ok := seen[tc]; !ok {
			t.Errorf("%s picked by neither", tc)
		}
	}
	t.Setenv(casesEnv, "both")
	if _, err := benchConfig(t.TempDir()); err == nil {
		t.Errorf("%s=both: no error", casesEnv)
	}
}
