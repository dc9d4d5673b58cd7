package extender

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

// limitPod asks for GPU memory with a limit written as given, which the API server would refuse
// for some of the tests' values; the extender must not depend on that.
func limitPod(name, limit string) *v1.Pod {
	return st.MakePod().Namespace("ns").Name(name).UID(name).Lim(map[v1.ResourceName]string{testMemory: limit}).Obj()
}

// invalidLimits are GPU memory limits that are no request: each verb answers them with the reason.
// A limit that is not a number at all cannot be held by a Pod: its body is refused whole
// (TestBadRequests).
var invalidLimits = map[string]string{
	"negative":   `container "con0": limit aliyun.com/gpu-mem="-8" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
	"fractional": `container "con0": limit aliyun.com/gpu-mem="500m" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
}

var limitOf = map[string]string{"negative": "-8", "fractional": "0.5"}

// A negative or fractional GPU limit used to pass every node as "no GPU", including full nodes
// and nodes without GPUs; a limit of 0 still asks for no GPU.
func TestFilterInvalidGPURequests(t *testing.T) {
	env := newEnv(t, gpu.Binpack, testCluster()...)
	all := []string{"free", "full", "small", "cpu", "unknown"}
	for form, makeArgs := range nodeArgs {
		for kind, reason := range invalidLimits {
			t.Run(form+"/"+kind, func(t *testing.T) {
				args := makeArgs(limitPod("p", limitOf[kind]), all...)
				got := call[extenderv1.ExtenderFilterResult](t, env, FilterVerb, args)
				if kept := keptNames(t, args, got); len(kept) != 0 {
					t.Errorf("kept %v, want none", kept)
				}
				if diff := cmp.Diff(failEverywhere(all, reason), got.FailedAndUnresolvableNodes); diff != "" {
					t.Errorf("FailedAndUnresolvableNodes (-want +got):\n%s", diff)
				}
			})
		}
		t.Run(form+"/zero", func(t *testing.T) {
			args := makeArgs(limitPod("p", "0"), all...)
			got := call[extenderv1.ExtenderFilterResult](t, env, FilterVerb, args)
			if diff := cmp.Diff(all, keptNames(t, args, got)); diff != "" {
				t.Errorf("kept nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrioritizeInvalidGPURequests(t *testing.T) {
	env := newEnv(t, gpu.Binpack, testCluster()...)
	nodes := []string{"free", "full", "cpu"}
	for form, makeArgs := range nodeArgs {
		for _, limit := range []string{"-8", "0.5", "0"} {
			t.Run(form+"/"+limit, func(t *testing.T) {
				got := call[extenderv1.HostPriorityList](t, env, PrioritizeVerb, makeArgs(limitPod("p", limit), nodes...))
				want := extenderv1.HostPriorityList{{Host: "free"}, {Host: "full"}, {Host: "cpu"}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("scores (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestPreemptInvalidGPURequests(t *testing.T) {
	env := newEnv(t, gpu.Binpack, testCluster()...)
	given := map[string]*extenderv1.MetaVictims{"full": {Pods: []*extenderv1.MetaPod{{UID: "f0"}}}}
	for limit, want := range map[string]map[string]*extenderv1.MetaVictims{"-8": {}, "0.5": {}, "0": given} {
		t.Run(limit, func(t *testing.T) {
			got := call[extenderv1.ExtenderPreemptionResult](t, env, PreemptVerb,
				&extenderv1.ExtenderPreemptionArgs{Pod: limitPod("p", limit), NodeNameToMetaVictims: given})
			if diff := cmp.Diff(want, got.NodeNameToMetaVictims, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}

// bind reads the pod from the API server, where such a pod may exist if the server did not
// validate it; it must neither bind it nor count it.
func TestBindInvalidGPURequests(t *testing.T) {
	for kind, reason := range invalidLimits {
		t.Run(kind, func(t *testing.T) {
			env := newEnv(t, gpu.Binpack, gpuNode("n", 2, 32), boundPod("x", "n", "0:12"), limitPod("p", limitOf[kind]))
			env.client.ClearActions()
			got := call[extenderv1.ExtenderBindingResult](t, env, BindVerb,
				&extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"})
			if got.Error != reason {
				t.Errorf("Error %q, want %q", got.Error, reason)
			}
			if w := env.writes(); len(w) != 0 {
				t.Errorf("API writes %v, want none", w)
			}
			if node := env.pod(t, "p").Spec.NodeName; node != "" {
				t.Errorf("pod bound to %q", node)
			}
			if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 12}, {Capacity: 16}}, env.ext.cache.NodeView("n")); diff != "" {
				t.Errorf("devices of n (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("zero", func(t *testing.T) {
		env := newEnv(t, gpu.Binpack, gpuNode("n", 2, 32), limitPod("p", "0"))
		got := call[extenderv1.ExtenderBindingResult](t, env, BindVerb,
			&extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p", Node: "n"})
		if got.Error != "" {
			t.Fatalf("Error %q", got.Error)
		}
		pod := env.pod(t, "p")
		if pod.Spec.NodeName != "n" || gpu.HasAssignment(pod) {
			t.Errorf("pod on %q with annotations %v, want on n without devices", pod.Spec.NodeName, pod.Annotations)
		}
	})
}
