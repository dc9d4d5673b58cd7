package gang

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

const gpuMem = v1.ResourceName("aliyun.com/gpu-mem")

func nodeInfo(node *v1.Node, pods ...*v1.Pod) fwk.NodeInfo {
	ni := framework.NewNodeInfo(pods...)
	ni.SetNode(node)
	return ni
}

func resources(m map[v1.ResourceName]string) v1.ResourceList {
	l := v1.ResourceList{}
	for k, v := range m {
		l[k] = resource.MustParse(v)
	}
	return l
}

func TestCapacityShortfall(t *testing.T) {
	node := func(name, cpu, gpu string) *v1.Node {
		return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{v1.ResourceCPU: cpu, v1.ResourceMemory: "16Gi", gpuMem: gpu}).Obj()
	}
	other := st.MakePod().Name("other").UID("other").Req(map[v1.ResourceName]string{v1.ResourceCPU: "3", gpuMem: "8"}).Obj()
	own := member("a", "a1", "uid-a1")
	own.Spec.Containers = st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: "2", gpuMem: "4"}).Obj().Spec.Containers

	tests := []struct {
		name   string
		nodes  []fwk.NodeInfo
		want   v1.ResourceList
		placed []*v1.Pod
		short  string
	}{
		{
			name:  "fits on the sum of free capacity across nodes",
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "4", "16")), nodeInfo(node("n2", "4", "16"))},
			want:  resources(map[v1.ResourceName]string{v1.ResourceCPU: "8", gpuMem: "32", v1.ResourcePods: "4"}),
		},
		{
			name:  "what other pods request is not free",
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "4", "16"), other), nodeInfo(node("n2", "4", "16"))},
			want:  resources(map[v1.ResourceName]string{v1.ResourceCPU: "8", gpuMem: "25"}),
			short: "aliyun.com/gpu-mem: 25 wanted, 24 free; cpu: 8 wanted, 5 free",
		},
		{
			name:   "the group's own placed members count as free",
			nodes:  []fwk.NodeInfo{nodeInfo(node("n1", "4", "16"), own), nodeInfo(node("n2", "4", "16"))},
			want:   resources(map[v1.ResourceName]string{v1.ResourceCPU: "8", gpuMem: "32", v1.ResourcePods: "64"}),
			placed: []*v1.Pod{own},
		},
		{
			name:  "fractional CPU is compared in millicores",
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "1500m", "0"))},
			want:  resources(map[v1.ResourceName]string{v1.ResourceCPU: "1600m"}),
			short: "cpu: 1600m wanted, 1500m free",
		},
		{
			name:  "memory and pod slots are checked",
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "4", "0"))},
			want:  resources(map[v1.ResourceName]string{v1.ResourceMemory: "32Gi", v1.ResourcePods: "33"}),
			short: "memory: 32Gi wanted, 16Gi free; pods: 33 wanted, 32 free",
		},
		{
			name:  "a resource no node has is all short",
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "4", "16"))},
			want:  resources(map[v1.ResourceName]string{"nvidia.com/gpu": "1"}),
			short: "nvidia.com/gpu: 1 wanted, 0 free",
		},
		{
			name:  "no nodes",
			want:  resources(map[v1.ResourceName]string{v1.ResourceCPU: "1"}),
			short: "cpu: 1 wanted, 0 free",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.short, capacityShortfall(tc.nodes, tc.want, tc.placed)); diff != "" {
				t.Errorf("shortfall (-want +got):\n%s", diff)
			}
		})
	}
}
