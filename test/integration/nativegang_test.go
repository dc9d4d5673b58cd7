package integration

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/test/harness"
)

// startNativeGangEnv starts a control plane that serves 1.37's own pod groups
// (scheduling.k8s.io/v1beta1, GenericWorkload) beside scheduler-plugins' PodGroup CRD, and turns
// the gate on for the in-process scheduler, whose default plugins then include GangScheduling.
func startNativeGangEnv(t *testing.T, ns string) *gangEnv {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{
		BinDir: harness.BinDir(t, "etcd", "kube-apiserver"),
		Logf:   t.Logf,
		APIServerFlags: []string{
			"--feature-gates=GenericWorkload=true",
			"--runtime-config=scheduling.k8s.io/v1beta1=true",
		},
	})
	if err != nil {
		t.Fatalf("starting control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	crds, err := filepath.Glob(filepath.Join(harness.RepoRoot(), "manifests", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs in manifests/crds: %v", err)
	}
	if err := controlplane.ApplyFiles(ctx, cp.RESTConfig(), crds...); err != nil {
		t.Fatalf("installing CRDs: %v", err)
	}
	client, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	pg, err := pgclient.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	c := &harness.Cluster{ControlPlane: cp, Client: client}
	return &gangEnv{Cluster: c, pg: pg, ns: c.Namespace(t, ns)}
}

// nativeGroup creates a native PodGroup that needs minCount members at once.
func (e *gangEnv) nativeGroup(t *testing.T, name string, minCount int32) {
	t.Helper()
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount},
		}},
	}
	if _, err := e.Client.SchedulingV1beta1().PodGroups(e.ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// inNativeGroup makes a pod a member of the native PodGroup group.
func inNativeGroup(group string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)} }
}

// Native pod groups and scheduler-plugins' PodGroups in one cluster under berth: upstream's
// GangScheduling places native groups whole, berth's Gang places its own, and GPUShare serves the
// members of either kind.
func TestNativePodGroupsBesideBerthGangs(t *testing.T) {
	e := startNativeGangEnv(t, "native")
	e.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	e.CreateNode(t, harness.GPUNode("gpu-a", 1, 16))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))

	e.nativeGroup(t, "native", 3)
	e.podGroup(t, "berth", 3)
	onNodeA := func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-a"} }
	for _, n := range []string{"0", "1", "2"} {
		e.member(t, "", "native-"+n, "1", inNativeGroup("native"), onNodeA)
		e.member(t, "berth", "berth-"+n, "1", onNodeA)
	}
	// Native members carry no berth group: they are counted by name.
	nativeBound := func(p []v1.Pod, prefix string, n int) bool {
		c := 0
		for _, pod := range p {
			if len(pod.Name) > len(prefix) && pod.Name[:len(prefix)] == prefix && pod.Spec.NodeName != "" {
				c++
			}
		}
		return c == n
	}
	e.WaitForPods(t, e.ns, time.Minute, "both groups bound whole", func(p []v1.Pod) bool {
		return nativeBound(p, "native-", 3) && boundIn(p, "berth") == 3
	})

	// A native group of 3 on node-a's 2 free CPUs: 2 members would fit, the group does not. It
	// stays whole and pending, and holds nothing.
	e.nativeGroup(t, "too-big", 3)
	for _, n := range []string{"0", "1", "2"} {
		e.member(t, "", "too-big-"+n, "1", inNativeGroup("too-big"), onNodeA)
	}
	pods := e.canary(t, "canary")
	for _, p := range pods {
		if len(p.Name) > 8 && p.Name[:8] == "too-big-" && p.Spec.NodeName != "" {
			t.Errorf("%s of a native group that cannot fit was bound to %s", p.Name, p.Spec.NodeName)
		}
	}
	e.member(t, "", "lone", "2", onNodeA)
	e.WaitForPods(t, e.ns, time.Minute, "lone bound: the native group holds nothing", func(p []v1.Pod) bool { return nodeOf(p, "lone") != "" })

	// GPU sharing serves native groups: two members share the one GPU, each with its share.
	e.nativeGroup(t, "gpu", 2)
	for _, n := range []string{"0", "1"} {
		p := harness.GPUPod(e.ns, "gpu-"+n, 8)
		inNativeGroup("gpu")(p)
		e.CreatePod(t, p)
	}
	pods = e.WaitForPods(t, e.ns, time.Minute, "the GPU group bound", func(p []v1.Pod) bool { return nativeBound(p, "gpu-", 2) })
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"gpu-a": {16}})
	for _, n := range []string{"gpu-0", "gpu-1"} {
		if s := harness.Shares(t, harness.Pod(pods, n)); len(s) != 1 || s[0] != 8 {
			t.Errorf("%s holds %v of the GPU, want 8 units of device 0", n, s)
		}
	}
}
