package elasticquota

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/gpu"
)

// gpuPodOf asks for memory of name in its container's limits (and requests, as the API server
// defaults them).
func gpuPodOf(ns, podName string, name v1.ResourceName, memory int64) *v1.Pod {
	p := podOf(ns, podName, "100m").Obj()
	q := *resource.NewQuantity(memory, resource.DecimalSI)
	c := &p.Spec.Containers[0]
	c.Resources.Requests[name] = q
	c.Resources.Limits = v1.ResourceList{name: q}
	return p
}

// TestGPUMemoryUnderGPUShareName: GPU memory is counted under the memoryResource of the
// profile's GPUShare, however late GPUShare is built, and under aliyun.com/gpu-mem in a profile
// without it.
func TestGPUMemoryUnderGPUShareName(t *testing.T) {
	const mem v1.ResourceName = "example.com/gpu-mem"
	bound := gpuPodOf("a", "bound", mem, 8)
	bound.Spec.NodeName = "n1"
	e := newEnvWithGPU(t, mem, []*v1.Pod{bound}, elasticQuota("a", "q", nil, v1.ResourceList{mem: resource.MustParse("16")}))
	if got := e.pl.gpuMemory(); got != mem {
		t.Fatalf("GPU memory counted under %q, want GPUShare's %q", got, mem)
	}
	if _, status := e.preFilter(t, gpuPodOf("a", "fits", mem, 8)); !status.IsSuccess() {
		t.Errorf("8 more under a max of 16 with 8 used: %v, want admitted", status)
	}
	_, status := e.preFilter(t, gpuPodOf("a", "over", mem, 16))
	if want := "quota a/q: example.com/gpu-mem used 8, requested 16, max 16"; status.Code() != fwk.Unschedulable || status.Message() != want {
		t.Errorf("16 more: %v, want Unschedulable %q", status, want)
	}
	// Read as GPUShare reads it: a total that does not divide over its GPUs is no request at all.
	uneven := gpuPodOf("a", "uneven", mem, 9)
	uneven.Annotations = map[string]string{gpu.PodGPUCountAnnotation: "2"}
	_, status = e.preFilter(t, uneven)
	if status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(status.Message(), "example.com/gpu-mem 9 does not divide evenly over 2 GPUs") {
		t.Errorf("9 over 2 GPUs: %v, want UnschedulableAndUnresolvable saying it does not divide", status)
	}

	if got := newEnv(t, nil).pl.gpuMemory(); got != gpu.DefaultMemoryResource {
		t.Errorf("without GPUShare, GPU memory counted under %q, want %q", got, gpu.DefaultMemoryResource)
	}
}
