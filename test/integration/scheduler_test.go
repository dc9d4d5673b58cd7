package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/test/harness"
)

func pod(ns, name, scheduler string, containers ...v1.Container) *v1.Pod {
	if len(containers) == 0 {
		containers = []v1.Container{harness.Container("c", "100m", "64Mi")}
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1.PodSpec{SchedulerName: scheduler, Containers: containers},
	}
}

// A berth profile with its own schedulerName binds the pods that name it and leaves every other
// pod to its own scheduler.
func TestSecondSchedulerLeavesOtherPodsAlone(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	ns := c.Namespace(t, "second")
	c.StartScheduler(t, c.SchedulerConfig(harness.BerthProfile("berth-scheduler", ""), ""))

	c.CreatePod(t, pod(ns, "unnamed", ""))
	c.CreatePod(t, pod(ns, "other", "other-scheduler"))
	c.CreatePod(t, pod(ns, "berth-1", "berth-scheduler"))
	c.WaitForPods(t, ns, time.Minute, "berth-1 bound", func(pods []v1.Pod) bool { return nodeOf(pods, "berth-1") != "" })
	// A second berth pod created after the others proves the scheduler went past them.
	c.CreatePod(t, pod(ns, "berth-2", "berth-scheduler"))
	pods := c.WaitForPods(t, ns, time.Minute, "berth-2 bound", func(pods []v1.Pod) bool { return nodeOf(pods, "berth-2") != "" })
	for _, name := range []string{"unnamed", "other"} {
		if n := nodeOf(pods, name); n != "" {
			t.Errorf("pod %s, not berth's, was bound to %s", name, n)
		}
	}
	events, err := c.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.InvolvedObject.Name == "unnamed" || e.InvolvedObject.Name == "other" {
			t.Errorf("berth touched %s: event %s %q", e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
}

// As the default-scheduler profile, berth binds pods that name no scheduler.
func TestDefaultProfileBindsUnnamedPods(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	ns := c.Namespace(t, "default-profile")
	c.StartScheduler(t, c.SchedulerConfig(harness.BerthProfile("default-scheduler", ""), ""))
	for i := range 3 {
		c.CreatePod(t, pod(ns, fmt.Sprintf("p%d", i), ""))
	}
	pods := c.WaitForPods(t, ns, time.Minute, "all pods bound", func(pods []v1.Pod) bool { return harness.Bound(pods) == 3 })
	for _, p := range pods {
		if p.Spec.SchedulerName != v1.DefaultSchedulerName {
			t.Errorf("pod %s: schedulerName %q, want the default filled in by the apiserver", p.Name, p.Spec.SchedulerName)
		}
	}
}

// When only one pod fits at a time, the scheduler binds them in QOSSort's order: priority first,
// then Guaranteed, Burstable, BestEffort. Each round starts a scheduler with every pending pod in
// its queue and one free slot, so the pod that gets the slot is the one the queue put first.
func TestQOSSortOrderWhenCapacityIsShort(t *testing.T) {
	c := harness.StartCluster(t)
	ctx := context.Background()
	ns := c.Namespace(t, "qos")
	if _, err := c.Client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	node := harness.Node("node-a", "64", "256Gi", nil)
	node.Status.Allocatable[v1.ResourcePods] = resource.MustParse("0")
	c.CreateNode(t, node)

	req := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	// Created in the reverse of the order berth must bind them.
	bestEffort := pod(ns, "best-effort", "", v1.Container{Name: "c", Image: "pause"})
	c.CreatePod(t, bestEffort)
	burstable := pod(ns, "burstable", "", v1.Container{Name: "c", Image: "pause", Resources: v1.ResourceRequirements{Requests: req}})
	c.CreatePod(t, burstable)
	c.CreatePod(t, pod(ns, "guaranteed", "", harness.Container("c", "1", "1Gi")))
	high := pod(ns, "best-effort-high-priority", "", v1.Container{Name: "c", Image: "pause"})
	high.Spec.PriorityClassName = "high"
	c.CreatePod(t, high)

	want := []string{"best-effort-high-priority", "guaranteed", "burstable", "best-effort"}
	for round, name := range want {
		setPodSlots(t, c, "node-a", round+1)
		stop := c.StartScheduler(t, c.SchedulerConfig(harness.BerthProfile("default-scheduler", ""), ""))
		pods := c.WaitForPods(t, ns, time.Minute, fmt.Sprintf("%d pods bound", round+1),
			func(pods []v1.Pod) bool { return harness.Bound(pods) == round+1 })
		stop()
		if nodeOf(pods, name) == "" {
			t.Fatalf("round %d: want %s bound next; bound so far: %v", round+1, name, boundNames(pods))
		}
	}
}

func setPodSlots(t *testing.T, c *harness.Cluster, node string, slots int) {
	t.Helper()
	ctx := context.Background()
	n, err := c.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Allocatable[v1.ResourcePods] = *resource.NewQuantity(int64(slots), resource.DecimalSI)
	n.Status.Capacity[v1.ResourcePods] = *resource.NewQuantity(int64(slots), resource.DecimalSI)
	if _, err := c.Client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A bad pluginConfig stops the scheduler at start-up, and the error names the args kind and the
// field, the way kube-scheduler reports its own plugins' args.
func TestBadPluginConfigFailsStartUp(t *testing.T) {
	c := harness.StartCluster(t)
	tests := []struct {
		name, args string
		want       []string
	}{
		{
			name: "unknown field",
			args: "- name: GPUShare\n  args:\n    memoryResorce: example.com/gpu-mem\n",
			want: []string{"GPUShare", "unknown field", "memoryResorce"},
		},
		{
			name: "wrong type",
			args: "- name: Gang\n  args:\n    defaultScheduleTimeoutSeconds: soon\n",
			want: []string{"Gang", "defaultScheduleTimeoutSeconds"},
		},
		{
			name: "unsupported scoring strategy",
			args: "- name: GPUShare\n  args:\n    scoringStrategy: Random\n",
			want: []string{"GPUShare", "scoringStrategy", "Random", "Binpack"},
		},
		{
			name: "unsupported scoring of pods without GPU",
			args: "- name: GPUShare\n  args:\n    noGPUPodScoring: Always\n",
			want: []string{"GPUShare", "noGPUPodScoring", "Always", "LeastGPUHarm"},
		},
		{
			name: "timeout out of range",
			args: "- name: Gang\n  args:\n    defaultScheduleTimeoutSeconds: 0\n",
			want: []string{"Gang", "defaultScheduleTimeoutSeconds", "between 1 and 900"},
		},
		{
			name: "not an extended resource",
			args: "- name: GPUShare\n  args:\n    memoryResource: memory\n",
			want: []string{"GPUShare", "memoryResource", "extended resource"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failsStartUp(t, c, c.SchedulerConfig(harness.BerthProfile("berth-scheduler", "pluginConfig:\n"+tt.args), ""), tt.want...)
		})
	}
}

// A profile in which another binder would bind GPU pods before GPUShare (which binds them together
// with their devices) is refused at start-up, with a message that says how to fix it.
func TestBinderBeforeGPUShareFailsStartUp(t *testing.T) {
	c := harness.StartCluster(t)
	config := c.SchedulerConfig(`- schedulerName: berth-scheduler
  plugins:
    multiPoint:
      enabled: [{name: GPUShare}]
`, "")
	err := failsStartUp(t, c, config, "berth-scheduler", "[DefaultBinder GPUShare]", "GPUShare must run first", "bind: {enabled: [{name: GPUShare}]}")
	if !strings.Contains(err.Error(), `profile "berth-scheduler"`) {
		t.Errorf("error %q does not name the profile", err)
	}
}

// failsStartUp checks that a scheduler with config refuses to start, in-process and as the
// berth-scheduler binary users run (which must exit non-zero), each saying every one of want. It
// returns the in-process error.
func failsStartUp(t *testing.T, c *harness.Cluster, config string, want ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, err := harness.SetupScheduler(ctx, t, config)
	if err == nil {
		t.Fatal("the scheduler started with a bad configuration")
	}
	out := runBinary(t, c, config)
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
		if !strings.Contains(out, w) {
			t.Errorf("berth-scheduler output does not mention %q:\n%s", w, out)
		}
	}
	return err
}

// runBinary runs bin/berth-scheduler with config until it exits, which it must do by itself.
func runBinary(t *testing.T, c *harness.Cluster, config string) string {
	t.Helper()
	bin := filepath.Join(harness.BinDir(t, "berth-scheduler"), "berth-scheduler")
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config", path, "--secure-port", "0")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("berth-scheduler kept running with a bad config:\n%s", out)
	}
	if err == nil {
		t.Fatalf("berth-scheduler exited 0 with a bad config:\n%s", out)
	}
	return string(out)
}

func TestVersion(t *testing.T) {
	bin := filepath.Join(harness.BinDir(t, "berth-scheduler"), "berth-scheduler")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	// The release vendor/ holds: the Makefile's stamp (K8S_VERSION) moves with it on a bump.
	modules, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "vendor", "modules.txt"))
	if err != nil {
		t.Fatal(err)
	}
	release := ""
	for _, line := range strings.Split(string(modules), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "#" && f[1] == "k8s.io/kubernetes" {
			release = f[2]
		}
	}
	if release == "" {
		t.Fatal("vendor/modules.txt names no k8s.io/kubernetes")
	}
	if !strings.HasPrefix(string(out), "Kubernetes "+release+"+berth.") {
		t.Errorf("--version printed %q, want Kubernetes %s+berth.<commit>", out, release)
	}
}

func nodeOf(pods []v1.Pod, name string) string {
	for _, p := range pods {
		if p.Name == name {
			return p.Spec.NodeName
		}
	}
	return ""
}

func boundNames(pods []v1.Pod) []string {
	var names []string
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			names = append(names, p.Name)
		}
	}
	return names
}
