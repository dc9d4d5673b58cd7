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
// synced) and /metrics. Request bodies past the limits are refused.
func (e *Extender) Handler(prefix string, limits Limits) http.Handler {
	return e.handler(prefix, newInFlight(limits))
}

func (e *Extender) handler(prefix string, f *inFlight) http.Handler {
	prefix = strings.TrimRight(prefix, "/")
	mux := http.NewServeMux()
	mux.Handle(prefix+"/"+FilterVerb, serve(e, FilterVerb, f, e.filter))
	mux.Handle(prefix+"/"+PrioritizeVerb, serve(e, PrioritizeVerb, f, e.prioritize))
	mux.Handle(prefix+"/"+PreemptVerb, serve(e, PreemptVerb, f, e.preempt))
	mux.Handle(prefix+"/"+BindVerb, serve(e, BindVerb, f, e.bind))
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
// answer encoded as JSON, and every outcome counted. Refused requests get a 4xx and a message,
// 429 with Retry-After while the requests in flight are at their bound; a panic in handle (a bug)
// gets a 500 and leaves the process serving.
func serve[Req, Resp any](e *Extender, verb string, f *inFlight, handle func(context.Context, *Req) (*Resp, error)) http.Handler {
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
		maxBytes := f.limits.MaxRequestBytes
		fail := func(err error) {
			if r.ContentLength <= maxBytes {
				// The rest of the body is read, into nothing, before the refusal: net/http closes a
				// connection whose body was left unread half a second after the answer, and a
				// client still writing then (a loaded scheduler) gets a reset, not the answer, and
				// a new connection for its retry.
				_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBytes))
			}
			code = http.StatusInternalServerError
			var reqErr *requestError
			if errors.As(err, &reqErr) {
				code = reqErr.code
				if reqErr.retryAfter > 0 {
					w.Header().Set("Retry-After", strconv.Itoa(reqErr.retryAfter))
				}
			}
			logger.V(3).Info("Refused request", "code", code, "err", err)
			http.Error(w, err.Error(), code)
		}

		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			fail(&requestError{code: http.StatusMethodNotAllowed, msg: fmt.Sprintf("%s takes POST, not %s", verb, r.Method)})
			return
		}
		if r.ContentLength > maxBytes {
			// Refused unread.
			fail(tooLarge(maxBytes))
			return
		}
		charge := f.charge(r)
		if err := f.acquire(charge); err != nil {
			fail(err)
			return
		}
		defer f.done(charge)
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
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return tooLarge(maxErr.Limit)
	}
	return badRequest("request body is not the JSON the verb takes: " + err.Error())
}

func tooLarge(limit int64) error {
	return &requestError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body is larger than %d bytes", limit)}
}

func observe(verb string, code int, d time.Duration) {
	c := strconv.Itoa(code)
	requests.WithLabelValues(verb, c).Inc()
	requestDuration.WithLabelValues(verb, c).Observe(d.Seconds())
}
