package extender

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/gpu"
)

func TestInFlightBound(t *testing.T) {
	f := newInFlight(Limits{MaxRequestBytes: 100 << 10, MaxInFlightBytes: 200 << 10})
	f.release = func() {}
	for _, n := range []int64{100 << 10, 64 << 10, 36 << 10} {
		if err := f.acquire(n); err != nil {
			t.Fatalf("acquire %d: %v", n, err)
		}
	}
	err := f.acquire(minCharge)
	var reqErr *requestError
	if !errors.As(err, &reqErr) || reqErr.code != http.StatusTooManyRequests || reqErr.retryAfter != 1 {
		t.Fatalf("past the bound: %v, want 429 with Retry-After", err)
	}
	f.done(36 << 10)
	if err := f.acquire(36 << 10); err != nil {
		t.Errorf("room again: %v", err)
	}

	tests := []struct {
		name          string
		contentLength int64
		want          int64
	}{
		{"declared", 50 << 10, 50 << 10},
		{"small", 10, minCharge},
		{"chunked, counted as the largest", -1, 100 << 10},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.ContentLength = tt.contentLength
		if got := f.charge(r); got != tt.want {
			t.Errorf("%s: charge %d, want %d", tt.name, got, tt.want)
		}
	}
}

// After a burst, once nothing is in flight, memory goes back to the system once; requests one at
// a time, however large, are no burst.
func TestInFlightReleasesAfterBurst(t *testing.T) {
	var released atomic.Int32
	f := newInFlight(Limits{MaxRequestBytes: 100 << 10, MaxInFlightBytes: 400 << 10})
	f.release = func() { released.Add(1) }
	f.delay = time.Millisecond

	for range 20 {
		if err := f.acquire(100 << 10); err != nil {
			t.Fatal(err)
		}
		f.done(100 << 10)
	}
	// Any release would have happened within this; none must.
	time.Sleep(50 * time.Millisecond)
	if n := released.Load(); n != 0 {
		t.Fatalf("released %d times after requests one at a time", n)
	}

	for range 4 {
		if err := f.acquire(100 << 10); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { f.done(100 << 10) })
	}
	wg.Wait()
	err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return released.Load() > 0, nil
	})
	if err != nil {
		t.Fatal("memory was not released after the burst")
	}
	time.Sleep(50 * time.Millisecond)
	if n := released.Load(); n != 1 {
		t.Errorf("released %d times after one burst, want 1", n)
	}
}

// A request past the bound gets 429 with Retry-After before its body is read, and kube-scheduler's
// own extender client takes that as an error (it retries the pod); once the requests in flight
// end, the same request is answered.
func TestTooManyRequestsInFlight(t *testing.T) {
	objs := []runtime.Object{gpuNode("n", 2, 32)}
	names := []string{"p0", "p1", "p2", "p3"}
	for _, name := range names {
		objs = append(objs, gpuPod(name, 4).Obj())
	}
	env := newEnv(t, gpu.Binpack, objs...)
	unblock := make(chan struct{})
	env.client.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-unblock
		return false, nil, nil
	})
	f := newInFlight(Limits{MaxRequestBytes: 1 << 20, MaxInFlightBytes: 4 * minCharge})
	server := httptest.NewServer(env.ext.handler(testPrefix, f))
	defer server.Close()

	// Four binds fill the bound while they wait on the API server.
	var wg sync.WaitGroup
	bindErrs := make([]string, len(names))
	for i, name := range names {
		wg.Go(func() {
			body := mustJSON(extenderv1.ExtenderBindingArgs{PodName: name, PodNamespace: "ns", PodUID: types.UID(name), Node: "n"})
			resp, err := http.Post(server.URL+testPrefix+"/"+BindVerb, "application/json", bytes.NewReader(body))
			if err != nil {
				bindErrs[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				bindErrs[i] = resp.Status
			}
		})
	}
	err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return f.inFlightBytes() == 4*minCharge, nil
	})
	if err != nil {
		close(unblock)
		wg.Wait()
		t.Fatalf("the four binds are not in flight: %d bytes; binds: %q", f.inFlightBytes(), bindErrs)
	}
	filter := mustJSON(nodeArgs["nodeCacheCapable"](gpuPod("q", 4).Obj(), "n"))
	resp, err := http.Post(server.URL+testPrefix+"/"+FilterVerb, "application/json", bytes.NewReader(filter))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("filter while four binds fill the bound: %s, Retry-After %q; want 429 with Retry-After 1", resp.Status, resp.Header.Get("Retry-After"))
	}
	_, _, _, err = schedulerClient(t, server.URL).Filter(gpuPod("q", 4).Obj(), []fwk.NodeInfo{nodeInfo(gpuNode("n", 2, 32))})
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("kube-scheduler's client: error %v, want one with 429", err)
	}

	close(unblock)
	wg.Wait()
	for i, e := range bindErrs {
		if e != "" {
			t.Errorf("bind %s: %s", names[i], e)
		}
	}
	r, err := http.Post(server.URL+testPrefix+"/"+FilterVerb, "application/json", bytes.NewReader(filter))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("filter after the binds: %s", r.Status)
	}
	for _, name := range names {
		if pod := env.pod(t, name); pod.Spec.NodeName != "n" {
			t.Errorf("pod %s on %q, want n", name, pod.Spec.NodeName)
		}
	}
	if diff := cmp.Diff([]gpu.Device{{Capacity: 16, Used: 16}, {Capacity: 16}}, env.ext.cache.NodeView("n")); diff != "" {
		t.Errorf("devices of n (-want +got):\n%s", diff)
	}
}
