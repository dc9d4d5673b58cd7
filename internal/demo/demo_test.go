package demo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/test/bins"
)

// crds are the repository's CRDs, from this package's directory.
var crds = filepath.Join("..", "..", DefaultCRDs)

// runDemo runs the demo and checks that it cleaned up after itself: every process it started is
// gone and its work dir removed.
func runDemo(t *testing.T, o Options) (*Result, string, error) {
	t.Helper()
	var out bytes.Buffer
	o.Out = &out
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Run(ctx, o)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the demo's output:\n%s", out.String())
		}
	})
	if want := 4; len(res.PIDs) != want {
		t.Errorf("the demo reports %d processes started (%v), want %d: etcd, kube-apiserver, kwok, the scheduler", len(res.PIDs), res.PIDs, want)
	}
	for _, pid := range res.PIDs {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after the demo (kill -0: %v)", pid, err)
		}
	}
	if res.WorkDir == "" {
		t.Error("the demo reports no work dir")
	} else if _, err := os.Stat(res.WorkDir); !os.IsNotExist(err) {
		t.Errorf("work dir %s still there after the demo (stat: %v)", res.WorkDir, err)
	}
	return res, out.String(), err
}

func section(t *testing.T, res *Result, name string) *Section {
	t.Helper()
	for _, s := range res.Sections {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no %s section in the result", name)
	return nil
}

// classes lists pods by priority and QoS class, sorted, to compare outcomes whatever the names.
func classes(pods []v1.Pod) []string {
	out := make([]string, len(pods))
	for i := range pods {
		out[i] = rankText(&pods[i])
	}
	sort.Strings(out)
	return out
}

// The QoS scenario runs with the profile berth-scheduler can serve today.
func TestQoS(t *testing.T) {
	res, out, err := runDemo(t, Options{
		BinDir:    bins.Dir(t, "etcd", "kube-apiserver", DefaultKwok, DefaultScheduler),
		CRDs:      crds,
		Scenarios: []string{"qos"},
		SVG:       filepath.Join(t.TempDir(), "gpus.svg"),
	})
	if err != nil {
		t.Fatalf("demo failed: %v", err)
	}
	s := section(t, res, "qos")
	for _, c := range s.Checks {
		if !c.OK {
			t.Errorf("expectation failed: %s: %s", c.Expected, c.Got)
		}
	}
	bound, waiting := split(s.Pods)
	wantBound := []string{"priority 0, Burstable", "priority 0, Guaranteed", "priority 0, Guaranteed", "priority 1000, BestEffort"}
	if diff := cmp.Diff(wantBound, classes(bound)); diff != "" {
		t.Errorf("bound pods (-want +got):\n%s", diff)
	}
	wantWaiting := []string{"priority 0, BestEffort", "priority 0, BestEffort", "priority 0, Burstable"}
	if diff := cmp.Diff(wantWaiting, classes(waiting)); diff != "" {
		t.Errorf("waiting pods (-want +got):\n%s", diff)
	}
	for i := range waiting {
		c := unschedulable(&waiting[i])
		if c == nil || !strings.Contains(c.Message, "Too many pods") {
			t.Errorf("waiting pod %s: condition %+v, want Unschedulable for too many pods", waiting[i].Name, c)
			continue
		}
		// The report quotes the scheduler's reason for each waiting pod.
		if !strings.Contains(out, waiting[i].Name+": "+c.Message) {
			t.Errorf("the report does not give %s's reason %q", waiting[i].Name, c.Message)
		}
	}
	// kwok runs the bound pods.
	for _, want := range []string{"urgent", "qos-node", "Running", "got it", "berth did what it promises in every scenario"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not mention %q", want)
		}
	}
	if res.SVG != "" {
		t.Errorf("a picture was drawn (%s) though no GPU scenario ran", res.SVG)
	}
}

// A bad option fails before anything is started.
func TestBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"unknown scenario": {BinDir: bins.Dir(t, "etcd", "kube-apiserver", DefaultKwok, DefaultScheduler), Scenarios: []string{"qos", "nope"}},
		"missing binary":   {BinDir: t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			o.Out = &out
			res, err := Run(context.Background(), o)
			if err == nil {
				t.Fatal("Run succeeded")
			}
			if len(res.PIDs) != 0 || res.WorkDir != "" {
				t.Errorf("Run started something: %+v", res)
			}
		})
	}
}

// TestDemo is the whole demo, as `make demo` runs it.
func TestDemo(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "gpus.svg")
	topoSVG := filepath.Join(t.TempDir(), "topology.svg")
	res, out, err := runDemo(t, Options{
		BinDir:      bins.Dir(t, "etcd", "kube-apiserver", DefaultKwok, DefaultScheduler),
		CRDs:        crds,
		SVG:         svg,
		TopologySVG: topoSVG,
	})
	switch {
	case errors.Is(err, ErrContradicted):
		t.Errorf("demo: %v", err) // each one is reported below
	case err != nil:
		t.Fatalf("demo failed: %v", err)
	}
	if diff := cmp.Diff(ScenarioNames(), sectionNames(res)); diff != "" {
		t.Errorf("scenarios run (-want +got):\n%s", diff)
	}
	for _, s := range res.Sections {
		for _, c := range s.Checks {
			if !c.OK {
				t.Errorf("%s: expectation failed: %s: %s", s.Name, c.Expected, c.Got)
			}
		}
	}

	t.Run("gpus", func(t *testing.T) {
		s := section(t, res, "gpus")
		bound, waiting := split(s.Pods)
		if len(bound) == 0 || len(waiting) == 0 {
			t.Fatalf("%d bound and %d waiting: the scenario should show both", len(bound), len(waiting))
		}
		finished := 0
		for i := range bound {
			p := &bound[i]
			if p.Status.Phase == v1.PodSucceeded {
				finished++
				continue
			}
			if p.Status.Phase != v1.PodRunning {
				t.Errorf("bound pod %s is %s, want Running (kwok runs it)", p.Name, p.Status.Phase)
			}
			if _, err := gpu.ParseAssignment(p.Annotations[gpu.PodGPUDevicesAnnotation]); err != nil {
				t.Errorf("bound pod %s: %s: %v", p.Name, gpu.PodGPUDevicesAnnotation, err)
				continue
			}
			// Its share of each GPU, as kubectl berth gpus prints it.
			if !strings.Contains(out, "gpus/"+p.Name+" (") {
				t.Errorf("the report does not show %s on its GPUs", p.Name)
			}
		}
		if finished == 0 {
			t.Error("no pod finished: the scenario should show memory given back")
		}
		if p := podNamed(s.Pods, nextPod); p == nil || p.Spec.NodeName != reuseNode {
			t.Errorf("%s should be placed on %s once %s finished: %+v", nextPod, reuseNode, batchPod, p)
		}
		if p := podNamed(s.Pods, "giant-32"); p == nil || p.Spec.NodeName != "" || unschedulable(p) == nil {
			t.Errorf("giant-32 asks for more than any GPU holds and should be unschedulable: %+v", p)
		}
		picture, err := os.ReadFile(svg)
		if err != nil {
			t.Fatalf("the picture: %v", err)
		}
		if res.SVG != svg || !strings.Contains(out, svg) {
			t.Errorf("the report should say where the picture is (%s); result says %q", svg, res.SVG)
		}
		for _, want := range []string{"<svg", "gpu-a", "gpu-b", "gpu-mixed", reuseNode, "train-2x8", batchPod} {
			if !bytes.Contains(picture, []byte(want)) {
				t.Errorf("the picture does not show %q", want)
			}
		}
	})

	t.Run("gangs", func(t *testing.T) {
		s := section(t, res, "gangs")
		byGroup := map[string][2]int{} // bound, waiting
		for i := range s.Pods {
			key, _ := podgroup.APIKeyOf(&s.Pods[i])
			g := key.Name
			n := byGroup[g]
			if s.Pods[i].Spec.NodeName != "" {
				n[0]++
			} else {
				n[1]++
			}
			byGroup[g] = n
		}
		want := map[string][2]int{fitting.name: {3, 0}, tooBig.name: {0, 4}, nativeName: {2, 0}}
		if diff := cmp.Diff(want, byGroup); diff != "" {
			t.Errorf("pods bound and waiting per gang (-want +got):\n%s", diff)
		}
		if !strings.Contains(out, "kubectl berth gangs") || !strings.Contains(out, "MINMEMBER") || !strings.Contains(out, nativeName+" ") {
			t.Errorf("the report does not show the PodGroups of both APIs as kubectl berth gangs does")
		}
		if !strings.Contains(out, "kubectl berth why -n gangs too-big-") || !strings.Contains(out, "is pending: Gang (berth)") {
			t.Errorf("the report does not show kubectl berth why for a member of the gang held back")
		}
		// The expectations about the gangs' lives ran (their results are checked above).
		if n := len(s.Checks); n != 7 {
			t.Errorf("%d expectations about the gangs, want 7: placed whole, the native group placed whole, held back whole, why it is held, Running then Finished for each kind, the second placed and finished", n)
		}
	})
	t.Run("topology", func(t *testing.T) {
		s := section(t, res, "topology")
		// Each group's pods, by the rack (block/rack) of the node the API shows them on.
		racks := map[string]string{}
		for _, n := range topoNodes() {
			racks[n.Name] = rackOf(&n)
		}
		in := map[string]map[string]int{}
		for i := range s.Pods {
			g := s.Pods[i].Labels[v1alpha1.PodGroupLabel]
			if in[g] == nil {
				in[g] = map[string]int{}
			}
			in[g][orNone(racks[s.Pods[i].Spec.NodeName])]++
		}
		for _, g := range topoGroups {
			if len(in[g.name]) != 1 || in[g.name]["<none>"] != 0 {
				t.Errorf("group %s: pods per rack %v, want all %d in one rack", g.name, in[g.name], g.members)
			}
		}
		if len(in) != len(topoGroups) {
			t.Errorf("pods of %d groups, want %d: %v", len(in), len(topoGroups), in)
		}
		if n := len(s.Checks); n != len(topoGroups) {
			t.Errorf("%d expectations about the groups, want one per group (%d)", n, len(topoGroups))
		}
		if !strings.Contains(out, "TOPOLOGY") || !strings.Contains(out, "berth.dev/rack=/b") {
			t.Errorf("the report does not show the groups' racks as kubectl berth gangs does")
		}
		picture, err := os.ReadFile(topoSVG)
		if err != nil {
			t.Fatalf("the picture: %v", err)
		}
		if res.TopologySVG != topoSVG || !strings.Contains(out, topoSVG) {
			t.Errorf("the report should say where the picture is (%s); result says %q", topoSVG, res.TopologySVG)
		}
		for _, want := range []string{"rack b1/r1", "rack b2/r2", "allreduce-0", "eval-3"} {
			if !bytes.Contains(picture, []byte(want)) {
				t.Errorf("the picture does not show %q", want)
			}
		}
	})
}

func sectionNames(res *Result) []string {
	var n []string
	for _, s := range res.Sections {
		n = append(n, s.Name)
	}
	return n
}
