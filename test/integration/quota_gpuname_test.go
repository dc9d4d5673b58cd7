package integration

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/berth-sched/berth/test/harness"
)

// A GPU-memory quota is enforced under the memoryResource GPUShare is configured with, here
// example.com/gpu-mem on nodes that report example.com/gpu-count GPUs: ElasticQuota counts GPU
// memory under its profile's GPUShare's name, and has no name of its own to set.
func TestQuotaOfGPUMemoryUnderGPUShareName(t *testing.T) {
	const mem, count v1.ResourceName = "example.com/gpu-mem", "example.com/gpu-count"
	e := startQuotaEnv(t, harness.Node("gpu", "32", "128Gi", v1.ResourceList{
		count: resource.MustParse("2"),
		mem:   resource.MustParse("32"),
	}))
	ns := e.Namespace(t, "gpu-team")
	e.quota(t, ns, nil, v1.ResourceList{mem: resource.MustParse("8")})
	e.StartScheduler(t, berthConfig(e.Cluster, "pluginConfig:\n- name: GPUShare\n  args: {memoryResource: "+string(mem)+", countResource: "+string(count)+"}\n"))
	for _, name := range []string{"g0", "g1"} {
		p := harness.GPUPod(ns, name, 6)
		limits := p.Spec.Containers[0].Resources.Limits
		limits[mem] = limits[harness.GPUMemory]
		delete(limits, harness.GPUMemory)
		e.CreatePod(t, p)
	}
	pods := e.Settled(t, ns, time.Minute)
	if harness.Bound(pods) != 1 {
		t.Fatalf("%d GPU pods of 6 bound under a max of 8, want 1", harness.Bound(pods))
	}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != "" {
			if len(harness.Shares(t, p)) != 1 {
				t.Errorf("bound pod %s: berth.dev/gpu-devices=%q, want one device of %s", p.Name, p.Annotations["berth.dev/gpu-devices"], mem)
			}
			continue
		}
		want := "example.com/gpu-mem used 6, requested 6, max 8"
		if msg := harness.Unschedulable(p); !strings.Contains(msg, want) {
			t.Errorf("pending GPU pod says %q, want %q", msg, want)
		}
	}
}
