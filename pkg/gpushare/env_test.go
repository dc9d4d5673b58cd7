package gpushare

import (
	"context"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
)

const (
	memoryResource v1.ResourceName = "aliyun.com/gpu-mem"
	countResource  v1.ResourceName = "aliyun.com/gpu-count"
)

// gpuNode is a node with count GPUs holding memory in total.
func gpuNode(name string, count, memory int) *st.NodeWrapper {
	return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
		v1.ResourceCPU: "32",
		countResource:  strconv.Itoa(count),
		memoryResource: strconv.Itoa(memory),
	})
}

// gpuPod is a pending pod asking for memory of GPU memory.
func gpuPod(name string, memory int) *st.PodWrapper {
	return st.MakePod().Namespace("default").Name(name).UID(name).
		Lim(map[v1.ResourceName]string{memoryResource: strconv.Itoa(memory)})
}

// boundPod is a running pod holding devices on node.
func boundPod(name, node, devices string) *st.PodWrapper {
	return st.MakePod().Namespace("default").Name(name).UID(name).Node(node).Phase(v1.PodRunning).
		Annotation(gpu.PodGPUDevicesAnnotation, devices)
}

func args(strategy string) *config.GPUShareArgs {
	return argsNoGPU(strategy, config.NoGPUPodScoringNone)
}

// argsNoGPU are args with noGPUPodScoring set too.
func argsNoGPU(strategy, noGPU string) *config.GPUShareArgs {
	return &config.GPUShareArgs{MemoryResource: string(memoryResource), CountResource: string(countResource),
		ScoringStrategy: strategy, NoGPUPodScoring: noGPU}
}

// env is a GPUShare plugin on a fake API server, with its informers running.
type env struct {
	ctx      context.Context
	cs       *fake.Clientset
	fh       fwk.Handle
	pl       *GPUShare
	recorder *events.FakeRecorder
	view     *schedulerView
}

// schedulerView stands in for the scheduler's snapshot, which Filter's nodeInfo and Reserve read:
// the nodes and bound, unfinished pods of the fake API, plus the pods reserved through env.reserve
// and not yet bound (the scheduler assumes a pod before Reserve). sync takes a new snapshot, as
// the scheduler does at the start of each cycle.
type schedulerView struct {
	fwk.SharedLister
	assumed map[types.UID]*v1.Pod
}

func (e *env) sync(t testing.TB) {
	t.Helper()
	nodes, err := e.cs.CoreV1().Nodes().List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := e.cs.CoreV1().Pods("").List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ns []*v1.Node
	for i := range nodes.Items {
		ns = append(ns, &nodes.Items[i])
	}
	var ps []*v1.Pod
	bound := map[types.UID]bool{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName != "" && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			ps = append(ps, p)
			bound[p.UID] = true
		}
	}
	for uid, p := range e.view.assumed {
		if !bound[uid] {
			ps = append(ps, p)
		}
	}
	e.view.SharedLister = internalcache.NewSnapshot(ps, ns)
}

// nodeInfo is the node as a new scheduling cycle sees it.
func (e *env) nodeInfo(t *testing.T, name string) fwk.NodeInfo {
	t.Helper()
	e.sync(t)
	ni, err := e.view.NodeInfos().Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return ni
}

// reserve runs pl's Reserve in a new cycle and, when it succeeds, assumes the pod as the
// scheduler would.
func (e *env) reserve(t *testing.T, pl *GPUShare, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	t.Helper()
	e.sync(t)
	status := pl.Reserve(e.ctx, state, pod, node)
	if status.IsSuccess() {
		assumed := pod.DeepCopy()
		assumed.Spec.NodeName = node
		e.view.assumed[pod.UID] = assumed
	}
	return status
}

// unreserve runs Unreserve and forgets the assumed pod, as the scheduler does.
func (e *env) unreserve(state fwk.CycleState, pod *v1.Pod, node string) {
	e.pl.Unreserve(e.ctx, state, pod, node)
	delete(e.view.assumed, pod.UID)
}

// newEnv starts the plugin with objs already in the API, as a restarted scheduler finds them.
func newEnv(t testing.TB, pluginArgs runtime.Object, objs ...runtime.Object) *env {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	cs := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(cs, 0)
	recorder := events.NewFakeRecorder(100)
	view := &schedulerView{SharedLister: internalcache.NewEmptySnapshot(), assumed: map[types.UID]*v1.Pod{}}
	fh, err := frameworkruntime.NewFramework(ctx, nil, nil,
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithEventRecorder(recorder),
		frameworkruntime.WithSnapshotSharedLister(view))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(ctx, pluginArgs, fh)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &env{ctx: ctx, cs: cs, fh: fh, pl: p.(*GPUShare), recorder: recorder, view: view}
}

// prefilter runs PreFilter for pod and returns its cycle state.
func (e *env) prefilter(t testing.TB, pod *v1.Pod) (fwk.CycleState, *fwk.Status) {
	t.Helper()
	e.sync(t)
	nodes, err := e.view.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	state := framework.NewCycleState()
	_, status := e.pl.PreFilter(e.ctx, state, pod, nodes)
	return state, status
}

// bindingReactor makes the fake API server bind pods as the real one does (the Binding's
// annotations merged into the pod in the same update), or fail with err.
func bindingReactor(cs *fake.Clientset, err error) {
	cs.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		if err != nil {
			return true, nil, err
		}
		binding := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		gvr := v1.SchemeGroupVersion.WithResource("pods")
		obj, getErr := cs.Tracker().Get(gvr, binding.Namespace, binding.Name)
		if getErr != nil {
			return true, nil, getErr
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = binding.Target.Name
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		maps.Copy(pod.Annotations, binding.Annotations)
		return true, binding, cs.Tracker().Update(gvr, pod, binding.Namespace)
	})
}

// statusText compares statuses as the scheduler reports them, by code and message: a rejection's
// message may be formatted from its error only when it is read.
var statusText = cmp.Transformer("status", func(s *fwk.Status) string {
	if s.IsSuccess() {
		return "Success"
	}
	return s.Code().String() + ": " + s.Message()
})

// eventually waits for the informers to bring the cache to cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}
