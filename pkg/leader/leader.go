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
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
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

// WhenLeading calls lead as soon as leads says the process holds its lease, checking every
// period, unless started says the process began scheduling first (which a scheduler without
// leader election does from the start) or ctx ends.
func WhenLeading(ctx context.Context, period time.Duration, leads func() (leads, known bool), started func() bool, lead func()) {
	_ = wait.PollUntilContextCancel(ctx, period, true, func(context.Context) (bool, error) {
		if started() {
			return true, nil
		}
		if l, known := leads(); known && l {
			lead()
			return true, nil
		}
		return false, nil
	})
}
