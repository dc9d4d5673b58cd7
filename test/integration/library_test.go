package integration

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/test/harness"
)

// libraryMain is a scheduler main outside cmd/berth-scheduler that registers berth's plugins from
// their public packages, as another team's scheduler does.
const libraryMain = "./test/library/scheduler"

// berth's plugins work in another team's scheduler main: built as every berth build is (with
// hack/patches' overlay, the go command from berth's root), run as a process against a real
// control plane with the profile berth ships, GPUShare gives each GPU pod its device without
// over-committing one, and Gang places a group whole or not at all.
func TestBerthPluginsInAnotherSchedulerMain(t *testing.T) {
	importsNoInternal(t, filepath.Join(harness.RepoRoot(), libraryMain, "main.go"))
	begin := time.Now()
	bin := harness.BuildProgram(t, libraryMain)
	t.Logf("built %s in %v", libraryMain, time.Since(begin).Round(time.Millisecond))

	e := startGangEnv(t, "library")
	e.CreateNode(t, harness.Node("cpu-a", "2", "16Gi", nil))
	// The profile berth ships (manifests/scheduler-config.yaml): QOSSort, BerthPreemption in
	// DefaultPreemption's place, GPUShare, Gang and ElasticQuota. A plugin the main failed to
	// register stops the scheduler at start-up, and then nothing below is bound.
	e.StartSchedulerProgram(t, bin, e.SchedulerConfig(registry.Profile("default-scheduler"), ""))

	// Room for 2 of the group's 3 members: none is bound.
	e.podGroup(t, "train", 3)
	e.members(t, "train", 3, "1")
	pods := e.Settled(t, e.ns, time.Minute)
	if n := boundIn(pods, "train"); n != 0 {
		t.Fatalf("%d of 3 members bound with room for 2", n)
	}
	// Room for all 3: the whole group is bound.
	e.CreateNode(t, harness.Node("cpu-b", "2", "16Gi", nil))
	e.WaitForPods(t, e.ns, time.Minute, "all 3 members bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 3 })

	// Two 16-unit GPUs and five pods of 6 units. The node's 32 units would take five (what
	// NodeResourcesFit alone allows), but a pod runs on one GPU, where two fit: GPUShare binds four,
	// two per device.
	e.CreateNode(t, harness.GPUNode("gpu-a", 2, 16))
	for i := range 5 {
		e.CreatePod(t, harness.GPUPod(e.ns, fmt.Sprintf("gpu-%d", i), 6))
	}
	pods = e.Settled(t, e.ns, time.Minute)
	perDevice := map[int]int{}
	for i := range pods {
		p := &pods[i]
		if !strings.HasPrefix(p.Name, "gpu-") {
			continue
		}
		if p.Spec.NodeName == "" {
			if msg := harness.Unschedulable(p); !strings.Contains(msg, "GPU") {
				t.Errorf("pending pod %s: message %q does not say it is about GPU memory", p.Name, msg)
			}
			continue
		}
		shares := harness.Shares(t, p)
		if len(shares) != 1 || p.Annotations["ALIYUN_COM_GPU_MEM_IDX"] == "" {
			t.Errorf("pod %s on %s: berth.dev/gpu-devices=%q, ALIYUN_COM_GPU_MEM_IDX=%q, want one device",
				p.Name, p.Spec.NodeName, p.Annotations["berth.dev/gpu-devices"], p.Annotations["ALIYUN_COM_GPU_MEM_IDX"])
		}
		for idx := range shares {
			perDevice[idx]++
			if got := p.Annotations["ALIYUN_COM_GPU_MEM_IDX"]; got != strconv.Itoa(idx) {
				t.Errorf("pod %s: ALIYUN_COM_GPU_MEM_IDX=%q, berth.dev/gpu-devices names device %d", p.Name, got, idx)
			}
		}
	}
	if perDevice[0] != 2 || perDevice[1] != 2 {
		t.Errorf("GPU pods per device %v, want 2 on each of devices 0 and 1", perDevice)
	}
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"gpu-a": {16, 16}})
}

// importsNoInternal fails the test if the Go file at path imports any of berth's internal
// packages, which a module other than berth's cannot.
func importsNoInternal(t *testing.T, path string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if strings.HasPrefix(p, "github.com/berth-sched/berth/internal/") {
			t.Errorf("%s imports %s: another team's scheduler cannot", path, p)
		}
	}
}
