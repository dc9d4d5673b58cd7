package gpushare

import (
	"context"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
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
	return &config.GPUShareArgs{MemoryResource: string(memoryResource), CountResource: string(countResource), ScoringStrategy: strategy}
}

// env is a GPUShare plugin on a fake API server, with its informers running.
type env struct {
	ctx      context.Context
	cs       *fake.Clientset
	fh       fwk.Handle
	pl       *GPUShare
	recorder *events.FakeRecorder
}

// newEnv starts the plugin with objs already in the API, as a restarted scheduler finds them.
func newEnv(t *testing.T, pluginArgs runtime.Object, objs ...runtime.Object) *env {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	cs := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(cs, 0)
	recorder := events.NewFakeRecorder(100)
	fh, err := frameworkruntime.NewFramework(ctx, nil, nil,
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithEventRecorder(recorder))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(ctx, pluginArgs, fh)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &env{ctx: ctx, cs: cs, fh: fh, pl: p.(*GPUShare), recorder: recorder}
}

// prefilter runs PreFilter for pod and returns its cycle state.
func (e *env) prefilter(t *testing.T, pod *v1.Pod) (fwk.CycleState, *fwk.Status) {
	t.Helper()
	state := framework.NewCycleState()
	_, status := e.pl.PreFilter(e.ctx, state, pod, nil)
	return state, status
}

func nodeInfo(node *v1.Node) fwk.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(node)
	return ni
}

// bindingReactor makes the fake API server bind pods as the real one does, or fail with err.
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
		return true, binding, cs.Tracker().Update(gvr, pod, binding.Namespace)
	})
}

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
