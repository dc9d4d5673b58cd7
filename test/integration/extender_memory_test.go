package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/berth-sched/berth/pkg/extender"
	"github.com/berth-sched/berth/test/harness"
)

// vmRSS reads the resident memory of a process, in bytes, from /proc/PID/status.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// burstBodies are a valid filter request as large as the shipped --max-request-bytes allows
// (whole Node objects, nodeCacheCapable: false, the largest form the scheduler sends), and
// malformed ones of about the same size that a decoder must read to the end to refuse, or that
// cost far more decoded than their size.
func burstBodies(t *testing.T, maxBytes int) (valid []byte, malformed [][]byte) {
	t.Helper()
	node := func(i int) v1.Node {
		n := harness.GPUNode(fmt.Sprintf("burst-%05d", i), 2, 16)
		n.Labels = map[string]string{}
		for j := range 16 {
			n.Labels[fmt.Sprintf("example.com/label-%d", j)] = fmt.Sprintf("value-%d-%d", i, j)
		}
		for j := range 16 {
			n.Status.Images = append(n.Status.Images, v1.ContainerImage{
				Names: []string{fmt.Sprintf("registry.example.com/image-%d@sha256:%064d", j, i)}, SizeBytes: 1 << 30})
		}
		return *n
	}
	// Nodes of one size, as many as fill nine tenths of the bound.
	one, err := json.Marshal(node(0))
	if err != nil {
		t.Fatal(err)
	}
	list := &v1.NodeList{}
	for i := range maxBytes * 9 / 10 / (len(one) + 1) {
		list.Items = append(list.Items, node(i))
	}
	valid, err = json.Marshal(extenderv1.ExtenderArgs{Pod: extenderGPUPod("burst", "p", 4, 1), Nodes: list})
	if err != nil || len(valid) > maxBytes {
		t.Fatalf("a request of %d bytes (bound %d): %v", len(valid), maxBytes, err)
	}
	malformed = [][]byte{
		valid[:len(valid)-1], // truncated
		append(bytes.Clone(valid[:len(valid)-1]), []byte(`,"x":}`)...),                                     // a syntax error at the end
		[]byte(`{"Pod":{"metadata":{"name":"` + strings.Repeat("x", len(valid)-40) + `"}},"NodeNames":5}`), // wrong type
		[]byte(`{"Pod":{},"Nodes":{"items":[` + strings.Repeat(`{},`, len(valid)/3-20) + `{}]}}`),          // empty Nodes, 784 bytes each decoded
	}
	return valid, malformed
}

// TestExtenderBoundedMemoryUnderBurst runs berth-extender as shipped (its arguments and
// environment, over mutual TLS) and sends it, from 30 clients at once with the scheduler's
// certificate, filter requests as large as --max-request-bytes allows, valid and malformed. Its
// resident memory must stay under the Deployment's memory limit, valid requests must go on being
// answered (some with 429 while the bound is reached), the memory must go back once the burst is
// over, and then the real kube-scheduler must place GPU pods through it without over-committing
// a GPU.
func TestExtenderBoundedMemoryUnderBurst(t *testing.T) {
	c := harness.StartCluster(t)
	s := startShippedExtender(t, c)
	limit := s.container.Resources.Limits.Memory().Value()
	if limit == 0 {
		t.Fatal("the shipped Deployment sets no memory limit for berth-extender")
	}
	maxBytes := extenderFlagInt(t, s.container.Args, "--max-request-bytes", extender.DefaultMaxRequestBytes)
	pid := s.ext.PID()
	valid, malformed := burstBodies(t, maxBytes)
	idle := vmRSS(t, pid)

	const clients, rounds = 30, 4
	client := s.pki.Client(t, s.pki.ClientCert, s.pki.ClientKey)
	client.Timeout = time.Minute
	var (
		mu    sync.Mutex
		codes = map[string]int{} // "valid 200", "malformed 400", ...
	)
	post := func(kind string, body []byte) {
		code := "error"
		resp, err := client.Post(s.urlPrefix+"/filter", "application/json", bytes.NewReader(body))
		if err == nil {
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			code = strconv.Itoa(resp.StatusCode)
			if kind == "valid" && resp.StatusCode == http.StatusOK {
				// The nodes are none the extender knows: each is failed, or the pod retried.
				var result extenderv1.ExtenderFilterResult
				if err := json.Unmarshal(answer, &result); err != nil || result.Nodes == nil && result.Error == "" {
					code = "200 without an answer"
				}
			}
			if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
				code = "429 without Retry-After"
			}
		} else {
			t.Logf("%s request: %v", kind, err)
		}
		mu.Lock()
		codes[kind+" "+code]++
		mu.Unlock()
	}

	stop := make(chan struct{})
	peak := idle
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if rss := vmRSS(t, pid); rss > peak {
				peak = rss
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for r := range rounds {
				if i%3 == 2 {
					post("malformed", malformed[(i+r)%len(malformed)])
				} else {
					post("valid", valid)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled

	// The memory goes back once the burst is over.
	settled := idle
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		settled = vmRSS(t, pid)
		return settled < idle+(peak-idle)/4, nil
	})
	mib := func(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
	t.Logf("%d clients x %d requests of %d bytes: resident memory idle %s, peak %s, %s after; limit %s; answers %v",
		clients, rounds, len(valid), mib(idle), mib(peak), mib(settled), mib(limit), codes)
	if peak >= limit {
		t.Errorf("resident memory peaked at %s, at or above the shipped limit %s", mib(peak), mib(limit))
	}
	if err != nil {
		t.Errorf("resident memory still %s a minute after the burst (idle %s, peak %s)", mib(settled), mib(idle), mib(peak))
	}
	for kind, n := range codes {
		if kind != "valid 200" && kind != "valid 429" && kind != "malformed 400" && kind != "malformed 429" {
			t.Errorf("%d answers %q", n, kind)
		}
	}
	if codes["valid 200"] == 0 || codes["valid 429"] == 0 {
		t.Errorf("answers %v: want valid requests answered during the burst, some of them with 429", codes)
	}
	// Whether a malformed body finds room in flight during the burst is timing (in one run under
	// load all 40 met a full bound and got 429, a refusal too). Alone, each must be read and
	// refused as malformed.
	for i, body := range malformed {
		before := codes["malformed 400"]
		post("malformed", body)
		if codes["malformed 400"] != before+1 {
			t.Errorf("malformed body %d sent alone: not answered 400 (answers %v)", i, codes)
		}
	}

	// Afterwards the real kube-scheduler places GPU pods through it: 8 of 12 fit.
	s.startKubeScheduler(t, c)
	capacity := map[string][]int64{}
	for _, name := range []string{"gpu-a", "gpu-b"} {
		c.CreateNode(t, harness.GPUNode(name, 2, 16))
		capacity[name] = []int64{16, 16}
	}
	ns := c.Namespace(t, "after-burst")
	for i := range 12 {
		c.CreatePod(t, extenderGPUPod(ns, fmt.Sprintf("p%d", i), 8, 1))
	}
	pods := c.WaitForPods(t, ns, 2*time.Minute, "8 GPU pods bound, 4 unschedulable", func(pods []v1.Pod) bool {
		bound, pending := 0, 0
		for i := range pods {
			switch {
			case pods[i].Spec.NodeName != "":
				bound++
			case harness.Unschedulable(&pods[i]) != "":
				pending++
			}
		}
		return bound == 8 && pending == 4
	})
	harness.CheckNoOvercommit(t, pods, capacity)
	if rss := vmRSS(t, pid); rss >= limit {
		t.Errorf("resident memory %s after placing pods, at or above the limit %s", mib(rss), mib(limit))
	}
}

// extenderFlagInt is an integer flag's last value in args, def if it is not there.
func extenderFlagInt(t *testing.T, args []string, name string, def int) int {
	t.Helper()
	v := def
	for _, a := range args {
		if s, ok := strings.CutPrefix(a, name+"="); ok {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %v", a, err)
			}
			v = n
		}
	}
	return v
}
