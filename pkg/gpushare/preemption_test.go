package gpushare

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	// The plugin gets its args as the scheduler decodes them, defaults included.
	_ "github.com/berth-sched/berth/pkg/apis/config/scheme"
	"github.com/berth-sched/berth/pkg/gpu"
)

func TestPreFilterExtensions(t *testing.T) {
	n1, n2 := gpuNode("n1", 1, 16).Obj(), gpuNode("n2", 1, 16).Obj()
	victim := boundPod("victim", "n1", "0:12").Priority(1).Obj()
	e := newEnv(t, nil, n1, n2, victim)
	preemptor := gpuPod("preemptor", 8).Priority(100).Obj()
	state, status := e.prefilter(t, preemptor)
	if !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	filter := func(state fwk.CycleState, node *v1.Node) *fwk.Status {
		return e.pl.Filter(e.ctx, state, preemptor, nodeInfo(node))
	}
	podInfo := func(pod *v1.Pod) fwk.PodInfo {
		pi, err := framework.NewPodInfo(pod)
		if err != nil {
			t.Fatal(err)
		}
		return pi
	}
	cacheBefore := [][]gpu.Device{e.pl.devices.NodeView("n1"), e.pl.devices.NodeView("n2")}

	if status := filter(state, n1); status.Code() != fwk.Unschedulable {
		t.Fatalf("n1 with the victim: %v, want Unschedulable", status)
	}
	// Preemption removes the victim on a copy of the state.
	removed := state.Clone()
	if status := e.pl.RemovePod(e.ctx, removed, preemptor, podInfo(victim), nodeInfo(n1)); !status.IsSuccess() {
		t.Fatal(status)
	}
	if status := filter(removed, n1); !status.IsSuccess() {
		t.Errorf("n1 without the victim: %v", status)
	}
	if status := filter(state, n1); status.Code() != fwk.Unschedulable {
		t.Errorf("the original state changed: %v", status)
	}
	// Putting the victim back (a reprieve) takes its GPU memory again.
	readded := removed.Clone()
	if status := e.pl.AddPod(e.ctx, readded, preemptor, podInfo(victim), nodeInfo(n1)); !status.IsSuccess() {
		t.Fatal(status)
	}
	if status := filter(readded, n1); status.Code() != fwk.Unschedulable {
		t.Errorf("n1 with the victim put back: %v, want Unschedulable", status)
	}
	if status := filter(removed, n1); !status.IsSuccess() {
		t.Errorf("the cloned state changed: %v", status)
	}

	// A nominated pod not yet placed takes its share, as it would get it.
	nominated := state.Clone()
	if status := e.pl.AddPod(e.ctx, nominated, preemptor, podInfo(gpuPod("nominated", 10).Obj()), nodeInfo(n2)); !status.IsSuccess() {
		t.Fatal(status)
	}
	want := fwk.NewStatus(fwk.Unschedulable, "GPU memory: pod asks for 8 on one GPU; the most free on one GPU of this node is 6")
	if diff := cmp.Diff(want, filter(nominated, n2)); diff != "" {
		t.Errorf("n2 with the nominated pod (-want +got):\n%s", diff)
	}

	// A nominated pod that already holds a reservation is not counted twice.
	reserved := gpuPod("reserved", 4).Obj()
	rstate, _ := e.prefilter(t, reserved)
	if status := e.pl.Reserve(e.ctx, rstate, reserved, "n2"); !status.IsSuccess() {
		t.Fatal(status)
	}
	twice := state.Clone()
	if status := e.pl.AddPod(e.ctx, twice, preemptor, podInfo(reserved), nodeInfo(n2)); !status.IsSuccess() {
		t.Fatal(status)
	}
	big := gpuPod("big", 12).Obj()
	bstate, _ := e.prefilter(t, big)
	if status := e.pl.AddPod(e.ctx, bstate, big, podInfo(reserved), nodeInfo(n2)); !status.IsSuccess() {
		t.Fatal(status)
	}
	if status := e.pl.Filter(e.ctx, bstate, big, nodeInfo(n2)); !status.IsSuccess() {
		t.Errorf("12 on n2 after 4 were reserved: %v", status)
	}
	e.pl.Unreserve(e.ctx, rstate, reserved, "n2")

	if diff := cmp.Diff(cacheBefore, [][]gpu.Device{e.pl.devices.NodeView("n1"), e.pl.devices.NodeView("n2")}); diff != "" {
		t.Errorf("AddPod/RemovePod changed the shared cache (-before +after):\n%s", diff)
	}
}

// TestPreemption runs the stock DefaultPreemption over GPUShare: a high-priority GPU pod evicts
// just the lower-priority pod whose GPU it needs, and then gets that GPU.
func TestPreemption(t *testing.T) {
	schedmetrics.Register()
	logger, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	node := gpuNode("n1", 2, 32).Obj()
	victim := boundPod("victim", "n1", "0:12").Priority(1).Obj()
	// Also low priority, but evicting it would not help: it is put back.
	spared := boundPod("spared", "n1", "1:2").Priority(1).Obj()
	// Higher priority than the preemptor: never a victim.
	important := boundPod("important", "n1", "1:10").Priority(1000).Obj()
	preemptor := gpuPod("preemptor", 16).Priority(100).Obj()
	running := []*v1.Pod{victim, spared, important}

	cs := fake.NewClientset(node, victim, spared, important, preemptor)
	snapshot := internalcache.NewSnapshot(running, []*v1.Node{node})
	factory := informers.NewSharedInformerFactory(cs, 0)
	var pl *GPUShare
	newGPUShare := func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := New(ctx, obj, h)
		if err == nil {
			pl = p.(*GPUShare)
		}
		return p, err
	}
	fh, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterPluginAsExtensions(Name, newGPUShare, "PreFilter", "Filter", "Reserve", "Bind"),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
	}, "",
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(100)),
		frameworkruntime.WithPodNominator(internalqueue.NewSchedulingQueue(nil, factory)),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithLogger(logger),
	)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := defaultpreemption.New(ctx, &schedconfig.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}, fh, feature.Features{})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	state := framework.NewCycleState()
	if _, status, _ := fh.RunPreFilterPlugins(ctx, state, preemptor); !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	status := fh.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, nodeInfo(node))
	if status.Code() != fwk.Unschedulable {
		t.Fatalf("Filter before preemption: %v, want Unschedulable", status)
	}
	statuses := framework.NewDefaultNodeToStatus()
	statuses.Set(node.Name, status)
	result, status := dp.PostFilter(ctx, state, preemptor, statuses)
	if !status.IsSuccess() || result == nil || result.NominatedNodeName != node.Name {
		t.Fatalf("PostFilter: %v, %v; want the pod nominated to n1", result, status)
	}

	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, p := range pods.Items {
		left = append(left, p.Name)
	}
	if diff := cmp.Diff([]string{"important", "preemptor", "spared"}, left); diff != "" {
		t.Errorf("pods after preemption (-want +got):\n%s", diff)
	}

	// Once the eviction reaches the informer, the preemptor gets the GPU the victim held.
	eventually(t, "the victim's GPU memory to be freed", func() bool {
		_, _, held := pl.devices.PodAssignment(victim.UID)
		return !held
	})
	state = framework.NewCycleState()
	if _, status, _ := fh.RunPreFilterPlugins(ctx, state, preemptor); !status.IsSuccess() {
		t.Fatalf("PreFilter after preemption: %v", status)
	}
	if status := fh.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, nodeInfo(node)); !status.IsSuccess() {
		t.Fatalf("Filter after preemption: %v", status)
	}
	if status := fh.RunReservePluginsReserve(ctx, state, preemptor, node.Name); !status.IsSuccess() {
		t.Fatalf("Reserve: %v", status)
	}
	_, got, _ := pl.devices.PodAssignment(preemptor.UID)
	if diff := cmp.Diff(gpu.Assignment{{Index: 0, Memory: 16}}, got); diff != "" {
		t.Errorf("preemptor's GPUs (-want +got):\n%s", diff)
	}
}
