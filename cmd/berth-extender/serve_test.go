package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestFront(t *testing.T) {
	extender := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("extender")) })
	f := &front{}
	get := func(h http.Handler, path string, state *tls.ConnectionState) (int, string) {
		r := httptest.NewRequest(http.MethodPost, path, nil)
		r.TLS = state
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	tests := []struct {
		name     string
		active   bool
		path     string
		wantCode int
		wantBody string
	}{
		{"standby is alive", false, "/healthz", http.StatusOK, "ok"},
		{"standby is not ready", false, "/readyz", http.StatusServiceUnavailable, "standby"},
		{"standby refuses a verb", false, "/berth/bind", http.StatusServiceUnavailable, "standby"},
		{"standby serves metrics", false, "/metrics", http.StatusOK, ""},
		{"active answers readiness", true, "/readyz", http.StatusOK, "extender"},
		{"active answers a verb", true, "/berth/filter", http.StatusOK, "extender"},
		{"active is alive", true, "/livez", http.StatusOK, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.active {
				f.activate(extender)
			} else {
				f.deactivate()
			}
			code, body := get(f, tt.path, nil)
			if code != tt.wantCode || (tt.wantBody != "" && !strings.Contains(body, tt.wantBody)) {
				t.Errorf("%s: %d %q, want %d with %q", tt.path, code, body, tt.wantCode, tt.wantBody)
			}
		})
	}

	f.activate(extender)
	guarded := requireClientCert(f)
	verified := &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{{}}}}
	for _, tt := range []struct {
		path     string
		state    *tls.ConnectionState
		wantCode int
	}{
		{"/berth/bind", nil, http.StatusUnauthorized},
		{"/berth/bind", &tls.ConnectionState{}, http.StatusUnauthorized},
		{"/berth/bind", verified, http.StatusOK},
		{"/readyz", &tls.ConnectionState{}, http.StatusOK},
		{"/readyz/gpu-cache-synced", &tls.ConnectionState{}, http.StatusOK},
		{"/readyzz", &tls.ConnectionState{}, http.StatusUnauthorized},
		{"/metrics", &tls.ConnectionState{}, http.StatusOK},
	} {
		if code, body := get(guarded, tt.path, tt.state); code != tt.wantCode {
			t.Errorf("%s with chains %v: %d %q, want %d", tt.path, tt.state != nil && tt.state.VerifiedChains != nil, code, body, tt.wantCode)
		}
	}
}

// --profiling serves Go's profiler on a standby too; without it the path is the extender's (a
// 404 on an active replica), and behind --client-ca-file it needs a certificate like the verbs.
func TestFrontProfiles(t *testing.T) {
	get := func(h http.Handler, path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, w.Body.String()
	}
	f := &front{profiles: profilesHandler()}
	if code, body := get(f, "/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("with --profiling: %d %q, want the profiles' index", code, body)
	}
	if code, _ := get(requireClientCert(f), "/debug/pprof/"); code != http.StatusUnauthorized {
		t.Errorf("with --profiling and --client-ca-file, no certificate: %d, want %d", code, http.StatusUnauthorized)
	}
	off := &front{}
	off.activate(http.NotFoundHandler())
	if code, _ := get(off, "/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("without --profiling: %d, want %d", code, http.StatusNotFound)
	}
}
