// Package trace reads the node and pod lists of Alibaba's GPU-sharing trace (cluster-trace-gpu-v2023,
// the "openb" lists of "Beware of Fragmentation", USENIX ATC'23) for berth's placement benchmarks.
//
// The trace is public but is not berth's to redistribute: it is never committed to this repository.
// The full replays read it from the directory named by $BERTH_TRACE_DIR (see Dir) and skip without
// it; the tests read parts of it where the workplace keeps it beside the repository (see Shared).
package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/berth-sched/berth/test/bins"
)

// DirEnv names the environment variable that holds the directory with the trace's lists.
const DirEnv = "BERTH_TRACE_DIR"

// NodeFile is the trace's node list.
const NodeFile = "openb_node_list_gpu_node.csv"

// DefaultWorkload is the pod list as observed; the other Workloads are sampled from it.
const DefaultWorkload = "default"

// Workloads are the published pod lists, by the names the FGD paper gives them: the trace as
// observed, and lists sampled from it by the publishers with fewer or more pods without GPUs
// (cpu*), sharing a GPU (gpushare*), taking several GPUs (multigpu*) or restricted to GPU models
// (gpuspec*).
var Workloads = []string{
	DefaultWorkload,
	"cpu0", "cpu037", "cpu050", "cpu072", "cpu100", "cpu200", "cpu235", "cpu250", "cpu300",
	"gpushare20", "gpushare40", "gpushare60", "gpushare80", "gpushare100",
	"gpuspec05", "gpuspec10", "gpuspec20", "gpuspec25", "gpuspec33",
	"multigpu20", "multigpu30", "multigpu40", "multigpu50",
}

// PaperFGD are the FGD paper's figures for its policy on the workloads: the GPUs allocated, in %
// of the cluster's, when the pods asked for 100% and 130% of them, mean of its simulator's 10
// seeds (experiments/analysis/expected_results/analysis_allo_discrete.csv of
// hkust-adsl/kubernetes-scheduler-simulator, as ../shared/data/openb/README.md quotes them); 0
// where it published none.
var PaperFGD = map[string][2]float64{
	DefaultWorkload: {95.23, 95.39},
	"cpu050":        {95.00, 0}, "cpu100": {95.21, 0}, "cpu200": {94.82, 0}, "cpu250": {93.20, 0},
	"gpushare40": {93.96, 0}, "gpushare60": {91.25, 0}, "gpushare80": {89.08, 0}, "gpushare100": {86.64, 86.90},
	"multigpu20": {95.53, 0}, "multigpu30": {96.36, 0}, "multigpu40": {96.91, 0}, "multigpu50": {97.09, 97.18},
	"gpuspec10": {94.66, 0}, "gpuspec20": {94.66, 0}, "gpuspec25": {93.91, 0}, "gpuspec33": {87.84, 94.55},
}

// PodFile is the file of a workload's pod list.
func PodFile(workload string) string { return "openb_pod_list_" + workload + ".csv" }

// WholeGPU is gpu_milli for a pod that takes whole GPUs.
const WholeGPU = 1000

// Node is one machine of the trace.
type Node struct {
	Name      string
	MilliCPU  int64
	MemoryMiB int64
	GPUs      int
	// Model is the GPU model (P100, T4, V100M16, V100M32, A10, and the anonymised G2, G3).
	Model string
}

// Pod is one pod of the trace.
type Pod struct {
	Name      string
	MilliCPU  int64
	MemoryMiB int64
	// NumGPU is how many GPUs the pod takes; GPUMilli what it takes of each, in thousandths of a
	// GPU: 1000 for whole GPUs, less for a share of one (the trace has shares of one GPU only).
	NumGPU   int
	GPUMilli int64
	// GPUSpec lists the GPU models the pod may run on; empty for any.
	GPUSpec []string
}

// GPUs is the pod's GPU request in GPUs.
func (p Pod) GPUs() float64 { return float64(p.GPUMilliTotal()) / WholeGPU }

// GPUMilliTotal is the pod's GPU request in thousandths of a GPU, over all its GPUs.
func (p Pod) GPUMilliTotal() int64 { return int64(p.NumGPU) * p.GPUMilli }

// Runs reports whether the pod may run on GPUs of the model.
func (p Pod) Runs(model string) bool {
	return len(p.GPUSpec) == 0 || slices.Contains(p.GPUSpec, model)
}

// Dir is the trace directory from DirEnv, "" if it is not set.
func Dir() string { return os.Getenv(DirEnv) }

// Shared is the trace directory kept beside the repository, ../shared/data/openb from its root,
// whatever DirEnv says: the tests read a part of it, which costs seconds, where the replays that
// Dir turns on take minutes.
func Shared() string {
	return filepath.Join(bins.RepoRoot(), "..", "shared", "data", "openb")
}

// LoadShared is Load from Shared, with an error that says where the trace must be when it is not
// there (a clone of berth made away from the shared folder beside it, say).
func LoadShared(workload string) ([]Node, []Pod, error) {
	nodes, pods, err := Load(Shared(), workload)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("the trace is read from ../shared/data/openb beside the repository (never copied into it): clone berth next to the shared folder: %w", err)
	}
	return nodes, pods, err
}

// Load reads the node list and a workload's pod list from dir.
func Load(dir, workload string) ([]Node, []Pod, error) {
	nodes, err := readFile(filepath.Join(dir, NodeFile), ReadNodes)
	if err != nil {
		return nil, nil, err
	}
	pods, err := readFile(filepath.Join(dir, PodFile(workload)), ReadPods)
	if err != nil {
		return nil, nil, err
	}
	return nodes, pods, nil
}

func readFile[T any](path string, read func(io.Reader) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	items, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return items, nil
}

// ReadNodes reads a node list: sn,cpu_milli,memory_mib,gpu,model (columns found by name).
func ReadNodes(r io.Reader) ([]Node, error) {
	var nodes []Node
	err := readRows(r, []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}, func(f fields) error {
		n := Node{Name: f.str("sn"), MilliCPU: f.int("cpu_milli"), MemoryMiB: f.int("memory_mib"), GPUs: int(f.int("gpu")), Model: f.str("model")}
		if f.err != nil {
			return f.err
		}
		if n.MilliCPU <= 0 || n.MemoryMiB <= 0 || n.GPUs < 0 || (n.GPUs > 0 && n.Model == "") {
			return fmt.Errorf("node %q: cpu and memory must be positive, GPUs at least 0 and with a model", n.Name)
		}
		nodes = append(nodes, n)
		return nil
	})
	return nodes, err
}

// ReadPods reads a pod list in the list's order, columns found by name: name, cpu_milli,
// memory_mib, num_gpu and gpu_milli, and gpu_spec where the list has it. The lists are published
// with two headers: the observed list and most sampled ones have eleven columns (gpu_spec, qos,
// pod_phase and the pod's times follow), the multigpu* lists the first five only. The times are
// not read: the replay's arrival order is a seeded shuffle, as the FGD paper's, for which the
// sampled lists' times (and their order, which appends the sampled pods at the end) mean nothing.
func ReadPods(r io.Reader) ([]Pod, error) {
	var pods []Pod
	err := readRows(r, []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}, func(f fields) error {
		p := Pod{
			Name: f.str("name"), MilliCPU: f.int("cpu_milli"), MemoryMiB: f.int("memory_mib"),
			NumGPU: int(f.int("num_gpu")), GPUMilli: f.int("gpu_milli"),
		}
		if spec := f.str("gpu_spec"); spec != "" {
			p.GPUSpec = strings.Split(spec, "|")
		}
		if f.err != nil {
			return f.err
		}
		switch {
		case p.Name == "":
			return fmt.Errorf("line %d: a pod without a name", f.line)
		case p.MilliCPU < 0 || p.MemoryMiB < 0 || p.NumGPU < 0:
			return fmt.Errorf("pod %q: negative request", p.Name)
		case p.NumGPU == 0 && p.GPUMilli != 0:
			return fmt.Errorf("pod %q: gpu_milli %d without GPUs", p.Name, p.GPUMilli)
		case p.NumGPU > 0 && (p.GPUMilli <= 0 || p.GPUMilli > WholeGPU):
			return fmt.Errorf("pod %q: gpu_milli %d, want 1 to %d", p.Name, p.GPUMilli, WholeGPU)
		case p.NumGPU > 1 && p.GPUMilli != WholeGPU:
			return fmt.Errorf("pod %q: shares of %d GPUs; the trace shares one GPU only", p.Name, p.NumGPU)
		}
		pods = append(pods, p)
		return nil
	})
	return pods, err
}

// fields is one row, read by column name; the first error sticks.
type fields struct {
	row    []string
	column map[string]int
	line   int
	err    error
}

// str is the named column, "" where the list has no such column.
func (f *fields) str(name string) string {
	i, ok := f.column[name]
	if !ok {
		return ""
	}
	return strings.TrimSpace(f.row[i])
}

func (f *fields) int(name string) int64 {
	s := f.str(name)
	if s == "" && name == "gpu_milli" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("line %d: %s=%q is not a whole number", f.line, name, s)
	}
	return v
}

func readRows(r io.Reader, want []string, row func(fields) error) error {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("reading the header: %w", err)
	}
	column := map[string]int{}
	for i, h := range header {
		column[strings.TrimSpace(h)] = i
	}
	for _, w := range want {
		if _, ok := column[w]; !ok {
			return fmt.Errorf("no column %q in the header %v", w, header)
		}
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := row(fields{row: rec, column: column, line: line}); err != nil {
			return err
		}
	}
}
