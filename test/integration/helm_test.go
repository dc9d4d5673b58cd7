package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/test/harness"
)

// The chart's modes, each with the values a test sets and the raw manifests it must agree with.
var chartModes = []struct {
	mode string
	// raw are the shipped manifests (under manifests/) the chart renders in this mode, CRDs aside.
	raw []string
}{
	{mode: "secondScheduler", raw: []string{"rbac.yaml", "scheduler-config.yaml", "deployment.yaml"}},
	{mode: "replaceDefault"},
	{mode: "extender", raw: []string{"extender/rbac.yaml", "extender/deployment.yaml", "extender/networkpolicy.yaml", "extender/scheduler-config.yaml"}},
}

func chartDir() string { return filepath.Join(harness.RepoRoot(), "manifests", "charts", "berth") }

// helm runs bin/helm (make helm) and returns its standard output.
func helm(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(harness.BinDir(t, "helm"), "helm"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// renderChart is `helm template` of the chart into berth-system in one mode, with more values.
func renderChart(t *testing.T, mode string, set ...string) string {
	t.Helper()
	args := []string{"template", "berth", chartDir(), "--namespace", "berth-system", "--kube-version", "1.37.1", "--set", "mode=" + mode}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	return helm(t, args...)
}

// `helm lint` finds nothing to warn about in any mode, and a mode it does not know fails to render
// with a message naming it.
func TestChartLints(t *testing.T) {
	for _, m := range chartModes {
		out := helm(t, "lint", "--strict", chartDir(), "--set", "mode="+m.mode)
		if strings.Contains(out, "[WARNING]") || strings.Contains(out, "[ERROR]") || !strings.Contains(out, "0 chart(s) failed") {
			t.Errorf("helm lint, mode %s:\n%s", m.mode, out)
		}
	}
	cmd := exec.Command(filepath.Join(harness.BinDir(t, "helm"), "helm"), "template", chartDir(), "--kube-version", "1.37.1", "--set", "mode=extenders")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `mode "extenders": must be secondScheduler, replaceDefault or extender`) {
		t.Errorf("helm template with mode=extenders: %v\n%s", err, out)
	}
}

// The chart's CRDs are manifests/crds, file for file and byte for byte: one source, copied.
func TestChartCRDsAreTheShippedOnes(t *testing.T) {
	shipped, err := filepath.Glob(filepath.Join(harness.RepoRoot(), "manifests", "crds", "*.yaml"))
	if err != nil || len(shipped) == 0 {
		t.Fatalf("no CRDs in manifests/crds: %v", err)
	}
	inChart, err := filepath.Glob(filepath.Join(chartDir(), "files", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if diff := cmp.Diff(names(shipped), names(inChart)); diff != "" {
		t.Fatalf("manifests/crds and the chart's files/crds hold different CRDs (-shipped +chart); copy them:\n%s", diff)
	}
	for _, p := range shipped {
		want, _ := os.ReadFile(p)
		got, _ := os.ReadFile(filepath.Join(chartDir(), "files", "crds", filepath.Base(p)))
		if !bytes.Equal(want, got) {
			t.Errorf("the chart's copy of %s differs: cp manifests/crds/*.yaml manifests/charts/berth/files/crds/", filepath.Base(p))
		}
	}
}

// The raw manifests are what the chart renders with its defaults (and mode extender for
// manifests/extender), object for object, apart from Helm's own labels and the annotation that
// rolls the scheduler on a new configuration; the replacement configuration is the one the chart
// runs in mode replaceDefault, apart from the kubeconfig of a static pod.
func TestChartAgreesWithRawManifests(t *testing.T) {
	crds, err := filepath.Glob(filepath.Join(harness.RepoRoot(), "manifests", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range chartModes {
		rendered := objectsByKey(t, renderChart(t, m.mode))
		if m.mode == "replaceDefault" {
			raw, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "manifests", "replace-default", "scheduler-config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var want, got map[string]any
			if err := yaml.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			delete(want, "clientConnection")
			cm := rendered["ConfigMap/berth-system/berth-scheduler-config"]
			got = cm["data"].(map[string]any)["config.yaml"].(map[string]any)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mode replaceDefault: configuration differs from manifests/replace-default/scheduler-config.yaml (-raw +chart):\n%s", diff)
			}
			continue
		}
		var raw []byte
		for _, f := range m.raw {
			b, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "manifests", f))
			if err != nil {
				t.Fatal(err)
			}
			raw = append(append(raw, b...), "\n---\n"...)
		}
		for _, f := range crds {
			b, _ := os.ReadFile(f)
			raw = append(append(raw, b...), "\n---\n"...)
		}
		if diff := cmp.Diff(objectsByKey(t, string(raw)), rendered); diff != "" {
			t.Errorf("mode %s: the chart and manifests/%v differ (-raw +chart); change both:\n%s", m.mode, m.raw, diff)
		}
	}
}

// objectsByKey parses a YAML stream into objects by kind/namespace/name, with what only Helm adds
// taken off and configuration files inside ConfigMaps parsed, so that comments and layout do not count.
func objectsByKey(t *testing.T, stream string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(stream)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("%v in:\n%s", err, doc)
		}
		if obj == nil {
			continue
		}
		meta, _ := obj["metadata"].(map[string]any)
		dropHelmMetadata(meta)
		if spec, ok := obj["spec"].(map[string]any); ok {
			if tmpl, ok := spec["template"].(map[string]any); ok {
				dropHelmMetadata(tmpl["metadata"].(map[string]any))
			}
		}
		if obj["kind"] == "ConfigMap" {
			data := obj["data"].(map[string]any)
			for k, v := range data {
				var parsed map[string]any
				if err := yaml.Unmarshal([]byte(v.(string)), &parsed); err != nil {
					t.Fatalf("ConfigMap %v: %s is not YAML: %v", meta["name"], k, err)
				}
				data[k] = parsed
			}
		}
		key := fmt.Sprintf("%s/%v/%v", obj["kind"], meta["namespace"], meta["name"])
		if _, dup := out[key]; dup {
			t.Fatalf("%s twice", key)
		}
		out[key] = obj
	}
}

func dropHelmMetadata(meta map[string]any) {
	for _, field := range []string{"labels", "annotations"} {
		m, _ := meta[field].(map[string]any)
		for k := range m {
			if strings.HasPrefix(k, "helm.sh/") || strings.HasPrefix(k, "checksum/") ||
				k == "app.kubernetes.io/managed-by" || k == "app.kubernetes.io/instance" {
				delete(m, k)
			}
		}
		if m != nil && len(m) == 0 {
			delete(meta, field)
		}
	}
}

// Each mode of the chart applies to a real API server and runs: the real binaries with the
// rendered configuration and arguments, authenticated as the rendered ServiceAccounts with only
// the rendered RBAC, place a pod. One control plane for the three modes, one after the other, as
// a user switching modes would upgrade the release.
func TestChartModesRun(t *testing.T) {
	harness.BinDir(t, "berth-scheduler", "berth-extender", "kube-scheduler", "helm")
	c := harness.StartCluster(t)
	ctx := context.Background()
	if err := controlplane.ApplyFiles(ctx, c.RESTConfig(), filepath.Join(harness.RepoRoot(), "manifests", "namespace.yaml")); err != nil {
		t.Fatal(err)
	}
	c.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	kubeconfigOf := func(t *testing.T, sa string) string {
		path, err := c.Kubeconfig("system:serviceaccount:berth-system:"+sa,
			"system:serviceaccounts", "system:serviceaccounts:berth-system", "system:authenticated")
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	apply := func(t *testing.T, rendered string) map[string]map[string]any {
		if err := controlplane.Apply(ctx, c.RESTConfig(), []byte(rendered)); err != nil {
			t.Fatalf("applying the rendered chart: %v", err)
		}
		return objectsByKey(t, rendered)
	}
	configOf := func(t *testing.T, objs map[string]map[string]any, name string) string {
		cm := objs["ConfigMap/berth-system/"+name]
		if cm == nil {
			t.Fatalf("the chart rendered no ConfigMap %s", name)
		}
		out, err := yaml.Marshal(cm["data"].(map[string]any)["config.yaml"])
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}

	t.Run("secondScheduler", func(t *testing.T) {
		// Values reach the profile: with Spread, two GPU pods take a GPU each, where the default
		// Binpack would stack them on one.
		objs := apply(t, renderChart(t, "secondScheduler", "scheduler.schedulerName=gpu-sched",
			"scheduler.pluginConfig[0].name=GPUShare", "scheduler.pluginConfig[0].args.scoringStrategy=Spread"))
		c.StartSchedulerBinary(t, withKubeconfig(t, configOf(t, objs, "berth-scheduler-config"), kubeconfigOf(t, "berth-scheduler"), true))
		ns := c.Namespace(t, "second")
		for _, name := range []string{"a", "b"} {
			p := harness.GPUPod(ns, name, 4)
			p.Spec.SchedulerName = "gpu-sched"
			c.CreatePod(t, p)
		}
		pods := c.WaitForPods(t, ns, time.Minute, "both pods bound", func(pods []v1.Pod) bool { return harness.Bound(pods) == 2 })
		a, b := harness.Shares(t, harness.Pod(pods, "a")), harness.Shares(t, harness.Pod(pods, "b"))
		if len(a) != 1 || len(b) != 1 || a[0] == b[0] && a[1] == b[1] {
			t.Errorf("with scoringStrategy Spread from the values, a (%v) and b (%v) share a GPU", a, b)
		}
	})

	t.Run("replaceDefault", func(t *testing.T) {
		objs := apply(t, renderChart(t, "replaceDefault"))
		c.StartSchedulerBinary(t, withKubeconfig(t, configOf(t, objs, "berth-scheduler-config"), kubeconfigOf(t, "berth-scheduler"), true))
		ns := c.Namespace(t, "replace")
		c.CreatePod(t, harness.GPUPod(ns, "p", 4)) // names no scheduler
		c.WaitForPods(t, ns, time.Minute, "pod bound by the default-scheduler profile", func(pods []v1.Pod) bool { return harness.Bound(pods) == 1 })
	})

	t.Run("extender", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_, port, _ := net.SplitHostPort(addr)
		l.Close()
		objs := apply(t, renderChart(t, "extender", "extender.port="+port))
		var deploy struct {
			Spec struct{ Template struct{ Spec v1.PodSpec } }
		}
		raw, _ := yaml.Marshal(objs["Deployment/berth-system/berth-extender"])
		if err := yaml.Unmarshal(raw, &deploy); err != nil || len(deploy.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("rendered extender Deployment: %v\n%s", err, raw)
		}
		pki := newExtenderPKI(t, "berth-extender.berth-system.svc")
		args := append(append(append([]string{}, deploy.Spec.Template.Spec.Containers[0].Args...), pki.ExtenderFlags()...),
			"--kubeconfig="+kubeconfigOf(t, "berth-extender"), "--bind-address=127.0.0.1")
		ext := harness.StartBinary(t, "berth-extender", args...)
		probe := pki.Client(t, "", "")
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			code, _ := extenderGetWith(probe, "https://"+addr+"/readyz")
			return code == http.StatusOK, ext.Exited()
		})
		if err != nil {
			t.Fatalf("berth-extender not ready: %v\n%s", err, ext.LogTail(30))
		}
		config := configOf(t, objs, "berth-extender-scheduler-config")
		urlPrefix := "https://" + addr + extenderURLPrefix(t, config).Path
		extenderStartKubeScheduler(t, pki.SchedulerConfig(t, extenderSchedulerConfig(t, config, urlPrefix, c.KubeconfigPath(), true)))
		ns := c.Namespace(t, "extender")
		c.CreatePod(t, extenderGPUPod(ns, "p", 4, 1))
		pods := c.WaitForPods(t, ns, time.Minute, "GPU pod bound through the extender", func(pods []v1.Pod) bool { return nodeOf(pods, "p") != "" })
		if got := harness.Pod(pods, "p").Annotations[gpu.PodGPUDevicesAnnotation]; got == "" {
			t.Errorf("p bound without a record of its GPU")
		}
	})
}
