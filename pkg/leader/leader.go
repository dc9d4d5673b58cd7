// Package leader tells a plugin whether its scheduler process holds the leader lease, so that
// what only one replica may do (writing PodGroup and ElasticQuota status) starts as soon as the
// process leads, not with its first scheduling cycle, which may be long in coming.
//
// The scheduling framework gives plugins no sign of leadership. client-go's leader election
// keeps one in the leader_election_master_status gauge, which kube-scheduler (and so
// berth-scheduler) registers: 1 for the lease this process holds. Where no leader election runs
// the gauge has no series, and the first scheduling cycle is the only sign left.
package leader

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/component-base/metrics/legacyregistry"
)

const gauge = "leader_election_master_status"

// How long an answer other than "leading" is kept. Reading the gauge gathers the whole registry
// (10,000 GPU series at 5000 nodes take about 65 ms), and a standby asks as long as it runs; so
// "standby" is kept longer than "no leader election yet", which a starting process says until
// its elector first reports.
const (
	recheckStandby = 5 * time.Second
	recheckUnknown = time.Second
)

var last struct {
	sync.Mutex
	at           time.Time
	leads, known bool
}

// Leads reports whether this process holds a leader lease, and whether it can tell: known is
// false where no leader election runs. A lease once held is kept: a scheduler that loses it exits.
func Leads() (leads, known bool) {
	last.Lock()
	defer last.Unlock()
	recheck := recheckUnknown
	if last.known {
		recheck = recheckStandby
	}
	if last.leads || (!last.at.IsZero() && time.Since(last.at) < recheck) {
		return last.leads, last.known
	}
	last.leads, last.known = read()
	last.at = time.Now()
	return last.leads, last.known
}

func read() (leads, known bool) {
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return false, false
	}
	for _, f := range families {
		if f.GetName() != gauge {
			continue
		}
		for _, m := range f.GetMetric() {
			known = true
			if m.GetGauge().GetValue() == 1 {
				return true, true
			}
		}
	}
	return false, known
}

// Gate tells what only the leader writes (PodGroup and ElasticQuota status) when it may start:
// once this process holds its leader lease or, where no leader election runs, once it schedules (a
// scheduler without leader election schedules from the start, but its plugins are built before
// that, with no sign of it but the first cycle). A standby replica does neither. Leadership once
// seen is kept: a scheduler that loses its lease exits.
type Gate struct {
	leads   func() (leads, known bool)
	once    sync.Once
	leading chan struct{}
}

// NewGate returns a Gate that reads the lease with leads: Leads, but in tests.
func NewGate(leads func() (leads, known bool)) *Gate {
	return &Gate{leads: leads, leading: make(chan struct{})}
}

// Lead records that the process leads. A scheduling cycle says so: only the leader runs them.
func (g *Gate) Lead() {
	cycled.Store(true)
	g.once.Do(func() { close(g.leading) })
}

// cycled is set by every Gate's Lead: a scheduling cycle of this process has run.
var cycled atomic.Bool

// Cycled reports whether any Gate of this process was told that a scheduling cycle ran. It is the
// sign of leadership for a writer that runs no cycle of its own (internal/waitreason) where no leader
// election runs.
func Cycled() bool { return cycled.Load() }

// LeadsOrCycled is Leads where leader election runs and, where it does not, whether a scheduling
// cycle ran (Cycled): the leads function of a Gate no scheduling cycle opens.
func LeadsOrCycled() (leads, known bool) {
	if leads, known := Leads(); known {
		return leads, true
	}
	c := Cycled()
	return c, c
}

// Open reports whether the process leads.
func (g *Gate) Open() bool {
	select {
	case <-g.leading:
		return true
	default:
	}
	if leads, known := g.leads(); known && leads {
		g.Lead()
		return true
	}
	return false
}

// Wait returns true once the process leads, reading the lease every period, or false if ctx ends
// first.
func (g *Gate) Wait(ctx context.Context, period time.Duration) bool {
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for !g.Open() {
		select {
		case <-g.leading:
		case <-ticker.C:
		case <-ctx.Done():
			return false
		}
	}
	return true
}
