package gpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

func gpuNode(name, count, memory string) *st.NodeWrapper {
	return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{testCount: count, testMemory: memory})
}

func TestDevicesOf(t *testing.T) {
	tests := []struct {
		name    string
		node    *v1.Node
		want    []int64
		wantErr string
	}{
		{
			name: "no GPUs",
			node: st.MakeNode().Name("n").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "8"}).Obj(),
		},
		{
			name: "memory without a count",
			node: st.MakeNode().Name("n").Capacity(map[v1.ResourceName]string{testMemory: "64"}).Obj(),
		},
		{
			name: "capacity split equally",
			node: gpuNode("n", "4", "64").Obj(),
			want: []int64{16, 16, 16, 16},
		},
		{
			name: "uneven capacity rounds down like gpushare",
			node: gpuNode("n", "3", "50").Obj(),
			want: []int64{16, 16, 16},
		},
		{
			name:    "less than a unit per GPU",
			node:    gpuNode("n", "4", "2").Obj(),
			wantErr: "allocatable aliyun.com/gpu-mem 2 is less than one unit for each of 4 GPUs; ignoring the node's GPUs",
		},
		{
			name:    "implausibly many GPUs",
			node:    gpuNode("n", "100000", "100000").Obj(),
			wantErr: "allocatable aliyun.com/gpu-count is more than 256 GPUs; ignoring the node's GPUs",
		},
		{
			name: "mixed sizes from the annotation",
			node: gpuNode("n", "4", "80").Annotation(NodeGPUMemoryAnnotation, "16,16,24,24").Obj(),
			want: []int64{16, 16, 24, 24},
		},
		{
			name: "annotation tolerates spaces",
			node: gpuNode("n", "2", "40").Annotation(NodeGPUMemoryAnnotation, "16, 24").Obj(),
			want: []int64{16, 24},
		},
		{
			name:    "annotation count must match capacity",
			node:    gpuNode("n", "4", "80").Annotation(NodeGPUMemoryAnnotation, "16,24").Obj(),
			want:    []int64{20, 20, 20, 20},
			wantErr: `annotation berth.dev/gpu-memory="16,24": lists 2 GPUs but allocatable aliyun.com/gpu-count is 4; using aliyun.com/gpu-mem/aliyun.com/gpu-count instead`,
		},
		{
			name:    "annotation entry not a number",
			node:    gpuNode("n", "2", "32").Annotation(NodeGPUMemoryAnnotation, "16,lots").Obj(),
			want:    []int64{16, 16},
			wantErr: `annotation berth.dev/gpu-memory="16,lots": entry 1 ("lots") is not a positive whole number; using aliyun.com/gpu-mem/aliyun.com/gpu-count instead`,
		},
		{
			name:    "annotation entry zero",
			node:    gpuNode("n", "2", "32").Annotation(NodeGPUMemoryAnnotation, "0,16").Obj(),
			want:    []int64{16, 16},
			wantErr: `annotation berth.dev/gpu-memory="0,16": entry 0 ("0") is not a positive whole number; using aliyun.com/gpu-mem/aliyun.com/gpu-count instead`,
		},
		{
			name:    "empty annotation",
			node:    gpuNode("n", "2", "32").Annotation(NodeGPUMemoryAnnotation, "").Obj(),
			want:    []int64{16, 16},
			wantErr: `annotation berth.dev/gpu-memory="": entry 0 ("") is not a positive whole number; using aliyun.com/gpu-mem/aliyun.com/gpu-count instead`,
		},
		{
			name:    "annotation on a node without a count",
			node:    st.MakeNode().Name("n").Annotation(NodeGPUMemoryAnnotation, "16").Obj(),
			wantErr: `annotation berth.dev/gpu-memory="16": lists 1 GPUs but allocatable aliyun.com/gpu-count is 0; using aliyun.com/gpu-mem/aliyun.com/gpu-count instead`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DevicesOf(tt.node, testResources)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("devices (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeChanged(t *testing.T) {
	base := gpuNode("n", "2", "32").Obj()
	tests := []struct {
		name string
		cur  *v1.Node
		want bool
	}{
		{name: "heartbeat", cur: gpuNode("n", "2", "32").Condition(v1.NodeReady, v1.ConditionTrue, "", "").Obj()},
		{name: "unrelated capacity", cur: gpuNode("n", "2", "32").Label("a", "b").Obj()},
		{name: "more memory", cur: gpuNode("n", "2", "48").Obj(), want: true},
		{name: "more GPUs", cur: gpuNode("n", "4", "32").Obj(), want: true},
		{name: "annotation", cur: gpuNode("n", "2", "32").Annotation(NodeGPUMemoryAnnotation, "8,24").Obj(), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NodeChanged(base, tt.cur, testResources); got != tt.want {
				t.Errorf("NodeChanged = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPodChanged(t *testing.T) {
	base := st.MakePod().Name("p").Node("n").Annotation(PodGPUDevicesAnnotation, "0:8").Obj()
	tests := []struct {
		name string
		cur  *v1.Pod
		want bool
	}{
		{name: "status only", cur: st.MakePod().Name("p").Node("n").Annotation(PodGPUDevicesAnnotation, "0:8").Condition(v1.PodReady, v1.ConditionTrue, "").Obj()},
		{name: "phase running", cur: st.MakePod().Name("p").Node("n").Annotation(PodGPUDevicesAnnotation, "0:8").Phase(v1.PodRunning).Obj()},
		{name: "terminated", cur: st.MakePod().Name("p").Node("n").Annotation(PodGPUDevicesAnnotation, "0:8").Phase(v1.PodSucceeded).Obj(), want: true},
		{name: "devices", cur: st.MakePod().Name("p").Node("n").Annotation(PodGPUDevicesAnnotation, "1:8").Obj(), want: true},
		{name: "gpushare index", cur: st.MakePod().Name("p").Node("n").Annotation(PodGPUDevicesAnnotation, "0:8").Annotation(GPUShareIndexAnnotation, "0").Obj(), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PodChanged(base, tt.cur); got != tt.want {
				t.Errorf("PodChanged = %v, want %v", got, tt.want)
			}
		})
	}
}
