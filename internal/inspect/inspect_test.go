package inspect

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/why"
)

var res = gpu.ResourceNames{Memory: "aliyun.com/gpu-mem", Count: "aliyun.com/gpu-count"}

func gpuNode(name, count, memory string, annotations map[string]string) v1.Node {
	c := v1.ResourceList{res.Count: resource.MustParse(count), res.Memory: resource.MustParse(memory)}
	return v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}, Status: v1.NodeStatus{Capacity: c, Allocatable: c}}
}

func gpuPod(ns, name, node, memory string, phase v1.PodPhase, annotations map[string]string) v1.Pod {
	return v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name), Annotations: annotations},
		Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c",
			Resources: v1.ResourceRequirements{Limits: v1.ResourceList{res.Memory: resource.MustParse(memory)}}}}},
		Status: v1.PodStatus{Phase: phase},
	}
}

func TestGPUsOf(t *testing.T) {
	nodes := []v1.Node{
		gpuNode("b-mixed", "2", "40", map[string]string{gpu.NodeGPUMemoryAnnotation: "16,24"}),
		gpuNode("a", "2", "32", nil),
		{ObjectMeta: metav1.ObjectMeta{Name: "cpu-only"}},
	}
	pods := []v1.Pod{
		// berth's annotation, across two GPUs.
		gpuPod("ml", "train", "a", "16", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "0:8,1:8"}),
		// Placed by the gpushare extender: only its annotations.
		gpuPod("web", "infer", "a", "4", v1.PodPending, map[string]string{gpu.GPUShareIndexAnnotation: "1", gpu.GPUSharePodAnnotation: "4"}),
		// Finished: holds nothing.
		gpuPod("ml", "done", "a", "8", v1.PodSucceeded, map[string]string{gpu.PodGPUDevicesAnnotation: "0:8"}),
		// Not bound.
		gpuPod("ml", "waiting", "", "8", v1.PodPending, nil),
		gpuPod("ml", "big", "b-mixed", "20", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "1:20"}),
		gpuPod("ml", "small", "b-mixed", "4", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "1:4"}),
		// Faults.
		gpuPod("ml", "bad", "a", "8", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "zero"}),
		gpuPod("ml", "unrecorded", "a", "8", v1.PodRunning, nil),
		gpuPod("ml", "beyond", "a", "8", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "5:8"}),
	}
	got := GPUsOf(nodes, pods, res)
	want := &GPUs{
		Nodes: []NodeGPUs{{
			Name: "a", SizesFrom: "aliyun.com/gpu-mem / aliyun.com/gpu-count",
			GPUs: []GPU{
				{Index: 0, Capacity: 16, Used: 8, Free: 8, Pods: []Share{{"ml", "train", 8}}},
				{Index: 1, Capacity: 16, Used: 12, Free: 4, Pods: []Share{{"ml", "train", 8}, {"web", "infer", 4}}},
			},
			Total: Usage{GPUs: 2, Capacity: 32, Used: 20, Free: 12},
		}, {
			Name: "b-mixed", SizesFrom: `annotation berth.dev/gpu-memory="16,24"`,
			GPUs: []GPU{
				{Index: 0, Capacity: 16, Pods: []Share{}, Free: 16},
				{Index: 1, Capacity: 24, Used: 24, Free: 0, Pods: []Share{{"ml", "big", 20}, {"ml", "small", 4}}},
			},
			Total:     Usage{GPUs: 2, Capacity: 40, Used: 24, Free: 16},
			FreeWhole: []int{0},
		}},
		Total: Usage{GPUs: 4, Capacity: 72, Used: 44, Free: 28},
		Problems: []string{
			`pod ml/bad: annotation berth.dev/gpu-devices="zero": "zero" is not index:memory; not counted`,
			"pod ml/unrecorded on a asks for 8 aliyun.com/gpu-mem but names no devices (annotation berth.dev/gpu-devices); not counted",
			"pod ml/beyond holds GPU 5 of a, which has 2 GPUs",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GPUsOf (-want +got):\n%s", diff)
	}

	var out bytes.Buffer
	if err := got.WriteTable(&out, false); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"a         0        8/16         8      ml/train (8)",
		"          1        12/16        4      ml/train (8), web/infer (4)",
		"          total    20/32        12",
		"TOTAL     4 GPUs   44/72        28     61% used",
		"  pod ml/beyond holds GPU 5 of a, which has 2 GPUs",
	} {
		if !containsLine(out.String(), line) {
			t.Errorf("the table lacks the line %q:\n%s", line, out.String())
		}
	}
}

// With the berth.dev/gpu-topology annotation each GPU shows its links, best first, and the node
// which GPUs are free whole and the worst link among them; a malformed matrix is a problem line.
func TestGPUsOfLinks(t *testing.T) {
	matrix, err := os.ReadFile("../../pkg/gpu/testdata/links/nvlink-pairs-4gpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	nodes := []v1.Node{
		gpuNode("pairs", "4", "64", map[string]string{gpu.NodeGPULinksAnnotation: string(matrix)}),
		gpuNode("pasted-wrong", "2", "32", map[string]string{gpu.NodeGPULinksAnnotation: "GPU0 GPU1\nGPU0 X"}),
	}
	pods := []v1.Pod{
		gpuPod("ml", "infer", "pairs", "4", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "0:4"}),
	}
	got := GPUsOf(nodes, pods, res)
	pairs := got.Nodes[0]
	numa0 := 0
	wantGPU0 := GPU{Index: 0, Capacity: 16, Used: 4, Free: 12, Pods: []Share{{"ml", "infer", 4}},
		Links: []LinkGroup{{"NV4", []int{1}}, {"PIX", []int{2}}, {"NODE", []int{3}}}, NUMA: &numa0}
	if diff := cmp.Diff(wantGPU0, pairs.GPUs[0]); diff != "" {
		t.Errorf("GPU 0 (-want +got):\n%s", diff)
	}
	if !cmp.Equal(pairs.FreeWhole, []int{1, 2, 3}) || pairs.FreeWholeLink != "NODE" {
		t.Errorf("free whole %v, worst link %q; want [1 2 3] and NODE", pairs.FreeWhole, pairs.FreeWholeLink)
	}
	if wrong := got.Nodes[1]; wrong.GPUs[0].Links != nil || wrong.FreeWholeLink != "" {
		t.Errorf("a node with a malformed matrix shows links: %+v", wrong)
	}
	if len(got.Problems) != 1 || !strings.Contains(got.Problems[0], "node pasted-wrong: annotation berth.dev/gpu-topology") {
		t.Errorf("problems %q, want one naming the malformed annotation of pasted-wrong", got.Problems)
	}
	var out bytes.Buffer
	if err := got.WriteTable(&out, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NV4 1, PIX 2, NODE 3, NUMA 0", "NV4 0, PIX 3, NODE 2, NUMA 0", "free whole 1-3, worst link NODE"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the wide table lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "free whole 0-1") {
		t.Errorf("the wide table says which GPUs are free whole on a node without links:\n%s", out.String())
	}
}

// An over-full GPU is shown as it is.
func TestGPUsOfOverfull(t *testing.T) {
	got := GPUsOf([]v1.Node{gpuNode("a", "1", "8", nil)}, []v1.Pod{
		gpuPod("ml", "x", "a", "6", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "0:6"}),
		gpuPod("ml", "y", "a", "6", v1.PodRunning, map[string]string{gpu.GPUShareIndexAnnotation: "0", gpu.GPUSharePodAnnotation: "6"}),
	}, res)
	if g := got.Nodes[0].GPUs[0]; g.Used != 12 || g.Free != 0 {
		t.Errorf("GPU 0: used %d free %d, want 12 and 0", g.Used, g.Free)
	}
	var out bytes.Buffer
	if err := got.WriteTable(&out, false); err != nil {
		t.Fatal(err)
	}
	if !containsLine(out.String(), "a       0       12/8         0      ml/x (6), ml/y (6)") {
		t.Errorf("the table should show 12 of 8 used:\n%s", out.String())
	}
}

func containsLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimRight(l, " ") == line {
			return true
		}
	}
	return false
}

func TestGangsOf(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC)) }
	member := func(name, group, node string, phase v1.PodPhase) v1.Pod {
		return v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: types.UID(name), Labels: map[string]string{v1alpha1.PodGroupLabel: group}},
			Spec:       v1.PodSpec{NodeName: node},
			Status:     v1.PodStatus{Phase: phase},
		}
	}
	deleting := func(p v1.Pod) v1.Pod {
		p.DeletionTimestamp = &metav1.Time{}
		return p
	}
	event := func(pod, reason, note string, when metav1.Time, series *metav1.MicroTime) eventsv1.Event {
		e := eventsv1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: pod + "." + reason + note},
			Regarding:  v1.ObjectReference{Kind: "Pod", Namespace: "ml", Name: pod, UID: types.UID(pod)},
			Reason:     reason, Note: note, EventTime: metav1.NewMicroTime(when.Time),
		}
		if series != nil {
			e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: *series}
		}
		return e
	}
	conditioned := func(p v1.Pod, reason, msg string, when metav1.Time) v1.Pod {
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reason, Message: msg, LastTransitionTime: when}}
		return p
	}
	later := metav1.NewMicroTime(at(30).Time)
	groups := []v1alpha1.PodGroup{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "done"}, Spec: v1alpha1.PodGroupSpec{MinMember: 2}, Status: v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupFinished}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "held"}, Spec: v1alpha1.PodGroupSpec{MinMember: 3}, Status: v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupPending}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "run"}, Spec: v1alpha1.PodGroupSpec{MinMember: 2}, Status: v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning}},
	}
	pods := []v1.Pod{
		member("done-0", "done", "n1", v1.PodSucceeded),
		member("done-1", "done", "n2", v1.PodSucceeded),
		// The newer event wins over the older condition.
		conditioned(member("held-0", "held", "", v1.PodPending), "Unschedulable", "old attempt", at(5)),
		// The newer condition wins over the older event.
		conditioned(member("held-1", "held", "", v1.PodPending), "Unschedulable", "0/2 nodes are available", at(20)),
		// An event series counts from its latest repetition.
		member("held-2", "held", "", v1.PodPending),
		// Finished and deleting pods are no longer members, as Gang counts them (podgroup.Live):
		// neither is placed, running or waiting.
		deleting(member("held-gone", "held", "", v1.PodPending)),
		member("run-0", "run", "n1", v1.PodRunning),
		deleting(member("run-1", "run", "n1", v1.PodRunning)),
		member("run-2", "run", "n2", v1.PodFailed),
		// No PodGroup.
		member("orphan-0", "orphan", "", v1.PodPending),
		// Not a member.
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "loner"}},
	}
	events := []eventsv1.Event{
		event("held-0", "FailedScheduling", "newer attempt", at(10), nil),
		event("held-0", "Scheduled", "not a reason to wait", at(40), nil),
		event("held-1", "GangWaiting", "waiting for the rest", at(15), nil),
		event("held-2", "GangWaiting", "first", at(1), &later),
		event("held-2", "FailedScheduling", "second", at(20), nil),
		event("orphan-0", "GangWaiting", "pod group ml/orphan does not exist", at(3), nil),
	}
	got := GangsOf(fromPlugins(groups), pods, events)
	want := &Gangs{Groups: []Gang{
		{Namespace: "ml", Name: "done", Phase: podgroup.PhaseFinished, MinMember: 2, Succeeded: 2, Waiting: []why.WaitingPod{}},
		{Namespace: "ml", Name: "held", Phase: podgroup.PhasePending, MinMember: 3, Members: 3, Waiting: []why.WaitingPod{
			{Name: "held-0", Reason: "FailedScheduling", Message: "newer attempt", Since: at(10)},
			{Name: "held-1", Reason: "Unschedulable", Message: "0/2 nodes are available", Since: at(20)},
			{Name: "held-2", Reason: "GangWaiting", Message: "first", Since: at(30)},
		}},
		{Namespace: "ml", Name: "orphan", Missing: true, Members: 1, Waiting: []why.WaitingPod{
			{Name: "orphan-0", Reason: "GangWaiting", Message: "pod group ml/orphan does not exist", Since: at(3)},
		}},
		{Namespace: "ml", Name: "run", Phase: podgroup.PhaseRunning, MinMember: 2, Members: 1, Placed: 1, Running: 1, Failed: 1, Waiting: []why.WaitingPod{}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GangsOf (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := got.WriteTable(&out, false); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"done     Finished        2           0         0        0         2           0",
		"held     Pending         3           3         0        0         0           3",
		"orphan   <no PodGroup>   <none>      1         0        0         0           1",
		"held-1        held     Unschedulable      0/2 nodes are available",
	} {
		if !containsLine(out.String(), line) {
			t.Errorf("the table lacks the line %q:\n%s", line, out.String())
		}
	}
}

// A PodGroup without minMember reads as the scheduler reads it: one member.
func TestGangsOfUnsetMinMember(t *testing.T) {
	groups := []v1alpha1.PodGroup{{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "solo"}}}
	pods := []v1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "solo-0", UID: "solo-0", Labels: map[string]string{v1alpha1.PodGroupLabel: "solo"}},
		Spec:       v1.PodSpec{NodeName: "n1"},
		Status:     v1.PodStatus{Phase: v1.PodRunning},
	}}
	got := GangsOf(fromPlugins(groups), pods, nil)
	if len(got.Groups) != 1 || got.Groups[0].MinMember != 1 {
		t.Fatalf("GangsOf = %+v, want one group with MinMember 1", got.Groups)
	}
	var out bytes.Buffer
	if err := got.WriteTable(&out, false); err != nil {
		t.Fatal(err)
	}
	if line := "solo   <none>   1           1         1        1         0           0"; !containsLine(out.String(), line) {
		t.Errorf("the table lacks the line %q:\n%s", line, out.String())
	}
}

func TestQuotasOf(t *testing.T) {
	rl := func(pairs ...string) v1.ResourceList {
		l := v1.ResourceList{}
		for i := 0; i < len(pairs); i += 2 {
			l[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
		}
		return l
	}
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	got := QuotasOf([]v1alpha1.ElasticQuota{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "quota"},
		Spec:       v1alpha1.ElasticQuotaSpec{Min: rl("cpu", "4", "memory", "8Gi"), Max: rl("cpu", "10")},
		Status:     v1alpha1.ElasticQuotaStatus{Used: rl("cpu", "6500m", "memory", "2Gi", "aliyun.com/gpu-mem", "12")},
	}, {
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "quota"},
		Spec:       v1alpha1.ElasticQuotaSpec{Min: rl("cpu", "2")},
	}})
	want := &Quotas{Quotas: []Quota{{
		Namespace: "team-a", Name: "quota", Resources: []QuotaResource{{Name: "cpu", Min: q("2")}},
	}, {
		Namespace: "team-b", Name: "quota", Resources: []QuotaResource{
			{Name: "aliyun.com/gpu-mem", Used: q("12"), Borrowed: resource.MustParse("12")},
			{Name: "cpu", Min: q("4"), Max: q("10"), Used: q("6500m"), Borrowed: resource.MustParse("2500m")},
			{Name: "memory", Min: q("8Gi"), Used: q("2Gi"), Borrowed: resource.MustParse("0")},
		},
	}}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("QuotasOf (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := got.WriteTable(&out, true); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"quota   cpu                  2        <none>   <none>   0          <none>       <none>   <none>",
		"        cpu                  4        10       6500m    2500m                            162%",
	} {
		if !containsLine(out.String(), line) {
			t.Errorf("the table lacks the line %q:\n%s", line, out.String())
		}
	}
}

// JSON and YAML carry the report's fields; an unknown format is an error that names the formats.
func TestPrint(t *testing.T) {
	r := GPUsOf([]v1.Node{gpuNode("a", "1", "8", nil)}, []v1.Pod{
		gpuPod("ml", "x", "a", "6", v1.PodRunning, map[string]string{gpu.PodGPUDevicesAnnotation: "0:6"})}, res)
	for _, format := range []string{"json", "yaml"} {
		var out bytes.Buffer
		if err := Print(&out, r, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		var back GPUs
		data := out.Bytes()
		if format == "yaml" {
			var err error
			if data, err = yaml.YAMLToJSON(data); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
		}
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v\n%s", format, err, out.String())
		}
		if diff := cmp.Diff(r, &back); diff != "" {
			t.Errorf("%s does not round-trip (-printed +read back):\n%s", format, diff)
		}
	}
	var out bytes.Buffer
	if err := Print(&out, r, "xml"); err == nil || !strings.Contains(err.Error(), "json") {
		t.Errorf("Print with an unknown format: %v, want an error naming the formats", err)
	}
}

func TestBar(t *testing.T) {
	tests := []struct {
		used, total int64
		want        string
	}{
		{0, 16, "[........]"},
		{4, 16, "[##......]"},
		{16, 16, "[########]"},
		{24, 16, "[########]"},
		{3, 0, "[........]"},
	}
	for _, tt := range tests {
		if got := Bar(tt.used, tt.total, 8); got != tt.want {
			t.Errorf("Bar(%d, %d) = %q, want %q", tt.used, tt.total, got, tt.want)
		}
	}
}

// fromPlugins is the groups of scheduler-plugins PodGroups, as the report reads them.
func fromPlugins(pgs []v1alpha1.PodGroup) []*podgroup.Group {
	out := make([]*podgroup.Group, len(pgs))
	for i := range pgs {
		out[i] = podgroup.FromPlugins(&pgs[i])
	}
	return out
}
