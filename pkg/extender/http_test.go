package extender

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2/ktesting"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/gpu"
)

var verbs = []string{FilterVerb, PrioritizeVerb, PreemptVerb, BindVerb}

// Every verb refuses what is not a well-formed request of its own with a 4xx and a message, and
// keeps serving.
func TestBadRequests(t *testing.T) {
	env := newEnv(t, gpu.Binpack, gpuNode("n", 1, 8))
	pod := gpuPod("p", 4).Obj()
	names := []string{"n"}
	tests := []struct {
		name     string
		verbs    []string
		method   string
		body     []byte
		wantCode int
		wantMsg  string
	}{
		{"GET", verbs, http.MethodGet, nil, http.StatusMethodNotAllowed, "takes POST, not GET"},
		{"PUT", verbs, http.MethodPut, []byte("{}"), http.StatusMethodNotAllowed, "takes POST, not PUT"},
		{"not JSON", verbs, "", []byte("<xml/>"), http.StatusBadRequest, "request body is not the JSON the verb takes: invalid character '<'"},
		{"empty", verbs, "", nil, http.StatusBadRequest, "request body is not the JSON the verb takes: EOF"},
		{"truncated", verbs, "", []byte(`{"Pod": {"metadata": {"name": "p"`), http.StatusBadRequest, "unexpected EOF"},
		{"two values", verbs, "", []byte(`{} {}`), http.StatusBadRequest, "more than one JSON value"},
		{"an array", verbs, "", []byte(`[1, 2]`), http.StatusBadRequest, "cannot unmarshal array"},
		{"huge", verbs, "", hugeBody(2 << 20), http.StatusRequestEntityTooLarge, "request body is larger than 1048576 bytes"},
		{"pod of the wrong type", []string{FilterVerb, PrioritizeVerb, PreemptVerb}, "", []byte(`{"Pod": 5}`), http.StatusBadRequest, "cannot unmarshal number"},
		{"quantity that is no quantity", []string{FilterVerb, PrioritizeVerb, PreemptVerb}, "",
			[]byte(`{"Pod": {"spec": {"containers": [{"resources": {"limits": {"aliyun.com/gpu-mem": "lots"}}}]}}, "NodeNames": []}`),
			http.StatusBadRequest, "quantities must match the regular expression"},
		{"more nodes than any cluster has", []string{FilterVerb, PrioritizeVerb}, "",
			[]byte(`{"Pod": {}, "Nodes": {"items": [` + strings.Repeat(`{},`, maxNodes) + `{}]}}`),
			http.StatusBadRequest, "the request has more than 15000 Nodes"},
		{"nodes that are no list", []string{FilterVerb, PrioritizeVerb}, "", []byte(`{"Pod": {}, "Nodes": {"items": {}}}`),
			http.StatusBadRequest, "cannot unmarshal non-array into Go struct field"},
		{"no pod", []string{FilterVerb, PrioritizeVerb}, "", mustJSON(extenderv1.ExtenderArgs{NodeNames: &names}), http.StatusBadRequest, "the request has no Pod"},
		{"no pod", []string{PreemptVerb}, "", mustJSON(extenderv1.ExtenderPreemptionArgs{NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{}}), http.StatusBadRequest, "the request has no Pod"},
		{"no nodes", []string{FilterVerb, PrioritizeVerb}, "", mustJSON(extenderv1.ExtenderArgs{Pod: pod}), http.StatusBadRequest, "the request has neither NodeNames"},
		{"both forms of nodes", []string{FilterVerb, PrioritizeVerb}, "", mustJSON(extenderv1.ExtenderArgs{Pod: pod, NodeNames: &names, Nodes: &v1.NodeList{}}),
			http.StatusBadRequest, "the request has both NodeNames and Nodes"},
		{"no victims", []string{PreemptVerb}, "", mustJSON(extenderv1.ExtenderPreemptionArgs{Pod: pod}), http.StatusBadRequest, "the request has neither NodeNameToVictims nor NodeNameToMetaVictims"},
		{"both forms of victims", []string{PreemptVerb}, "", mustJSON(extenderv1.ExtenderPreemptionArgs{Pod: pod,
			NodeNameToVictims: map[string]*extenderv1.Victims{}, NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{}}),
			http.StatusBadRequest, "the request has both"},
		{"null victim", []string{PreemptVerb}, "", []byte(`{"Pod": {}, "NodeNameToMetaVictims": {"n": {"Pods": [null]}}}`), http.StatusBadRequest, `victims on node "n" include null`},
		{"null victim pod", []string{PreemptVerb}, "", []byte(`{"Pod": {}, "NodeNameToVictims": {"n": {"Pods": [null]}}}`), http.StatusBadRequest, `victims on node "n" include null`},
		{"bind without a pod", []string{BindVerb}, "", mustJSON(extenderv1.ExtenderBindingArgs{Node: "n"}), http.StatusBadRequest, "the request needs PodName, PodNamespace, PodUID and Node"},
		{"bind without a node", []string{BindVerb}, "", mustJSON(extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "p"}), http.StatusBadRequest, "the request needs"},
	}
	for _, tt := range tests {
		for _, verb := range tt.verbs {
			t.Run(verb+"/"+tt.name, func(t *testing.T) {
				before := requestCount(t, verb, tt.wantCode)
				method := tt.method
				if method == "" {
					method = http.MethodPost
				}
				req, err := http.NewRequestWithContext(t.Context(), method, env.server.URL+testPrefix+"/"+verb, bytes.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.wantCode || !strings.Contains(string(body), tt.wantMsg) {
					t.Errorf("status %d %q, want %d with %q", resp.StatusCode, body, tt.wantCode, tt.wantMsg)
				}
				if tt.wantCode == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != http.MethodPost {
					t.Errorf("Allow: %q", resp.Header.Get("Allow"))
				}
				if got := requestCount(t, verb, tt.wantCode); got != before+1 {
					t.Errorf("requests counted for %s %d: %v, want %v", verb, tt.wantCode, got, before+1)
				}
			})
		}
	}
	// Still serving, and nothing was bound or reserved.
	if got := call[extenderv1.ExtenderFilterResult](t, env, FilterVerb, nodeArgs["nodeCacheCapable"](pod, "n")); got.NodeNames == nil || len(*got.NodeNames) != 1 {
		t.Errorf("filter after bad requests: %+v", got)
	}
	if diff := cmp.Diff([]gpu.Device{{Capacity: 8}}, env.ext.cache.NodeView("n")); diff != "" {
		t.Errorf("devices after bad requests (-want +got):\n%s", diff)
	}
	if code, _ := env.post(t, "unknown", []byte("{}")); code != http.StatusNotFound {
		t.Errorf("unknown verb: status %d", code)
	}
}

func hugeBody(n int) []byte {
	// Valid JSON up to the limit, so only the size is wrong.
	return []byte(`{"Pod": {"metadata": {"name": "` + strings.Repeat("x", n) + `"}}}`)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func requestCount(t *testing.T, verb string, code int) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(requests.WithLabelValues(verb, fmt.Sprint(code)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Until its cache has synced the extender answers nothing (it would hand out devices it has not
// seen taken), and /readyz says so.
func TestNotReadyUntilSynced(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	client := fake.NewClientset(gpuNode("n", 1, 8))
	// Its informers never start.
	unsynced, err := New(client, informers.NewSharedInformerFactory(client, 0), Config{Resources: testResources, Strategy: gpu.Binpack}, logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := unsynced.Handler(testPrefix, Limits{MaxRequestBytes: 1 << 20, MaxInFlightBytes: 4 << 20})
	for _, verb := range verbs {
		code, body := serveOnce(h, http.MethodPost, testPrefix+"/"+verb, `{}`)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "has not synced") {
			t.Errorf("%s before sync: %d %q", verb, code, body)
		}
	}
	if code, body := serveOnce(h, http.MethodGet, "/readyz?verbose", ""); code != http.StatusInternalServerError || !strings.Contains(body, "gpu-cache-synced failed") {
		t.Errorf("/readyz before sync: %d %q", code, body)
	}
	if code, _ := serveOnce(h, http.MethodGet, "/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz before sync: %d", code)
	}

	h = newEnv(t, gpu.Binpack, gpuNode("n", 1, 8)).ext.Handler(testPrefix, Limits{MaxRequestBytes: 1 << 20, MaxInFlightBytes: 4 << 20})
	if code, body := serveOnce(h, http.MethodGet, "/readyz", ""); code != http.StatusOK {
		t.Errorf("/readyz after sync: %d %q", code, body)
	}
	code, body := serveOnce(h, http.MethodGet, "/metrics", "")
	for _, want := range []string{"berth_extender_requests_total{", "berth_extender_request_duration_seconds_bucket{", "berth_gpu_memory_capacity{"} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("/metrics: %d, no %s in\n%s", code, want, body)
		}
	}
}

func serveOnce(h http.Handler, method, path, body string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	return rec.Code, rec.Body.String()
}

// Many pods bound at once to a node whose GPUs hold only some of them: exactly as many as fit
// are bound, each device's memory is handed out once, and the rest are told why.
func TestConcurrentBinds(t *testing.T) {
	const pods, fit = 24, 4 // 2 GPUs of 16, pods of 8
	objs := []runtime.Object{gpuNode("n", 2, 32)}
	for i := range pods {
		objs = append(objs, gpuPod(fmt.Sprintf("p%d", i), 8).Obj())
	}
	env := newEnv(t, gpu.Binpack, objs...)

	var wg sync.WaitGroup
	results := make([]extenderv1.ExtenderBindingResult, pods)
	errs := make([]error, pods)
	for i := range pods {
		wg.Go(func() {
			name := fmt.Sprintf("p%d", i)
			body := mustJSON(&extenderv1.ExtenderBindingArgs{PodName: name, PodNamespace: "ns", PodUID: types.UID(name), Node: "n"})
			resp, err := http.Post(env.server.URL+testPrefix+"/"+BindVerb, "application/json", bytes.NewReader(body))
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs[i] = fmt.Errorf("status %d", resp.StatusCode)
				return
			}
			errs[i] = json.NewDecoder(resp.Body).Decode(&results[i])
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	bound := 0
	perDevice := map[string]int{}
	for i, r := range results {
		pod := env.pod(t, fmt.Sprintf("p%d", i))
		if r.Error != "" {
			if !strings.HasPrefix(r.Error, "node n: GPU memory: pod asks for 8 on one GPU") {
				t.Errorf("p%d: unexpected error %q", i, r.Error)
			}
			if pod.Spec.NodeName != "" || pod.Annotations[gpu.PodGPUDevicesAnnotation] != "" {
				t.Errorf("p%d failed but is on %q with %v", i, pod.Spec.NodeName, pod.Annotations)
			}
			continue
		}
		bound++
		if pod.Spec.NodeName != "n" {
			t.Errorf("p%d bound but on node %q", i, pod.Spec.NodeName)
		}
		perDevice[pod.Annotations[gpu.PodGPUDevicesAnnotation]]++
	}
	if bound != fit {
		t.Errorf("%d pods bound, want %d", bound, fit)
	}
	if diff := cmp.Diff(map[string]int{"0:8": 2, "1:8": 2}, perDevice); diff != "" {
		t.Errorf("pods per device (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 16}, {Capacity: 16, Used: 16}}, env.ext.cache.NodeView("n")); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	// The apiserver's view agrees once the informer has seen the bindings.
	list, err := env.client.CoreV1().Pods("ns").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := countBound(list.Items); n != fit {
		t.Errorf("API shows %d pods bound, want %d", n, fit)
	}
}

func countBound(pods []v1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// kube-scheduler's extender client keeps its connection only after reading an answer to its end,
// and it stops reading at the end of the JSON value. Answers for many nodes (several KiB) must not
// cost a connection each: ten filter and prioritize calls over 200 nodes use one.
func TestSchedulerClientKeepsItsConnection(t *testing.T) {
	objs := []runtime.Object{}
	infos := []fwk.NodeInfo{}
	for i := range 200 {
		node := gpuNode(fmt.Sprintf("node-%d", i), 2, 32)
		objs = append(objs, node)
		infos = append(infos, nodeInfo(node))
	}
	env := newEnv(t, gpu.Binpack, objs...)
	var conns atomic.Int32
	server := httptest.NewUnstartedServer(env.server.Config.Handler)
	server.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	server.Start()
	defer server.Close()
	client := schedulerClient(t, server.URL)
	for _, memory := range []int{8, 24} { // fits everywhere; on no GPU (16 each), with a reason per node
		pod := gpuPod("p", memory).Obj()
		for range 10 {
			if _, _, _, err := client.Filter(pod, infos); err != nil {
				t.Fatal(err)
			}
			if _, _, err := client.Prioritize(pod, infos); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("40 calls opened %d connections, want 1", n)
	}
}

// A refusal reaches a client that is still sending its body: as the answer, not as a connection
// reset. Refused unread, a large body's connection was closed half a second after the answer (the
// net/http server's wait for the client to read it), and a client that had not read it by then,
// still writing, lost it to the reset: under load berth-extender's burst test saw 4 of 120
// requests end so (TestExtenderBoundedMemoryUnderBurst), where each should have had its 429 and
// Retry-After. The client here sends half its body, pauses past that wait, then sends the rest.
func TestRefusalsReachAClientStillSending(t *testing.T) {
	env := newEnv(t, gpu.Binpack, gpuNode("n", 1, 8))
	const maxBytes = 8 << 20
	f := newInFlight(Limits{MaxRequestBytes: maxBytes, MaxInFlightBytes: maxBytes})
	f.release = func() {}
	server := httptest.NewServer(env.ext.handler(testPrefix, f))
	t.Cleanup(server.Close)
	tests := []struct {
		name     string
		body     []byte
		fill     bool
		wantCode int
	}{
		{"at the in-flight bound", hugeBody(2 << 20), true, http.StatusTooManyRequests},
		{"malformed at its first byte", append([]byte("<"), hugeBody(2<<20)...), false, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fill {
				if err := f.acquire(maxBytes); err != nil {
					t.Fatal(err)
				}
				defer f.done(maxBytes)
			}
			conn, err := net.Dial("tcp", server.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			half := len(tt.body) / 2
			if _, err := fmt.Fprintf(conn, "POST %s/%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
				testPrefix, FilterVerb, len(tt.body)); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Write(tt.body[:half]); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // past net/http's 500 ms wait before it closes a connection with a body unread
			_, writeErr := conn.Write(tt.body[half:])
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v (the body's second half: %v), want the refusal %d", err, writeErr, tt.wantCode)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode || writeErr != nil {
				t.Errorf("status %d, the body's second half %v; want %d, the whole body taken", resp.StatusCode, writeErr, tt.wantCode)
			}
		})
	}
}
