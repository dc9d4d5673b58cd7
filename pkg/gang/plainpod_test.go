package gang

import (
	"testing"

	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// BenchmarkPlainPod is what Gang costs a pod outside any group: every point it serves that the
// framework calls for such a pod in one scheduling cycle, and its pod handler's view of the pod's
// binding.
func BenchmarkPlainPod(b *testing.B) {
	h := newHarness(b, nil)
	pod := st.MakePod().Namespace("ns").Name("solo").UID("solo").Obj()
	bound := pod.DeepCopy()
	bound.Spec.NodeName = "n1"
	handler := h.pl.podHandler()
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		if status := h.pl.PreEnqueue(h.ctx, pod); !status.IsSuccess() {
			b.Fatal(status)
		}
		if fragments, status := h.pl.SignPod(h.ctx, pod); !status.IsSuccess() || len(fragments) != 0 {
			b.Fatal(fragments, status)
		}
		if _, status := h.pl.PreFilter(h.ctx, state, pod, nil); !status.IsSkip() {
			b.Fatal(status)
		}
		if status := h.pl.Reserve(h.ctx, state, pod, "n1"); !status.IsSuccess() {
			b.Fatal(status)
		}
		if status, _ := h.pl.Permit(h.ctx, state, pod, "n1"); !status.IsSuccess() {
			b.Fatal(status)
		}
		handler.OnUpdate(pod, bound)
	}
}
