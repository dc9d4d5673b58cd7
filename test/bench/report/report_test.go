package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// harnessFile is a results file as scheduler_perf writes it: every item has every label, filled
// with "not applicable" where it has none, and a throughput that was not measured has no data.
const harnessFile = `{"version":"v1","dataItems":[
{"data":null,"unit":"","labels":{"Metric":"not applicable","Name":"BenchmarkPerfScheduling/Basic_Stock/5Nodes/namespace-2","result":"not applicable"}},
{"data":{"Average":200,"Perc99":150},"unit":"pods/s","labels":{"Metric":"SchedulingThroughput","Name":"BenchmarkPerfScheduling/Basic_Stock/5Nodes/namespace-2","result":"not applicable"}},
{"data":{"Perc99":12.5},"unit":"ms","labels":{"Metric":"scheduler_scheduling_attempt_duration_seconds","Name":"BenchmarkPerfScheduling/Basic_Stock/5Nodes/namespace-2","result":"scheduled"}}
]}`

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    []Round
		wantErr string
	}{
		{
			name:  "harness file",
			files: map[string]string{"BenchmarkPerfScheduling_benchmark_berth_2026-01-01T00:00:00Z.json": harnessFile},
			want: []Round{{
				File: "BenchmarkPerfScheduling_benchmark_berth_2026-01-01T00:00:00Z.json",
				Results: []Result{
					{TestCase: "Basic_Stock", Workload: "5Nodes", Metric: Throughput, Labels: map[string]string{}, Unit: "pods/s", Data: map[string]float64{"Average": 200, "Perc99": 150}},
					{TestCase: "Basic_Stock", Workload: "5Nodes", Metric: AttemptDuration, Labels: map[string]string{"result": "scheduled"}, Unit: "ms", Data: map[string]float64{"Perc99": 12.5}},
				},
			}},
		},
		{
			name: "rounds in file name order, other files ignored",
			files: map[string]string{
				"b_2.json":  `{"version":"v1","dataItems":[{"data":{"Value":2},"labels":{"Metric":"m","Name":"B/tc/w"}}]}`,
				"b_1.json":  `{"version":"v1","dataItems":[{"data":{"Value":1},"labels":{"Metric":"m","Name":"B/tc/w"}}]}`,
				"b_1.dat":   "0.0s 1 1 1",
				"notes.txt": "not results",
			},
			want: []Round{
				{File: "b_1.json", Results: []Result{{TestCase: "tc", Workload: "w", Metric: "m", Labels: map[string]string{}, Data: map[string]float64{"Value": 1}}}},
				{File: "b_2.json", Results: []Result{{TestCase: "tc", Workload: "w", Metric: "m", Labels: map[string]string{}, Data: map[string]float64{"Value": 2}}}},
			},
		},
		{
			name:    "name without a workload",
			files:   map[string]string{"x.json": `{"version":"v1","dataItems":[{"data":{"Value":1},"labels":{"Metric":"m","Name":"B/tc"}}]}`},
			wantErr: "Name=<benchmark>/<test case>/<workload>",
		},
		{
			name:    "not JSON",
			files:   map[string]string{"x.json": `{"version":`},
			wantErr: "x.json",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Load(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rounds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSaveThenLoad(t *testing.T) {
	dir := t.TempDir()
	results := []Result{
		{TestCase: "Binpack", Workload: "100Nodes", Metric: GPUPacking, Labels: map[string]string{}, Unit: "share", Data: map[string]float64{"Value": 0.97}},
		{TestCase: "Spread", Workload: "100Nodes", Metric: GPUPacking, Labels: map[string]string{"mix": "a"}, Unit: "share", Data: map[string]float64{"Value": 0.6}},
	}
	// Twice: each Save makes a new file, so repeated runs are all kept.
	for range 2 {
		if err := Save(dir, "BenchmarkGPUPacking", results); err != nil {
			t.Fatal(err)
		}
	}
	rounds, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 {
		t.Fatalf("want 2 rounds, got %d", len(rounds))
	}
	for _, r := range rounds {
		if diff := cmp.Diff(results, r.Results); diff != "" {
			t.Errorf("%s (-want +got):\n%s", r.File, diff)
		}
	}
}

// hack/bench.sh runs the stock test cases and berth's from two binaries into one directory per
// round: the two files of a directory are one round, so that berth is set against the stock run of
// its own round.
func TestLoadRoundDirectories(t *testing.T) {
	dir := t.TempDir()
	for i, stock := range []float64{200, 100} {
		round := filepath.Join(dir, fmt.Sprintf("round-%d", i+1))
		if err := Save(round, "BenchmarkPerfScheduling", []Result{throughput("Basic_Stock", "5000Nodes", stock)}); err != nil {
			t.Fatal(err)
		}
		if err := Save(round, "BenchmarkPerfScheduling", []Result{throughput("Basic_Berth", "5000Nodes", 100)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte("not a round\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rounds, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 || len(rounds[0].Results) != 2 || len(rounds[1].Results) != 2 {
		t.Fatalf("want 2 rounds of 2 results, got %+v", rounds)
	}
	var out strings.Builder
	if err := Write(&out, rounds); err != nil {
		t.Fatal(err)
	}
	// 100/200 in round 1, 100/100 in round 2.
	if !strings.Contains(out.String(), "0.750 [0.500, 1.000] n=2") {
		t.Errorf("want berth set against the stock run of its own round:\n%s", out.String())
	}
}

func TestAppend(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "BenchmarkPerfScheduling_benchmark_berth_2026-01-01T00:00:00Z.json")
	if err := os.WriteFile(path, []byte(harnessFile), 0o644); err != nil {
		t.Fatal(err)
	}
	added := Result{TestCase: "GangContention_Berth", Workload: "5Nodes", Metric: GangPartialSeen, Labels: map[string]string{}, Unit: "groups", Data: map[string]float64{"Value": 0}}
	if err := Append(path, "BenchmarkPerfScheduling", []Result{added}); err != nil {
		t.Fatal(err)
	}
	rounds, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 1 {
		t.Fatalf("want the one round the harness wrote, got %d", len(rounds))
	}
	got := rounds[0].Results
	// The harness's two items with data, then the one added.
	if len(got) != 3 || got[0].Metric != Throughput {
		t.Fatalf("want the harness's results kept and one added, got %+v", got)
	}
	if diff := cmp.Diff(added, got[2]); diff != "" {
		t.Errorf("added result (-want +got):\n%s", diff)
	}
}

func throughput(testCase, workload string, v float64) Result {
	return Result{TestCase: testCase, Workload: workload, Metric: Throughput, Data: map[string]float64{"Average": v}}
}

func attemptP99(testCase, workload string, v float64) Result {
	return Result{TestCase: testCase, Workload: workload, Metric: AttemptDuration, Labels: map[string]string{"result": "scheduled"}, Data: map[string]float64{"Perc99": v}}
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name   string
		rounds []Round
		want   string
	}{
		{
			name: "variants against stock, the extender against berth, families against basic, packing",
			rounds: []Round{
				{Results: []Result{
					throughput("Basic_Stock", "5000Nodes", 200), attemptP99("Basic_Stock", "5000Nodes", 10),
					throughput("Basic_Berth", "5000Nodes", 190), attemptP99("Basic_Berth", "5000Nodes", 12),
					// Measured as unschedulable only: no figure for the comparison.
					{TestCase: "Basic_Berth", Workload: "5000Nodes", Metric: AttemptDuration, Labels: map[string]string{"result": "unschedulable"}, Data: map[string]float64{"Perc99": 99}},
					throughput("GPUShare_Berth", "5000Nodes", 95),
					throughput("GPUShare_Stock", "5000Nodes", 150),
					throughput("GPUShare_Extender", "5000Nodes", 60),
					throughput("Gang_Stock", "1000Gangs", 50),
				}},
				{Results: []Result{
					throughput("Basic_Stock", "5000Nodes", 220), attemptP99("Basic_Stock", "5000Nodes", 10),
					throughput("Basic_Berth", "5000Nodes", 220), attemptP99("Basic_Berth", "5000Nodes", 14),
					throughput("GPUShare_Berth", "5000Nodes", 110),
					throughput("GPUShare_Stock", "5000Nodes", 150),
					throughput("GPUShare_Extender", "5000Nodes", 88),
					throughput("Gang_Stock", "1000Gangs", 60),
				}},
				{Results: []Result{
					{TestCase: "Binpack", Workload: "100Nodes", Metric: GPUPacking, Data: map[string]float64{"Value": 0.97}},
					{TestCase: "Spread", Workload: "100Nodes", Metric: GPUPacking, Data: map[string]float64{"Value": 0.61}},
					{TestCase: "Binpack", Workload: "36Nodes", Metric: WholeNodeJobsPlaced, Data: map[string]float64{"Value": 0.79}},
					{TestCase: "Binpack+NodeResourcesAllocatable", Workload: "36Nodes", Metric: WholeNodeJobsPlaced, Data: map[string]float64{"Value": 0.87}},
				}},
			},
			want: `Scheduler benchmarks: 2 round(s). Values: mean ±relative standard deviation over the rounds.
SUBJECT/BASELINE: the ratio within each round; mean [min, max] over the rounds.

WORKLOAD            COMPARISON                     METRIC               BASELINE    SUBJECT      SUBJECT/BASELINE
Basic/5000Nodes     Berth vs Stock                 throughput (pods/s)  210 ±6.7%   205 ±10.3%   0.975 [0.950, 1.000] n=2
Basic/5000Nodes     Berth vs Stock                 attempt p99 (ms)     10.0 ±0.0%  13.0 ±10.9%  1.300 [1.200, 1.400] n=2
GPUShare/5000Nodes  Berth vs Stock                 throughput (pods/s)  150 ±0.0%   102 ±10.3%   0.683 [0.633, 0.733] n=2
GPUShare/5000Nodes  Extender vs Stock              throughput (pods/s)  150 ±0.0%   74.0 ±26.8%  0.493 [0.400, 0.587] n=2
GPUShare/5000Nodes  Extender vs Berth              throughput (pods/s)  102 ±10.3%  74.0 ±26.8%  0.716 [0.632, 0.800] n=2
GPUShare/5000Nodes  GPUShare_Berth vs Basic_Berth  throughput (pods/s)  205 ±10.3%  102 ±10.3%   0.500 [0.500, 0.500] n=2
GPUShare/5000Nodes  GPUShare_Stock vs Basic_Stock  throughput (pods/s)  210 ±6.7%   150 ±0.0%    0.716 [0.682, 0.750] n=2
Gang/1000Gangs      Stock only                     throughput (pods/s)  -           55.0 ±12.9%  -

GPU packing (pkg/gpu, no cluster): share of the cluster's GPU memory placed before the first pod that no longer fits
100Nodes  Binpack  0.970
100Nodes  Spread   0.610

Whole-node GPU jobs (the framework's scoring, no cluster): share of the jobs asking for a whole node that were placed
36Nodes  Binpack                           0.790
36Nodes  Binpack+NodeResourcesAllocatable  0.870
`,
		},
		{
			name: "a berth variant without its stock run",
			rounds: []Round{{Results: []Result{
				throughput("Gang_Berth", "1000Gangs", 50),
				throughput("Gang_Stock", "10Gangs", 5),
			}}},
			want: `Scheduler benchmarks: 1 round(s). Values: mean ±relative standard deviation over the rounds.
SUBJECT/BASELINE: the ratio within each round; mean [min, max] over the rounds.

WORKLOAD        COMPARISON  METRIC               BASELINE  SUBJECT  SUBJECT/BASELINE
Gang/1000Gangs  Berth only  throughput (pods/s)  -         50.0     -
Gang/10Gangs    Stock only  throughput (pods/s)  -         5.00     -
`,
		},
		{
			name: "quotas against their control (else basic), the drivers' figures, none against a family without them",
			rounds: []Round{{Results: []Result{
				throughput("Basic_Berth", "5000Nodes", 200),
				throughput("Quota_Berth", "5000Nodes", 190),
				throughput("Basic_Berth", "50Nodes", 100),
				throughput("NoQuota_Berth", "50Nodes", 80),
				throughput("Quota_Berth", "50Nodes", 76),
				{TestCase: "GangContention_Stock", Workload: "500Nodes", Metric: GangTimeToFull, Data: map[string]float64{"Value": 2}},
				{TestCase: "GangContention_Stock", Workload: "500Nodes", Metric: GangRefillDelay, Data: map[string]float64{"Average": 1000, "Max": 1500}},
				{TestCase: "GangContention_Stock", Workload: "500Nodes", Metric: GangPartialSeen, Data: map[string]float64{"Value": 0}},
				{TestCase: "GangContention_Berth", Workload: "500Nodes", Metric: GangTimeToFull, Data: map[string]float64{"Value": 3}},
				{TestCase: "GangContention_Berth", Workload: "500Nodes", Metric: GangRefillDelay, Data: map[string]float64{"Average": 500, "Max": 3000}},
				{TestCase: "GangContention_Berth", Workload: "500Nodes", Metric: GangPartialSeen, Data: map[string]float64{"Value": 0}},
				{TestCase: "GPUShare_Stock", Workload: "5000Nodes", Metric: NodeUpdates, Data: map[string]float64{"Value": 500}},
				{TestCase: "GPUShare_Berth", Workload: "5000Nodes", Metric: NodeUpdates, Data: map[string]float64{"Value": 490}},
			}}},
			want: `Scheduler benchmarks: 1 round(s). Values: mean ±relative standard deviation over the rounds.
SUBJECT/BASELINE: the ratio within each round; mean [min, max] over the rounds.

WORKLOAD                 COMPARISON                    METRIC                  BASELINE  SUBJECT  SUBJECT/BASELINE
GangContention/500Nodes  Berth vs Stock                time to full (s)        2.00      3.00     1.500
GangContention/500Nodes  Berth vs Stock                refill delay mean (ms)  1000      500      0.500
GangContention/500Nodes  Berth vs Stock                refill delay max (ms)   1500      3000     2.000
GangContention/500Nodes  Berth vs Stock                partial groups seen     0.000     0.000    -
GPUShare/5000Nodes       Berth vs Stock                node updates (/s)       500       490      0.980
Quota/5000Nodes          Quota_Berth vs Basic_Berth    throughput (pods/s)     200       190      0.950
NoQuota/50Nodes          NoQuota_Berth vs Basic_Berth  throughput (pods/s)     100       80.0     0.800
Quota/50Nodes            Quota_Berth vs NoQuota_Berth  throughput (pods/s)     80.0      76.0     0.950
`,
		},
		{
			name: "no results",
			want: `Scheduler benchmarks: 0 round(s). Values: mean ±relative standard deviation over the rounds.
SUBJECT/BASELINE: the ratio within each round; mean [min, max] over the rounds.

WORKLOAD  COMPARISON  METRIC  BASELINE  SUBJECT  SUBJECT/BASELINE
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := Write(&b, tc.rounds); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("table (-want +got):\n%s", diff)
			}
		})
	}
}
