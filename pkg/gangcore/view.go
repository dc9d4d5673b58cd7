package gangcore

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/topology"
)

// GroupView lets an admission check read a group's state under the manager's lock.
type GroupView struct {
	m   *Manager
	key types.NamespacedName
	g   *group
	now time.Time
}

// TurnRemaining is how long the group still gives way to another group's round in progress, or
// to an older group's turn.
func (v GroupView) TurnRemaining() time.Duration { return v.m.turnRemaining(v.key, v.g, v.now) }

// Place records where the group stands in QOSSort's order (see older); the first time counts.
func (v GroupView) Place(priority int32, created time.Time) {
	if v.g.created.IsZero() {
		v.g.priority, v.g.created = priority, created
	}
}

// InBackoff reports whether the group still stands aside after a failed round, and for how long
// in all (not what remains: that would change the pods' status message, so cost a write, on
// every retry).
func (v GroupView) InBackoff() (bool, time.Duration) {
	return v.now.Before(v.g.backoffUntil), v.g.backoff
}

// Why says what set the group's backoff, as a clause after "pod group ns/name".
func (v GroupView) Why() string { return v.g.why }

// Ready is how many of the group's pods can be scheduled or are.
func (v GroupView) Ready() int32 { return int32(len(v.g.ready)) }

// HoldsNothing reports whether no member of the group holds a place or waits at Permit.
func (v GroupView) HoldsNothing() bool { return len(v.g.placed) == 0 && len(v.g.waiting) == 0 }

// Domain is the topology domain the group's reserved members hold, if any (see domain.go).
func (v GroupView) Domain() *topology.Choice {
	if v.g.domain == nil {
		return nil
	}
	c := *v.g.domain
	return &c
}

// PlacedReservations returns the nodes of the group's reserved members that count toward its
// quorum, by member: not those a failed round released, which will not bind.
func (v GroupView) PlacedReservations() map[types.UID]string {
	out := make(map[types.UID]string, len(v.g.reserved))
	for uid, r := range v.g.reserved {
		if v.g.placed.Has(uid) {
			out[uid] = r.node
		}
	}
	return out
}

// Reserved returns the group's reserved members.
func (v GroupView) Reserved() []*v1.Pod {
	pods := make([]*v1.Pod, 0, len(v.g.reserved))
	for _, r := range v.g.reserved {
		pods = append(pods, r.pod)
	}
	return pods
}
