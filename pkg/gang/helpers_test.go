package gang

import (
	"slices"
	"sync"
	"testing"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/clock"
	// Wires client-go's feature gates to utilfeature.DefaultFeatureGate, as in kube-scheduler.
	_ "k8s.io/kubernetes/pkg/features"
)

// disableWatchList makes informers list then watch. The generated PodGroup fake cannot stream a
// watch list, and its informers predate client-go's check for clients that cannot, so with the
// feature on they never sync against it. A real kube-apiserver serves either.
func disableWatchList(t testing.TB) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(clientfeatures.WatchListClient), false)
}

// fakeClock is a manager's clock under a test's control: Step moves it and fires the timers due.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (t *fakeTimer) C() <-chan time.Time { return nil }
func (t *fakeTimer) Stop() bool          { t.stopped = true; return true }
func (t *fakeTimer) Reset(time.Duration) bool {
	panic("the manager does not reset timers")
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Step moves the clock by d and runs, in order, the timers that came due.
func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due, left []*fakeTimer
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			due = append(due, t)
		} else {
			left = append(left, t)
		}
	}
	c.timers = left
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		if !t.stopped {
			t.f()
		}
	}
}

// pending counts the timers not yet fired.
func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
