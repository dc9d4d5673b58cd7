package controlplane_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/test/bins"
)

const manifests = `
# A CRD, an object of its kind (no namespace: goes to "default"), and
# ordinary objects, namespaced and not.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.berth.dev
spec:
  group: test.berth.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
---
apiVersion: test.berth.dev/v1
kind: Widget
metadata:
  name: w1
spec:
  size: 3
---
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
  namespace: team-a
data:
  key: value
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 1000
`

func TestControlPlane(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	begin := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{BinDir: bins.Dir(t, "etcd", "kube-apiserver"), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Start took %v", time.Since(begin))
	stopped := false
	defer func() {
		if !stopped {
			cp.Stop()
		}
	}()
	workDir, pids := cp.WorkDir(), cp.PIDs()
	if len(pids) != 2 {
		t.Fatalf("PIDs() = %v, want etcd and kube-apiserver", pids)
	}
	fresh, err := cp.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}

	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("node status survives create", func(t *testing.T) {
		capacity := v1.ResourceList{
			v1.ResourceCPU:                        resource.MustParse("8"),
			v1.ResourceMemory:                     resource.MustParse("32Gi"),
			v1.ResourcePods:                       resource.MustParse("110"),
			v1.ResourceName("aliyun.com/gpu-mem"): resource.MustParse("64"),
		}
		node := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
			Status:     v1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := cs.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range capacity {
			if q := got.Status.Capacity[name]; q.Cmp(want) != 0 {
				t.Errorf("capacity %s = %s, want %s", name, q.String(), want.String())
			}
			if q := got.Status.Allocatable[name]; q.Cmp(want) != 0 {
				t.Errorf("allocatable %s = %s, want %s", name, q.String(), want.String())
			}
		}
		if len(got.Spec.Taints) != 0 {
			t.Errorf("node has taints %v; TaintNodesByCondition should be disabled", got.Spec.Taints)
		}
	})

	t.Run("apply", func(t *testing.T) {
		cfg := cp.RESTConfig()
		// Twice: applying is idempotent, and the second run finds the CRD's
		// kind through a fresh discovery.
		for range 2 {
			if err := controlplane.Apply(ctx, cfg, []byte(manifests)); err != nil {
				t.Fatal(err)
			}
		}
		dyn := dynamic.NewForConfigOrDie(cfg)
		widget, err := dyn.Resource(schema.GroupVersionResource{Group: "test.berth.dev", Version: "v1", Resource: "widgets"}).
			Namespace("default").Get(ctx, "w1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if managers := widget.GetManagedFields(); len(managers) != 1 || managers[0].Manager != controlplane.FieldManager {
			t.Errorf("widget managed fields = %+v, want one entry by %q", managers, controlplane.FieldManager)
		}
		cm, err := cs.CoreV1().ConfigMaps("team-a").Get(ctx, "cm1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["key"] != "value" {
			t.Errorf("configmap data = %v", cm.Data)
		}

		file := filepath.Join(t.TempDir(), "cm.yaml")
		if err := os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm2}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := controlplane.ApplyFiles(ctx, cfg, file); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm2", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}

		err = controlplane.Apply(ctx, cfg, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: missing}\n"))
		if !apierrors.IsNotFound(err) {
			t.Errorf("applying into a missing namespace: err = %v, want not found", err)
		}
	})

	t.Run("pods are admitted without service accounts", func(t *testing.T) {
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "team-a"},
			Spec: v1.PodSpec{
				PriorityClassName: "high", // created by the apply subtest
				Containers:        []v1.Container{{Name: "c", Image: "registry.invalid/none"}},
			},
		}
		got, err := cs.CoreV1().Pods("team-a").Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Priority == nil || *got.Spec.Priority != 1000 {
			t.Errorf("priority = %v, want 1000 resolved by the Priority admission plugin", got.Spec.Priority)
		}
	})

	t.Run("kubeconfigs", func(t *testing.T) {
		admin, err := clientcmd.BuildConfigFromFlags("", cp.KubeconfigPath())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kubernetes.NewForConfigOrDie(admin).CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("admin kubeconfig: %v", err)
		}

		path, err := cp.Kubeconfig("alice", "team-a-devs")
		if err != nil {
			t.Fatal(err)
		}
		alice, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = kubernetes.NewForConfigOrDie(alice).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("alice listing nodes: err = %v, want forbidden", err)
		} else if !strings.Contains(err.Error(), `"alice"`) {
			t.Errorf("forbidden for the wrong user: %v", err)
		}
	})

	t.Run("reset", func(t *testing.T) { testReset(ctx, t, cp, fresh) })

	begin = time.Now()
	cp.Stop()
	stopped = true
	t.Logf("Stop took %v", time.Since(begin))
	cp.Stop() // idempotent

	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after Stop (kill -0: %v)", pid, err)
		}
	}
	if _, err := os.Stat(workDir); !os.IsNotExist(err) {
		t.Errorf("work dir %s still there after Stop (stat: %v)", workDir, err)
	}
}

// A process that dies during start-up must fail Start at once, with its log.
func TestStartFailsFast(t *testing.T) {
	workDir := t.TempDir()
	begin := time.Now()
	cp, err := controlplane.Start(context.Background(), controlplane.Options{
		BinDir:         bins.Dir(t, "etcd", "kube-apiserver"),
		WorkDir:        workDir,
		APIServerFlags: []string{"--no-such-flag"},
	})
	if err == nil {
		cp.Stop()
		t.Fatal("Start succeeded with a bad flag")
	}
	t.Logf("failed after %v with: %v", time.Since(begin), err)
	// Noticed as an exit, not as a readiness timeout, and explained by the process's own log.
	if !strings.Contains(err.Error(), "kube-apiserver (pid") || !strings.Contains(err.Error(), "exited") ||
		!strings.Contains(err.Error(), "no-such-flag") {
		t.Errorf("error should name the process, say it exited and quote its log: %v", err)
	}
	if _, err := os.Stat(filepath.Join(workDir, "kube-apiserver.log")); err != nil {
		t.Errorf("log of the failed process should stay in a given WorkDir: %v", err)
	}
}

// testReset leaves what tests leave (a namespace with a pod that has a finalizer and one deleted
// with a grace period, a namespace deleted and stuck terminating with a pod in it, a node, a CRD
// and its object, a PriorityClass, a lease in kube-system), a label on the default namespace and
// the admin ClusterRole deleted, and resets, through a second process's view of the control plane,
// to the snapshot taken just after Start: all it added must go, what kube-apiserver made must
// stay, the label and the deletion are reported, and the names are free again.
func testReset(ctx context.Context, t *testing.T, cp *controlplane.ControlPlane, fresh controlplane.Snapshot) {
	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	pod := func(ns, name string, finalizers ...string) {
		t.Helper()
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Finalizers: finalizers},
			Spec:       v1.PodSpec{NodeName: "node-1", Containers: []v1.Container{{Name: "c", Image: "registry.invalid/none"}}},
		}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pod("team-a", "held", "example.com/hold")
	// Deleted with a grace period that no kubelet ends, it would stay terminating for good; alone
	// in its namespace, so that nothing else deletes it along.
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "grace"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod("grace", "leaving")
	grace := int64(30)
	if err := cs.CoreV1().Pods("grace").Delete(ctx, "leaving", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod("gone", "p")
	if err := cs.CoreV1().Namespaces().Delete(ctx, "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.Apply(ctx, cp.RESTConfig(), []byte("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: berth-scheduler, namespace: kube-system}\n")); err != nil {
		t.Fatal(err)
	}

	// A change to what was there at the start, or its deletion, is reported, not undone.
	if _, err := cs.CoreV1().Namespaces().Patch(ctx, "default", types.MergePatchType, []byte(`{"metadata":{"labels":{"changed":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.RbacV1().ClusterRoles().Delete(ctx, "admin", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	other, err := controlplane.Open(cp.WorkDir())
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	changed, err := other.Reset(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Reset took %v", time.Since(begin))
	for _, want := range []string{"/namespaces//default", "rbac.authorization.k8s.io/clusterroles//admin (deleted)"} {
		if !slices.Contains(changed, want) {
			t.Errorf("Reset reports as changed %q, want %q among them", changed, want)
		}
	}

	after, err := cp.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k := range after {
		if _, ok := fresh[k]; !ok && !strings.Contains(k, "/leases/kube-system/apiserver-") {
			t.Errorf("left after Reset: %s", k)
		}
	}
	for k := range fresh {
		if _, ok := after[k]; !ok && k != "rbac.authorization.k8s.io/clusterroles//admin" && !strings.Contains(k, "/leases/kube-system/apiserver-") {
			t.Errorf("gone after Reset, though there at the start: %s", k)
		}
	}
	// Every name is free again, and a namespace of the same name takes pods.
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace gone again: %v", err)
	}
	pod("gone", "p")
	if _, err := cs.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating node-1 again: %v", err)
	}
	other.Stop() // stops nothing: the plane is still there
	if _, err := cs.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{}); err != nil {
		t.Errorf("after Stop of an opened control plane: %v", err)
	}
}
