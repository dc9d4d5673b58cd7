package gangcore

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/berth-sched/berth/pkg/topology"
)

// Spec is what admission reads of a pod's PodGroup, whichever API declared it.
type Spec struct {
	MinMember int32
	// Created places the group in QOSSort's order (see older).
	Created time.Time
}

// Cluster is what admission asks of the plugin: the parts that read a PodGroup API or the
// scheduler's snapshot. Admit calls each at one place, in the order below.
type Cluster interface {
	// Group returns the pod's group as its PodGroup declares it, or false if it has none. It runs
	// under the manager's lock.
	Group() (Spec, bool)
	// Check reads, under the manager's lock, what the group's check against the cluster needs of
	// it, and returns that check, which reads every node and runs without the lock: why the group
	// cannot go now and what it is told, or 0 (nil: nothing to check), and whether the group goes
	// to one topology domain, whose choice then stands for the room checks below.
	Check(g GroupView) func() (reason ParkReason, msg string, inDomain bool)
	// RoomShort reports, without the lock, whether the group, which holds nothing, was let through
	// and goes to no domain, cannot fit the cluster's free room, so that Filter turns it away on
	// every node.
	RoomShort() bool
	// OlderFits names the first of older, groups that wait for room and come before this one,
	// whose least need the cluster's free room now holds, or returns "". It runs without the lock.
	OlderFits(older []OlderWaiter) string
}

// Admission is what Admit or Enqueue decided for a member.
type Admission struct {
	// Reason is why the member was turned away and parked, 0 if it goes on; Msg is what it is
	// told.
	Reason ParkReason
	Msg    string
	// FirstTime: the member was never parked for Reason before (see verdict).
	FirstTime bool
	// Group is the member's group, if Found.
	Group Spec
	Found bool
	// Passed: the group's rules let the member through, so it may enter the active queue (told
	// to Hooks.Queued; if GaveWayTo is set, it was parked after all).
	Passed bool
	// HoldsNothing: no member of the group held a place or waited at Permit when it was let
	// through; InDomain: it goes to one topology domain. A group that holds nothing and goes to
	// no domain is held to the cluster's free room: RoomShort says it did not fit, GaveWayTo names
	// the older group it gave way to.
	HoldsNothing bool
	InDomain     bool
	RoomShort    bool
	GaveWayTo    string
}

// Enqueue decides, in PreEnqueue, whether pod's group lets it into the active queue now, and
// parks it if not: the group's rules only, no check against the nodes (c.Check is not called).
func (m *Manager) Enqueue(key types.NamespacedName, pod *v1.Pod, c Cluster) Admission {
	a, passOnce := m.admit(key, pod, c, true)
	if a.Passed && !passOnce {
		m.waiterLetIn(key, pod.UID)
	}
	return a
}

// Admit decides, in PreFilter, whether pod's group lets it be scheduled now, and parks it if not.
// The order: the group must exist, not stand aside, not wait for room, and have minMember pods
// ready; it must pass the check against the nodes (minResources, topology), then not cut into
// another group's round. A group that holds nothing is then held to the cluster's free room: it
// goes to Filter to be turned away if the room cannot hold it, or gives way to an older group the
// room holds; otherwise it takes its turn.
//
// The rules run under the manager's lock, which is what makes parking safe against Wake: an
// informer updates its cache before it calls handlers, so either the rules already see the change,
// or the pod is parked before the handler's Wake runs. Whatever reads every node runs without it:
// one scheduling cycle's scan of a large cluster would otherwise hold up every other user of the
// lock (every profile's PreEnqueue and Permit, the informers' handlers, the queue's hints). When
// a Wake of the group came while the check ran (or the group's state was dropped and made anew),
// what it read may be gone and the pod, not parked yet, missed the wake-up: the rules run again,
// and after maxScans such tries the check runs under the lock.
func (m *Manager) Admit(key types.NamespacedName, pod *v1.Pod, c Cluster) Admission {
	a, _ := m.admit(key, pod, c, false)
	if a.Reason != 0 {
		return a
	}
	if a.HoldsNothing && !a.InDomain {
		if c.RoomShort() {
			a.RoomShort = true
			m.turnTaken(key)
			return a
		}
		if a.GaveWayTo = c.OlderFits(m.OlderWaiting(key)); a.GaveWayTo != "" {
			m.GiveWay(key, pod)
			a.Reason = ParkedTurn
			a.Msg = fmt.Sprintf("pod group %s gives way to pod group %s, which came first and waits for the room there is now", key, a.GaveWayTo)
			return a
		}
	}
	m.admitted(key)
	return a
}

// admitted ends the group's wait for room, its parked members following, and its turn: the group
// is placing. Only now, not when its waiter passed PreEnqueue: ended there, a room event cost each
// waiting group a cycle per member, all but the waiter's futile whenever the room could not hold
// the group. Unlike EndRoomWait, it leaves no turn to give way to: the group has taken it.
func (m *Manager) admitted(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.turnWoken, key)
	if g, ok := m.groups[key]; ok {
		if g.room.waiter != "" {
			klog.Background().V(4).Info("Pod group's wait for room ends: admitted", "podGroup", key)
		}
		m.endRoomWait(key, g)
	}
}

// maxScans is how many times Admit runs its check without the lock before it runs it under it.
const maxScans = 3

// admit runs the group's rules, in PreEnqueue (enqueue) or PreFilter, parks pod if they refuse
// it and unparks it if not; passOnce: they let it through once only (see rules). It holds the
// lock but while the check against the nodes runs.
func (m *Manager) admit(key types.NamespacedName, pod *v1.Pod, c Cluster, enqueue bool) (a Admission, passOnce bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for try := 1; ; try++ {
		a = Admission{}
		now := m.clock.Now()
		g := m.group(key)
		a.Group, a.Found = c.Group()
		a.Reason, a.Msg, passOnce = rules(key, g, pod, a, enqueue, now)
		if a.Reason == 0 && !passOnce && !enqueue {
			a.HoldsNothing = len(g.placed) == 0 && len(g.waiting) == 0
			if check := c.Check(GroupView{g}); check != nil {
				if try < maxScans {
					wakes := g.wakes
					a.Reason, a.Msg, a.InDomain = m.unlocked(check)
					if m.groups[key] != g || g.wakes != wakes {
						continue
					}
					now = m.clock.Now()
				} else {
					a.Reason, a.Msg, a.InDomain = check()
				}
			}
		}
		if a.Reason == 0 && !passOnce && m.turnRemaining(key, g, now) > 0 {
			a.Reason = ParkedTurn
			a.Msg = fmt.Sprintf("pod group %s gives way to another group placing its members, for %v at most", key, m.turnMax)
		}
		if a.Reason == 0 {
			m.hooks.Queued(key, a.Group.Created)
		}
		a.Reason, a.Passed, a.FirstTime = m.verdict(key, g, pod, a.Reason, a.Reason == 0, now)
		return a, passOnce
	}
}

// rules are the group's own reasons to hold pod back, in order, under the lock: why and what it is
// told, or 0; passOnce lets a member held for its group's room wait through once (see below).
func rules(key types.NamespacedName, g *group, pod *v1.Pod, a Admission, enqueue bool, now time.Time) (reason ParkReason, msg string, passOnce bool) {
	if !a.Found {
		return ParkedNotFound, fmt.Sprintf("pod group %s does not exist; the pod waits until it is created", key), false
	}
	if g.created.IsZero() {
		// Where the group stands in QOSSort's order (see older); the first time counts.
		g.priority, g.created = corev1helpers.PodPriority(pod), a.Group.Created
	}
	if now.Before(g.backoffUntil) {
		// The backoff's length, not what is left of it: see StandsAside.
		return ParkedBackoff, StandsAside(key, g.backoff, g.why), false
	}
	if waits, why := g.holdsForRoom(pod.UID, now); waits {
		if enqueue && !toldUnschedulable(pod) {
			// A member held here before its first try would carry no PodScheduled condition,
			// so neither its user nor a cluster autoscaler would see it wait. It goes in once;
			// PreFilter holds it with this message, which the scheduler writes.
			return 0, "", true
		}
		return ParkedNoRoom, WaitsForRoom(key, why), false
	}
	if n, minMember := int32(len(g.ready)), a.Group.MinMember; n < minMember {
		return ParkedTooFew, fmt.Sprintf("pod group %s has %d of its %d (minMember) pods ready to schedule; waiting for the rest", key, n, minMember), false
	}
	return 0, "", false
}

// holdsForRoom reports whether pod is held back because its group waits for room, and what the
// waiter lacked. The waiter itself is not held: its own plugins decided that it may try again
// (the wait ends when PreFilter finds room for the group, see Admit). Once only, a native group's waiter is held too (fresh): the
// queue holds a native group's members as one entity, runs PreEnqueue for all of them right after
// the failed cycle, and parks the entity among its unschedulable ones only while a member is held;
// had the waiter passed then, it would have ended the wait at once, and the group would have come
// back on the queue's backoff whatever changed. The caller holds the lock.
func (g *group) holdsForRoom(pod types.UID, now time.Time) (bool, string) {
	r := &g.room
	if r.waiter == "" || !now.Before(r.until) {
		return false, r.why
	}
	if r.waiter != pod {
		return true, r.why
	}
	if r.fresh {
		r.fresh = false
		return true, r.why
	}
	return false, r.why
}

// toldUnschedulable reports whether the scheduler has written pod's PodScheduled condition as
// unschedulable, which says why it waits.
func toldUnschedulable(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable
		}
	}
	return false
}

// unlocked runs f without the lock, which the caller holds, and takes it again, also if f panics.
func (m *Manager) unlocked(f func() (ParkReason, string, bool)) (ParkReason, string, bool) {
	m.mu.Unlock()
	defer m.mu.Lock()
	return f()
}

// verdict parks pod when its group refused it for reason, or unparks it, and reports whether this
// is the first time the pod is parked for this reason: a pod of a group that waits for room goes
// through backoff and turns many times, and an event each time would load the API server with
// what the pod's first events already said. The caller holds the lock.
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

// GroupView lets a check read a group's state under the manager's lock: an admission's Check,
// and Wake's ready.
type GroupView struct{ g *group }

// Ready is how many of the group's pods can be scheduled or are.
func (v GroupView) Ready() int32 { return int32(len(v.g.ready)) }

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

// StandsAside is what a member of a group that stands aside is told, in PreFilter and Permit
// alike: the backoff's length, never what is left of it, and why, so that the message changes
// only when the cause does.
func StandsAside(key types.NamespacedName, backoff time.Duration, why string) string {
	return fmt.Sprintf("pod group %s stands aside (backoff %v) because it %s", key, backoff, why)
}

// WaitsForRoom is what a member held back while its group waits for room is told. It leaves out
// the backstop, which grows, so that the message changes only when the cause does.
func WaitsForRoom(key types.NamespacedName, why string) string {
	return fmt.Sprintf("pod group %s waits for room because it %s; it is tried again when that member's own check may pass (pods end, nodes join or grow, quota is freed)", key, why)
}
