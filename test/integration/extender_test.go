package integration

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/internal/proc"
	"github.com/berth-sched/berth/pkg/extender"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/test/harness"
)

// extenderEnv is a control plane, berth's extender served from this process on loopback (so the
// race detector sees it), and the stock kube-scheduler binary calling it with the configuration
// berth ships in manifests/extender.
type extenderEnv struct {
	c      *harness.Cluster
	addr   string
	prefix string
	stop   func()
	// watchLag delays every chunk of the extender's watches by that much after it arrives.
	watchLag time.Duration
}

func startExtenderEnv(t *testing.T, nodeCacheCapable bool) *extenderEnv {
	t.Helper()
	return startExtenderEnvLagging(t, nodeCacheCapable, 0)
}

// startExtenderEnvLagging is startExtenderEnv with an extender whose watches deliver every event
// lag after the scheduler's, as one on a busy node or far from the API server sees them: each time
// the scheduler acts on an event, the extender has not seen it yet.
func startExtenderEnvLagging(t *testing.T, nodeCacheCapable bool, lag time.Duration) *extenderEnv {
	t.Helper()
	e := &extenderEnv{c: harness.StartCluster(t), watchLag: lag}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.addr = l.Addr().String()
	shipped := extenderShippedSchedulerConfig(t)
	e.prefix = extenderURLPrefix(t, shipped).Path
	e.serve(t, l)
	extenderStartKubeScheduler(t, extenderSchedulerConfig(t, shipped, "http://"+e.addr+e.prefix, e.c.KubeconfigPath(), nodeCacheCapable))
	return e
}

// serve runs a fresh extender, with an empty cache, on l until stop or the end of the test.
func (e *extenderEnv) serve(t *testing.T, l net.Listener) {
	t.Helper()
	cfg := rest.CopyConfig(e.c.RESTConfig())
	if e.watchLag > 0 {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return laggingWatches{rt, e.watchLag} })
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(4)))
	factory := informers.NewSharedInformerFactory(client, 0)
	ext, err := extender.New(client, factory, extender.Config{
		Resources: gpu.ResourceNames{Memory: harness.GPUMemory, Count: harness.GPUCount},
		Strategy:  gpu.Binpack,
	}, logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, time.Minute)
	defer syncCancel()
	if !toolscache.WaitForCacheSync(syncCtx.Done(), ext.HasSynced) {
		cancel()
		t.Fatal("extender cache did not sync")
	}
	server := &http.Server{
		Handler:     ext.Handler(e.prefix, extender.DefaultLimits),
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = server.Serve(l)
	}()
	e.stop = sync.OnceFunc(func() {
		_ = server.Close()
		<-served
		cancel()
		factory.Shutdown()
	})
	t.Cleanup(e.stop)
}

// restart stops the extender and starts a new one on the same address, as a restarted process
// would come back: it knows only what the API server shows.
func (e *extenderEnv) restart(t *testing.T) {
	t.Helper()
	e.stop()
	l, err := net.Listen("tcp", e.addr)
	if err != nil {
		t.Fatalf("listening again on %s: %v", e.addr, err)
	}
	e.serve(t, l)
}

// laggingWatches holds back what a watch response brings until lag after it arrived: a delay
// line, so that the lag stays the same however many events come.
type laggingWatches struct {
	http.RoundTripper
	lag time.Duration
}

func (l laggingWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.RoundTripper.RoundTrip(req)
	if err == nil && req.URL.Query().Get("watch") == "true" {
		resp.Body = newLaggingBody(resp.Body, l.lag)
	}
	return resp, err
}

type laggingBody struct {
	body   io.ReadCloser
	lag    time.Duration
	chunks chan lagged
	closed chan struct{}
	close  func()
	rest   []byte
}

// lagged is what one read of the body brought, and when.
type lagged struct {
	data []byte
	err  error
	at   time.Time
}

func newLaggingBody(body io.ReadCloser, lag time.Duration) *laggingBody {
	b := &laggingBody{body: body, lag: lag, chunks: make(chan lagged, 1024), closed: make(chan struct{})}
	b.close = sync.OnceFunc(func() { close(b.closed) })
	go func() {
		for {
			buf := make([]byte, 32<<10)
			n, err := body.Read(buf)
			select {
			case b.chunks <- lagged{data: buf[:n], err: err, at: time.Now()}:
			case <-b.closed:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return b
}

func (b *laggingBody) Read(p []byte) (int, error) {
	for len(b.rest) == 0 {
		var c lagged
		select {
		case c = <-b.chunks:
		case <-b.closed:
			return 0, io.ErrClosedPipe
		}
		time.Sleep(time.Until(c.at.Add(b.lag)))
		if len(c.data) == 0 && c.err != nil {
			return 0, c.err
		}
		b.rest = c.data
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *laggingBody) Close() error {
	b.close()
	return b.body.Close()
}

func extenderShippedSchedulerConfig(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "manifests", "extender", "scheduler-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm v1.ConfigMap
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	return cm.Data["config.yaml"]
}

func extenderURLPrefix(t *testing.T, config string) *url.URL {
	t.Helper()
	var obj struct{ Extenders []struct{ URLPrefix string } }
	if err := yaml.Unmarshal([]byte(config), &obj); err != nil {
		t.Fatal(err)
	}
	if len(obj.Extenders) != 1 {
		t.Fatalf("shipped scheduler config has %d extenders, want 1", len(obj.Extenders))
	}
	u, err := url.Parse(obj.Extenders[0].URLPrefix)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// extenderSchedulerConfig points a shipped configuration at this test's API server and extender.
func extenderSchedulerConfig(t *testing.T, config, urlPrefix, kubeconfig string, nodeCacheCapable bool) string {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(config), &obj); err != nil {
		t.Fatal(err)
	}
	obj["clientConnection"] = map[string]any{"kubeconfig": kubeconfig, "qps": 500, "burst": 1000}
	obj["leaderElection"] = map[string]any{"leaderElect": false}
	ext := obj["extenders"].([]any)[0].(map[string]any)
	ext["urlPrefix"] = urlPrefix
	if strings.HasPrefix(urlPrefix, "http://") {
		// An extender served without TLS: the shipped client certificate has no use.
		delete(ext, "enableHTTPS")
		delete(ext, "tlsConfig")
	}
	ext["nodeCacheCapable"] = nodeCacheCapable
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func extenderStartKubeScheduler(t *testing.T, config string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kube-scheduler-config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	harness.StartBinary(t, "kube-scheduler", "--config", path, "--secure-port", "0", "-v=2")
}

// extenderWaitBound waits for one pod to be bound and returns it.
func (e *extenderEnv) waitBound(t *testing.T, ns, name string) *v1.Pod {
	t.Helper()
	pods := e.c.WaitForPods(t, ns, time.Minute, name+" bound", func(pods []v1.Pod) bool { return nodeOf(pods, name) != "" })
	return harness.Pod(pods, name)
}

// extenderWaitPending waits until the scheduler has given up on a pod for now, with a message
// that says why, and returns it.
func (e *extenderEnv) waitPending(t *testing.T, ns, name string) *v1.Pod {
	t.Helper()
	pods := e.c.WaitForPods(t, ns, time.Minute, name+" unschedulable", func(pods []v1.Pod) bool {
		for i := range pods {
			if pods[i].Name == name && harness.Unschedulable(&pods[i]) != "" {
				return true
			}
		}
		return false
	})
	return harness.Pod(pods, name)
}

func extenderGPUPod(ns string, name string, memory int64, gpus int) *v1.Pod {
	p := harness.GPUPod(ns, name, memory)
	if gpus > 1 {
		p.Annotations = map[string]string{gpu.PodGPUCountAnnotation: strconv.Itoa(gpus)}
	}
	return p
}

// extenderRequests is how many requests the in-process extenders have answered for verb with 200.
func extenderRequests(t *testing.T, verb string) float64 {
	t.Helper()
	return counterSum(t, "berth_extender_requests_total", map[string]string{"verb": verb, "code": "200"})
}

// counterSum is the sum of the in-process counter name over its series whose labels include want
// (all of them for a nil want).
func counterSum(t *testing.T, name string, want map[string]string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			n += m.GetCounter().GetValue()
		}
	}
	return n
}

// The stock scheduler with berth's extender places GPU pods on nodes and GPUs that fit, packing
// them, with the gpushare annotations the device plugin reads and berth's record of the devices;
// pods without GPU memory never reach the extender. Both extender modes.
func TestExtenderPlacesGPUPods(t *testing.T) {
	for _, nodeCacheCapable := range []bool{true, false} {
		t.Run(fmt.Sprintf("nodeCacheCapable=%v", nodeCacheCapable), func(t *testing.T) {
			bindsBefore := extenderRequests(t, extender.BindVerb)
			e := startExtenderEnv(t, nodeCacheCapable)
			e.c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
			e.c.CreateNode(t, harness.GPUNode("gpu-b", 2, 16))
			ns := e.c.Namespace(t, "gpu")

			start := time.Now()
			e.c.CreatePod(t, extenderGPUPod(ns, "p1", 6, 1))
			p1 := e.waitBound(t, ns, "p1")
			shares := harness.Shares(t, p1)
			if len(shares) != 1 {
				t.Fatalf("p1 holds %v, want one GPU", shares)
			}
			dev := slices.Collect(maps.Keys(shares))[0]
			assume, err := strconv.ParseInt(p1.Annotations[gpu.GPUShareAssumeTimeAnnotation], 10, 64)
			if err != nil || assume < start.UnixNano() || assume > time.Now().UnixNano() {
				t.Errorf("p1: %s=%q is not the time of binding", gpu.GPUShareAssumeTimeAnnotation, p1.Annotations[gpu.GPUShareAssumeTimeAnnotation])
			}
			want := map[string]string{
				gpu.PodGPUDevicesAnnotation:    fmt.Sprintf("%d:6", dev),
				gpu.GPUShareIndexAnnotation:    strconv.Itoa(dev),
				gpu.GPUShareDeviceAnnotation:   "16",
				gpu.GPUSharePodAnnotation:      "6",
				gpu.GPUShareAssignedAnnotation: "false",
			}
			for k, v := range want {
				if p1.Annotations[k] != v {
					t.Errorf("p1: annotation %s=%q, want %q", k, p1.Annotations[k], v)
				}
			}

			// Binpack: the second pod joins the first on its GPU.
			e.c.CreatePod(t, extenderGPUPod(ns, "p2", 6, 1))
			p2 := e.waitBound(t, ns, "p2")
			if p2.Spec.NodeName != p1.Spec.NodeName || p2.Annotations[gpu.PodGPUDevicesAnnotation] != fmt.Sprintf("%d:6", dev) {
				t.Errorf("p2 on %s with %q, want packed with p1 on %s device %d",
					p2.Spec.NodeName, p2.Annotations[gpu.PodGPUDevicesAnnotation], p1.Spec.NodeName, dev)
			}

			// Two GPUs of 8: only the other node has two with that much free.
			e.c.CreatePod(t, extenderGPUPod(ns, "multi", 16, 2))
			multi := e.waitBound(t, ns, "multi")
			if multi.Spec.NodeName == p1.Spec.NodeName || multi.Annotations[gpu.PodGPUDevicesAnnotation] != "0:8,1:8" {
				t.Errorf("multi on %s with %q, want the other node than %s with 0:8,1:8",
					multi.Spec.NodeName, multi.Annotations[gpu.PodGPUDevicesAnnotation], p1.Spec.NodeName)
			}
			for _, k := range []string{gpu.GPUShareIndexAnnotation, gpu.GPUShareDeviceAnnotation, gpu.GPUSharePodAnnotation,
				gpu.GPUShareAssignedAnnotation, gpu.GPUShareAssumeTimeAnnotation} {
				if v, ok := multi.Annotations[k]; ok {
					t.Errorf("multi: gpushare annotation %s=%q on a pod of several GPUs", k, v)
				}
			}

			// The extender counts a bind after it has answered, so the scheduler may see the pod bound
			// first: wait for the three GPU pods' binds to be counted before taking the baseline.
			if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
				return extenderRequests(t, extender.BindVerb)-bindsBefore >= 3, nil
			}); err != nil {
				t.Fatalf("the extender counted %v binds for the 3 GPU pods bound", extenderRequests(t, extender.BindVerb)-bindsBefore)
			}
			filters, binds := extenderRequests(t, extender.FilterVerb), extenderRequests(t, extender.BindVerb)
			e.c.CreatePod(t, pod(ns, "no-gpu", ""))
			noGPU := e.waitBound(t, ns, "no-gpu")
			if len(noGPU.Annotations) != 0 {
				t.Errorf("no-gpu got annotations %v", noGPU.Annotations)
			}
			if f, b := extenderRequests(t, extender.FilterVerb), extenderRequests(t, extender.BindVerb); f != filters || b != binds {
				t.Errorf("a pod without GPU memory reached the extender: filter %v -> %v, bind %v -> %v", filters, f, binds, b)
			}

			pods, err := e.c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			harness.CheckNoOvercommit(t, pods.Items, map[string][]int64{"gpu-a": {16, 16}, "gpu-b": {16, 16}})
		})
	}
}

// Pods that fit the node's GPU memory in total but no single GPU stay pending, and the
// extender's reason is what the user reads in the pod's condition and events.
func TestExtenderLeavesWhatDoesNotFitPending(t *testing.T) {
	e := startExtenderEnv(t, true)
	e.c.CreateNode(t, harness.GPUNode("gpu-a", 2, 8))
	ns := e.c.Namespace(t, "pending")
	for _, name := range []string{"a", "b"} {
		e.c.CreatePod(t, extenderGPUPod(ns, name, 6, 1))
		e.waitBound(t, ns, name)
	}
	// 12 of 16 used: kube-scheduler sees room for 4 more, but each GPU has only 2 free.
	e.c.CreatePod(t, extenderGPUPod(ns, "c", 4, 1))
	e.c.CreatePod(t, extenderGPUPod(ns, "d", 4, 1))
	const reason = "GPU memory: pod asks for 4 on one GPU; the most free on one GPU of this node is 2"
	for _, name := range []string{"c", "d"} {
		p := e.waitPending(t, ns, name)
		if msg := harness.Unschedulable(p); !strings.Contains(msg, reason) {
			t.Errorf("%s: unschedulable with %q, want the extender's reason %q", name, msg, reason)
		}
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			events, err := e.c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
			if err != nil {
				return false, nil
			}
			for _, ev := range events.Items {
				if ev.Reason == "FailedScheduling" && strings.Contains(ev.Message, reason) {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Errorf("%s: no FailedScheduling event with %q", name, reason)
		}
	}
	pods, err := e.c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := harness.Bound(pods.Items); n != 2 {
		t.Errorf("%d pods bound, want 2", n)
	}
	harness.CheckNoOvercommit(t, pods.Items, map[string][]int64{"gpu-a": {8, 8}})
}

// A high-priority GPU pod preempts through the preempt verb: kube-scheduler picks a victim, the
// extender confirms that evicting it frees a GPU the pod fits on, the victim is deleted and the
// pod lands on the GPU it held.
func TestExtenderPreemption(t *testing.T) {
	e := startExtenderEnv(t, true)
	e.c.ActAsKubelet(t)
	ctx := context.Background()
	if _, err := e.c.Client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	ns := e.c.Namespace(t, "preempt")
	held := map[string]string{}
	for _, name := range []string{"low-0", "low-1"} {
		e.c.CreatePod(t, extenderGPUPod(ns, name, 12, 1))
		held[name] = e.waitBound(t, ns, name).Annotations[gpu.PodGPUDevicesAnnotation]
	}
	if held["low-0"] == held["low-1"] {
		t.Fatalf("both low-priority pods hold %s", held["low-0"])
	}

	preempts := extenderRequests(t, extender.PreemptVerb)
	high := extenderGPUPod(ns, "high", 12, 1)
	high.Spec.PriorityClassName = "high"
	e.c.CreatePod(t, high)
	got := e.waitBound(t, ns, "high")
	if n := extenderRequests(t, extender.PreemptVerb); n <= preempts {
		t.Errorf("the preempt verb was not called (%v requests before, %v after)", preempts, n)
	}

	pods, err := e.c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Fatalf("%d pods left, want the high-priority pod and one low-priority pod", len(pods.Items))
	}
	for _, p := range pods.Items {
		if p.Name == "high" {
			continue
		}
		victim := "low-0"
		if p.Name == victim {
			victim = "low-1"
		}
		if got.Annotations[gpu.PodGPUDevicesAnnotation] != held[victim] {
			t.Errorf("high holds %q, want the GPU the victim %s held (%s)", got.Annotations[gpu.PodGPUDevicesAnnotation], victim, held[victim])
		}
	}
	harness.CheckNoOvercommit(t, pods.Items, map[string][]int64{"gpu-a": {16, 16}})
}

// A restarted extender rebuilds its accounting from the pods' annotations: it does not hand out
// the GPU memory that pods placed before the restart hold.
func TestExtenderRestartKeepsAccounting(t *testing.T) {
	e := startExtenderEnv(t, true)
	e.c.CreateNode(t, harness.GPUNode("gpu-a", 2, 8))
	ns := e.c.Namespace(t, "restart")
	e.c.CreatePod(t, extenderGPUPod(ns, "a", 6, 1))
	a := e.waitBound(t, ns, "a")

	e.restart(t)
	// Had the new extender forgotten a, both GPUs would look empty and binpack would put b with a.
	e.c.CreatePod(t, extenderGPUPod(ns, "b", 6, 1))
	b := e.waitBound(t, ns, "b")
	if b.Annotations[gpu.PodGPUDevicesAnnotation] == a.Annotations[gpu.PodGPUDevicesAnnotation] {
		t.Errorf("b got %q, the GPU a holds", b.Annotations[gpu.PodGPUDevicesAnnotation])
	}
	e.c.CreatePod(t, extenderGPUPod(ns, "c", 4, 1))
	c := e.waitPending(t, ns, "c")
	if msg := harness.Unschedulable(c); !strings.Contains(msg, "the most free on one GPU of this node is 2") {
		t.Errorf("c: unschedulable with %q", msg)
	}
	pods, err := e.c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	harness.CheckNoOvercommit(t, pods.Items, map[string][]int64{"gpu-a": {8, 8}})
}

// The manifests in manifests/extender apply, and run as shipped: the berth-extender binary with
// the Deployment's arguments and only its ServiceAccount's RBAC, and kube-scheduler with the
// ConfigMap's configuration, bind a GPU pod over mutual TLS; the extender takes its Lease, records
// warnings as events, serves /readyz and /metrics without a client certificate, and refuses the
// verbs to a client without one or with one from another CA.
// shippedExtender is berth-extender run as manifests/extender ship it.
type shippedExtender struct {
	// container is the Deployment's.
	container v1.Container
	// schedulerConfig is the shipped KubeSchedulerConfiguration.
	schedulerConfig string
	// urlPrefix is where this process serves the verbs, addr where it listens.
	urlPrefix, addr string
	ext             *proc.Process
	pki             *extenderPKI
}

// startShippedExtender applies manifests/extender to c and runs berth-extender with the
// Deployment's arguments over mutual TLS as the extender's ServiceAccount, until it is ready.
func startShippedExtender(t *testing.T, c *harness.Cluster) *shippedExtender {
	t.Helper()
	harness.BinDir(t, "berth-extender", "kube-scheduler")
	ctx := context.Background()
	root := filepath.Join(harness.RepoRoot(), "manifests")
	files := []string{filepath.Join(root, "namespace.yaml")}
	more, err := filepath.Glob(filepath.Join(root, "extender", "*.yaml"))
	if err != nil || len(more) == 0 {
		t.Fatalf("no manifests in manifests/extender: %v", err)
	}
	if err := controlplane.ApplyFiles(ctx, c.RESTConfig(), append(files, more...)...); err != nil {
		t.Fatalf("applying manifests: %v", err)
	}

	deploy, err := c.Client.AppsV1().Deployments("berth-system").Get(ctx, "berth-extender", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := c.Client.CoreV1().Services("berth-system").Get(ctx, "berth-extender", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := c.Client.CoreV1().ConfigMaps("berth-system").Get(ctx, "berth-extender-scheduler-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shipped := extenderURLPrefix(t, cm.Data["config.yaml"])
	if want := fmt.Sprintf("%s.%s.svc:%d", svc.Name, svc.Namespace, svc.Spec.Ports[0].Port); shipped.Host != want {
		t.Errorf("urlPrefix %s does not name the Service (%s)", shipped, want)
	}

	saKubeconfig, err := c.Kubeconfig("system:serviceaccount:berth-system:berth-extender",
		"system:serviceaccounts", "system:serviceaccounts:berth-system", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	l.Close()
	container := deploy.Spec.Template.Spec.Containers[0]
	// The Deployment's arguments, then what differs outside a cluster: later flags win.
	pki := newExtenderPKI(t, fmt.Sprintf("%s.%s.svc", svc.Name, svc.Namespace))
	args := append(append(append([]string{}, container.Args...), pki.ExtenderFlags()...),
		"--kubeconfig="+saKubeconfig, "--bind-address=127.0.0.1", "--port="+port, "-v=4")
	for _, env := range container.Env {
		// GOMEMLIMIT: the process inherits the test's environment.
		t.Setenv(env.Name, env.Value)
	}
	ext := harness.StartBinary(t, "berth-extender", args...)
	probe := pki.Client(t, "", "") // as kubelet probes: no client certificate

	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if ext.Exited() != nil {
			return false, ext.Exited()
		}
		code, _ := extenderGetWith(probe, "https://"+addr+"/readyz")
		return code == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("berth-extender not ready: %v\n%s", err, ext.LogTail(30))
	}
	return &shippedExtender{container: container, schedulerConfig: cm.Data["config.yaml"],
		urlPrefix: "https://" + addr + shipped.Path, addr: addr, ext: ext, pki: pki}
}

// startKubeScheduler runs the real kube-scheduler with the shipped configuration, calling this
// extender with the scheduler's client certificate.
func (s *shippedExtender) startKubeScheduler(t *testing.T, c *harness.Cluster) {
	t.Helper()
	extenderStartKubeScheduler(t, s.pki.SchedulerConfig(t, extenderSchedulerConfig(t, s.schedulerConfig, s.urlPrefix, c.KubeconfigPath(), true)))
}

func TestExtenderManifests(t *testing.T) {
	c := harness.StartCluster(t)
	ctx := context.Background()
	s := startShippedExtender(t, c)
	ext, pki, addr, urlPrefix := s.ext, s.pki, s.addr, s.urlPrefix
	lease, err := c.Client.CoordinationV1().Leases("berth-system").Get(ctx, "berth-extender", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("the ready extender holds no Lease berth-system/berth-extender: %v %v", err, lease)
	}

	s.startKubeScheduler(t, c)
	c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	ns := c.Namespace(t, "workload")
	c.CreatePod(t, extenderGPUPod(ns, "p", 4, 1))
	pods := c.WaitForPods(t, ns, time.Minute, "GPU pod bound through the shipped configuration", func(pods []v1.Pod) bool {
		return nodeOf(pods, "p") != ""
	})
	if p := harness.Pod(pods, "p"); p.Annotations[gpu.PodGPUDevicesAnnotation] != "0:4" {
		t.Errorf("p bound with annotations %v", p.Annotations)
	}

	// A pod bound by someone else with a malformed record of its devices: a warning event.
	bad := extenderGPUPod(ns, "bad", 4, 1)
	bad.Spec.NodeName = "gpu-a"
	bad.Annotations = map[string]string{gpu.PodGPUDevicesAnnotation: "zero:4"}
	c.CreatePod(t, bad)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=bad"})
		if err != nil {
			return false, nil
		}
		for _, ev := range events.Items {
			if ev.Type == v1.EventTypeWarning && ev.Reason == "InvalidGPUAssignment" && strings.Contains(ev.Message, gpu.PodGPUDevicesAnnotation) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no InvalidGPUAssignment event for pod bad: %v\n%s", err, ext.LogTail(30))
	}

	code, body := extenderGetWith(pki.Client(t, "", ""), "https://"+addr+"/metrics")
	if code != http.StatusOK || !strings.Contains(body, `berth_extender_requests_total{code="200",verb="bind"} 1`) {
		t.Errorf("/metrics: %d, no count of one bind in:\n%s", code, body)
	}
	extenderRefusesUncertified(t, pki, urlPrefix)
}
