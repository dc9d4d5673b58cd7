package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/cmd/kubectl-berth/app"
	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/pkg/why"
	"github.com/berth-sched/berth/test/harness"
)

// kubectlBerth runs `kubectl berth args...` in this process against the cluster.
func kubectlBerth(t *testing.T, c *harness.Cluster, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := app.NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	cmd.SetArgs(append([]string{"--kubeconfig", c.KubeconfigPath()}, args...))
	err := cmd.Execute()
	if errOut.Len() > 0 {
		t.Logf("kubectl berth %s: stderr: %s", strings.Join(args, " "), errOut.String())
	}
	return out.String(), err
}

func mustKubectlBerth(t *testing.T, c *harness.Cluster, args ...string) string {
	t.Helper()
	out, err := kubectlBerth(t, c, args...)
	if err != nil {
		t.Fatalf("kubectl berth %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// rowsOf splits a table into rows of fields.
func rowsOf(table string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows = append(rows, f)
		}
	}
	return rows
}

// hasRow reports whether some row of table starts with the given fields.
func hasRow(table string, fields ...string) bool {
	for _, r := range rowsOf(table) {
		if len(r) >= len(fields) && strings.Join(r[:len(fields)], " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

// kubectl berth shows what berth and the gpushare extender recorded on a real cluster: GPUs with
// the pods sharing them, gangs with their phase and why members wait, quotas with what is
// borrowed. The scheduler places the pods; the command reads only the API.
func TestKubectlBerth(t *testing.T) {
	c := harness.StartCluster(t)
	groups, err := pgclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := c.Namespace(t, "inspect")
	c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	c.CreateNode(t, harness.GPUNode("gpu-legacy", 1, 8))

	// Placed by the gpushare extender before berth came: only its annotations.
	legacy := harness.GPUPod(ns, "legacy", 6)
	legacy.Spec.NodeName = "gpu-legacy"
	legacy.Annotations = map[string]string{"ALIYUN_COM_GPU_MEM_IDX": "0", "ALIYUN_COM_GPU_MEM_POD": "6", "ALIYUN_COM_GPU_MEM_ASSIGNED": "true"}
	c.CreatePod(t, legacy)
	// Finished: its memory is free again.
	done := harness.GPUPod(ns, "done", 8)
	done.Spec.NodeName = "gpu-a"
	done.Annotations = map[string]string{"berth.dev/gpu-devices": "0:8"}
	done = c.CreatePod(t, done)
	done.Status.Phase = v1.PodSucceeded
	if _, err := c.Client.CoreV1().Pods(ns).UpdateStatus(ctx, done, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	stop := c.StartScheduler(t, berthConfig(c, ""))
	train := harness.GPUPod(ns, "train", 16)
	train.Annotations = map[string]string{"berth.dev/gpu-count": "2"}
	c.CreatePod(t, train)
	// Bound before the others come: pods that reach the scheduler together in its informer's first
	// list are queued in name order, and the two inference pods, packed onto one GPU first, would
	// leave train no two GPUs with room (1 run in 3).
	c.WaitForPods(t, ns, time.Minute, "train bound", func(pods []v1.Pod) bool { return nodeOf(pods, "train") != "" })
	c.CreatePod(t, harness.GPUPod(ns, "infer-a", 8))
	c.CreatePod(t, harness.GPUPod(ns, "infer-b", 8))
	c.CreatePod(t, harness.GPUPod(ns, "giant", 24)) // no GPU holds 24

	// Gangs: one placed, one too big to place whole, one short of members, one without PodGroup.
	for _, g := range []struct {
		name      string
		minMember int32
		pods      int
		cpu       string
	}{{"fits", 2, 2, "1"}, {"too-big", 3, 3, "20"}, {"short", 3, 2, "1"}, {"orphan", 0, 1, "1"}} {
		if g.minMember > 0 {
			pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: g.name},
				Spec: v1alpha1.PodGroupSpec{MinMember: g.minMember, ScheduleTimeoutSeconds: ptr.To[int32](5)}}
			if _, err := groups.SchedulingV1alpha1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range g.pods {
			p := pod(ns, fmt.Sprintf("%s-%d", g.name, i), "", harness.Container("c", g.cpu, "64Mi"))
			p.Labels = map[string]string{v1alpha1.PodGroupLabel: g.name}
			c.CreatePod(t, p)
		}
	}

	pods := c.WaitForPods(t, ns, 2*time.Minute, "GPU pods and the gang that fits bound, giant and too-big unschedulable", func(pods []v1.Pod) bool {
		for _, name := range []string{"train", "infer-a", "infer-b", "fits-0", "fits-1"} {
			if nodeOf(pods, name) == "" {
				return false
			}
		}
		// A gang's round can fail before every member has been tried: one rejected member is enough.
		tried := 0
		for _, name := range []string{"too-big-0", "too-big-1", "too-big-2"} {
			if nodeOf(pods, name) != "" {
				return false
			}
			if harness.Unschedulable(harness.Pod(pods, name)) != "" {
				tried++
			}
		}
		return tried > 0 && harness.Unschedulable(harness.Pod(pods, "giant")) != ""
	})

	t.Run("gpus", func(t *testing.T) {
		// What the pods' own annotations say each GPU holds, read with the test's own parser.
		want := map[string]map[int]map[string]int64{"gpu-a": {0: {}, 1: {}}, "gpu-legacy": {0: {"legacy": 6}}}
		for i := range pods {
			p := &pods[i]
			if p.Spec.NodeName == "gpu-a" && p.Status.Phase != v1.PodSucceeded {
				for idx, mem := range harness.Shares(t, p) {
					want["gpu-a"][idx][p.Name] = mem
				}
			}
		}
		var got inspect.GPUs
		if err := json.Unmarshal([]byte(mustKubectlBerth(t, c, "gpus", "-o", "json")), &got); err != nil {
			t.Fatal(err)
		}
		seen := map[string]map[int]map[string]int64{}
		for _, n := range got.Nodes {
			seen[n.Name] = map[int]map[string]int64{}
			for _, g := range n.GPUs {
				seen[n.Name][g.Index] = map[string]int64{}
				var used int64
				for _, s := range g.Pods {
					seen[n.Name][g.Index][s.Name] = s.Memory
					used += s.Memory
				}
				if g.Used != used || g.Free != g.Capacity-used {
					t.Errorf("%s GPU %d: used %d free %d of %d, but its pods hold %d", n.Name, g.Index, g.Used, g.Free, g.Capacity, used)
				}
			}
		}
		if fmt.Sprint(want) != fmt.Sprint(seen) {
			t.Errorf("pods per GPU: kubectl berth shows %v, the pods' annotations say %v", seen, want)
		}
		if want := (inspect.Usage{GPUs: 3, Capacity: 40, Used: 38, Free: 2}); got.Total != want {
			t.Errorf("total %+v, want %+v", got.Total, want)
		}
		if len(got.Problems) != 0 {
			t.Errorf("problems reported on a sound cluster: %q", got.Problems)
		}

		table := mustKubectlBerth(t, c, "gpus")
		for _, row := range [][]string{
			{"gpu-a", "0", "16/16", "0"}, {"1", "16/16", "0"}, {"total", "32/32", "0"},
			{"gpu-legacy", "0", "6/8", "2", "inspect/legacy", "(6)"},
			{"TOTAL", "3", "GPUs", "38/40", "2", "95%", "used"},
		} {
			if !hasRow(table, row...) {
				t.Errorf("the table has no row %q:\n%s", row, table)
			}
		}
		if !strings.Contains(table, "inspect/train (8)") || strings.Contains(table, "done") {
			t.Errorf("the table should show train's share of each GPU and not the finished pod:\n%s", table)
		}

		one := mustKubectlBerth(t, c, "gpus", "gpu-legacy", "-o", "wide")
		if !hasRow(one, "gpu-legacy", "0", "6/8", "2", "[###############.....]", "inspect/legacy", "(6)") || strings.Contains(one, "gpu-a") {
			t.Errorf("kubectl berth gpus gpu-legacy -o wide should show that node alone, with a bar:\n%s", one)
		}
		if _, err := kubectlBerth(t, c, "gpus", "no-such-node"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("a node that does not exist: %v, want not found", err)
		}

		// The links, once the node carries its matrix (berth.dev/gpu-topology, as nvidia-smi
		// topo -m prints it): each GPU's, and the worst among the GPUs free whole.
		matrix := "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV2\t0-7\t0\nGPU1\tNV2\t X \t0-7\t0\n"
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{"berth.dev/gpu-topology": matrix}}})
		if _, err := c.Client.CoreV1().Nodes().Patch(ctx, "gpu-a", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		var linked inspect.GPUs
		if err := json.Unmarshal([]byte(mustKubectlBerth(t, c, "gpus", "gpu-a", "-o", "json")), &linked); err != nil {
			t.Fatal(err)
		}
		if n := linked.Nodes[0]; len(n.GPUs) != 2 || fmt.Sprint(n.GPUs[0].Links) != "[{NV2 [1]}]" || n.GPUs[1].NUMA == nil || *n.GPUs[1].NUMA != 0 {
			t.Errorf("gpu-a's links: %+v", n.GPUs)
		}
		wide := mustKubectlBerth(t, c, "gpus", "gpu-a", "-o", "wide")
		if !strings.Contains(wide, "NV2 1, NUMA 0") || !strings.Contains(wide, "NV2 0, NUMA 0") || !strings.Contains(wide, "no GPU free whole") {
			t.Errorf("kubectl berth gpus gpu-a -o wide should show each GPU's link and that none is free whole:\n%s", wide)
		}
	})

	t.Run("gangs", func(t *testing.T) {
		// The phase is the PodGroup's, as Gang's status writer set it; the counts are the pods'.
		// Events reach the API a moment after the scheduler decides: wait for every reason.
		var (
			table   string
			got     inspect.Gangs
			waiting map[string]why.WaitingPod
		)
		phases := map[string]string{}
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			list, err := groups.SchedulingV1alpha1().PodGroups(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			for _, pg := range list.Items {
				phases[pg.Name] = string(pg.Status.Phase)
			}
			out, err := kubectlBerth(t, c, "gangs", "-n", ns, "-o", "json")
			if err != nil || json.Unmarshal([]byte(out), &got) != nil {
				return false, nil
			}
			waiting = map[string]why.WaitingPod{}
			for _, g := range got.Groups {
				for _, w := range g.Waiting {
					waiting[w.Name] = w
				}
			}
			if table, err = kubectlBerth(t, c, "gangs", "-n", ns); err != nil {
				return false, nil
			}
			return phases["fits"] != "" && phases["too-big"] != "" && phases["short"] != "" &&
				tooBigWhy(waiting) != "" && waiting["short-0"].Reason != "" && waiting["orphan-0"].Reason != "", nil
		})
		if err != nil {
			t.Fatalf("the PodGroups never all had a phase and the waiting pods a reason: %v (phases %v)\n%s", err, phases, table)
		}
		for _, row := range [][]string{
			// NAME PHASE MINMEMBER MEMBERS PLACED RUNNING SUCCEEDED WAITING
			{"fits", phases["fits"], "2", "2", "2", "0", "0", "0"},
			{"too-big", phases["too-big"], "3", "3", "0", "0", "0", "3"},
			{"short", phases["short"], "3", "2", "0", "0", "0", "2"},
			{"orphan", "<no", "PodGroup>", "<none>", "1", "0", "0", "0", "1"},
		} {
			if !hasRow(table, row...) {
				t.Errorf("the table has no row %q:\n%s", row, table)
			}
		}
		for name, want := range map[string]struct{ reasons, message string }{
			// Rejected in a scheduling cycle, or standing aside after its round failed.
			tooBigWhy(waiting): {"FailedScheduling Unschedulable GangWaiting", ""},
			// The event a held pod gets says how many members there were when it was first held.
			"short-0":  {"GangWaiting", "of its 3 (minMember) pods ready to schedule"},
			"orphan-0": {"GangWaiting", "pod group inspect/orphan does not exist"},
		} {
			w := waiting[name]
			if w.Message == "" || !strings.Contains(want.reasons, w.Reason) || !strings.Contains(w.Message, want.message) {
				t.Errorf("%s waits for %s: %q, want a reason among %q and a message with %q", name, w.Reason, w.Message, want.reasons, want.message)
			}
		}
		// The table quotes the reasons (the last read may be newer than the JSON's).
		for _, row := range [][]string{
			{"short-0", "short", "GangWaiting", "pod", "group", "inspect/short", "has"},
			{"orphan-0", "orphan", "GangWaiting", "pod", "group", "inspect/orphan", "does", "not", "exist;"},
		} {
			if !hasRow(table, row...) {
				t.Errorf("the table has no row %q:\n%s", row, table)
			}
		}

		// Members that run move the group to Running, as Gang's status writer reports it.
		for _, name := range []string{"fits-0", "fits-1"} {
			p := harness.Pod(pods, name)
			p.Status.Phase = v1.PodRunning
			if _, err := c.Client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			var err error
			table, err = kubectlBerth(t, c, "gangs", "-A")
			return err == nil && hasRow(table, ns, "fits", "Running", "2", "2", "2", "2", "0", "0"), nil
		})
		if err != nil {
			t.Errorf("with -A, gang fits should show in namespace %s as Running with 2 running: %v\n%s", ns, err, table)
		}
	})

	// No scheduler writes quota status from here on: the test sets what a quota's users hold.
	stop()
	t.Run("quotas", func(t *testing.T) {
		q := &v1alpha1.ElasticQuota{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
			Spec: v1alpha1.ElasticQuotaSpec{
				Min: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi")},
				Max: v1.ResourceList{v1.ResourceCPU: resource.MustParse("10")},
			},
		}
		q, err := groups.SchedulingV1alpha1().ElasticQuotas(ns).Create(ctx, q, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating an ElasticQuota (is its CRD in manifests/crds?): %v", err)
		}
		q.Status.Used = v1.ResourceList{v1.ResourceCPU: resource.MustParse("6500m"), v1.ResourceMemory: resource.MustParse("2Gi")}
		if _, err := groups.SchedulingV1alpha1().ElasticQuotas(ns).UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		table := mustKubectlBerth(t, c, "quotas", "-n", ns)
		for _, row := range [][]string{
			{"NAME", "RESOURCE", "MIN", "MAX", "USED", "BORROWED"},
			{"team", "cpu", "4", "10", "6500m", "2500m"},
			{"memory", "8Gi", "<none>", "2Gi", "0"},
		} {
			if !hasRow(table, row...) {
				t.Errorf("the table has no row %q:\n%s", row, table)
			}
		}
		if out := mustKubectlBerth(t, c, "quotas", "-n", "default"); !strings.Contains(out, "No elastic quotas found") {
			t.Errorf("a namespace without quotas: %q", out)
		}
	})

	// The built plugin binary, as kubectl runs it, reads the same and fails cleanly.
	t.Run("binary", func(t *testing.T) {
		bin := filepath.Join(harness.BinDir(t, "kubectl-berth"), "kubectl-berth")
		out, err := exec.Command(bin, "--kubeconfig", c.KubeconfigPath(), "-n", ns, "gangs", "-o", "yaml").CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl-berth gangs: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "name: fits") || !strings.Contains(string(out), "phase: Running") {
			t.Errorf("kubectl-berth gangs -o yaml does not show gang fits Running:\n%s", out)
		}
		out, err = exec.Command(bin, "--kubeconfig", c.KubeconfigPath(), "gpus", "-o", "xml").CombinedOutput()
		if err == nil || !strings.Contains(string(out), `unknown output format "xml"`) {
			t.Errorf("kubectl-berth gpus -o xml: %v, %q; want a failure naming the format", err, out)
		}
	})
}

// tooBigWhy names a member of gang too-big that has a reason to wait, if any.
func tooBigWhy(waiting map[string]why.WaitingPod) string {
	for _, name := range []string{"too-big-0", "too-big-1", "too-big-2"} {
		if waiting[name].Reason != "" {
			return name
		}
	}
	return ""
}
