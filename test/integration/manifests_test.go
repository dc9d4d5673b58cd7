package integration

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/test/harness"
)

// manifestFiles are every manifest berth ships, in the order a user applies them.
func manifestFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join(harness.RepoRoot(), "manifests")
	files := []string{filepath.Join(root, "namespace.yaml")}
	more, err := filepath.Glob(filepath.Join(root, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crds, err := filepath.Glob(filepath.Join(root, "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(crds, more...) {
		if filepath.Base(f) != "namespace.yaml" {
			files = append(files, f)
		}
	}
	return files
}

// Every manifest applies to a real apiserver, and the scheduler configuration in the shipped
// ConfigMap runs, with the shipped RBAC only: the test scheduler authenticates as the
// berth-scheduler ServiceAccount, takes its leader-election lease and binds a pod.
func TestManifestsApplyAndTheirRBACSuffices(t *testing.T) {
	c := harness.StartCluster(t)
	ctx := context.Background()
	if err := controlplane.ApplyFiles(ctx, c.RESTConfig(), manifestFiles(t)...); err != nil {
		t.Fatalf("applying manifests: %v", err)
	}

	cm, err := c.Client.CoreV1().ConfigMaps("berth-system").Get(ctx, "berth-scheduler-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	saKubeconfig, err := c.Kubeconfig("system:serviceaccount:berth-system:berth-scheduler",
		"system:serviceaccounts", "system:serviceaccounts:berth-system", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	c.StartSchedulerBinary(t, withKubeconfig(t, cm.Data["config.yaml"], saKubeconfig, true))

	c.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	ns := c.Namespace(t, "workload")
	c.CreatePod(t, pod(ns, "p", "berth-scheduler"))
	c.WaitForPods(t, ns, time.Minute, "pod bound by the shipped configuration", func(pods []v1.Pod) bool { return harness.Bound(pods) == 1 })

	lease, err := c.Client.CoordinationV1().Leases("berth-system").Get(ctx, "berth-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the scheduler took no leader-election lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("lease berth-system/berth-scheduler has no holder")
	}
}

// manifests/gpu-links/daemonset.yaml applies to a real apiserver, its container reads the file its
// init container writes, on the volume both mount, and berth-gpu-links, run with the container's
// arguments as the DaemonSet's ServiceAccount, writes a node's links: the shipped RBAC suffices.
func TestGPULinksDaemonSetAppliesAndItsRBACSuffices(t *testing.T) {
	c := harness.StartCluster(t)
	ctx := context.Background()
	root := filepath.Join(harness.RepoRoot(), "manifests")
	if err := controlplane.ApplyFiles(ctx, c.RESTConfig(), filepath.Join(root, "namespace.yaml"), filepath.Join(root, "gpu-links", "daemonset.yaml")); err != nil {
		t.Fatalf("applying manifests/gpu-links/daemonset.yaml: %v", err)
	}
	ds, err := c.Client.AppsV1().DaemonSets("berth-system").Get(ctx, "berth-gpu-links", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := ds.Spec.Template.Spec
	if len(spec.InitContainers) != 1 || len(spec.Containers) != 1 {
		t.Fatalf("%d init containers and %d containers, want one of each", len(spec.InitContainers), len(spec.Containers))
	}
	writer, links := spec.InitContainers[0], spec.Containers[0]
	if len(links.Command) != 1 || filepath.Base(links.Command[0]) != "berth-gpu-links" {
		t.Fatalf("the container runs %q, want berth-gpu-links", links.Command)
	}
	matrix := filepath.Join(t.TempDir(), "matrix.txt")
	raw, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "pkg", "gpu", "testdata", "links", "nvlink-pairs-4gpu.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(matrix, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	// The container's arguments, reading this test's matrix where the pod reads the init
	// container's.
	args := slices.Clone(links.Args)
	file := ""
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--file="); ok {
			file, args[i] = v, "--file="+matrix
		}
	}
	if file == "" || !strings.Contains(strings.Join(writer.Command, " "), "> "+file) {
		t.Errorf("the container reads --file=%q, which the init container (%q) does not write", file, writer.Command)
	}
	volumeOf := func(ctr v1.Container) string {
		for _, m := range ctr.VolumeMounts {
			if strings.HasPrefix(file, strings.TrimSuffix(m.MountPath, "/")+"/") {
				return m.Name
			}
		}
		return ""
	}
	if v := volumeOf(writer); v == "" || v != volumeOf(links) {
		t.Errorf("%s is on volume %q in the init container and %q in the container, want one volume in both", file, v, volumeOf(links))
	}
	if !slices.ContainsFunc(links.Env, func(e v1.EnvVar) bool {
		return e.Name == "NODE_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName"
	}) {
		t.Errorf("the container's NODE_NAME is not its node's name (spec.nodeName): %+v", links.Env)
	}

	c.CreateNode(t, harness.GPUNode("gpu-nv", 4, 16))
	kubeconfig, err := c.Kubeconfig("system:serviceaccount:berth-system:"+spec.ServiceAccountName,
		"system:serviceaccounts", "system:serviceaccounts:berth-system", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(harness.BinDir(t, "berth-gpu-links"), "berth-gpu-links")
	harness.StartProgram(t, bin, append(args, "--kubeconfig="+kubeconfig, "--node-name=gpu-nv")...)
	var last string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, "gpu-nv", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = n.Annotations[gpu.NodeGPULinksAnnotation]
		_, err = gpu.LinksOf(n, 4)
		return last != "" && err == nil, nil
	})
	if err != nil {
		t.Fatalf("berth-gpu-links, as the DaemonSet's ServiceAccount, did not annotate the node with links berth reads: %q", last)
	}
}

// The replacement configuration schedules the pods that name no scheduler.
func TestReplaceDefaultConfigBindsUnnamedPods(t *testing.T) {
	c := harness.StartCluster(t)
	raw, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "manifests", "replace-default", "scheduler-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.StartScheduler(t, withKubeconfig(t, string(raw), c.KubeconfigPath(), false))
	c.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	ns := c.Namespace(t, "workload")
	c.CreatePod(t, pod(ns, "p", ""))
	c.WaitForPods(t, ns, time.Minute, "pod bound", func(pods []v1.Pod) bool { return harness.Bound(pods) == 1 })
}

// The shipped configurations run berth's profile, the one every test runs.
func TestShippedConfigsRunBerthsProfile(t *testing.T) {
	var want []map[string]any
	if err := yaml.Unmarshal([]byte(registry.Profile("x")), &want); err != nil {
		t.Fatal(err)
	}
	cmDoc, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "manifests", "scheduler-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm v1.ConfigMap
	if err := yaml.Unmarshal(cmDoc, &cm); err != nil {
		t.Fatal(err)
	}
	replace, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "manifests", "replace-default", "scheduler-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, config := range map[string]string{
		"manifests/scheduler-config.yaml":                 cm.Data["config.yaml"],
		"manifests/replace-default/scheduler-config.yaml": string(replace),
	} {
		var got struct{ Profiles []map[string]any }
		if err := yaml.Unmarshal([]byte(config), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.Profiles) != 1 {
			t.Fatalf("%s: %d profiles, want 1", name, len(got.Profiles))
		}
		if diff := cmp.Diff(want[0]["plugins"], got.Profiles[0]["plugins"]); diff != "" {
			t.Errorf("%s: plugins differ from registry.Profile (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(want[0]["pluginConfig"], got.Profiles[0]["pluginConfig"]); diff != "" {
			t.Errorf("%s: pluginConfig differs from registry.Profile (-want +got):\n%s", name, diff)
		}
	}
}

// withKubeconfig points a shipped KubeSchedulerConfiguration at this test's apiserver, as a
// kubeconfig mounted into the scheduler's pod would, and keeps or drops its leader election.
func withKubeconfig(t *testing.T, config, kubeconfig string, leaderElect bool) string {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(config), &obj); err != nil {
		t.Fatalf("shipped scheduler config is not YAML: %v", err)
	}
	conn, _ := obj["clientConnection"].(map[string]any)
	if conn == nil {
		conn = map[string]any{}
	}
	conn["kubeconfig"] = kubeconfig
	obj["clientConnection"] = conn
	if !leaderElect {
		obj["leaderElection"] = map[string]any{"leaderElect": false}
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "KubeSchedulerConfiguration") {
		t.Fatalf("not a KubeSchedulerConfiguration:\n%s", out)
	}
	return string(out)
}
