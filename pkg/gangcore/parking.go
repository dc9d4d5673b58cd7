package gangcore

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/topology"
)

// ParkReason says why Gang turned a pod away, and so what brings it back.
type ParkReason int

const (
	// ParkedNotFound: the PodGroup does not exist. Woken when the PodGroup informer sees it.
	ParkedNotFound ParkReason = iota + 1
	// ParkedTooFew: fewer than minMember pods of the group can be scheduled. Woken when a member
	// arrives or is ungated, or when the PodGroup changes.
	ParkedTooFew
	// ParkedMinResources: minResources exceed the cluster's free capacity. Woken by the capacity
	// events of EventsToRegister, or when the PodGroup changes.
	ParkedMinResources
	// ParkedBackoff: the group's last round failed and it stands aside. Woken by the manager's
	// timer when the backoff ends.
	ParkedBackoff
	// ParkedRetry: a member failed on a snapshot that still showed room another round had given
	// back (see MemberFailed). Woken by the queue when the scheduler forgets the released pod, and
	// by the manager's timer as a backstop.
	ParkedRetry
	// ParkedTurn: the group holds nothing and another group's round is in progress; cutting into
	// it would take the room that round is filling. Woken by the manager when that round ends,
	// and by its timer once the round has lasted turnMax, whichever comes first.
	ParkedTurn
	// ParkedTopology: no domain of the level the group's PodGroup requires can hold it (see
	// pkg/gang's topology.go). Woken by the capacity events of EventsToRegister, or when the PodGroup changes.
	ParkedTopology
	// ParkedBadTopology: the PodGroup's topology annotations cannot be honoured. Woken when the
	// PodGroup changes.
	ParkedBadTopology
	// ParkedNoRoom: the group holds nothing and a member found no room; the others wait for it.
	// Woken when that member is let in again, when the PodGroup changes, or by a backstop timer
	// (see roomwait.go).
	ParkedNoRoom
)

// WokenByCapacity reports whether freed or added capacity can help a pod parked for r.
func (r ParkReason) WokenByCapacity() bool {
	return r == ParkedMinResources || r == ParkedRetry || r == ParkedTopology
}

// park records that pod waits for reason. A pod parked for a time gets a wake-up at that time:
// whatever path parks it, a timer that will fire is armed. The caller holds the lock.
func (m *Manager) park(key types.NamespacedName, g *group, pod *v1.Pod, reason ParkReason, now time.Time) {
	g.parked[pod.UID] = parkedPod{pod: pod, reason: reason}
	switch reason {
	case ParkedBackoff:
		at := g.backoffUntil
		if at.Before(now) {
			at = now
		}
		m.armWake(key, g, at)
	case ParkedRetry:
		m.armWake(key, g, now.Add(m.backoffBase))
	case ParkedTurn:
		m.turnParked.Insert(key)
		m.armWake(key, g, now.Add(m.turnRemaining(key, g, now)))
	case ParkedNoRoom:
		m.armWake(key, g, g.room.until)
	}
}

// armWake makes sure the group's wake timer fires at or before at. A timer that fires earlier
// re-arms itself for what is left. The caller holds the lock.
func (m *Manager) armWake(key types.NamespacedName, g *group, at time.Time) {
	if !g.wakeAt.IsZero() && !g.wakeAt.After(at) {
		return
	}
	g.wakeAt = at
	m.clock.AfterFunc(at.Sub(m.clock.Now()), func() { m.timedWake(key, at) })
}

// timedWake wakes the group's pods parked for a time that has come.
func (m *Manager) timedWake(key types.NamespacedName, at time.Time) {
	m.mu.Lock()
	g, ok := m.groups[key]
	if !ok || !g.wakeAt.Equal(at) {
		// A timer set for an earlier time replaced this one and does its work.
		m.mu.Unlock()
		return
	}
	now := m.clock.Now()
	g.wakeAt = time.Time{}
	var pods []*v1.Pod
	backoffLeft, roomLeft := false, false
	// A pod parked for its turn is woken only if its turn has come: PreEnqueue would park it again
	// otherwise, under the queue's lock, every turnMax for every group queued behind another.
	turnLeft := time.Duration(-1)
	for uid, p := range g.parked {
		if p.reason == ParkedTurn && turnLeft < 0 {
			turnLeft = m.turnRemaining(key, g, now)
		}
		switch {
		case p.reason == ParkedRetry, p.reason == ParkedTurn && turnLeft == 0,
			p.reason == ParkedBackoff && !now.Before(g.backoffUntil), p.reason == ParkedNoRoom && !now.Before(g.room.until):
			pods = append(pods, p.pod)
			delete(g.parked, uid)
		case p.reason == ParkedBackoff:
			backoffLeft = true
		case p.reason == ParkedNoRoom:
			roomLeft = true
		}
	}
	if backoffLeft {
		m.armWake(key, g, g.backoffUntil)
	}
	if roomLeft {
		m.armWake(key, g, g.room.until)
	}
	if turnLeft > 0 {
		m.armWake(key, g, now.Add(turnLeft))
	}
	if turnLeft == 0 {
		// Its turn has come, as in wakeTurns: younger groups give way to it until it takes it.
		m.turnParked.Delete(key)
		m.turnWoken[key] = now
	}
	m.gc(key, now)
	m.mu.Unlock()
	if len(pods) > 0 {
		m.hooks.Activate(pods)
	}
}

// Admit runs check under the manager's lock and parks pod when check refuses it, or unparks it
// when check lets it through. It reports check's verdict, and whether this is the first time the
// pod is parked for this reason: a pod of a group that waits for room goes through backoff and
// turns many times, and an event each time would load the API server with what the pod's first
// events already said. Running check under the lock is what makes parking safe against Wake: an
// informer updates its cache before it calls handlers, so either check already sees the change,
// or the pod is parked before the handler's Wake runs.
func (m *Manager) Admit(key types.NamespacedName, pod *v1.Pod, check func(g GroupView) (ParkReason, bool)) (reason ParkReason, ok, firstTime bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	g := m.group(key)
	reason, ok = check(GroupView{m: m, key: key, g: g, now: now})
	return m.verdict(key, g, pod, reason, ok, now)
}

// maxScans is how many times AdmitScanning scans without the lock before it scans under it.
const maxScans = 3

// AdmitScanning is Admit for a check with a part that reads the whole cluster (scan), which runs
// without the manager's lock, between before and after, which run under it: one scheduling cycle's
// scan of a large cluster would otherwise hold up every other user of the lock (every profile's
// PreEnqueue and Permit, the informers' handlers, the queue's hints). before returns scan when it
// lets the pod through (nil: nothing to scan); scan's refusal parks the pod as check's would.
//
// Parking stays safe against Wake: when a Wake of the group came while scan ran (or the group's
// state was dropped and made anew), what scan read may be gone and the pod, not parked yet, missed
// the wake-up; the whole check runs again. After maxScans such tries scan runs under the lock.
func (m *Manager) AdmitScanning(key types.NamespacedName, pod *v1.Pod, before func(g GroupView) (ParkReason, bool, func() ParkReason), after func(g GroupView) (ParkReason, bool)) (reason ParkReason, ok, firstTime bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for try := 1; ; try++ {
		now := m.clock.Now()
		g := m.group(key)
		reason, ok, scan := before(GroupView{m: m, key: key, g: g, now: now})
		if ok && scan != nil {
			if try < maxScans {
				wakes := g.wakes
				reason = m.unlocked(scan)
				if m.groups[key] != g || g.wakes != wakes {
					continue
				}
				now = m.clock.Now()
			} else {
				reason = scan()
			}
			ok = reason == 0
		}
		if ok {
			reason, ok = after(GroupView{m: m, key: key, g: g, now: now})
		}
		return m.verdict(key, g, pod, reason, ok, now)
	}
}

// Busy reports whether the manager's lock is held at this moment: tests show with it that a scan
// of the cluster runs without the lock.
func (m *Manager) Busy() bool {
	if m.mu.TryLock() {
		m.mu.Unlock()
		return false
	}
	return true
}

// unlocked runs f without the lock, which the caller holds, and takes it again, also if f panics.
func (m *Manager) unlocked(f func() ParkReason) ParkReason {
	m.mu.Unlock()
	defer m.mu.Lock()
	return f()
}

// verdict parks pod when its group refused it for reason, or unparks it, as Admit says; the caller
// holds the lock.
func (m *Manager) verdict(key types.NamespacedName, g *group, pod *v1.Pod, reason ParkReason, ok bool, now time.Time) (ParkReason, bool, bool) {
	if !ok && reason != ParkedTurn {
		m.passTurn(key)
	}
	if ok {
		delete(g.parked, pod.UID)
		m.gc(key, now)
		return 0, true, false
	}
	m.park(key, g, pod, reason, now)
	if reason == ParkedTurn {
		// A turn lasts turnMax at most, and a freeing in a deep backlog holds every waiting group
		// for one: an event each would be one API write per group for 2 s of waiting, and the
		// API server, busy with them, slowed the bindings that end it (BenchmarkBacklog's first
		// freeing: 1,000 events).
		return reason, false, false
	}
	bit := uint16(1) << reason
	firstTime := g.told[pod.UID]&bit == 0
	g.told[pod.UID] |= bit
	return reason, false, firstTime
}

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

// Wake takes, for the caller to activate, the group's pods parked for one of reasons, if ready
// (nil means always) says those reasons may have gone. ready runs under the manager's lock, and
// only when such pods exist; see Admit.
func (m *Manager) Wake(key types.NamespacedName, ready func(GroupView) bool, reasons ...ParkReason) []*v1.Pod {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return nil
	}
	g.wakes++
	now := m.clock.Now()
	var pods []*v1.Pod
	var taken []types.UID
	for uid, p := range g.parked {
		if slices.Contains(reasons, p.reason) {
			pods = append(pods, p.pod)
			taken = append(taken, uid)
		}
	}
	if len(pods) == 0 || (ready != nil && !ready(GroupView{m: m, key: key, g: g, now: now})) {
		return nil
	}
	for _, uid := range taken {
		delete(g.parked, uid)
	}
	m.gc(key, now)
	return pods
}

// Park records that Gang turned pod away for reason.
func (m *Manager) Park(key types.NamespacedName, pod *v1.Pod, reason ParkReason) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.park(key, m.group(key), pod, reason, m.clock.Now())
}

// ParkedReason reports why the pod is parked, if it is.
func (m *Manager) ParkedReason(key types.NamespacedName, uid types.UID) (ParkReason, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok {
		if p, ok := g.parked[uid]; ok {
			return p.reason, true
		}
	}
	return 0, false
}
