package gang

import (
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// parkReason says why Gang turned a pod away, and so what brings it back.
type parkReason int

const (
	// parkedNotFound: the PodGroup does not exist. Woken when the PodGroup informer sees it.
	parkedNotFound parkReason = iota + 1
	// parkedTooFew: fewer than minMember pods of the group can be scheduled. Woken when a member
	// arrives or is ungated, or when the PodGroup changes.
	parkedTooFew
	// parkedMinResources: minResources exceed the cluster's free capacity. Woken by the capacity
	// events of EventsToRegister, or when the PodGroup changes.
	parkedMinResources
	// parkedBackoff: the group's last round failed and it stands aside. Woken by a timer.
	parkedBackoff
	// parkedRetry: a member failed while another group's release was settling (see
	// MemberUnschedulable). Woken by a timer once the release is visible.
	parkedRetry
)

// wokenByCapacity reports whether freed or added capacity can help a pod parked for r.
func (r parkReason) wokenByCapacity() bool {
	return r == parkedMinResources || r == parkedRetry
}

// manager is the state machine of every pod group: who holds a reservation, who waits at Permit,
// who was turned away and why, and which groups stand aside after a failed round. Every field sits
// behind one mutex; pods are known by UID, so a pod recreated under the same name is a new member.
// Methods take the current time as an argument, which keeps the machine deterministic under test.
//
// # Why two groups that cannot both fit never deadlock
//
// Take groups A and B that each fit the cluster alone but not together, and interleaved members
// holding resources at Permit. No member of either is bound: a member passes Permit only when
// reserved plus bound members reach minMember (Permit), so the only way out is that one group
// lets go. It does, in bounded time:
//
//  1. A round cannot last longer than the group's Permit timeout: the first waiter fixes the
//     round's deadline, every later member waits only until then, and then Expire fails the
//     round and releases all waiting members together.
//  2. Well before that, the first member that fails Filter ends its own group's round
//     (MemberUnschedulable): say B. B's waiting members are rejected at once, Unreserve gives back
//     what every plugin reserved for them (GPUs included), and B stands aside for its backoff
//     (backoffBase, doubled for each consecutive failed round up to backoffMax): PreEnqueue,
//     PreFilter and Permit refuse its pods until a timer wakes them.
//  3. The release reaches the scheduler's snapshot only after the rejected pods' binding
//     goroutines forget them, so an A member scheduled a moment later may still see B's pods and
//     fail. A failure within settle of a release is therefore not held against A: A keeps its
//     waiting members and the failed member is retried once the release has settled. settle is
//     shorter than backoffBase, so that retry runs while B still stands aside.
//  4. A's remaining members were activated when its first member started waiting, so they are
//     in the active queue; each now fits (A fits alone, B holds nothing and cannot start). If they
//     are all scheduled within B's backoff, A reaches quorum and is bound whole. B then finds no
//     room: its members fail with nothing reserved, so nothing is released and B waits whole.
//  5. If the queue was too long for A to finish before B came back, the next failure again ends
//     one group's round; each consecutive failure doubles that group's backoff, so after at most
//     log2(backoffMax/backoffBase) further rounds the backoff outlasts the time the other group
//     needs (backoffMax is seconds; a member's scheduling cycle is milliseconds), and step 4
//     completes.
//
// Two member failures cannot end both rounds together: scheduling cycles run one at a time; a
// second failure right after the first release falls in its settle window, and a later one meets
// a snapshot in which the released group holds nothing and the other fits.
type manager struct {
	// backoffBase is how long a group stands aside after its first failed round.
	backoffBase time.Duration
	// backoffMax caps the doubling of consecutive failed rounds.
	backoffMax time.Duration
	// settle is how long after a release a member's failure is blamed on the scheduler's snapshot
	// not yet showing the release, rather than on its own group.
	settle time.Duration

	mu     sync.Mutex
	groups map[types.NamespacedName]*group
	// lastRelease is the last time any group gave back reservations.
	lastRelease time.Time
}

// group is one pod group's state.
type group struct {
	// reserved holds the members between Reserve and Unreserve (or deletion): waiting, binding
	// or bound.
	reserved map[types.UID]*v1.Pod
	// waiting holds the members waiting at Permit in the current round.
	waiting sets.Set[types.UID]
	// roundStart is when the current round's first member began waiting.
	roundStart time.Time
	// deadline is when the current round times out.
	deadline time.Time
	// parked holds the pods Gang turned away, to wake them when their reason goes away.
	parked map[types.UID]parkedPod
	// backoffUntil is when a group that failed its last round may try again.
	backoffUntil time.Time
	// failures counts consecutive failed rounds; a round that reaches quorum resets it.
	failures int
}

type parkedPod struct {
	pod    *v1.Pod
	reason parkReason
}

// newManager returns an empty manager with the given backoff and settle timings.
func newManager(backoffBase, backoffMax, settle time.Duration) *manager {
	return &manager{
		backoffBase: backoffBase,
		backoffMax:  backoffMax,
		settle:      settle,
		groups:      map[types.NamespacedName]*group{},
	}
}

func (m *manager) group(key types.NamespacedName) *group {
	g, ok := m.groups[key]
	if !ok {
		g = &group{
			reserved: map[types.UID]*v1.Pod{},
			waiting:  sets.New[types.UID](),
			parked:   map[types.UID]parkedPod{},
		}
		m.groups[key] = g
	}
	return g
}

// gc drops a group's state once it holds nothing. A group with failed rounds is kept so that
// its backoff keeps growing; quorum or the PodGroup's deletion (Drop) clears it.
func (m *manager) gc(key types.NamespacedName, now time.Time) {
	g, ok := m.groups[key]
	if ok && len(g.reserved) == 0 && len(g.waiting) == 0 && len(g.parked) == 0 && g.failures == 0 &&
		!now.Before(g.backoffUntil) {
		delete(m.groups, key)
	}
}

// Admit runs check under the manager's lock and parks pod when check refuses it, or unparks it
// when check lets it through. It reports check's verdict, and whether the pod was newly parked for
// this reason. Running check under the lock is what makes parking safe against Wake: an informer
// updates its cache before it calls handlers, so either check already sees the change, or the pod
// is parked before the handler's Wake runs.
func (m *manager) Admit(key types.NamespacedName, pod *v1.Pod, now time.Time, check func(g groupView) (parkReason, bool)) (reason parkReason, ok, newlyParked bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	reason, ok = check(groupView{g: g, now: now})
	if ok {
		delete(g.parked, pod.UID)
		m.gc(key, now)
		return 0, true, false
	}
	prev, was := g.parked[pod.UID]
	g.parked[pod.UID] = parkedPod{pod: pod, reason: reason}
	return reason, false, !was || prev.reason != reason
}

// groupView lets an admission check read a group's state under the manager's lock.
type groupView struct {
	g   *group
	now time.Time
}

// BackoffRemaining is how long the group still stands aside after a failed round.
func (v groupView) BackoffRemaining() time.Duration {
	if d := v.g.backoffUntil.Sub(v.now); d > 0 {
		return d
	}
	return 0
}

// Reserved returns the group's reserved members.
func (v groupView) Reserved() []*v1.Pod {
	pods := make([]*v1.Pod, 0, len(v.g.reserved))
	for _, p := range v.g.reserved {
		pods = append(pods, p)
	}
	return pods
}

// Wake takes, for the caller to activate, the group's pods parked for one of reasons, if ready
// (nil means always) says those reasons may have gone. ready runs under the manager's lock, and
// only when such pods exist; see Admit.
func (m *manager) Wake(key types.NamespacedName, now time.Time, ready func() bool, reasons ...parkReason) []*v1.Pod {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return nil
	}
	var pods []*v1.Pod
	var taken []types.UID
	for uid, p := range g.parked {
		if slices.Contains(reasons, p.reason) {
			pods = append(pods, p.pod)
			taken = append(taken, uid)
		}
	}
	if len(pods) == 0 || (ready != nil && !ready()) {
		return nil
	}
	for _, uid := range taken {
		delete(g.parked, uid)
	}
	m.gc(key, now)
	return pods
}

// Park records that Gang turned pod away for reason.
func (m *manager) Park(key types.NamespacedName, pod *v1.Pod, reason parkReason) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.group(key).parked[pod.UID] = parkedPod{pod: pod, reason: reason}
}

// ParkedReason reports why the pod is parked, if it is.
func (m *manager) ParkedReason(key types.NamespacedName, uid types.UID) (parkReason, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok {
		if p, ok := g.parked[uid]; ok {
			return p.reason, true
		}
	}
	return 0, false
}

// Reserve records that pod holds a reservation.
func (m *manager) Reserve(key types.NamespacedName, pod *v1.Pod) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	g.reserved[pod.UID] = pod
	delete(g.parked, pod.UID)
}

// quorum counts the members that hold a place: reserved ones and bound ones, each once.
func (g *group) quorum(bound sets.Set[types.UID]) int {
	n := len(g.reserved)
	for uid := range bound {
		if _, ok := g.reserved[uid]; !ok {
			n++
		}
	}
	return n
}

// permitVerdict is what Permit decides for one member.
type permitVerdict struct {
	// Allow lists the waiting members to let through: the group reached quorum.
	Allow []types.UID
	// Wait, when positive, is how long the member waits for the rest of its group.
	Wait time.Duration
	// Deadline is when the round times out, set with FirstWaiter.
	Deadline time.Time
	// FirstWaiter is set for the member that opens a round: its siblings should be activated.
	FirstWaiter bool
	// Refused, when set, is why the member may not wait: its group stands aside, or the
	// round's deadline has passed.
	Refused parkReason
	// QuorumWait is how long the round waited for quorum, when Allow is set.
	QuorumWait time.Duration
}

// Permit decides whether pod, already reserved, completes its group or waits for it. bound holds
// the UIDs of the group's bound members; timeout is how long a round may wait.
func (m *manager) Permit(key types.NamespacedName, pod *v1.Pod, bound sets.Set[types.UID], minMember int32, timeout time.Duration, now time.Time) permitVerdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	if now.Before(g.backoffUntil) {
		g.parked[pod.UID] = parkedPod{pod: pod, reason: parkedBackoff}
		return permitVerdict{Refused: parkedBackoff}
	}
	g.reserved[pod.UID] = pod
	if g.quorum(bound) >= int(minMember) {
		v := permitVerdict{Allow: sets.List(g.waiting)}
		if len(g.waiting) > 0 {
			v.QuorumWait = now.Sub(g.roundStart)
		}
		g.waiting = sets.New[types.UID]()
		g.failures = 0
		return v
	}
	var v permitVerdict
	if len(g.waiting) == 0 {
		g.roundStart, g.deadline = now, now.Add(timeout)
		v.FirstWaiter, v.Deadline = true, g.deadline
	}
	v.Wait = g.deadline.Sub(now)
	if v.Wait <= 0 {
		// The first waiter's timer is firing right now; its Unreserve ends the round and sets
		// the timer that wakes this pod.
		g.parked[pod.UID] = parkedPod{pod: pod, reason: parkedBackoff}
		return permitVerdict{Refused: parkedBackoff}
	}
	g.waiting.Insert(pod.UID)
	return v
}

// roundFailure describes a round that ended without quorum.
type roundFailure struct {
	// Released lists the waiting members to reject; they were parked to wake after Backoff.
	Released []types.UID
	// Backoff is how long the group now stands aside.
	Backoff time.Duration
}

// failRound ends the group's round: its waiting members are parked until the backoff ends, and
// the caller rejects them. The caller holds the lock.
func (m *manager) failRound(g *group, now time.Time) roundFailure {
	released := sets.List(g.waiting)
	for _, uid := range released {
		if p, ok := g.reserved[uid]; ok {
			g.parked[uid] = parkedPod{pod: p, reason: parkedBackoff}
		}
	}
	g.waiting = sets.New[types.UID]()
	g.failures++
	backoff := m.backoffBase
	for i := 1; i < g.failures && backoff < m.backoffMax; i++ {
		backoff *= 2
	}
	backoff = min(backoff, m.backoffMax)
	g.backoffUntil = now.Add(backoff)
	m.lastRelease = now
	return roundFailure{Released: released, Backoff: backoff}
}

// unreserveResult says what a member's Unreserve did to its group.
type unreserveResult struct {
	// Failed is set when the member's loss ended its group's round.
	Failed *roundFailure
	// TimedOut is set when the round ended because its deadline passed.
	TimedOut bool
}

// Unreserve forgets pod's reservation. If the group was waiting at Permit, the round cannot
// complete without this member: it fails, and the caller rejects the members it releases.
func (m *manager) Unreserve(key types.NamespacedName, uid types.UID, now time.Time) unreserveResult {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return unreserveResult{}
	}
	defer m.gc(key, now)
	if _, reserved := g.reserved[uid]; reserved {
		delete(g.reserved, uid)
		m.lastRelease = now
	}
	wasWaiting := g.waiting.Has(uid)
	g.waiting.Delete(uid)
	if !wasWaiting && len(g.waiting) == 0 {
		return unreserveResult{}
	}
	f := m.failRound(g, now)
	return unreserveResult{Failed: &f, TimedOut: wasWaiting && !now.Before(g.deadline)}
}

// Expire ends the group's round if it still waits on the round whose deadline was deadline; it
// returns what the caller must reject, or nil when that round already ended.
func (m *manager) Expire(key types.NamespacedName, deadline, now time.Time) *roundFailure {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok || len(g.waiting) == 0 || !g.deadline.Equal(deadline) {
		return nil
	}
	f := m.failRound(g, now)
	return &f
}

// Verdict of MemberUnschedulable.
type memberVerdict int

const (
	// verdictNone: the group already has quorum, or holds nothing; nothing to release.
	verdictNone memberVerdict = iota
	// verdictRetry: a release is settling; the member retries at RetryAt and the group waits on.
	verdictRetry
	// verdictFail: the group's round failed; Failure says what to release.
	verdictFail
)

// memberOutcome is what a member's failure to fit means for its group.
type memberOutcome struct {
	Verdict memberVerdict
	Failure roundFailure
	// RetryAt is when a retried member should be woken.
	RetryAt time.Time
}

// MemberUnschedulable handles a member that no node can take. If its group waits at Permit
// without quorum, the round fails and the group lets go of everything it holds, unless a release
// happened within settle: then the failure may only show the snapshot lagging behind that
// release, and the member is retried once it settles (see the manager comment).
func (m *manager) MemberUnschedulable(key types.NamespacedName, pod *v1.Pod, bound sets.Set[types.UID], minMember int32, now time.Time) memberOutcome {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok || len(g.waiting) == 0 || g.quorum(bound) >= int(minMember) {
		return memberOutcome{}
	}
	if settled := m.lastRelease.Add(m.settle); now.Before(settled) {
		g.parked[pod.UID] = parkedPod{pod: pod, reason: parkedRetry}
		return memberOutcome{Verdict: verdictRetry, RetryAt: settled}
	}
	f := m.failRound(g, now)
	g.parked[pod.UID] = parkedPod{pod: pod, reason: parkedBackoff}
	return memberOutcome{Verdict: verdictFail, Failure: f}
}

// Forget drops a deleted pod from its group.
func (m *manager) Forget(key types.NamespacedName, uid types.UID, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return
	}
	delete(g.reserved, uid)
	delete(g.parked, uid)
	m.gc(key, now)
}

// Drop handles a deleted PodGroup: its round ends without backoff, and the waiting members it
// returns, for the caller to reject, stay parked until the PodGroup comes back.
func (m *manager) Drop(key types.NamespacedName, now time.Time) []types.UID {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return nil
	}
	released := sets.List(g.waiting)
	for _, uid := range released {
		g.parked[uid] = parkedPod{pod: g.reserved[uid], reason: parkedNotFound}
	}
	if len(released) > 0 {
		m.lastRelease = now
	}
	g.waiting = sets.New[types.UID]()
	g.failures, g.backoffUntil = 0, time.Time{}
	m.gc(key, now)
	return released
}
