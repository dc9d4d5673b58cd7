package extender

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

const (
	testMemory v1.ResourceName = "aliyun.com/gpu-mem"
	testCount  v1.ResourceName = "aliyun.com/gpu-count"
	testPrefix                 = "/berth"
)

var (
	testResources = gpu.ResourceNames{Memory: testMemory, Count: testCount}
	// testNow is the assume time bind writes in tests.
	testNow = time.Unix(1700000000, 42)
)

// gpuNode has count GPUs sharing memory equally.
func gpuNode(name string, count, memory int) *v1.Node {
	return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
		v1.ResourceCPU: "8", testCount: strconv.Itoa(count), testMemory: strconv.Itoa(memory),
	}).Obj()
}

// gpuPod asks for memory of GPU memory; its UID is its name.
func gpuPod(name string, memory int) *st.PodWrapper {
	p := st.MakePod().Namespace("ns").Name(name).UID(name).Container("app")
	if memory > 0 {
		p = p.Lim(map[v1.ResourceName]string{testMemory: strconv.Itoa(memory)})
	}
	return p
}

// boundPod holds devices on node.
func boundPod(name, node, devices string) *v1.Pod {
	return gpuPod(name, 1).Node(node).Annotation(gpu.PodGPUDevicesAnnotation, devices).Obj()
}

// testEnv is an extender on a fake clientset that binds like the API server does, served over
// HTTP like the scheduler calls it.
type testEnv struct {
	ext    *Extender
	client *fake.Clientset
	server *httptest.Server
}

func newEnv(t testing.TB, strategy *gpu.Strategy, objs ...runtime.Object) *testEnv {
	t.Helper()
	env := startEnv(t, strategy, objs...)
	if !toolscache.WaitForCacheSync(t.Context().Done(), env.ext.HasSynced) {
		t.Fatal("extender cache did not sync")
	}
	return env
}

// startEnv does not wait for the cache to sync.
func startEnv(t testing.TB, strategy *gpu.Strategy, objs ...runtime.Object) *testEnv {
	t.Helper()
	logger, ctx := ktesting.NewTestContext(t)
	client := fake.NewClientset(objs...)
	client.PrependReactor("create", "pods", bindReactor(client.Tracker()))
	factory := informers.NewSharedInformerFactory(client, 0)
	ext, err := New(client, factory, Config{Resources: testResources, Strategy: strategy}, logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	ext.now = func() time.Time { return testNow }
	ctx, cancel := context.WithCancel(ctx)
	factory.Start(ctx.Done())
	server := httptest.NewServer(ext.Handler(testPrefix, Limits{MaxRequestBytes: 1 << 20, MaxInFlightBytes: 4 << 20}))
	t.Cleanup(func() {
		server.Close()
		cancel()
		factory.Shutdown()
	})
	return &testEnv{ext: ext, client: client, server: server}
}

var podsResource = v1.SchemeGroupVersion.WithResource("pods")

// bindReactor makes pods/binding do what the API server does: set the node of the pod with the
// binding's UID, once, and merge the binding's annotations into the pod in the same update.
func bindReactor(tracker k8stesting.ObjectTracker) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		create, ok := action.(k8stesting.CreateAction)
		if !ok || action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		binding := create.GetObject().(*v1.Binding)
		obj, err := tracker.Get(podsResource, binding.Namespace, binding.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		switch {
		case binding.UID != "" && binding.UID != pod.UID:
			return true, nil, apierrors.NewConflict(podsResource.GroupResource(), pod.Name, fmt.Errorf("UID precondition failed"))
		case pod.Spec.NodeName != "":
			return true, nil, apierrors.NewConflict(podsResource.GroupResource(), pod.Name, fmt.Errorf("pod is already assigned to node %q", pod.Spec.NodeName))
		}
		pod.Spec.NodeName = binding.Target.Name
		if len(binding.Annotations) > 0 && pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		maps.Copy(pod.Annotations, binding.Annotations)
		return true, binding, tracker.Update(podsResource, pod, pod.Namespace)
	}
}

// post sends body (bytes as they are, anything else as JSON) to a verb.
func (env *testEnv) post(t testing.TB, verb string, body any) (int, []byte) {
	t.Helper()
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(env.server.URL+testPrefix+"/"+verb, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// call sends args to a verb and decodes a successful answer.
func call[Resp any](t testing.TB, env *testEnv, verb string, args any) Resp {
	t.Helper()
	code, body := env.post(t, verb, args)
	if code != http.StatusOK {
		t.Fatalf("%s: status %d: %s", verb, code, body)
	}
	var resp Resp
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("%s: answer %q: %v", verb, body, err)
	}
	return resp
}

func (env *testEnv) pod(t testing.TB, name string) *v1.Pod {
	t.Helper()
	pod, err := env.client.CoreV1().Pods("ns").Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// writes lists the changes the extender made through the API, as "verb resource/subresource name".
func (env *testEnv) writes() []string {
	var out []string
	for _, a := range env.client.Actions() {
		switch a := a.(type) {
		case k8stesting.PatchAction:
			out = append(out, "patch pods "+a.GetName())
		case k8stesting.CreateAction:
			if a.GetSubresource() == "binding" {
				out = append(out, "create pods/binding "+a.GetObject().(*v1.Binding).Name)
			}
		}
	}
	return out
}

// schedulerClient is kube-scheduler's own extender client for the extender at url, configured as
// berth ships it (manifests/extender/scheduler-config.yaml).
func schedulerClient(t testing.TB, url string) fwk.Extender {
	t.Helper()
	ext, err := scheduler.NewHTTPExtender(&schedulerapi.Extender{
		URLPrefix: url + testPrefix, FilterVerb: FilterVerb, PrioritizeVerb: PrioritizeVerb, PreemptVerb: PreemptVerb, BindVerb: BindVerb,
		Weight: 5, NodeCacheCapable: true,
		ManagedResources: []schedulerapi.ExtenderManagedResource{{Name: string(testMemory)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ext
}

// nodeInfo is a node as the scheduler hands it to its extender client.
func nodeInfo(node *v1.Node) fwk.NodeInfo {
	info := framework.NewNodeInfo()
	info.SetNode(node)
	return info
}
