// Package harness gives berth's integration tests a real control plane (etcd and kube-apiserver
// processes on loopback) and a berth scheduler built from the same plugin registry as the
// berth-scheduler binary, running in the test process so the race detector sees the plugins.
package harness

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/configz"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	schedulerappconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/internal/waitreason"
	"github.com/berth-sched/berth/test/bins"
	"github.com/berth-sched/berth/test/testplane"
)

func init() {
	// Every in-process scheduler applies its logging options again; unchanged options are fine.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
	// BERTH_SCHEDULER_V sets the log verbosity of the schedulers a test runs in its own process.
	if v := os.Getenv("BERTH_SCHEDULER_V"); v != "" {
		var fs flag.FlagSet
		klog.InitFlags(&fs)
		if err := fs.Set("v", v); err != nil {
			panic(fmt.Sprintf("BERTH_SCHEDULER_V=%q: %v", v, err))
		}
	}
}

// RepoRoot is the root of the berth checkout.
func RepoRoot() string { return bins.RepoRoot() }

// BinDir is where `make binaries` put berth's and the upstream binaries; a missing one among need
// fails the test.
func BinDir(t testing.TB, need ...string) string {
	t.Helper()
	return bins.Dir(t, need...)
}

// Cluster is a control plane for one test: its own, stopped when the test ends, or the one the
// test runner's worker shares among the tests it runs one after another (testplane), emptied
// before the test starts.
type Cluster struct {
	*controlplane.ControlPlane
	Client kubernetes.Interface
}

// sharedInUse is set while a test of this process holds the shared control plane: a test that
// wants a second cluster gets one of its own.
var sharedInUse atomic.Bool

// StartCluster gives this test a control plane with berth's CRDs installed and nothing else in
// it.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cp := takeShared(ctx, t)
	if cp == nil {
		var err error
		if cp, err = testplane.Start(ctx, BinDir(t, "etcd", "kube-apiserver"), "", t.Logf); err != nil {
			t.Fatalf("starting control plane: %v", err)
		}
		t.Cleanup(cp.Stop)
	}
	client, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return &Cluster{ControlPlane: cp, Client: client}
}

// takeShared returns the shared control plane if there is one and this process does not hold it
// already; nil if not, or if it cannot be emptied (the test then starts its own, and says why).
func takeShared(ctx context.Context, t testing.TB) *controlplane.ControlPlane {
	dir := os.Getenv(testplane.Env)
	if dir == "" || !sharedInUse.CompareAndSwap(false, true) {
		return nil
	}
	begin := time.Now()
	cp, changed, err := testplane.TakeShared(ctx, dir)
	if err != nil {
		sharedInUse.Store(false)
		t.Logf("%s in %s, starting one of its own: %v", testplane.Unusable, dir, err)
		return nil
	}
	t.Logf("took the shared control plane at %s in %v", cp.URL(), time.Since(begin).Round(time.Millisecond))
	if len(changed) > 0 {
		t.Logf("a test before this one changed what the shared control plane held at its start: %s", strings.Join(changed, ", "))
	}
	t.Cleanup(func() { sharedInUse.Store(false) })
	return cp
}

// SchedulerConfig is a KubeSchedulerConfiguration for this cluster: profiles (a YAML list, indented
// as the `profiles:` key's value) plus anything else at top level in extra.
func (c *Cluster) SchedulerConfig(profiles, extra string) string {
	return fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: 500
  burst: 1000
leaderElection:
  leaderElect: false
%s
profiles:
%s`, c.KubeconfigPath(), extra, profiles)
}

// BerthProfile is berth's plugins (registry.Plugins) with pluginConfig, a YAML list, added: the
// plugins' own defaults for arguments not given there (GPUShare: Binpack), not the shipped ones
// (registry.Profile), so that a test states what it relies on.
func BerthProfile(schedulerName string, pluginConfig string) string {
	return registry.Plugins(schedulerName) + indent(pluginConfig, "  ")
}

func indent(s, by string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// StartScheduler runs a berth scheduler with the given configuration in this process until the
// returned stop function is called or the test ends. It fails the test if the scheduler does not
// start; use SetupScheduler to see a start-up error. The configuration must not enable leader
// election (see StartSchedulerBinary).
func (c *Cluster) StartScheduler(t testing.TB, config string) (stop func()) {
	t.Helper()
	return c.StartSchedulerWith(t, config, waitreason.DefaultConfig())
}

// StartSchedulerWith is StartScheduler with the publisher of why pods wait configured by wait, as
// berth-scheduler's --wait-reason-* flags configure it, and the test's own plugins registered
// beside berth's (app.WithPlugin).
func (c *Cluster) StartSchedulerWith(t testing.TB, config string, wait waitreason.Config, plugins ...app.Option) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cc, sched, err := SetupSchedulerWith(ctx, t, config, wait, plugins...)
	if err != nil {
		cancel()
		t.Fatalf("scheduler set-up: %v", err)
	}
	if cc.LeaderElection != nil {
		cancel()
		t.Fatal("in-process schedulers must not elect a leader: use StartSchedulerBinary")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := app.Run(ctx, cc, sched); err != nil {
			t.Logf("scheduler stopped: %v", err)
		}
	}()
	var once bool
	stop = func() {
		if once {
			return
		}
		once = true
		cancel()
		<-done
		configz.Delete("componentconfig")
	}
	t.Cleanup(stop)
	return stop
}

// SetupScheduler loads config the way the berth-scheduler command does and builds the scheduler,
// without running it.
func SetupScheduler(ctx context.Context, t testing.TB, config string) (*schedulerappconfig.CompletedConfig, *scheduler.Scheduler, error) {
	return SetupSchedulerWith(ctx, t, config, waitreason.DefaultConfig())
}

// SetupSchedulerWith is SetupScheduler with the publisher of why pods wait configured by wait, and
// plugins registered beside berth's.
func SetupSchedulerWith(ctx context.Context, t testing.TB, config string, wait waitreason.Config, plugins ...app.Option) (*schedulerappconfig.CompletedConfig, *scheduler.Scheduler, error) {
	path := filepath.Join(t.TempDir(), "scheduler-config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		return nil, nil, err
	}
	opts := options.NewOptions()
	opts.ConfigFile = path
	// No serving: the tests watch the API, not the scheduler's endpoints.
	opts.SecureServing.BindPort = 0
	cc, sched, err := app.Setup(ctx, opts, append(registry.OptionsWith(&wait), plugins...)...)
	if err == nil {
		// berth-scheduler makes the same check before it starts.
		err = registry.CheckProfiles(cc.ComponentConfig.Profiles)
	}
	if err != nil {
		configz.Delete("componentconfig")
		return nil, nil, err
	}
	return cc, sched, nil
}

// Node is a node with room for pods, ready for the scheduler: capacity and allocatable set, no
// taints. Extra resources (GPU memory and count) go in extra.
func Node(name string, cpu, memory string, extra v1.ResourceList) *v1.Node {
	res := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(memory),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	for k, v := range extra {
		res[k] = v
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{
			Capacity:    res,
			Allocatable: res,
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// CreateNode creates the node and then its status, as a kubelet would report it.
func (c *Cluster) CreateNode(t testing.TB, node *v1.Node) *v1.Node {
	t.Helper()
	n, err := CreateNode(context.Background(), c.Client, node)
	if err != nil {
		t.Fatalf("creating node %s: %v", node.Name, err)
	}
	return n
}

// CreateNode creates node and then its status, as a kubelet would report it; for work spread
// over goroutines, where a testing.TB must not fail the test.
func CreateNode(ctx context.Context, client kubernetes.Interface, node *v1.Node) (*v1.Node, error) {
	n, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	n.Status = node.Status
	if n, err = client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("setting its status: %w", err)
	}
	return n, nil
}

// Namespace creates a namespace for the test.
func (c *Cluster) Namespace(t testing.TB, name string) string {
	t.Helper()
	_, err := c.Client.CoreV1().Namespaces().Create(context.Background(),
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return name
}

// CreatePod creates the pod.
func (c *Cluster) CreatePod(t testing.TB, pod *v1.Pod) *v1.Pod {
	t.Helper()
	p, err := c.Client.CoreV1().Pods(pod.Namespace).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
	return p
}

// WaitForPods polls until cond holds for the pods in ns, or fails the test after timeout with the
// last state seen.
func (c *Cluster) WaitForPods(t testing.TB, ns string, timeout time.Duration, what string, cond func([]v1.Pod) bool) []v1.Pod {
	t.Helper()
	var (
		pods    []v1.Pod
		listErr error
	)
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true,
		func(ctx context.Context) (bool, error) {
			list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if listErr = err; err != nil {
				return false, nil
			}
			pods = list.Items
			return cond(pods), nil
		})
	if err != nil {
		var b strings.Builder
		for i := range pods {
			p := &pods[i]
			fmt.Fprintf(&b, "\n  %s node=%q", p.Name, p.Spec.NodeName)
			if devs, ok := p.Annotations["berth.dev/gpu-devices"]; ok {
				fmt.Fprintf(&b, " devices=%q", devs)
			}
			if msg := Unschedulable(p); msg != "" {
				fmt.Fprintf(&b, " unschedulable=%q", msg)
			}
		}
		if listErr != nil {
			fmt.Fprintf(&b, "\n  (the last list failed: %v)", listErr)
		}
		t.Fatalf("waiting for %s: %v; pods:%s", what, err, b.String())
	}
	return pods
}

// Bound counts the pods with a node.
func Bound(pods []v1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// Pause is a container that asks for cpu and memory (requests = limits: Guaranteed).
func Container(name, cpu, memory string) v1.Container {
	res := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(memory)}
	return v1.Container{Name: name, Image: "registry.k8s.io/pause:3.10",
		Resources: v1.ResourceRequirements{Requests: res, Limits: res}}
}
