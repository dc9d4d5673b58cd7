// Package report reads the results that berth's benchmarks write to -data-items-dir (the
// scheduler_perf harness's DataItems JSON, one file per run) and prints them as one table: each
// berth variant against the stock scheduler on the same workload, with the spread over rounds.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// Metric names, as the harness labels them.
const (
	Throughput         = "SchedulingThroughput"
	SchedulingDuration = "SchedulingDuration"
	AttemptDuration    = "scheduler_scheduling_attempt_duration_seconds"
	PodSLIDuration     = "scheduler_pod_scheduling_sli_duration_seconds"
	// GPUPacking is BenchmarkGPUPacking's metric: the share of the cluster's GPU memory placed
	// before the first pod that no longer fits.
	GPUPacking = "GPUMemoryPlacedBeforeFirstMisfit"
	// WholeNodeJobsPlaced is BenchmarkWholeNodePacking's metric: the share of the jobs asking for
	// every GPU of a node that were placed, as jobs of all sizes come and go.
	WholeNodeJobsPlaced = "WholeNodeJobsPlaced"
	// The GangContention workloads' metrics, from the benchmark's own driver (test/bench,
	// contention_test.go): the time from the first member's creation until the room is full of
	// whole groups, the delay between releasing a bound group and a waiting group taking its room,
	// and the groups seen partly bound (must be 0).
	GangTimeToFull  = "GangTimeToFull"
	GangRefillDelay = "GangRefillDelay"
	GangPartialSeen = "GangPartialGroups"
	// NodeUpdates is the rate of the node status and label updates that run during the GPUShare
	// workloads (churn_test.go), as achieved: the same for every scheduler, or the comparison is off.
	NodeUpdates = "NodeUpdates"
	// DRAGPUsFree is the number of GPUs that no allocated claim consumes at the end of a DRA
	// workload's fill (dra_test.go): GPUs still free for a pod asking for a whole one.
	DRAGPUsFree = "DRAGPUsFullyFree"
)

// A simulation is a metric of a simulation (no cluster), printed as its own block under title.
type simulation struct{ metric, title string }

var simulations = []simulation{
	{GPUPacking, "GPU packing (pkg/gpu, no cluster): share of the cluster's GPU memory placed before the first pod that no longer fits"},
	{WholeNodeJobsPlaced, "Whole-node GPU jobs (the framework's scoring, no cluster): share of the jobs asking for a whole node that were placed"},
}

func isSimulation(metric string) bool {
	return slices.ContainsFunc(simulations, func(s simulation) bool { return s.metric == metric })
}

// The scheduler variant that every other is measured against, the variant that the other berth
// variants (the extender) are measured against as well, and the workload family that the others
// are measured against.
const (
	Stock = "Stock"
	Berth = "Berth"
	Basic = "Basic"
)

// controls are the families measured against a control family of their own shape rather than
// against Basic: Quota runs its pods in ten namespaces (ten createPods ops, then a barrier), and
// NoQuota runs the same ops without the ElasticQuotas, so Quota against NoQuota is what the quotas
// cost and nothing else; QuotaTree runs Quota's ops with its quotas in a tree, so QuotaTree against
// Quota is what the tree costs. Without the control's results a family falls back to Basic.
var controls = map[string]string{"Quota": "NoQuota", "QuotaTree": "Quota"}

// Result is one data item: a metric of one workload of one test case.
type Result struct {
	// TestCase is named <Family>_<Scheduler>, e.g. Basic_Stock or Gang_Berth.
	TestCase string
	Workload string
	Metric   string
	// Labels are the metric's own labels, e.g. result=scheduled.
	Labels map[string]string
	Unit   string
	Data   map[string]float64
}

// Family is the workload family: the test case name up to the last underscore.
func (r Result) Family() string {
	f, _ := splitTestCase(r.TestCase)
	return f
}

// Scheduler is the scheduler variant: the test case name after the last underscore.
func (r Result) Scheduler() string {
	_, s := splitTestCase(r.TestCase)
	return s
}

func splitTestCase(tc string) (family, scheduler string) {
	i := strings.LastIndex(tc, "_")
	if i < 0 {
		return tc, ""
	}
	return tc[:i], tc[i+1:]
}

// Round is the results of one round of the benchmarks: one JSON file, or the files of one
// directory.
type Round struct {
	File    string
	Results []Result
}

// dataItems is the harness's file format (scheduler_perf's DataItems, which perf-dash reads).
type dataItems struct {
	Version   string     `json:"version"`
	DataItems []dataItem `json:"dataItems"`
}

type dataItem struct {
	Data   map[string]float64 `json:"data"`
	Unit   string             `json:"unit"`
	Labels map[string]string  `json:"labels"`
}

// Save writes results in the harness's format to a new file in dir, named after the benchmark,
// so that Load reads them with the harness's.
func Save(dir, benchmark string, results []Result) error {
	items := dataItems{Version: "v1", DataItems: toDataItems(benchmark, results)}
	data, err := json.Marshal(items)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, benchmark+"_*.json")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Append adds results, in the harness's format, to the results file at path that the harness
// wrote: figures the harness cannot measure stay in the round they belong to.
func Append(path, benchmark string, results []Result) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var items dataItems
	if err := json.Unmarshal(data, &items); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	items.DataItems = append(items.DataItems, toDataItems(benchmark, results)...)
	if data, err = json.Marshal(items); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func toDataItems(benchmark string, results []Result) []dataItem {
	var out []dataItem
	for _, r := range results {
		labels := map[string]string{"Metric": r.Metric, "Name": benchmark + "/" + r.TestCase + "/" + r.Workload}
		for k, v := range r.Labels {
			labels[k] = v
		}
		out = append(out, dataItem{Data: r.Data, Unit: r.Unit, Labels: labels})
	}
	return out
}

// Load reads the rounds in dir, in name order (the harness puts the time in a file's name): each
// *.json file in dir is one round, and so is each subdirectory, whose *.json files together make
// the round (hack/bench.sh runs the stock test cases and berth's from two binaries, each writing
// its own file, into one directory per round).
func Load(dir string) ([]Round, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var rounds []Round
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			if filepath.Ext(path) != ".json" {
				continue
			}
			r, err := loadFile(path)
			if err != nil {
				return nil, err
			}
			rounds = append(rounds, r)
			continue
		}
		files, err := filepath.Glob(filepath.Join(path, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			continue
		}
		slices.Sort(files)
		round := Round{File: e.Name()}
		for _, f := range files {
			r, err := loadFile(f)
			if err != nil {
				return nil, err
			}
			round.Results = append(round.Results, r.Results...)
		}
		rounds = append(rounds, round)
	}
	return rounds, nil
}

func loadFile(path string) (Round, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Round{}, err
	}
	var items dataItems
	if err := json.Unmarshal(data, &items); err != nil {
		return Round{}, fmt.Errorf("%s: %w", path, err)
	}
	round := Round{File: filepath.Base(path)}
	for i, item := range items.DataItems {
		if len(item.Data) == 0 {
			// A throughput the harness could not measure: the pods were all scheduled within its
			// first one-second sample.
			continue
		}
		// Name is Benchmark/TestCase/Workload[/namespace or step].
		parts := strings.Split(item.Labels["Name"], "/")
		if len(parts) < 3 || item.Labels["Metric"] == "" {
			return Round{}, fmt.Errorf("%s: data item %d: want labels Metric and Name=<benchmark>/<test case>/<workload>[/...], got %v", path, i, item.Labels)
		}
		labels := map[string]string{}
		for k, v := range item.Labels {
			// The harness fills labels that other items have with "not applicable".
			if k != "Name" && k != "Metric" && v != "not applicable" {
				labels[k] = v
			}
		}
		round.Results = append(round.Results, Result{
			TestCase: parts[1],
			Workload: parts[2],
			Metric:   item.Labels["Metric"],
			Labels:   labels,
			Unit:     item.Unit,
			Data:     item.Data,
		})
	}
	return round, nil
}

// figure is one number the table compares: a bucket of a metric, picked by its labels.
type figure struct {
	title  string
	metric string
	labels map[string]string
	bucket string
}

var figures = []figure{
	{title: "throughput (pods/s)", metric: Throughput, bucket: "Average"},
	{title: "attempt p99 (ms)", metric: AttemptDuration, labels: map[string]string{"result": "scheduled"}, bucket: "Perc99"},
	{title: "pod e2e p99 (ms)", metric: PodSLIDuration, bucket: "Perc99"},
	{title: "time to full (s)", metric: GangTimeToFull, bucket: "Value"},
	{title: "refill delay mean (ms)", metric: GangRefillDelay, bucket: "Average"},
	{title: "refill delay max (ms)", metric: GangRefillDelay, bucket: "Max"},
	{title: "partial groups seen", metric: GangPartialSeen, bucket: "Value"},
	{title: "node updates (/s)", metric: NodeUpdates, bucket: "Value"},
	{title: "GPUs fully free", metric: DRAGPUsFree, bucket: "Value"},
}

func (f figure) value(results []Result, testCase, workload string) (float64, bool) {
	for _, r := range results {
		if r.TestCase != testCase || r.Workload != workload || r.Metric != f.metric {
			continue
		}
		if !matches(r.Labels, f.labels) {
			continue
		}
		v, ok := r.Data[f.bucket]
		return v, ok
	}
	return 0, false
}

func matches(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// comparison is one block of the table: a test case against its baseline on the same workload.
// A test case that has none is listed alone, with an empty baseline.
type comparison struct {
	workload          string
	subject, baseline string // test case names
}

func (c comparison) String() string {
	subjectFamily, subjectScheduler := splitTestCase(c.subject)
	if c.baseline == "" {
		return subjectScheduler + " only"
	}
	baseFamily, baseScheduler := splitTestCase(c.baseline)
	if subjectFamily == baseFamily {
		return subjectScheduler + " vs " + baseScheduler
	}
	return c.subject + " vs " + c.baseline
}

// comparisons finds, in the order the results came: every variant against Stock on the same
// family and workload, then every variant but Stock and Berth against Berth likewise, then every
// family against its control (or Basic) with the same variant and workload, then the test cases
// in none of these.
func comparisons(rounds []Round) []comparison {
	type key struct{ testCase, workload string }
	var seen []key
	for _, r := range rounds {
		for _, res := range r.Results {
			if isSimulation(res.Metric) {
				continue
			}
			k := key{res.TestCase, res.Workload}
			if !slices.Contains(seen, k) {
				seen = append(seen, k)
			}
		}
	}
	has := func(k key) bool { return slices.Contains(seen, k) }
	var out []comparison
	for _, k := range seen {
		family, scheduler := splitTestCase(k.testCase)
		if scheduler == Stock || scheduler == "" {
			continue
		}
		if base := (key{family + "_" + Stock, k.workload}); has(base) {
			out = append(out, comparison{workload: k.workload, subject: k.testCase, baseline: base.testCase})
		}
	}
	for _, k := range seen {
		family, scheduler := splitTestCase(k.testCase)
		if scheduler == Stock || scheduler == Berth || scheduler == "" {
			continue
		}
		if base := (key{family + "_" + Berth, k.workload}); has(base) {
			out = append(out, comparison{workload: k.workload, subject: k.testCase, baseline: base.testCase})
		}
	}
	for _, k := range seen {
		family, scheduler := splitTestCase(k.testCase)
		if family == Basic {
			continue
		}
		base := key{Basic + "_" + scheduler, k.workload}
		if control, ok := controls[family]; ok && has(key{control + "_" + scheduler, k.workload}) {
			base = key{control + "_" + scheduler, k.workload}
		}
		if has(base) {
			out = append(out, comparison{workload: k.workload, subject: k.testCase, baseline: base.testCase})
		}
	}
	for _, k := range seen {
		compared := slices.ContainsFunc(out, func(c comparison) bool {
			return c.workload == k.workload && (c.subject == k.testCase || c.baseline == k.testCase)
		})
		if !compared {
			out = append(out, comparison{workload: k.workload, subject: k.testCase})
		}
	}
	return out
}

// Write prints the table. Values are the mean over the rounds that have them, ± the relative
// sample standard deviation; ratios are subject/baseline per round (only rounds with both), mean
// and [min, max].
func Write(w io.Writer, rounds []Round) error {
	n := 0
	for _, r := range rounds {
		if slices.ContainsFunc(r.Results, func(res Result) bool { return !isSimulation(res.Metric) }) {
			n++
		}
	}
	fmt.Fprintf(w, "Scheduler benchmarks: %d round(s). Values: mean ±relative standard deviation over the rounds.\n", n)
	fmt.Fprintf(w, "SUBJECT/BASELINE: the ratio within each round; mean [min, max] over the rounds.\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "WORKLOAD\tCOMPARISON\tMETRIC\tBASELINE\tSUBJECT\tSUBJECT/BASELINE\n")
	for _, c := range comparisons(rounds) {
		for _, f := range figures {
			var subj, base, ratios []float64
			for _, r := range rounds {
				s, okS := f.value(r.Results, c.subject, c.workload)
				b, okB := f.value(r.Results, c.baseline, c.workload)
				if okS {
					subj = append(subj, s)
				}
				if okB {
					base = append(base, b)
				}
				if okS && okB && b != 0 {
					ratios = append(ratios, s/b)
				}
			}
			family, _ := splitTestCase(c.subject)
			baseFamily, _ := splitTestCase(c.baseline)
			// A figure only one family has (the drivers' node updates) says nothing against another.
			if len(subj) == 0 || (c.baseline != "" && baseFamily != family && len(base) == 0) {
				continue
			}
			fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\t%s\n", family, c.workload, c, f.title, meanSpread(base), meanSpread(subj), ratioRange(ratios))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, sim := range simulations {
		if err := writeSimulation(w, rounds, sim.metric, sim.title); err != nil {
			return err
		}
	}
	return nil
}

// writeSimulation prints a simulation's figures (BenchmarkGPUPacking's, BenchmarkWholeNodePacking's),
// one line per workload and way of placing.
func writeSimulation(w io.Writer, rounds []Round, metric, title string) error {
	type key struct{ mix, strategy string }
	var keys []key
	values := map[key][]float64{}
	for _, r := range rounds {
		for _, res := range r.Results {
			if res.Metric != metric {
				continue
			}
			k := key{res.Workload, res.TestCase}
			if _, ok := values[k]; !ok {
				keys = append(keys, k)
			}
			values[k] = append(values[k], res.Data["Value"])
		}
	}
	if len(keys) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.mix, k.strategy, meanSpread(values[k]))
	}
	return tw.Flush()
}

func meanSpread(v []float64) string {
	switch len(v) {
	case 0:
		return "-"
	case 1:
		return format(v[0])
	}
	m, sd := meanStddev(v)
	if m == 0 {
		return format(m)
	}
	return fmt.Sprintf("%s ±%.1f%%", format(m), 100*sd/math.Abs(m))
}

func ratioRange(v []float64) string {
	switch len(v) {
	case 0:
		return "-"
	case 1:
		return fmt.Sprintf("%.3f", v[0])
	}
	m, _ := meanStddev(v)
	return fmt.Sprintf("%.3f [%.3f, %.3f] n=%d", m, slices.Min(v), slices.Max(v), len(v))
}

func meanStddev(v []float64) (mean, stddev float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// format prints three significant digits or more, never in exponent form.
func format(x float64) string {
	switch a := math.Abs(x); {
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 10:
		return fmt.Sprintf("%.1f", x)
	case a >= 1:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.3f", x)
	}
}
