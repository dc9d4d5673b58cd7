package gangcore

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
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
		m.joinTurnLine(key, g)
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
		m.leaveTurnLine(key)
		m.turnWoken[key] = now
	}
	m.gc(key, now)
	m.mu.Unlock()
	if len(pods) > 0 {
		m.hooks.Activate(pods)
	}
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
	if len(pods) == 0 || (ready != nil && !ready(GroupView{g})) {
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
