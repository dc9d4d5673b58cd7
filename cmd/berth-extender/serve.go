package main

import (
	"net/http"
	"net/http/pprof"
	"strings"
	"sync/atomic"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
)

// front is what the listener serves. Liveness and metrics are always answered; /readyz and the
// verbs go to the extender once this replica is active (it holds the lease, or runs without
// leader election). A standby is alive but not ready, so a Service sends it nothing, and it
// refuses a verb that reaches it anyway: its cache is not the one that counts reservations.
type front struct {
	active atomic.Pointer[http.Handler]
	// profiles serves /debug/pprof/ with --profiling, on active and standby replicas alike; nil
	// without.
	profiles http.Handler
}

// profilesHandler is Go's profiler at /debug/pprof/, as kube-scheduler's --profiling serves it.
func profilesHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

func (f *front) activate(h http.Handler) { f.active.Store(&h) }

// deactivate turns every later verb away; requests already in the extender finish.
func (f *front) deactivate() { f.active.Store(nil) }

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz", "/livez":
		_, _ = w.Write([]byte("ok"))
		return
	case "/metrics":
		legacyregistry.Handler().ServeHTTP(w, r)
		return
	}
	if f.profiles != nil && strings.HasPrefix(r.URL.Path, "/debug/pprof/") {
		f.profiles.ServeHTTP(w, r)
		return
	}
	if h := f.active.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	http.Error(w, "standby: another berth-extender replica holds the lease and answers the scheduler", http.StatusServiceUnavailable)
}

// requireClientCert refuses every request but the probes and /metrics unless its TLS client
// certificate was verified against --client-ca-file. The TLS layer verifies a certificate when one
// is presented (tls.VerifyClientCertIfGiven) and fails the handshake on a bad one; this turns away
// the connections that presented none, which kubelet's probes must be able to make.
func requireClientCert(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !openPath(r.URL.Path) && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
			klog.FromContext(r.Context()).V(2).Info("Refused a request without a client certificate", "path", r.URL.Path, "remote", r.RemoteAddr)
			http.Error(w, "a client certificate signed by the extender's --client-ca-file is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// openPath is what anyone may ask: liveness, readiness (with its per-check paths) and metrics.
func openPath(path string) bool {
	for _, open := range []string{"/healthz", "/livez", "/readyz", "/metrics"} {
		if path == open || strings.HasPrefix(path, open+"/") {
			return true
		}
	}
	return false
}
