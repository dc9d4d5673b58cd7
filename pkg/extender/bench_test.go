package extender

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

// BenchmarkFilterAndPrioritize is what one GPU pod's scheduling cycle waits for in the extender
// with the shipped configuration (nodeCacheCapable: true): kube-scheduler's own extender client
// sends filter, then prioritize, for the 420 candidate nodes it checks in a cluster of 1000 (the
// share kube-scheduler scores at that size), each node of 8 GPUs holding two pods. It includes
// both sides' JSON and the HTTP round trips on loopback.
func BenchmarkFilterAndPrioritize(b *testing.B) {
	const nodes, candidates = 1000, 420
	objs := make([]runtime.Object, 0, 3*nodes)
	for i := range nodes {
		name := fmt.Sprintf("node-%d", i)
		objs = append(objs, gpuNode(name, 8, 128),
			boundPod(fmt.Sprintf("a-%d", i), name, "0:9"), boundPod(fmt.Sprintf("b-%d", i), name, fmt.Sprintf("%d:5", i%8)))
	}
	env := newEnv(b, gpu.Binpack, objs...)
	ext := schedulerClient(b, env.server.URL)
	pod := benchPod()
	infos := make([]fwk.NodeInfo, candidates)
	for i := range infos {
		infos[i] = nodeInfo(gpuNode(fmt.Sprintf("node-%d", i*nodes/candidates), 8, 128))
	}
	for b.Loop() {
		kept, _, _, err := ext.Filter(pod, infos)
		if err != nil || len(kept) != candidates {
			b.Fatalf("filter kept %d of %d nodes: %v", len(kept), candidates, err)
		}
		scores, _, err := ext.Prioritize(pod, kept)
		if err != nil || len(*scores) != candidates || (*scores)[0].Score == 0 {
			b.Fatalf("prioritize: %v, %v", scores, err)
		}
	}
}

// benchPod is the bench's GPU pod (test/bench/templates/pod-gpu.yaml).
func benchPod() *v1.Pod {
	return gpuPod("p", 0).Containers([]v1.Container{st.MakeContainer().Name("pause").Image("registry.k8s.io/pause:3.10.2").
		ContainerPort([]v1.ContainerPort{{ContainerPort: 80}}).
		ResourceRequests(map[v1.ResourceName]string{v1.ResourceCPU: "100m", v1.ResourceMemory: "500Mi"}).
		ResourceLimits(map[v1.ResourceName]string{v1.ResourceCPU: "100m", v1.ResourceMemory: "500Mi", testMemory: "9"}).Obj()}).Obj()
}
