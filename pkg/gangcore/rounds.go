package gangcore

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

// PermitVerdict is what Permit decides for one member.
type PermitVerdict struct {
	// Allow lists the waiting members to let through: the group reached quorum.
	Allow []types.UID
	// Wait, when positive, is how long the member waits for the rest of its group.
	Wait time.Duration
	// FirstWaiter is set for the member that opens a round: its siblings should be activated.
	FirstWaiter bool
	// Refused, when set, is why the member may not wait: its group stands aside, or the
	// round's deadline has passed.
	Refused ParkReason
	// Backoff and Why, when the group stands aside, are its backoff and what set it.
	Backoff time.Duration
	Why     string
	// QuorumWait is how long the round waited for quorum, when Allow is set.
	QuorumWait time.Duration
}

// Permit decides whether pod, already reserved, completes its group or waits for it; timeout is
// how long a round may wait. The first waiter arms the round's timer.
func (m *Manager) Permit(key types.NamespacedName, pod *v1.Pod, minMember int32, timeout time.Duration) PermitVerdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	g := m.group(key)
	if now.Before(g.backoffUntil) {
		m.park(key, g, pod, ParkedBackoff, now)
		return PermitVerdict{Refused: ParkedBackoff, Backoff: g.backoff, Why: g.why}
	}
	if _, ok := g.reserved[pod.UID]; !ok {
		// Reserve runs before Permit; a member whose reservation was dropped since (its pod was
		// deleted) cannot count.
		return PermitVerdict{Refused: ParkedBackoff}
	}
	if len(g.placed) >= int(minMember) {
		return m.allow(key, g, now)
	}
	var v PermitVerdict
	if len(g.waiting) == 0 {
		g.round++
		g.roundStart, g.deadline = now, now.Add(timeout)
		v.FirstWaiter = true
		m.rounds[key] = now
		klog.Background().V(4).Info("Pod group's round starts", "podGroup", key, "pod", klog.KObj(pod))
		round := g.round
		m.clock.AfterFunc(timeout, func() { m.expire(key, round) })
	}
	v.Wait = g.deadline.Sub(now)
	if v.Wait <= 0 {
		// The round's timer is due; it ends the round, and the group's backoff wakes this pod.
		m.park(key, g, pod, ParkedBackoff, now)
		return PermitVerdict{Refused: ParkedBackoff}
	}
	g.waiting.Insert(pod.UID)
	return v
}

// allow ends the round with quorum: its waiting members are let through. The caller holds the
// lock.
func (m *Manager) allow(key types.NamespacedName, g *group, now time.Time) PermitVerdict {
	m.endRound(key)
	m.passTurn(key)
	v := PermitVerdict{Allow: sets.List(g.waiting)}
	if len(g.waiting) > 0 {
		v.QuorumWait = now.Sub(g.roundStart)
	}
	g.waiting = sets.New[types.UID]()
	g.failures = 0
	g.room = roomWait{}
	m.roomWaiting.Delete(key)
	return v
}

// Reevaluate lets the group's waiting members through if they now make quorum, as after
// minMember was lowered.
func (m *Manager) Reevaluate(key types.NamespacedName, minMember int32) PermitVerdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok || len(g.waiting) == 0 || len(g.placed) < int(minMember) {
		return PermitVerdict{}
	}
	return m.allow(key, g, m.clock.Now())
}

// RoundFailure describes a round that ended without quorum.
type RoundFailure struct {
	// Released lists the waiting members to reject; they were parked to wake after Backoff.
	Released []types.UID
	// Backoff is how long the group now stands aside.
	Backoff time.Duration
	// Why the round failed, as a clause after "pod group ns/name".
	Why string
}

// Cause is what turned a member away.
type Cause struct {
	// Why, as a clause after "pod group ns/name".
	Why string
	// ByPreFilter is set when a plugin's PreFilter refused the member before any node was looked
	// at: a quota's max, fair share or lending limit, say. That is not the want of room that rounds
	// contend for, and that plugin requeues the member on the event that can let it in. A round
	// it ends gives back what it held, and the group waits for that member to be let in again (it
	// waits for room, with the member as its waiter), not for a backoff: the backoff held a group
	// out past that event (issue 42: a peer's demand that came while a round was open and went a
	// moment later kept the group out for all its backoff).
	ByPreFilter bool
}

// failRound ends the group's round: its waiting members are released, for the caller to reject.
// Unless cause is ByPreFilter, the group stands aside for its backoff and they are parked until
// it ends; otherwise the caller parks them. The caller holds the lock.
func (m *Manager) failRound(key types.NamespacedName, g *group, now time.Time, cause Cause) RoundFailure {
	released := sets.List(g.waiting)
	g.waiting = sets.New[types.UID]()
	m.endRound(key)
	for _, uid := range released {
		g.dropPlace(uid)
	}
	g.dropDomainIfEmpty()
	if cause.ByPreFilter {
		return RoundFailure{Released: released, Why: cause.Why}
	}
	g.failures++
	backoff := m.backoffBase
	for i := 1; i < g.failures && backoff < m.backoffMax; i++ {
		backoff *= 2
	}
	backoff = min(backoff, m.backoffMax)
	g.backoffUntil, g.backoff, g.failedAt, g.why = now.Add(backoff), backoff, now, cause.Why
	m.backingOff.Insert(key)
	m.parkReleased(key, g, released, ParkedBackoff, now)
	return RoundFailure{Released: released, Backoff: backoff, Why: cause.Why}
}

// parkReleased parks the members a failed round released for reason. The caller holds the lock.
func (m *Manager) parkReleased(key types.NamespacedName, g *group, released []types.UID, reason ParkReason, now time.Time) {
	for _, uid := range released {
		if r, ok := g.reserved[uid]; ok {
			m.park(key, g, r.pod, reason, now)
		}
	}
}

// RoomFreed cuts short the backoff of every group that stands aside after a failed round, to
// backoffBase after its failure or now, whichever is later: room appeared (a bound pod ended or
// was deleted, a node joined or grew). The doubling of consecutive failures is what settles two
// groups that cannot both fit (see manager), but it also held a group out for up to backoffMax
// while the room it needed stood idle: in the topology simulation a group whose round failed at
// +48 s stood aside 32 s while the free GPUs would have held it for 27 of them, and its
// members' pods were told no more than that they stood aside. The floor keeps a group from coming
// back on the events its own failure sets off. A round in progress is still not disturbed: a group
// that holds nothing gives way to it (turnRemaining).
func (m *Manager) RoomFreed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roomFreedLocked()
}

// roomFreedLocked is RoomFreed with the lock held. It also cuts short the waits for room of
// native groups (roomseen.go).
func (m *Manager) roomFreedLocked() {
	m.roomFreed++
	m.recheckNativeRoomWaits()
	if m.backingOff.Len() == 0 {
		return
	}
	now := m.clock.Now()
	for key := range m.backingOff {
		g, ok := m.groups[key]
		if !ok || !now.Before(g.backoffUntil) {
			m.backingOff.Delete(key)
			continue
		}
		// From the failure, not from backoffUntil: a second freeing must not read a backoff
		// already cut short as the doubled one.
		until := g.failedAt.Add(m.backoffBase)
		if until.Before(now) {
			until = now
		}
		if until.Before(g.backoffUntil) {
			klog.Background().V(4).Info("Room appeared: pod group's backoff cut short", "podGroup", key,
				"backoff", g.backoff, "left", until.Sub(now))
			g.backoffUntil = until
			m.armWake(key, g, until)
		}
	}
}

// RoomFreedCount is how many times room has appeared (RoomFreed) so far.
func (m *Manager) RoomFreedCount() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.roomFreed
}

// whyTimedOut is why a round that reached its deadline failed.
const whyTimedOut = "did not reach minMember within its schedule timeout"

// expire ends the group's round number round if it still waits on it.
func (m *Manager) expire(key types.NamespacedName, round int) {
	m.mu.Lock()
	g, ok := m.groups[key]
	if !ok || len(g.waiting) == 0 || g.round != round {
		m.mu.Unlock()
		return
	}
	f := m.failRound(key, g, m.clock.Now(), Cause{Why: whyTimedOut})
	m.mu.Unlock()
	m.hooks.Expired(key, f)
}

// SnapshotCheck tells, for a pod whose reservation was given back on node, whether the failing
// scheduling cycle's snapshot still shows it there, and whether that node turned the member away
// for want of room that the pod's release gives back.
type SnapshotCheck func(uid types.UID, node string) (shown, mattered bool)

// staleSnapshot reports whether the failing cycle saw room that a release has given back since.
// Released pods the snapshot no longer shows are forgotten: later snapshots cannot show them
// either. The caller holds the lock.
func (m *Manager) staleSnapshot(check SnapshotCheck) bool {
	stale := false
	for uid, node := range m.released {
		shown, mattered := check(uid, node)
		if !shown {
			delete(m.released, uid)
		}
		stale = stale || mattered
	}
	return stale
}

// Verdict of MemberFailed.
type MemberVerdict int

const (
	// VerdictNone: the group already has quorum, or holds nothing; nothing to release.
	VerdictNone MemberVerdict = iota
	// VerdictRetry: the failing cycle saw room that was since given back; the member retries and
	// the group waits on.
	VerdictRetry
	// VerdictFail: the group's round failed; Failure says what to release.
	VerdictFail
)

// MemberOutcome is what a member's failure means for its group.
type MemberOutcome struct {
	Verdict MemberVerdict
	Failure RoundFailure
}

// MemberFailed handles a member that could not be placed: no node took it (PostFilter), or a
// plugin failed it in Reserve or Permit. If its group waits at Permit without quorum, the round
// fails and the group lets go of everything it holds, unless the failing cycle's snapshot still
// showed a pod released since on a node that turned the member away (check): then the member is
// retried and the group keeps its round. cause says what turned the member away.
func (m *Manager) MemberFailed(key types.NamespacedName, pod *v1.Pod, minMember int32, check SnapshotCheck, cause Cause) MemberOutcome {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	if len(g.waiting) == 0 && len(g.placed) < int(minMember) {
		// The group holds nothing and a member does not fit: not a failed round, since nothing is
		// given back; the group waits for room (roomwait.go).
		m.waitForRoom(key, g, pod, cause.Why, m.clock.Now())
		return MemberOutcome{}
	}
	return m.memberFailed(key, g, pod, minMember, check, cause)
}

// memberFailed is MemberFailed with the lock held and the member's own reservation dropped.
func (m *Manager) memberFailed(key types.NamespacedName, g *group, pod *v1.Pod, minMember int32, check SnapshotCheck, cause Cause) MemberOutcome {
	if len(g.waiting) == 0 || len(g.placed) >= int(minMember) {
		return MemberOutcome{}
	}
	now := m.clock.Now()
	if m.staleSnapshot(check) {
		m.park(key, g, pod, ParkedRetry, now)
		return MemberOutcome{Verdict: VerdictRetry}
	}
	f := m.failRound(key, g, now, cause)
	if cause.ByPreFilter {
		// Released, the group waits as one that held nothing when its member was refused.
		m.waitForRoom(key, g, pod, cause.Why, now)
		m.parkReleased(key, g, f.Released, ParkedNoRoom, now)
	} else {
		m.park(key, g, pod, ParkedBackoff, now)
	}
	return MemberOutcome{Verdict: VerdictFail, Failure: f}
}

// UnreserveResult says what a member's Unreserve did to its group.
type UnreserveResult struct {
	// Outcome is the member's failure's meaning for its group.
	Outcome MemberOutcome
	// Lost is set when the member was waiting at Permit: its loss ended the round.
	Lost bool
	// TimedOut is set when the lost member's round had reached its deadline.
	TimedOut bool
}

// Unreserve forgets pod's reservation. A member that was waiting at Permit is lost to its round
// (rejected, timed out, preempted): the round fails, and the caller rejects the members it
// releases. With check, any other member failed in its own scheduling cycle (a plugin's Reserve or
// Permit turned it down, whether or not Gang's Reserve ran), which is judged as MemberFailed
// judges it, with why. Without check, the member is past its scheduling cycle (see
// Gang.Unreserve) and only gives its place back.
func (m *Manager) Unreserve(key types.NamespacedName, pod *v1.Pod, minMember int32, check SnapshotCheck, why string) UnreserveResult {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return UnreserveResult{}
	}
	now := m.clock.Now()
	defer m.gc(key, now)
	m.unreserve(g, pod.UID)
	if !g.waiting.Has(pod.UID) {
		if check == nil {
			return UnreserveResult{}
		}
		return UnreserveResult{Outcome: m.memberFailed(key, g, pod, minMember, check, Cause{Why: why})}
	}
	g.waiting.Delete(pod.UID)
	timedOut := !now.Before(g.deadline)
	why = whyTimedOut
	if !timedOut {
		why = fmt.Sprintf("lost member %s before it was complete", pod.Name)
	}
	f := m.failRound(key, g, now, Cause{Why: why})
	return UnreserveResult{Outcome: MemberOutcome{Verdict: VerdictFail, Failure: f}, Lost: true, TimedOut: timedOut}
}
