package extender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// The verbs, as the scheduler's extender configuration names them (filterVerb, ...) after
// urlPrefix.
const (
	FilterVerb     = "filter"
	PrioritizeVerb = "prioritize"
	PreemptVerb    = "preempt"
	BindVerb       = "bind"
)

// DefaultMaxRequestBytes bounds a request body. A filter call without nodeCacheCapable carries
// every candidate Node object, a few KiB each.
const DefaultMaxRequestBytes = 8 << 20

// Handler serves the verbs at prefix+"/"+verb, and /healthz, /readyz (ready once the cache has
// synced) and /metrics. Request bodies larger than maxRequestBytes are refused.
func (e *Extender) Handler(prefix string, maxRequestBytes int64) http.Handler {
	prefix = strings.TrimRight(prefix, "/")
	mux := http.NewServeMux()
	mux.Handle(prefix+"/"+FilterVerb, serve(e, FilterVerb, maxRequestBytes, e.filter))
	mux.Handle(prefix+"/"+PrioritizeVerb, serve(e, PrioritizeVerb, maxRequestBytes, e.prioritize))
	mux.Handle(prefix+"/"+PreemptVerb, serve(e, PreemptVerb, maxRequestBytes, e.preempt))
	mux.Handle(prefix+"/"+BindVerb, serve(e, BindVerb, maxRequestBytes, e.bind))
	healthz.InstallHandler(mux)
	healthz.InstallReadyzHandler(mux, healthz.NamedCheck("gpu-cache-synced", func(*http.Request) error {
		if !e.HasSynced() {
			return errors.New("the GPU cache has not synced with the API server yet")
		}
		return nil
	}))
	mux.Handle("/metrics", legacyregistry.Handler())
	return mux
}

// serve is the protocol around one verb: POST only, a bounded JSON body decoded into Req, the
// answer encoded as JSON, and every outcome counted. Refused requests get a 4xx and a message; a
// panic in handle (a bug) gets a 500 and leaves the process serving.
func serve[Req, Resp any](e *Extender, verb string, maxBytes int64, handle func(context.Context, *Req) (*Resp, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		logger := klog.FromContext(r.Context()).WithValues("verb", verb)
		code := http.StatusOK
		defer func() {
			if p := recover(); p != nil {
				logger.Error(fmt.Errorf("%v", p), "Extender verb panicked")
				code = http.StatusInternalServerError
				http.Error(w, "internal error", code)
			}
			observe(verb, code, time.Since(start))
		}()
		fail := func(err error) {
			code = http.StatusInternalServerError
			var reqErr *requestError
			if errors.As(err, &reqErr) {
				code = reqErr.code
			}
			logger.V(3).Info("Refused request", "code", code, "err", err)
			http.Error(w, err.Error(), code)
		}

		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			fail(&requestError{code: http.StatusMethodNotAllowed, msg: fmt.Sprintf("%s takes POST, not %s", verb, r.Method)})
			return
		}
		req := new(Req)
		if err := decode(w, r, maxBytes, req); err != nil {
			fail(err)
			return
		}
		if !e.HasSynced() {
			fail(&requestError{code: http.StatusServiceUnavailable, msg: "the GPU cache has not synced with the API server yet"})
			return
		}
		resp, err := handle(klog.NewContext(r.Context(), logger), req)
		if err != nil {
			fail(err)
			return
		}
		buf := answerBuffers.Get().(*[]byte)
		body, err := appendAnswer((*buf)[:0], resp)
		// The buffer goes back as grown for the answer, once the answer is written.
		defer func() {
			*buf = body[:0]
			answerBuffers.Put(buf)
		}()
		if err != nil {
			fail(err)
			return
		}
		// With its length given, the answer is not chunked: kube-scheduler's client stops reading
		// at the end of the JSON value, which reaches the end of a body of known length but not the
		// last chunk of a chunked one, and it closes a connection whose body it did not read to
		// the end. Every filter or prioritize answer over 2 KiB cost a new connection.
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
}

func decode(w http.ResponseWriter, r *http.Request, maxBytes int64, into any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBytes))
	var err error
	if args, ok := into.(*extenderv1.ExtenderArgs); ok {
		// filter and prioritize: their node names are read by readNodeNames.
		var wire argsWire
		if err = dec.Decode(&wire); err == nil {
			err = wire.unwire(args)
		}
	} else {
		err = dec.Decode(into)
	}
	if err == nil {
		// One JSON value and nothing after it.
		if err = dec.Decode(&struct{}{}); err == io.EOF {
			return nil
		} else if err == nil {
			err = errors.New("more than one JSON value")
		}
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return &requestError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit)}
	}
	return badRequest("request body is not the JSON the verb takes: " + err.Error())
}

func observe(verb string, code int, d time.Duration) {
	c := strconv.Itoa(code)
	requests.WithLabelValues(verb, c).Inc()
	requestDuration.WithLabelValues(verb, c).Observe(d.Seconds())
}
