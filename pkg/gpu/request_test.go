package gpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

const (
	testMemory v1.ResourceName = "aliyun.com/gpu-mem"
	testCount  v1.ResourceName = "aliyun.com/gpu-count"
)

var testResources = ResourceNames{Memory: testMemory, Count: testCount}

func mem(q string) map[v1.ResourceName]string { return map[v1.ResourceName]string{testMemory: q} }

func TestRequestOf(t *testing.T) {
	tests := []struct {
		name    string
		pod     *v1.Pod
		want    Request
		wantErr string
	}{
		{
			name: "no GPU memory",
			pod:  st.MakePod().Lim(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj(),
		},
		{
			name: "count annotation alone asks for nothing",
			pod:  st.MakePod().Annotation(PodGPUCountAnnotation, "banana").Lim(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj(),
		},
		{
			name: "one container, one GPU by default",
			pod:  st.MakePod().Lim(mem("8")).Obj(),
			want: Request{Total: 8, Count: 1, PerDevice: 8},
		},
		{
			name: "containers add up",
			pod:  st.MakePod().Lim(mem("8")).Lim(mem("4")).Lim(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj(),
			want: Request{Total: 12, Count: 1, PerDevice: 12},
		},
		{
			name: "an init container larger than the app containers sets the total",
			pod:  st.MakePod().InitReq(mem("20")).Lim(mem("8")).Lim(mem("4")).Obj(),
			want: Request{Total: 20, Count: 1, PerDevice: 20},
		},
		{
			name: "a smaller init container does not count",
			pod:  st.MakePod().InitReq(mem("2")).Lim(mem("8")).Obj(),
			want: Request{Total: 8, Count: 1, PerDevice: 8},
		},
		{
			name: "a sidecar runs beside the app containers",
			pod:  st.MakePod().SidecarReq(mem("2")).Lim(mem("8")).Obj(),
			want: Request{Total: 10, Count: 1, PerDevice: 10},
		},
		{
			name: "overhead is left out",
			pod:  st.MakePod().Lim(mem("8")).Overhead(v1.ResourceList{testMemory: resource.MustParse("1")}).Obj(),
			want: Request{Total: 8, Count: 1, PerDevice: 8},
		},
		{
			name: "two GPUs split the total",
			pod:  st.MakePod().Annotation(PodGPUCountAnnotation, "2").Lim(mem("32")).Obj(),
			want: Request{Total: 32, Count: 2, PerDevice: 16},
		},
		{
			name:    "total must divide evenly",
			pod:     st.MakePod().Annotation(PodGPUCountAnnotation, "3").Lim(mem("32")).Obj(),
			wantErr: "aliyun.com/gpu-mem 32 does not divide evenly over 3 GPUs (annotation berth.dev/gpu-count): the limit is the pod's total, split equally over the GPUs",
		},
		{
			name:    "count must be at least 1",
			pod:     st.MakePod().Annotation(PodGPUCountAnnotation, "0").Lim(mem("32")).Obj(),
			wantErr: `annotation berth.dev/gpu-count="0" must be a whole number of GPUs, at least 1`,
		},
		{
			name:    "count must be a number",
			pod:     st.MakePod().Annotation(PodGPUCountAnnotation, "two").Lim(mem("32")).Obj(),
			wantErr: `annotation berth.dev/gpu-count="two" must be a whole number of GPUs, at least 1`,
		},
		{
			name: "a limit of 0 asks for no GPU",
			pod:  st.MakePod().Annotation(PodGPUCountAnnotation, "2").Lim(mem("0")).Obj(),
		},
		{
			name:    "a negative limit is refused, not taken for no GPU",
			pod:     st.MakePod().Lim(mem("-8")).Obj(),
			wantErr: `container "con0": limit aliyun.com/gpu-mem="-8" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
		},
		{
			name:    "a negative limit does not cancel another container's",
			pod:     st.MakePod().Lim(mem("16")).Lim(mem("-8")).Obj(),
			wantErr: `container "con1": limit aliyun.com/gpu-mem="-8" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
		},
		{
			name:    "a negative init container limit is refused",
			pod:     st.MakePod().InitReq(mem("-1")).Lim(mem("8")).Obj(),
			wantErr: `container "init-con0": limit aliyun.com/gpu-mem="-1" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
		},
		{
			name:    "a fractional limit is refused, not rounded up",
			pod:     st.MakePod().Lim(mem("0.5")).Obj(),
			wantErr: `container "con0": limit aliyun.com/gpu-mem="500m" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
		},
		{
			name:    "a limit past 64 bits is refused",
			pod:     st.MakePod().Lim(mem("1e30")).Obj(),
			wantErr: `container "con0": limit aliyun.com/gpu-mem="1e30" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
		},
		{
			name:    "a total past 64 bits is refused",
			pod:     st.MakePod().Lim(mem("9e18")).Lim(mem("9e18")).Obj(),
			wantErr: "the pod's total aliyun.com/gpu-mem, 18e18, is larger than 9223372036854775807",
		},
		{
			name: "a whole number written with a fraction is whole",
			pod:  st.MakePod().Lim(mem("8.0")).Obj(),
			want: Request{Total: 8, Count: 1, PerDevice: 8},
		},
		{
			name:    "more GPUs than memory units cannot divide",
			pod:     st.MakePod().Annotation(PodGPUCountAnnotation, "4").Lim(mem("2")).Obj(),
			wantErr: "aliyun.com/gpu-mem 2 does not divide evenly over 4 GPUs (annotation berth.dev/gpu-count): the limit is the pod's total, split equally over the GPUs",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RequestOf(tt.pod, testMemory)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
