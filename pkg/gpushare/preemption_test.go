package gpushare

import (
	"context"
	"fmt"
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

// TestFilterReadsNodeInfo: Filter judges a node by the pods its nodeInfo holds, as the in-tree
// plugins do. Preemption's dry runs remove victims from, and add nominated pods to, a copy of
// nodeInfo; and a device cache whose informer handlers lag the scheduler's own cache cannot make
// Filter and preemption disagree.
func TestFilterReadsNodeInfo(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	victim := boundPod("victim", "n1", "0:12").Priority(1).Obj()
	e := newEnv(t, nil, gpuNode("n1", 1, 16).Obj(), gpuNode("n2", 1, 16).Obj(), victim)
	filter := func(pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
		t.Helper()
		state, status := e.prefilter(t, pod)
		if !status.IsSuccess() {
			t.Fatalf("PreFilter: %v", status)
		}
		return e.pl.Filter(e.ctx, state, pod, ni)
	}
	unschedulable := func(ask, free int) *fwk.Status {
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("GPU memory: pod asks for %d on one GPU; the most free on one GPU of this node is %d", ask, free))
	}
	podInfo := func(pod *v1.Pod) fwk.PodInfo {
		pi, err := framework.NewPodInfo(pod)
		if err != nil {
			t.Fatal(err)
		}
		return pi
	}
	check := func(what string, want, got *fwk.Status) {
		t.Helper()
		if diff := cmp.Diff(want, got, statusText); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	preemptor := gpuPod("preemptor", 8).Priority(100).Obj()
	n1 := e.nodeInfo(t, "n1")
	check("n1 with the victim", unschedulable(8, 4), filter(preemptor, n1))
	// After the first PreFilter, which waits until the device cache has taken in the informers'
	// pods (the victim among them): read earlier, the view could miss the victim.
	cacheBefore := e.pl.devices.NodeView("n1")

	// Preemption removes the victim from a copy of nodeInfo, and puts it back to try a reprieve.
	removed := n1.Snapshot()
	if err := removed.RemovePod(logger, victim); err != nil {
		t.Fatal(err)
	}
	check("n1 without the victim", nil, filter(preemptor, removed))
	readded := removed.Snapshot()
	readded.AddPodInfo(podInfo(victim))
	check("n1 with the victim put back", unschedulable(8, 4), filter(preemptor, readded))
	check("the original nodeInfo", unschedulable(8, 4), filter(preemptor, n1))

	// A nominated pod, not yet placed, takes its share as it would get it.
	nominated := e.nodeInfo(t, "n2").Snapshot()
	nominated.AddPodInfo(podInfo(gpuPod("nominated", 10).Obj()))
	check("n2 with a nominated pod", unschedulable(8, 6), filter(preemptor, nominated))

	// The device cache still holds a pod the scheduler's snapshot no longer has (its deletion has
	// reached the scheduler's handlers first): the snapshot wins.
	if err := e.pl.devices.Hold("deleted", "n2", gpu.Assignment{{Index: 0, Memory: 12}}); err != nil {
		t.Fatal(err)
	}
	check("n2 with a pod only the device cache has", nil, filter(preemptor, e.nodeInfo(t, "n2")))
	e.pl.devices.Unreserve("deleted")

	// The snapshot has a bound pod the device cache has not seen yet: its annotations count.
	unseen := e.nodeInfo(t, "n2").Snapshot()
	unseen.AddPodInfo(podInfo(boundPod("unseen", "n2", "0:12").Obj()))
	check("n2 with a pod the device cache has not seen", unschedulable(8, 4), filter(preemptor, unseen))

	// A pod reserved in an earlier cycle is in the snapshot without annotations yet: it counts
	// once, by its reservation.
	reserved := gpuPod("reserved", 4).Obj()
	rstate, _ := e.prefilter(t, reserved)
	if status := e.reserve(t, e.pl, rstate, reserved, "n2"); !status.IsSuccess() {
		t.Fatal(status)
	}
	check("12 on n2 after 4 were reserved", nil, filter(gpuPod("twelve", 12).Obj(), e.nodeInfo(t, "n2")))
	check("13 on n2 after 4 were reserved", unschedulable(13, 12), filter(gpuPod("thirteen", 13).Obj(), e.nodeInfo(t, "n2")))
	e.unreserve(rstate, reserved, "n2")

	if diff := cmp.Diff(cacheBefore, e.pl.devices.NodeView("n1")); diff != "" {
		t.Errorf("Filter changed the device cache (-before +after):\n%s", diff)
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
	view := &schedulerView{SharedLister: snapshot}
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
		frameworkruntime.WithSnapshotSharedLister(view),
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
	nodeInfo, err := snapshot.NodeInfos().Get(node.Name)
	if err != nil {
		t.Fatal(err)
	}
	status := fh.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, nodeInfo)
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

	// The next cycle's snapshot is without the victim, whether or not the device cache has seen
	// the eviction yet: the preemptor gets the GPU the victim held.
	view.SharedLister = internalcache.NewSnapshot([]*v1.Pod{spared, important}, []*v1.Node{node})
	if nodeInfo, err = view.NodeInfos().Get(node.Name); err != nil {
		t.Fatal(err)
	}
	state = framework.NewCycleState()
	if _, status, _ := fh.RunPreFilterPlugins(ctx, state, preemptor); !status.IsSuccess() {
		t.Fatalf("PreFilter after preemption: %v", status)
	}
	if status := fh.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, nodeInfo); !status.IsSuccess() {
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
