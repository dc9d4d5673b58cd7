package gpushare

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
)

// TestCacheRebuiltAtStart starts the plugin on a cluster that already runs GPU pods: the first
// PreFilter waits until they are all in the cache, so no memory in use is handed out again.
func TestCacheRebuiltAtStart(t *testing.T) {
	e := newEnv(t, args(gpu.BinpackName),
		gpuNode("n1", 2, 32).Obj(),
		boundPod("berth", "n1", "0:8,1:4").SchedulerName("berth-scheduler").Obj(),
		// Placed by the gpushare extender under another scheduler.
		st.MakePod().Namespace("default").Name("gpushare").UID("gpushare").Node("n1").SchedulerName("gpushare-scheduler").
			Lim(map[v1.ResourceName]string{memoryResource: "6"}).
			Annotation(gpu.GPUShareIndexAnnotation, "1").Annotation(gpu.GPUSharePodAnnotation, "6").
			Annotation(gpu.GPUShareAssignedAnnotation, "true").Obj(),
		// Finished pods hold nothing.
		boundPod("finished", "n1", "0:8").Phase(v1.PodSucceeded).Obj(),
		// Annotations left by a binding that failed do not count until the pod is bound.
		gpuPod("stale", 4).Annotation(gpu.PodGPUDevicesAnnotation, "0:4").Obj(),
	)
	pod := gpuPod("p", 10).Obj()
	state, status := e.prefilter(t, pod)
	if !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 8}, {Capacity: 16, Used: 10}}, e.pl.devices.NodeView("n1")); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	want := fwk.NewStatus(fwk.Unschedulable, "GPU memory: pod asks for 10 on one GPU; the most free on one GPU of this node is 8")
	if diff := cmp.Diff(want, e.pl.Filter(e.ctx, state, pod, e.nodeInfo(t, "n1")), statusText); diff != "" {
		t.Errorf("Filter (-want +got):\n%s", diff)
	}
}

// TestCacheFollowsInformers changes the cluster under a running plugin.
func TestCacheFollowsInformers(t *testing.T) {
	node := gpuNode("n1", 1, 16).Obj()
	running := boundPod("running", "n1", "0:8").Obj()
	e := newEnv(t, nil, node, running)
	if _, status := e.prefilter(t, gpuPod("p", 1).Obj()); !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	nodes, pods := e.cs.CoreV1().Nodes(), e.cs.CoreV1().Pods("default")
	expect := func(what string, want []gpu.Device) {
		t.Helper()
		eventually(t, what, func() bool { return cmp.Equal(want, e.pl.devices.NodeView("n1")) })
	}

	// A second, larger card goes in without a restart.
	grown := node.DeepCopy()
	for _, list := range []v1.ResourceList{grown.Status.Capacity, grown.Status.Allocatable} {
		list[countResource] = resource.MustParse("2")
		list[memoryResource] = resource.MustParse("48")
	}
	if _, err := nodes.UpdateStatus(e.ctx, grown, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("the node to grow", []gpu.Device{{Capacity: 24, Used: 8}, {Capacity: 24}})
	mixed := grown.DeepCopy()
	mixed.Annotations = map[string]string{gpu.NodeGPUMemoryAnnotation: "16,32"}
	if _, err := nodes.Update(e.ctx, mixed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("the node's sizes from its annotation", []gpu.Device{{Capacity: 16, Used: 8}, {Capacity: 32}})

	// Someone else binds a GPU pod; then it is deleted.
	other := boundPod("other", "n1", "1:20").SchedulerName("other").Obj()
	if _, err := pods.Create(e.ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("the other pod to count", []gpu.Device{{Capacity: 16, Used: 8}, {Capacity: 32, Used: 20}})
	if err := pods.Delete(e.ctx, other.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("the other pod to be freed", []gpu.Device{{Capacity: 16, Used: 8}, {Capacity: 32}})

	// The running pod fails.
	failed := running.DeepCopy()
	failed.Status.Phase = v1.PodFailed
	if _, err := pods.UpdateStatus(e.ctx, failed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("the failed pod to be freed", []gpu.Device{{Capacity: 16}, {Capacity: 32}})

	if err := nodes.Delete(e.ctx, "n1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("the node to go", nil)
}

func TestMalformedAnnotationsAreReported(t *testing.T) {
	e := newEnv(t, nil,
		gpuNode("n1", 2, 32).Annotation(gpu.NodeGPUMemoryAnnotation, "16,x").Obj(),
		boundPod("bad", "n1", "0:lots").Obj(),
	)
	pod := gpuPod("p", 16).Obj()
	state, status := e.prefilter(t, pod)
	if !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	got := []string{nextEvent(t, e), nextEvent(t, e)}
	want := []string{
		`Warning InvalidGPUMemoryAnnotation annotation berth.dev/gpu-memory="16,x": entry 1 ("x") is not a positive whole number; using aliyun.com/gpu-mem/aliyun.com/gpu-count instead`,
		`Warning InvalidGPUAssignment annotation berth.dev/gpu-devices="0:lots": "0:lots": memory must be a positive whole number`,
	}
	if !cmp.Equal(want, got) && !cmp.Equal([]string{want[1], want[0]}, got) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The node has the devices its capacity says, and scheduling goes on.
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16}, {Capacity: 16}}, e.pl.devices.NodeView("n1")); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	if status := e.reserve(t, e.pl, state, pod, "n1"); !status.IsSuccess() {
		t.Errorf("Reserve: %v", status)
	}

	// Status updates of the bad pod are not reported again; a new bad pod is.
	pods := e.cs.CoreV1().Pods("default")
	bad, err := pods.Get(e.ctx, "bad", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad.Status.Conditions = append(bad.Status.Conditions, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue})
	if _, err := pods.UpdateStatus(e.ctx, bad, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(e.ctx, boundPod("worse", "n1", "0:-1").Obj(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	next := nextEvent(t, e)
	if !strings.Contains(next, `"0:-1"`) {
		t.Errorf("next event %q, want the one about pod worse", next)
	}
}

// TestProfilesShareDeviceCache builds the plugin twice on one scheduler, as two profiles do: a
// reservation made in one is seen by the other.
func TestProfilesShareDeviceCache(t *testing.T) {
	e := newEnv(t, args(gpu.BinpackName), gpuNode("n1", 1, 16).Obj())
	p, err := New(e.ctx, args(gpu.SpreadName), e.fh)
	if err != nil {
		t.Fatal(err)
	}
	spread := p.(*GPUShare)
	if spread.devices != e.pl.devices {
		t.Fatal("the profiles have separate device caches")
	}
	pod := gpuPod("p", 10).Obj()
	state, _ := e.prefilter(t, pod)
	if status := e.reserve(t, e.pl, state, pod, "n1"); !status.IsSuccess() {
		t.Fatal(status)
	}
	other := gpuPod("other", 10).Obj()
	ostate, _ := e.prefilter(t, other)
	if status := e.reserve(t, spread, ostate, other, "n1"); status.Code() != fwk.Unschedulable {
		t.Errorf("Reserve in the other profile: %v, want Unschedulable", status)
	}

	otherResources := &config.GPUShareArgs{MemoryResource: "example.com/gpu-mem", CountResource: "example.com/gpu-count", ScoringStrategy: gpu.BinpackName, NoGPUPodScoring: config.NoGPUPodScoringNone}
	p, err = New(e.ctx, otherResources, e.fh)
	if err != nil {
		t.Fatal(err)
	}
	if p.(*GPUShare).devices == e.pl.devices {
		t.Error("plugins for different resources share a device cache")
	}
}

func nextEvent(t *testing.T, e *env) string {
	t.Helper()
	select {
	case ev := <-e.recorder.Events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for an event")
		return ""
	}
}
