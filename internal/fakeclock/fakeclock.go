// Package fakeclock is a clock under a test's control, for Gang's group state (gangcore.Clock):
// Step moves it and fires the timers that came due, in the order of their times.
package fakeclock

import (
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Clock is a fake clock; its timers run on the goroutine that calls Step.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

type timer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (t *timer) C() <-chan time.Time { return nil }
func (t *timer) Stop() bool          { t.stopped = true; return true }
func (t *timer) Reset(time.Duration) bool {
	panic("the manager does not reset timers")
}

// New returns a clock at t.
func New(t time.Time) *Clock { return &Clock{now: t} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Step moves the clock by d and runs, in order, the timers that came due.
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due, left []*timer
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			due = append(due, t)
		} else {
			left = append(left, t)
		}
	}
	c.timers = left
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *timer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		if !t.stopped {
			t.f()
		}
	}
}

// Pending counts the timers not yet fired.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
