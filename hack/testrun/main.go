// Command testrun runs berth's tests side by side and ends with what a contributor needs to see:
// the failures, the slowest tests and one closing count.
//
// Packages whose tests each need a control plane (-split, test/... by default) are built once with
// `go test -c` and run one top-level test per process, so tests with process-wide state (a
// scheduler's configuration registry, metrics, berth's one-per-process caches) never share a
// process, and -workers of them run at a time. Each worker lends its tests one control plane, which
// each test empties before it starts (test/testplane). Every other package runs as one `go test` job. Jobs
// are taken longest first, by the durations of the last run (kept in the -durations file).
//
// With -soak (BERTH_SOAK=1 in every test's environment), only the tests of the split packages that
// repeat a behaviour or are soak-only run: those whose body calls harness.Tries or
// harness.SoakOnly. The rest ran in `make test` and would only run again the same way.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/test/testplane"
)

func main() {
	var (
		split     = flag.String("split", "./test/...", "packages whose top-level tests run one per process")
		workers   = flag.Int("workers", 3, "jobs at a time")
		timeout   = flag.Duration("timeout", 15*time.Minute, "limit of one job")
		soak      = flag.Bool("soak", false, "the soak run: BERTH_SOAK=1, and only the split packages' tests that repeat")
		buildArgs = flag.String("build-flags", "-mod=vendor -trimpath -race", "flags of go test's build")
		jsonOut   = flag.String("json", "", "file for every test event (go test -json)")
		durations = flag.String("durations", "", "file that keeps each job's duration, to take the longest first next time")
		seed      = flag.String("seed-durations", "", "durations to go by when the -durations file does not exist yet (a new checkout)")
		run       = flag.String("run", "", "only the tests of the split packages that match this regexp")
		slowest   = flag.Int("slowest", 15, "how many of the slowest tests to list at the end")
		list      = flag.Bool("list", false, "print the jobs, longest first, and run nothing")
		quarFile  = flag.String("quarantine", "", "file of tests whose failure is a known, open fault: reported, not counted")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: testrun [flags] packages...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || *workers < 1 {
		flag.Usage()
		os.Exit(2)
	}
	r := &runner{
		buildArgs: strings.Fields(*buildArgs),
		timeout:   *timeout,
		soak:      *soak,
		workers:   *workers,
		list:      *list,
	}
	if *quarFile != "" {
		q, err := readQuarantine(*quarFile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testrun: %v\n", err)
			os.Exit(2)
		}
		r.quarantine = q
	}
	if _, err := os.Stat(*durations); err != nil && *seed != "" {
		r.seed = *seed
	}
	if err := r.main(flag.Args(), *split, *run, *jsonOut, *durations, *slowest); err != nil {
		fmt.Fprintf(os.Stderr, "testrun: %v\n", err)
		os.Exit(1)
	}
}

type runner struct {
	buildArgs []string
	test2json string // its path: `go tool test2json` would cost a go command per job
	timeout   time.Duration
	soak      bool
	workers   int
	seed      string // durations to go by before this checkout has its own
	list      bool
	// quarantine holds, by test name, why the test's failure is a known open fault.
	quarantine map[string]string

	mu      sync.Mutex
	results []result
	events  *os.File
	// cpu is each job's user and system CPU seconds, its children's included (the test binary
	// under go test, berth's binaries a test runs): on two cores the run's length is set by the
	// CPU its jobs use, not by their wall time. totalCPU adds the shared control planes'.
	cpu      map[string]float64
	totalCPU float64
	// ownPlanes counts the split tests that could not take their worker's shared control plane
	// and started their own: they pass, but the run costs more than it should.
	ownPlanes int
}

// pkg is a package with tests.
type pkg struct {
	ImportPath string
	Dir        string
	Name       string
}

// job is one process: a split package's top-level test, or a whole package.
type job struct {
	pkg  pkg
	test string // empty: the whole package
	bin  string // the split package's test binary
}

func (j job) key() string {
	if j.test == "" {
		return j.pkg.ImportPath
	}
	return j.pkg.ImportPath + "." + j.test
}

// result is a top-level test's or a package's outcome as test2json reported it.
type result struct {
	pkg, test string
	action    string // pass, fail or skip
	elapsed   float64
	output    []string // a failed test's lines
}

func (r *runner) main(patterns []string, split, run, jsonOut, durationsFile string, slowest int) error {
	all, err := listPackages(patterns)
	if err != nil {
		return err
	}
	splitPkgs, err := listPackages([]string{split})
	if err != nil {
		return err
	}
	isSplit := map[string]bool{}
	for _, p := range splitPkgs {
		isSplit[p.ImportPath] = true
	}
	var runRe *regexp.Regexp
	if run != "" {
		if runRe, err = regexp.Compile(run); err != nil {
			return fmt.Errorf("-run: %w", err)
		}
	}
	binDir, err := os.MkdirTemp("", "berth-testrun-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(binDir)

	var jobs []job
	var toBuild []pkg
	for _, p := range all {
		if !isSplit[p.ImportPath] {
			if !r.soak && runRe == nil {
				jobs = append(jobs, job{pkg: p})
			}
			continue
		}
		tests, err := topLevelTests(p.Dir, r.soak)
		if err != nil {
			return err
		}
		bin := filepath.Join(binDir, p.Name+".test")
		n := 0
		for _, t := range tests {
			if runRe == nil || runRe.MatchString(t) {
				jobs = append(jobs, job{pkg: p, test: t, bin: bin})
				n++
			}
		}
		if n > 0 {
			toBuild = append(toBuild, p)
		}
	}
	if len(jobs) == 0 {
		return errors.New("no test to run")
	}
	last := readDurations(durationsFile)
	if r.seed != "" {
		last = readDurations(r.seed)
	}
	// Longest first, so that the last job to start is a short one; never-seen jobs (new tests)
	// count as long, and split tests before whole packages when nothing is known.
	sort.SliceStable(jobs, func(a, b int) bool {
		da, oka := last[jobs[a].key()]
		db, okb := last[jobs[b].key()]
		if oka != okb {
			return !oka
		}
		if oka && da != db {
			return da > db
		}
		return jobs[a].test != "" && jobs[b].test == ""
	})
	if r.list {
		for _, j := range jobs {
			fmt.Printf("%6.0fs %s\n", last[j.key()], j.key())
		}
		return nil
	}
	if err := r.build(toBuild, binDir); err != nil {
		return err
	}
	if len(toBuild) > 0 {
		out, err := exec.Command("go", "tool", "-n", "test2json").Output()
		if err != nil {
			return fmt.Errorf("go tool -n test2json: %w", err)
		}
		r.test2json = strings.TrimSpace(string(out))
	}

	if jsonOut != "" {
		if r.events, err = os.Create(jsonOut); err != nil {
			return err
		}
		defer r.events.Close()
	}
	start := time.Now()
	took := r.runAll(jobs, binDir)
	wall := time.Since(start)

	if durationsFile != "" {
		for k, v := range took {
			last[k] = v
		}
		writeDurations(durationsFile, last)
	}
	return r.report(wall, slowest)
}

// listPackages lists the packages matching patterns that have tests.
func listPackages(patterns []string) ([]pkg, error) {
	args := append([]string{"list", "-mod=vendor", "-e", "-f",
		`{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}} {{.Name}}{{end}}`}, patterns...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), err)
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			pkgs = append(pkgs, pkg{ImportPath: f[0], Dir: f[1], Name: f[2]})
		}
	}
	return pkgs, nil
}

// topLevelTests lists the Test functions of the package in dir: with soakOnly, those that call
// harness.Tries or harness.SoakOnly, themselves or through the package's own functions; without,
// all but those that call harness.SoakOnly.
func topLevelTests(dir string, soakOnly bool) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{}
	var tests []string
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil {
				continue
			}
			funcs[fn.Name.Name] = fn
			if isTestName(fn.Name.Name) {
				tests = append(tests, fn.Name.Name)
			}
		}
	}
	// make test leaves out what only skips there: no process to start, and a package whose tests
	// all run in the soak run only (test/bench, the benchmark harness) is not even built.
	if soakOnly {
		soaks := callers(funcs, "Tries", "SoakOnly")
		tests = slices.DeleteFunc(tests, func(name string) bool { return !soaks[name] })
	} else {
		skipped := callers(funcs, "SoakOnly")
		tests = slices.DeleteFunc(tests, func(name string) bool { return skipped[name] })
	}
	sort.Strings(tests)
	return tests, nil
}

func isTestName(name string) bool {
	if !strings.HasPrefix(name, "Test") || name == "TestMain" {
		return false
	}
	rest := name[len("Test"):]
	return rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')
}

// callers are the functions that call one of the harness functions named, or a function of the
// package that does (by name: a package's top-level functions have one name each).
func callers(funcs map[string]*ast.FuncDecl, harnessFuncs ...string) map[string]bool {
	soaks := map[string]bool{}
	calls := map[string][]string{}
	for name, fn := range funcs {
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "harness" && slices.Contains(harnessFuncs, n.Sel.Name) {
					soaks[name] = true
				}
			case *ast.Ident:
				if _, ok := funcs[n.Name]; ok && n.Name != name {
					calls[name] = append(calls[name], n.Name)
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for name, callees := range calls {
			if soaks[name] {
				continue
			}
			for _, c := range callees {
				if soaks[c] {
					soaks[name], changed = true, true
					break
				}
			}
		}
	}
	return soaks
}

// build compiles each split package's test binary once, in one go command so it builds in parallel.
func (r *runner) build(pkgs []pkg, dir string) error {
	if len(pkgs) == 0 {
		return nil
	}
	start := time.Now()
	args := append([]string{"test", "-c", "-o", dir + string(filepath.Separator)}, r.buildArgs...)
	for _, p := range pkgs {
		args = append(args, p.ImportPath)
	}
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building test binaries: %w", err)
	}
	fmt.Printf("built %d test binaries in %.0fs\n", len(pkgs), time.Since(start).Seconds())
	return nil
}

// runAll runs the jobs, r.workers at a time, and returns each job's wall time; each job's CPU goes
// to r.cpu, and the whole run's (the shared control planes' included) to r.totalCPU.
func (r *runner) runAll(jobs []job, tmp string) map[string]float64 {
	took := map[string]float64{}
	r.cpu = map[string]float64{}
	before := childrenCPU()
	var mu sync.Mutex
	next := make(chan job)
	var wg sync.WaitGroup
	for w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plane := &sharedPlane{dir: filepath.Join(tmp, fmt.Sprintf("control-plane-%d", w))}
			defer plane.stop()
			for j := range next {
				start := time.Now()
				cpu := r.runJob(j, plane)
				mu.Lock()
				took[j.key()] = time.Since(start).Seconds()
				r.cpu[j.key()] = cpu
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	r.totalCPU = childrenCPU() - before
	return took
}

// sharedPlane is the control plane a worker shares among the split tests it runs one after another
// (test/testplane): started for the first, emptied by each test before it starts. Without it
// each test started its own, about 4 CPU seconds each.
type sharedPlane struct {
	dir     string
	cp      *controlplane.ControlPlane
	started bool
}

// env names the worker's control plane for a split job's environment, starting it for the first;
// none if the binaries are not built or it did not start (each test then starts its own).
func (p *sharedPlane) env() []string {
	if !p.started {
		p.started = true
		binDir := os.Getenv("BERTH_BIN_DIR")
		if _, err := os.Stat(filepath.Join(binDir, "kube-apiserver")); binDir == "" || err != nil {
			return nil
		}
		cp, err := testplane.StartShared(context.Background(), binDir, p.dir, nil)
		if err != nil {
			fmt.Printf("testrun: a shared control plane did not start, so this worker's tests start their own: %v\n", err)
			return nil
		}
		p.cp = cp
	}
	if p.cp == nil {
		return nil
	}
	return []string{testplane.Env + "=" + p.dir}
}

func (p *sharedPlane) stop() {
	if p.cp != nil {
		p.cp.Stop()
	}
}

// childrenCPU is the user and system CPU seconds of this process's children that have ended.
func childrenCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// runJob runs j and returns the CPU seconds it took. A split test gets the worker's shared control
// plane.
func (r *runner) runJob(j job, plane *sharedPlane) (cpu float64) {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout+time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if j.test == "" {
		args := append([]string{"test", "-json", "-count=1", "-timeout", r.timeout.String()}, r.buildArgs...)
		cmd = exec.CommandContext(ctx, "go", append(args, j.pkg.ImportPath)...)
	} else {
		cmd = exec.CommandContext(ctx, r.test2json, "-t", "-p", j.pkg.ImportPath, j.bin,
			"-test.v=test2json", "-test.run=^"+j.test+"$", "-test.count=1", "-test.timeout="+r.timeout.String())
		cmd.Dir = j.pkg.Dir
	}
	cmd.Env = append(os.Environ(), raceEnv(os.Getenv("GORACE")))
	if j.test != "" {
		cmd.Env = append(cmd.Env, plane.env()...)
	}
	if r.soak {
		cmd.Env = append(cmd.Env, "BERTH_SOAK=1")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		r.fail(j, err.Error())
		return
	}
	if err := cmd.Start(); err != nil {
		r.fail(j, err.Error())
		return
	}
	failed := r.read(j, stdout)
	err = cmd.Wait()
	if ps := cmd.ProcessState; ps != nil {
		// Linux counts in a process's rusage the children it waited for, and their children.
		cpu = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	if err != nil && !failed {
		// Nothing reported a failure, yet the process failed: a build error, a crash outside a
		// test, the job's time limit.
		r.fail(j, fmt.Sprintf("%v\n%s", err, stderr.String()))
	}
	return cpu
}

// raceEnv is GORACE for every test process: the race detector's runtime sleeps a second before a
// process exits (atexit_sleep_ms, for goroutines still running to report), which was 1.2 s of
// each of some 150 processes' 1.6 s of start and end. A race is still reported where it happens;
// only one in a goroutine still running after the test has ended could go unseen. A GORACE that
// sets it already is left as it is.
func raceEnv(gorace string) string {
	if strings.Contains(gorace, "atexit_sleep_ms") {
		return "GORACE=" + gorace
	}
	return "GORACE=" + strings.TrimSpace(gorace+" atexit_sleep_ms=0")
}

// read consumes test2json events, keeps the top-level outcomes, and reports whether any of them
// (or the package) failed.
func (r *runner) read(j job, stdout interface{ Read([]byte) (int, error) }) (failed bool) {
	type event struct {
		Action  string
		Package string
		Test    string
		Elapsed float64
		Output  string
	}
	outputs := map[string][]string{}
	ownPlane := false
	defer func() {
		if ownPlane {
			r.mu.Lock()
			r.ownPlanes++
			r.mu.Unlock()
		}
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		r.mu.Lock()
		if r.events != nil {
			r.events.Write(line)
			r.events.Write([]byte{'\n'})
		}
		r.mu.Unlock()
		var e event
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		top := e.Test
		if i := strings.IndexByte(top, '/'); i >= 0 {
			top = top[:i]
		}
		switch e.Action {
		case "output", "build-output":
			outputs[top] = append(outputs[top], e.Output)
			ownPlane = ownPlane || j.test != "" && strings.Contains(e.Output, testplane.Unusable)
		case "pass", "fail", "skip":
			if e.Test != top {
				continue
			}
			res := result{pkg: e.Package, test: e.Test, action: e.Action, elapsed: e.Elapsed}
			if e.Action == "fail" {
				res.output = outputs[top]
			}
			if e.Test == "" && j.test != "" {
				// A split job's package line: only news when no test failed, as when the
				// binary timed out or crashed outside a test; then it is this test's failure.
				if e.Action != "fail" || failed {
					continue
				}
				res.test, res.output = j.test, append(outputs[j.test], outputs[""]...)
			}
			if e.Action == "fail" {
				failed = true
			}
			r.record(res, j.test != "")
		}
	}
	return failed
}

func (r *runner) fail(j job, msg string) {
	r.record(result{pkg: j.pkg.ImportPath, test: j.test, action: "fail", output: []string{msg}}, j.test != "")
}

// record keeps a result and prints it: every failure, a whole package's outcome, a split test's.
func (r *runner) record(res result, split bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, res)
	name := res.pkg
	if res.test != "" {
		name += " " + res.test
	}
	if res.action == "fail" {
		fmt.Printf("--- FAIL %s (%.1fs)\n", name, res.elapsed)
		for _, l := range res.output {
			fmt.Print("    ", l)
			if !strings.HasSuffix(l, "\n") {
				fmt.Println()
			}
		}
		return
	}
	if split == (res.test != "") {
		fmt.Printf("%-4s %s (%.1fs)\n", res.action, name, res.elapsed)
	}
}

// report prints the failures again, the slowest tests and the closing count; it fails when a test
// or package failed.
func (r *runner) report(wall time.Duration, slowest int) error {
	var passed, failed, skipped int
	var tests, failures []result
	testFailed := map[string]bool{}
	for _, res := range r.results {
		if res.test != "" && res.action == "fail" {
			testFailed[res.pkg] = true
		}
	}
	var quarantined []result
	for _, res := range r.results {
		if res.test == "" {
			// A package that failed with no failed test: it did not build, or crashed.
			if res.action == "fail" && !testFailed[res.pkg] {
				failed++
				failures = append(failures, res)
			}
			continue
		}
		tests = append(tests, res)
		switch {
		case res.action == "fail" && r.quarantine[res.test] != "":
			quarantined = append(quarantined, res)
		case res.action == "pass":
			passed++
		case res.action == "fail":
			failed++
			failures = append(failures, res)
		case res.action == "skip":
			skipped++
		}
	}
	sort.Slice(tests, func(a, b int) bool { return tests[a].elapsed > tests[b].elapsed })
	fmt.Printf("\nthe %d slowest tests:\n", min(slowest, len(tests)))
	for _, t := range tests[:min(slowest, len(tests))] {
		fmt.Printf("  %7.1fs  %s %s\n", t.elapsed, strings.TrimPrefix(t.pkg, "github.com/berth-sched/berth/"), t.test)
	}
	jobs := slices.Collect(maps.Keys(r.cpu))
	sort.Slice(jobs, func(a, b int) bool { return r.cpu[jobs[a]] > r.cpu[jobs[b]] })
	var inJobs float64
	for _, j := range jobs {
		inJobs += r.cpu[j]
	}
	fmt.Printf("\nthe %d jobs that used the most CPU (user+sys, their processes' children included):\n", min(slowest, len(jobs)))
	for _, j := range jobs[:min(slowest, len(jobs))] {
		fmt.Printf("  %7.1fs  %s\n", r.cpu[j], strings.TrimPrefix(j, "github.com/berth-sched/berth/"))
	}
	fmt.Printf("\nwall time %s, CPU %.0fs (%.0fs in the jobs, %.0fs in the shared control planes)\n",
		wall.Round(time.Second), r.totalCPU, inJobs, r.totalCPU-inJobs)
	if r.ownPlanes > 0 {
		fmt.Printf("%d tests could not take their worker's shared control plane and started their own (their logs say why)\n", r.ownPlanes)
	}
	if len(failures) > 0 {
		fmt.Println("failed:")
		for _, f := range failures {
			fmt.Printf("  %s %s\n", f.pkg, f.test)
		}
	}
	for _, q := range quarantined {
		fmt.Printf("quarantined, failed as known (not counted): %s %s: %s\n", q.pkg, q.test, r.quarantine[q.test])
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if len(failures) > 0 {
		return fmt.Errorf("%d failed", len(failures))
	}
	return nil
}

// readQuarantine reads lines "TestName why", # comments and blank lines ignored.
func readQuarantine(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	q := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, _ := strings.Cut(line, " ")
		if !isTestName(name) || strings.TrimSpace(why) == "" {
			return nil, fmt.Errorf("%s: %q: want a test's name and why it is quarantined", path, line)
		}
		q[name] = strings.TrimSpace(why)
	}
	return q, nil
}

func readDurations(path string) map[string]float64 {
	d := map[string]float64{}
	if path == "" {
		return d
	}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &d)
	}
	return d
}

func writeDurations(path string, d map[string]float64) {
	b, err := json.MarshalIndent(d, "", " ")
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testrun: keeping durations: %v\n", err)
	}
}
