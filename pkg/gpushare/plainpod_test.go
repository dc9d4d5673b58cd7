package gpushare

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// plainPod asks for CPU and memory only, as most pods of a cluster do.
func plainPod() *v1.Pod {
	return st.MakePod().Namespace("default").Name("plain").UID("plain").
		Req(map[v1.ResourceName]string{v1.ResourceCPU: "100m", v1.ResourceMemory: "500Mi"}).Obj()
}

// TestPlainPodSkipsEverything: a pod without GPU memory, or with a limit of 0, is skipped at
// every point GPUShare serves (Filter and Score never run for it), signs nothing, and costs no API
// call.
func TestPlainPodSkipsEverything(t *testing.T) {
	for name, pod := range map[string]*v1.Pod{"no GPU memory": plainPod(), "a GPU memory limit of 0": limitPod("zero", "0")} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, nil, gpuNode("n1", 1, 16).Obj())
			if fragments, status := e.pl.SignPod(e.ctx, pod); !status.IsSuccess() || len(fragments) != 0 {
				t.Errorf("SignPod: %v, %v; want no fragment", fragments, status)
			}
			state, status := e.prefilter(t, pod)
			if !status.IsSkip() {
				t.Errorf("PreFilter: %v, want Skip", status)
			}
			if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSkip() {
				t.Errorf("PreScore: %v, want Skip", status)
			}
			if status := e.pl.Reserve(e.ctx, state, pod, "n1"); !status.IsSuccess() {
				t.Errorf("Reserve: %v, want success", status)
			}
			e.cs.ClearActions()
			if status := e.pl.Bind(e.ctx, state, pod, "n1"); !status.IsSkip() {
				t.Errorf("Bind: %v, want Skip", status)
			}
			if actions := apiActions(e.cs.Actions()); len(actions) != 0 {
				t.Errorf("API calls for a plain pod: %v", actions)
			}
			if _, _, held := e.pl.devices.PodAssignment(pod.UID); held {
				t.Error("a plain pod holds devices")
			}
		})
	}
}

// BenchmarkPlainPod is what GPUShare costs a pod without GPU memory in one scheduling cycle: every
// point it serves that the framework calls for such a pod.
func BenchmarkPlainPod(b *testing.B) {
	e := newEnv(b, nil, gpuNode("n1", 1, 16).Obj())
	pod := plainPod()
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		if _, status := e.pl.SignPod(e.ctx, pod); !status.IsSuccess() {
			b.Fatal(status)
		}
		if _, status := e.pl.PreFilter(e.ctx, state, pod, nil); !status.IsSkip() {
			b.Fatal(status)
		}
		if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSkip() {
			b.Fatal(status)
		}
		if status := e.pl.Reserve(e.ctx, state, pod, "n1"); !status.IsSuccess() {
			b.Fatal(status)
		}
		if status := e.pl.Bind(e.ctx, state, pod, "n1"); status.Code() != fwk.Skip {
			b.Fatal(status)
		}
	}
}
