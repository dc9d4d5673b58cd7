package gpushare

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

// BenchmarkQueueingHints is one answer of each of GPUShare's hints for a waiting pod asking 16 GiB
// of one GPU: the queue asks them for every pod GPUShare turned away on every event they
// register for, so a backlog of GPU pods multiplies their cost (TestQueueingHints holds the
// answers for more cases).
func BenchmarkQueueingHints(b *testing.B) {
	e := newEnv(b, nil)
	pending := gpuPod("pending", 16).Obj()
	node := gpuNode("n", 8, 640).Obj()
	annotated := gpuNode("n", 8, 640).Annotation("example.com/owner", "team-a").Obj()
	grown := gpuNode("n", 8, 1280).Obj()
	for _, tc := range []struct {
		name     string
		hint     fwk.QueueingHintFn
		old, cur any
		want     fwk.QueueingHint
	}{
		{"GPU pod deleted", e.pl.isSchedulableAfterPodDelete, boundPod("x", "n", "0:8").Obj(), nil, fwk.Queue},
		{"CPU pod deleted", e.pl.isSchedulableAfterPodDelete, st.MakePod().Namespace("default").Name("cpu").Node("n").Obj(), nil, fwk.QueueSkip},
		{"node added", e.pl.isSchedulableAfterNodeChange, nil, node, fwk.Queue},
		{"CPU node added", e.pl.isSchedulableAfterNodeChange, nil, st.MakeNode().Name("cpu").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4"}).Obj(), fwk.QueueSkip},
		{"node's GPUs grown", e.pl.isSchedulableAfterNodeChange, node, grown, fwk.Queue},
		{"node annotated, GPUs unchanged", e.pl.isSchedulableAfterNodeChange, node, annotated, fwk.QueueSkip},
		{"own GPU count fixed", e.pl.isSchedulableAfterPodUpdate,
			gpuPod("pending", 16).Annotation(gpu.PodGPUCountAnnotation, "3").Obj(), pending, fwk.Queue},
		{"own label changed", e.pl.isSchedulableAfterPodUpdate, pending, gpuPod("pending", 16).Label("a", "b").Obj(), fwk.QueueSkip},
	} {
		b.Run(tc.name, func(b *testing.B) {
			logger := klog.Background()
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := tc.hint(logger, pending, tc.old, tc.cur); got != tc.want {
					b.Fatalf("%v, want %v", got, tc.want)
				}
			}
		})
	}
}
