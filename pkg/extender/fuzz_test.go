package extender

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/berth-sched/berth/pkg/gpu"
)

// FuzzVerbs sends arbitrary bodies to every verb of an extender over a small cluster and checks
// that
//   - the answer is 200, 400 or 413: never a crash or a 5xx, whatever the body;
//   - a 200 answer is the verb's response type and keeps to the protocol: filter sorts every given
//     node into kept, failed or unresolvable and keeps only given ones, prioritize scores every
//     given node from 0 to 10, preempt returns only given nodes with their given victims;
//   - no device is ever over-committed, binds included.
//
// The seed corpus runs with every `go test`; `go test -fuzz=FuzzVerbs` explores further.
func FuzzVerbs(f *testing.F) {
	pending := gpuPod("p1", 8).Obj()
	twoGPUs := gpuPod("p2", 16).Annotation(gpu.PodGPUCountAnnotation, "2").Obj()
	names := []string{"n", "cpu", "gone"}
	seeds := map[string][]any{
		FilterVerb: {
			extenderv1.ExtenderArgs{Pod: pending, NodeNames: &names},
			extenderv1.ExtenderArgs{Pod: twoGPUs, Nodes: &v1.NodeList{Items: []v1.Node{*gpuNode("n", 2, 32), *gpuNode("x", 1, 8)}}},
			extenderv1.ExtenderArgs{Pod: gpuPod("p3", 0).Obj(), NodeNames: &[]string{}},
		},
		PrioritizeVerb: {
			extenderv1.ExtenderArgs{Pod: pending, NodeNames: &names},
			extenderv1.ExtenderArgs{Pod: twoGPUs, Nodes: &v1.NodeList{Items: []v1.Node{*gpuNode("n", 2, 32)}}},
		},
		PreemptVerb: {
			extenderv1.ExtenderPreemptionArgs{Pod: twoGPUs, NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{
				"n": {Pods: []*extenderv1.MetaPod{{UID: "a"}, {UID: "b"}}}, "cpu": {Pods: []*extenderv1.MetaPod{{UID: "c"}}}}},
			extenderv1.ExtenderPreemptionArgs{Pod: pending, NodeNameToVictims: map[string]*extenderv1.Victims{
				"n": {Pods: []*v1.Pod{boundPod("a", "n", "0:12")}, NumPDBViolations: 1}}},
		},
		BindVerb: {
			extenderv1.ExtenderBindingArgs{PodName: "p1", PodNamespace: "ns", PodUID: "p1", Node: "n"},
			extenderv1.ExtenderBindingArgs{PodName: "p2", PodNamespace: "ns", PodUID: "p2", Node: "n"},
			extenderv1.ExtenderBindingArgs{PodName: "p3", PodNamespace: "ns", PodUID: "p3", Node: "cpu"},
		},
	}
	for i, verb := range verbs {
		for _, args := range seeds[verb] {
			f.Add(byte(i), mustJSON(args))
		}
		f.Add(byte(i), []byte(`{"Pod": {"metadata": {"annotations": {"berth.dev/gpu-count": "99999999999"}}, "spec": {"containers": [{"resources": {"limits": {"aliyun.com/gpu-mem": "1e18"}}}]}}, "NodeNames": ["n", "n"]}`))
		f.Add(byte(i), []byte(`{"Pod": null, "NodeNameToMetaVictims": {"n": null}, "PodUID": "", "Nodes": {"items": [{}]}}`))
		f.Add(byte(i), []byte(`[[[[[[[[[[{}]]]]]]]]]]`))
	}

	env := newEnv(f, gpu.Binpack,
		gpuNode("n", 2, 32), gpuNode("cpu", 0, 0),
		boundPod("a", "n", "0:12"), boundPod("b", "n", "1:4"),
		pending, twoGPUs, gpuPod("p3", 0).Obj(),
	)
	h := env.ext.Handler(testPrefix, Limits{MaxRequestBytes: 1 << 20, MaxInFlightBytes: 4 << 20})
	f.Fuzz(func(t *testing.T, verbIndex byte, body []byte) {
		verb := verbs[int(verbIndex)%len(verbs)]
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, testPrefix+"/"+verb, strings.NewReader(string(body))))
		switch rec.Code {
		case http.StatusOK:
			checkAnswer(t, verb, body, rec.Body.Bytes())
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("%s: status %d %q for %q", verb, rec.Code, rec.Body.String(), body)
		}
		for _, d := range env.ext.cache.NodeView("n") {
			if d.Used > d.Capacity {
				t.Fatalf("%s: device over-committed after %q: %+v", verb, body, env.ext.cache.NodeView("n"))
			}
		}
	})
}

func checkAnswer(t *testing.T, verb string, body, answer []byte) {
	t.Helper()
	switch verb {
	case FilterVerb, PrioritizeVerb:
		var args extenderv1.ExtenderArgs
		if err := json.Unmarshal(body, &args); err != nil {
			t.Fatalf("%s answered 200 to %q, which does not decode: %v", verb, body, err)
		}
		given := nodeNames(args.NodeNames, args.Nodes)
		if verb == PrioritizeVerb {
			var got extenderv1.HostPriorityList
			decodeAnswer(t, verb, answer, &got)
			if len(got) != len(given) {
				t.Fatalf("prioritize scored %d nodes of %d", len(got), len(given))
			}
			for i, hp := range got {
				if hp.Host != given[i] || hp.Score < 0 || hp.Score > extenderv1.MaxExtenderPriority {
					t.Fatalf("prioritize: %+v for node %q", hp, given[i])
				}
			}
			return
		}
		var got extenderv1.ExtenderFilterResult
		decodeAnswer(t, verb, answer, &got)
		if got.Error != "" {
			// A retry: the pod fits nowhere and the cache trails what the scheduler showed.
			return
		}
		for _, name := range given {
			_, failed := got.FailedNodes[name]
			_, unresolvable := got.FailedAndUnresolvableNodes[name]
			kept := slices.Contains(nodeNames(got.NodeNames, got.Nodes), name)
			if kept == (failed || unresolvable) {
				t.Fatalf("filter: node %q kept %v, failed %v, unresolvable %v", name, kept, failed, unresolvable)
			}
		}
		for _, name := range nodeNames(got.NodeNames, got.Nodes) {
			if !slices.Contains(given, name) {
				t.Fatalf("filter kept node %q, which it was not given", name)
			}
		}
	case PreemptVerb:
		var args extenderv1.ExtenderPreemptionArgs
		if err := json.Unmarshal(body, &args); err != nil {
			t.Fatalf("preempt answered 200 to %q, which does not decode: %v", body, err)
		}
		var got extenderv1.ExtenderPreemptionResult
		decodeAnswer(t, verb, answer, &got)
		for node, victims := range got.NodeNameToMetaVictims {
			want, err := metaVictimsOf(&args)
			if err != nil || want[node] == nil || len(victims.Pods) == 0 || len(victims.Pods) != len(want[node].Pods) {
				t.Fatalf("preempt returned node %q with victims %v, given %v", node, victims, want[node])
			}
		}
	case BindVerb:
		var got extenderv1.ExtenderBindingResult
		decodeAnswer(t, verb, answer, &got)
	}
}

func decodeAnswer(t *testing.T, verb string, answer []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(answer, into); err != nil {
		t.Fatalf("%s answered %q: %v", verb, answer, err)
	}
}

func nodeNames(names *[]string, nodes *v1.NodeList) []string {
	switch {
	case names != nil:
		return *names
	case nodes != nil:
		out := make([]string, len(nodes.Items))
		for i := range nodes.Items {
			out[i] = nodes.Items[i].Name
		}
		return out
	}
	return nil
}
