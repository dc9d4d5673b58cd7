package extender

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
)

// Limits bound what one request, and all requests being answered at once, may cost.
type Limits struct {
	// MaxRequestBytes bounds one request body; larger ones get 413.
	MaxRequestBytes int64
	// MaxInFlightBytes bounds the bodies of the requests being answered at once; a request that
	// would go past it gets 429. A verb's memory grows with its body (decoding a filter request
	// with whole Node objects allocates about five times its size), so this, not the number of
	// requests, is what bounds the extender's memory under a burst.
	MaxInFlightBytes int64
}

// DefaultLimits: one request of up to 8 MiB, two such at once.
var DefaultLimits = Limits{MaxRequestBytes: DefaultMaxRequestBytes, MaxInFlightBytes: DefaultMaxInFlightBytes}

// DefaultMaxInFlightBytes is two requests of the default largest size: the scheduler sends
// filter and prioritize one pod at a time, and binds, which are small, beside them.
const DefaultMaxInFlightBytes = 2 * DefaultMaxRequestBytes

// minCharge is what a request is counted as at least, for its connection's buffers and its
// goroutine: it bounds how many small requests run at once, too.
const minCharge = 16 << 10

// releaseDelay is how long the extender waits, once a burst is over, before it gives the memory
// the burst used back to the system.
const releaseDelay = 2 * time.Second

// inFlight counts the request bytes being worked on and turns away what would go past the bound.
//
// After a burst the heap is mostly garbage, but the Go runtime keeps the pages: it collects only
// when allocation resumes (or every 2 minutes) and returns pages to the system slowly. An idle
// extender would hold its peak for minutes, and a Pod whose memory limit was sized for the bound
// would be charged for it. So once the bytes in flight have gone past one largest request and
// back to zero, and stay there for releaseDelay, the memory is handed back at once
// (debug.FreeOSMemory: one collection, whose cost grows with the informers' cache). Steady
// traffic of the scheduler, one request at a time, never counts as a burst.
type inFlight struct {
	limits Limits
	// release gives memory back; debug.FreeOSMemory outside tests.
	release func()
	delay   time.Duration

	mu    sync.Mutex
	bytes int64
	// burst is set when bytes went past one largest request since the last release.
	burst bool
	timer *time.Timer
}

func newInFlight(l Limits) *inFlight {
	return &inFlight{limits: l, release: debug.FreeOSMemory, delay: releaseDelay}
}

// charge is what a request is counted as: its declared length, or the largest a body may be when
// it declares none (chunked); a body never grows past its declared length, as net/http stops
// reading it there.
func (f *inFlight) charge(r *http.Request) int64 {
	if r.ContentLength < 0 {
		return f.limits.MaxRequestBytes
	}
	return max(r.ContentLength, minCharge)
}

// acquire counts n bytes in, or returns a 429 if that would pass the bound.
func (f *inFlight) acquire(n int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bytes+n > f.limits.MaxInFlightBytes {
		return &requestError{code: http.StatusTooManyRequests, retryAfter: 1, msg: fmt.Sprintf(
			"berth-extender is answering %d bytes of requests; %d more would pass its bound of %d (--max-in-flight-request-bytes); retry",
			f.bytes, n, f.limits.MaxInFlightBytes)}
	}
	f.bytes += n
	if f.bytes > f.limits.MaxRequestBytes {
		f.burst = true
	}
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
	return nil
}

// inFlightBytes is what is counted in now.
func (f *inFlight) inFlightBytes() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bytes
}

// done counts n bytes out; at the end of a burst it schedules the release.
func (f *inFlight) done(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bytes -= n
	if f.bytes == 0 && f.burst && f.timer == nil {
		f.timer = time.AfterFunc(f.delay, f.releaseIfIdle)
	}
}

// releaseIfIdle gives memory back unless another request started since the timer was set (that
// one's done sets it again).
func (f *inFlight) releaseIfIdle() {
	f.mu.Lock()
	if f.bytes != 0 || f.timer == nil {
		f.mu.Unlock()
		return
	}
	f.burst, f.timer = false, nil
	f.mu.Unlock()
	f.release()
}
