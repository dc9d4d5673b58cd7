package gpushare

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/gpu"
)

// limitPod asks for GPU memory with a limit written as given, which the API server would refuse
// for some of the tests' values; the plugin must not depend on that.
func limitPod(name, limit string) *v1.Pod {
	return st.MakePod().Namespace("default").Name(name).UID(name).Lim(map[v1.ResourceName]string{memoryResource: limit}).Obj()
}

// A negative or fractional GPU limit used to be taken for "no GPU", so the pod passed every node,
// full or without GPUs. It is unschedulable with the reason; no later extension point hands it a
// GPU or writes anything.
func TestInvalidGPURequestIsUnschedulable(t *testing.T) {
	for limit, reason := range map[string]string{
		"-8":  `container "con0": limit aliyun.com/gpu-mem="-8" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
		"0.5": `container "con0": limit aliyun.com/gpu-mem="500m" is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)`,
	} {
		t.Run(limit, func(t *testing.T) {
			pod := limitPod("p", limit)
			e := newEnv(t, nil, gpuNode("full", 1, 16).Obj(), boundPod("x", "full", "0:16").Obj(),
				st.MakeNode().Name("cpu").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "8"}).Obj(), pod)
			if err := e.pl.devices.waitForSync(e.ctx); err != nil {
				t.Fatal(err)
			}
			state, status := e.prefilter(t, pod)
			if diff := cmp.Diff(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reason), status, statusText); diff != "" {
				t.Errorf("PreFilter (-want +got):\n%s", diff)
			}
			if _, status := e.pl.SignPod(e.ctx, pod); status.Code() != fwk.Unschedulable || status.Message() != reason {
				t.Errorf("SignPod: %v, want Unschedulable: %s", status, reason)
			}
			// The scheduler stops at PreFilter; should anything call on, there is no request to act on.
			e.cs.ClearActions()
			for _, node := range []string{"full", "cpu"} {
				if status := e.pl.Filter(e.ctx, state, pod, e.nodeInfo(t, node)); status.Code() != fwk.Error {
					t.Errorf("Filter on %s: %v, want an error", node, status)
				}
				if _, status := e.pl.Score(e.ctx, state, pod, e.nodeInfo(t, node)); status.Code() != fwk.Error {
					t.Errorf("Score on %s: %v, want an error", node, status)
				}
				if status := e.pl.Reserve(e.ctx, state, pod, node); status.Code() != fwk.Error {
					t.Errorf("Reserve on %s: %v, want an error", node, status)
				}
				if status := e.pl.Bind(e.ctx, state, pod, node); status.Code() != fwk.Error {
					t.Errorf("Bind on %s: %v, want an error", node, status)
				}
			}
			if status := e.pl.PreScore(e.ctx, state, pod, nil); status.Code() != fwk.Error {
				t.Errorf("PreScore: %v, want an error", status)
			}
			if actions := apiActions(e.cs.Actions()); len(actions) != 0 {
				t.Errorf("API calls: %v", actions)
			}
			if _, _, ok := e.pl.devices.PodAssignment(pod.UID); ok {
				t.Error("the pod holds devices")
			}
			if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 16}}, e.pl.devices.NodeView("full")); diff != "" {
				t.Errorf("devices of full (-want +got):\n%s", diff)
			}
			logger, _ := ktesting.NewTestContext(t)
			if hint, err := e.pl.isSchedulableAfterNodeChange(logger, pod, nil, gpuNode("new", 8, 640).Obj()); err != nil || hint != fwk.QueueSkip {
				t.Errorf("a node added: hint %v, %v; want QueueSkip, as no node fixes the pod's own request", hint, err)
			}
		})
	}
}
