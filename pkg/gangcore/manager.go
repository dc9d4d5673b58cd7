package gangcore

import (
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

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

// Clock is the manager's clock: the real one in production, a fake one in tests.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) clock.Timer
}

// Hooks are how the manager's timers act on the scheduler; they run without the manager's lock.
type Hooks struct {
	// Activate moves parked pods whose time has come to the active queue.
	Activate func([]*v1.Pod)
	// Expired rejects the members of a round that timed out.
	Expired func(types.NamespacedName, RoundFailure)
	// Gone is told that a group's state was dropped: none of its pods can be queued any more
	// before Admit lets one in again, so its sort time can go too. Unlike the others it runs
	// under the lock, at once, so that no Admit comes between.
	Gone func(types.NamespacedName)
}

// Config is a manager's timings, clock and hooks.
type Config struct {
	// BackoffBase is how long a group stands aside after its first failed round; BackoffMax caps
	// its doubling.
	BackoffBase, BackoffMax time.Duration
	// TurnMax is how long a group that holds nothing gives way to another group's round in
	// progress; zero turns the rule off.
	TurnMax time.Duration
	Clock   Clock
	Hooks   Hooks
	// Native reports whether a group key is a native group's, which the queue holds as one entity
	// (see roomwait.go and roomseen.go); nil while native groups are not served.
	Native func(types.NamespacedName) bool
}

// manager is the state machine of every pod group: who holds a place (reserved or bound), who
// waits at Permit, who was turned away and why, and which groups stand aside after a failed round.
// There is one per scheduler process, shared by every profile (see pkg/gang's shared.go). Every field sits
// behind one mutex, the clock is read under it, and no method makes an API request; pods are known
// by UID, so a pod recreated under the same name is a new member. Counters are kept as pods come
// and go, so a member costs O(1) whatever the group's size.
//
// # Why two groups that cannot both fit never deadlock
//
// Take groups A and B that each fit the cluster alone but not together, and interleaved members
// holding resources at Permit. No member of either is bound: a member passes Permit only when its
// group's placed members (reserved or bound) reach minMember, so the only way out is that one
// group lets go. It does, in bounded time:
//
//  1. A round cannot last longer than the group's Permit timeout: the first waiter fixes the
//     round's deadline, every later member waits only until then, and then the round's timer
//     fails it and releases all waiting members together.
//  2. Well before that, the first member that cannot be placed ends its own group's round
//     (MemberFailed): say B. B's waiting members are rejected at once, Unreserve gives back what
//     every plugin reserved for them (GPUs included), and B stands aside for its backoff
//     (backoffBase, doubled for each consecutive failed round up to backoffMax): PreEnqueue,
//     PreFilter and Permit refuse its pods until the manager's timer wakes them.
//  3. The release reaches the scheduler's snapshot only after the rejected pods' binding
//     goroutines forget them, so an A member scheduled a moment later may still see B's pods and
//     fail. The manager keeps every released pod with the node it held until a snapshot shows it
//     gone; a failure whose snapshot still shows a released pod on a node that turned the member
//     away is not held against A. A keeps its waiting members and the member is retried when the
//     scheduler forgets that pod (the queue's AssignedPod/Delete event). Any other failure ends
//     A's round at once, however busy the cluster: there is no window of time to wait out.
//  4. A's remaining members were activated when its first member started waiting; each now fits
//     (A fits alone, B holds nothing and cannot start). If they are all scheduled within B's
//     backoff, A reaches quorum and is bound whole. B then finds no room: its members fail with
//     nothing reserved, so nothing is released, and B stands aside for backoffBase each time
//     rather than return with every release anywhere (MemberFailed).
//  5. If the queue was too long for A to finish before B came back, the next failure again ends
//     one group's round; each consecutive failure doubles that group's backoff, so after at most
//     log2(backoffMax/backoffBase) further rounds the backoff outlasts the time the other group
//     needs, and step 4 completes.
//
// Two member failures cannot end both rounds together: scheduling cycles run one at a time, and
// the cycle after B's release either still shows B's pods (step 3: A retries) or does not (A fits).
type Manager struct {
	// backoffBase is how long a group stands aside after its first failed round, and how long a
	// retried member waits at most for the event that should wake it.
	backoffBase time.Duration
	// backoffMax caps the doubling of consecutive failed rounds.
	backoffMax time.Duration
	// turnMax is how long a group that holds nothing gives way to another group's round in
	// progress (see turnRemaining); zero turns the rule off.
	turnMax time.Duration
	clock   Clock
	hooks   Hooks
	// native is Config.Native: nil while native groups are not served.
	native func(types.NamespacedName) bool

	mu     sync.Mutex
	groups map[types.NamespacedName]*group
	// released holds the pods whose reservation was given back, with the node they held, until a
	// scheduling cycle's snapshot shows them gone or they reserve again.
	released map[types.UID]string
	// rounds holds the groups whose round is in progress (members wait at Permit), with its start.
	rounds map[types.NamespacedName]time.Time
	// turnParked holds the groups with pods parked for their turn (ParkedTurn).
	turnParked sets.Set[types.NamespacedName]
	// turnWoken holds the groups whose pods parked for their turn were woken, with when, until one
	// of them is admitted by PreFilter (TurnTaken) or parked for another reason: a younger group
	// gives way to them as to a round in progress (see turnRemaining).
	turnWoken map[types.NamespacedName]time.Time
	// backingOff holds the groups that may stand aside after a failed round, for RoomFreed; a
	// group whose backoff is over leaves it there.
	backingOff sets.Set[types.NamespacedName]
	// roomFreed counts RoomFreed's calls: a native group's cycle compares it before and after
	// (pkg/gang's groupcycle.go).
	roomFreed uint64
	// roomWaiting holds the groups that wait for room (room.waiter set): OlderWaiting, asked for
	// the first member of every group, reads these and turnWoken, not every group.
	roomWaiting sets.Set[types.NamespacedName]
	// freed holds the freeings no native group's cycle has seen yet (roomseen.go); nil while
	// native groups are not served.
	freed *freedRoom
}

// group is one pod group's state.
type group struct {
	// reserved holds the members between Reserve and Unreserve (or deletion), with their node.
	reserved map[types.UID]reservation
	// bound holds the live members the pod informer shows bound to a node.
	bound sets.Set[types.UID]
	// placed holds the union of reserved and bound, less the members a failed round released:
	// its size is the group's quorum count. A released member keeps its reservation until its
	// Unreserve runs in its binding goroutine, which can come after the group's next round has
	// begun, but it will never bind.
	placed sets.Set[types.UID]
	// ready holds the members that can be scheduled or are: live and without scheduling gates.
	ready sets.Set[types.UID]
	// waiting holds the members waiting at Permit in the current round.
	waiting sets.Set[types.UID]
	// round numbers the group's rounds, so that a round's timer only ends its own round.
	round int
	// roundStart is when the current round's first member began waiting.
	roundStart time.Time
	// deadline is when the current round times out.
	deadline time.Time
	// parked holds the pods Gang turned away, to wake them when their reason goes away.
	parked map[types.UID]parkedPod
	// told holds, for each pod, the reasons it has been told of (an event), one bit per reason.
	told map[types.UID]uint16
	// backoffUntil is when a group that failed its last round may try again, backoff how long
	// it stands aside, and failedAt when the failure that set them happened.
	backoffUntil time.Time
	backoff      time.Duration
	failedAt     time.Time
	// why says what set backoffUntil, as a clause after "pod group ns/name": a member turned away
	// while its group stands aside is told the cause, not only that the group waits.
	why string
	// failures counts consecutive failed rounds; a round that reaches quorum resets it.
	failures int
	// wakeAt is when the armed wake timer fires, zero when none is armed.
	wakeAt time.Time
	// domain is the topology domain the group's reserved members were placed in, from the first
	// one's Reserve until the last reservation goes (see domain.go).
	domain *topology.Choice
	// room is the group's wait for room, after a member found none while the group held nothing.
	room roomWait
	// priority and created place the group among others as QOSSort does (zero created: not
	// known yet), for the order in which groups take their turns.
	priority int32
	created  time.Time
	// wakes counts Wake's calls for the group: AdmitScanning's scan, run without the lock, is
	// done again if one came meanwhile.
	wakes uint64
}

type reservation struct {
	pod  *v1.Pod
	node string
}

type parkedPod struct {
	pod    *v1.Pod
	reason ParkReason
}

// NewManager returns an empty manager.
func NewManager(c Config) *Manager {
	m := &Manager{
		backoffBase: c.BackoffBase,
		backoffMax:  c.BackoffMax,
		turnMax:     c.TurnMax,
		clock:       c.Clock,
		hooks:       c.Hooks,
		native:      c.Native,
		groups:      map[types.NamespacedName]*group{},
		released:    map[types.UID]string{},
		rounds:      map[types.NamespacedName]time.Time{},
		turnParked:  sets.New[types.NamespacedName](),
		turnWoken:   map[types.NamespacedName]time.Time{},
		backingOff:  sets.New[types.NamespacedName](),
		roomWaiting: sets.New[types.NamespacedName](),
	}
	if m.native != nil {
		m.freed = newFreedRoom()
	}
	return m
}

func (m *Manager) group(key types.NamespacedName) *group {
	g, ok := m.groups[key]
	if !ok {
		g = &group{
			reserved: map[types.UID]reservation{},
			bound:    sets.New[types.UID](),
			placed:   sets.New[types.UID](),
			ready:    sets.New[types.UID](),
			waiting:  sets.New[types.UID](),
			parked:   map[types.UID]parkedPod{},
			told:     map[types.UID]uint16{},
		}
		m.groups[key] = g
	}
	return g
}

// gc drops a group's state once it holds nothing. A group with failed rounds is kept so that
// its backoff keeps growing; quorum or the PodGroup's deletion (Drop) clears it. With no ready
// member left, none can be queued either: the group's sort time goes too.
func (m *Manager) gc(key types.NamespacedName, now time.Time) {
	g, ok := m.groups[key]
	if ok && len(g.reserved) == 0 && len(g.bound) == 0 && len(g.ready) == 0 && len(g.waiting) == 0 &&
		len(g.parked) == 0 && g.failures == 0 && !now.Before(g.backoffUntil) && g.wakeAt.IsZero() {
		delete(m.groups, key)
		delete(m.turnWoken, key)
		m.roomWaiting.Delete(key)
		m.hooks.Gone(key)
	}
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

// turnRemaining is how long a group that holds nothing still gives way to another group's round
// in progress: members of a group are scheduled back to back only if no other group's members
// come between them, and QOSSort puts an older group's members first. A round normally ends
// within its members' scheduling cycles; one that lasts longer than turnMax (a member waits for
// preemption, say) no longer holds the others back.
//
// It also gives way to an older group (of higher priority, or created first) parked for its turn
// or just woken for it. When a round ends, the groups that gave way to it are woken on a timer of
// their own, and a younger group's waiter requeued by a room event at that moment would otherwise
// reach the scheduler first and take the room the older one waited for (issue 28). The caller
// holds the lock.
func (m *Manager) turnRemaining(key types.NamespacedName, g *group, now time.Time) time.Duration {
	if m.turnMax == 0 || len(g.reserved) > 0 || len(g.waiting) > 0 {
		return 0
	}
	var left time.Duration
	for other, start := range m.rounds {
		if other != key {
			left = max(left, start.Add(m.turnMax).Sub(now))
		}
	}
	for other := range m.turnParked {
		if m.older(other, key, g) && m.groups[other].parkedForTurn() {
			// Nothing gives way for longer: the rest need not be read.
			return m.turnMax
		}
	}
	for other, at := range m.turnWoken {
		if m.older(other, key, g) {
			if l := at.Add(m.turnMax).Sub(now); l > 0 {
				// A room event wakes every waiting group (roomwait.go), and each of their members
				// asks this: reading them all was n² per event, 170 us per call with 1,000 woken.
				// The first older group found decides; a shorter wait than the longest only makes
				// the park's timer ask again sooner.
				return max(left, l)
			}
		}
	}
	return left
}

// older reports whether group other goes before group key (g) in QOSSort's order: higher
// priority, then created first, then by name. A group whose place is not known yet goes before
// none and after none. The caller holds the lock.
func (m *Manager) older(other, key types.NamespacedName, g *group) bool {
	o, ok := m.groups[other]
	if other == key || !ok || o.created.IsZero() || g.created.IsZero() {
		return false
	}
	if o.priority != g.priority {
		return o.priority > g.priority
	}
	if !o.created.Equal(g.created) {
		return o.created.Before(g.created)
	}
	return other.String() < key.String()
}

// passTurn records that the group no longer takes its turn now (it is admitted, or turned away
// for another reason), and wakes the groups that gave way to it unless a round holds them anyway.
// The caller holds the lock.
func (m *Manager) passTurn(key types.NamespacedName) {
	if _, ok := m.turnWoken[key]; !ok {
		return
	}
	delete(m.turnWoken, key)
	klog.Background().V(4).Info("Pod group passes its turn", "podGroup", key, "rounds", len(m.rounds), "parkedForTurn", m.turnParked.Len())
	if len(m.rounds) == 0 && m.turnParked.Len() > 0 {
		m.clock.AfterFunc(0, m.wakeTurns)
	}
}

// TurnTaken records that a member of the group was admitted by PreFilter: its group's turn has
// come and its round starts in this scheduling cycle, or it fails and passes the turn on
// (waitForRoom).
func (m *Manager) TurnTaken(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.turnWoken, key)
}

// endRound records that the group's round ended, and wakes the groups that gave way to it. The
// caller holds the lock; the wake-up runs on a timer of its own, without it.
func (m *Manager) endRound(key types.NamespacedName) {
	if _, ok := m.rounds[key]; !ok {
		return
	}
	delete(m.rounds, key)
	klog.Background().V(4).Info("Pod group's round ends", "podGroup", key, "parkedForTurn", m.turnParked.Len())
	if m.turnParked.Len() > 0 {
		m.clock.AfterFunc(0, m.wakeTurns)
	}
}

// wakeTurns wakes the group parked for its turn whose turn has come, if one has: the oldest (in
// QOSSort's order), since every younger one gives way to it (turnRemaining), and any whose place
// is not known yet, which give way to no one. It once woke every group parked for its turn, and
// PreEnqueue, under the queue's lock, parked all but the oldest again: with gangs queued behind
// one another's rounds that was done for every round, n² in all. scheduler_perf's Gang workload
// (1,000 gangs of 3 on 5,000 nodes) spent a quarter of berth's CPU there, serially, and the queue's
// lock was held 100 s in a 45 s run (issue 28's 16-core question).
func (m *Manager) wakeTurns() {
	m.mu.Lock()
	now := m.clock.Now()
	var pods []*v1.Pod
	for _, key := range m.nextTurns(now) {
		g := m.groups[key]
		for uid, p := range g.parked {
			if p.reason == ParkedTurn {
				pods = append(pods, p.pod)
				delete(g.parked, uid)
			}
		}
		m.turnParked.Delete(key)
		m.turnWoken[key] = now
		m.gc(key, now)
	}
	left := m.turnParked.Len()
	m.mu.Unlock()
	klog.Background().V(4).Info("Pod groups parked for their turn are woken", "pods", len(pods), "stillParked", left)
	if len(pods) > 0 {
		m.hooks.Activate(pods)
	}
}

// nextTurns lists the groups parked for their turn whose turn has come (see wakeTurns), and drops
// from turnParked the groups it finds with no pod parked for it any more. The caller holds the lock.
func (m *Manager) nextTurns(now time.Time) []types.NamespacedName {
	var due []types.NamespacedName
	for {
		var oldest types.NamespacedName
		found := false
		for key := range m.turnParked {
			g, ok := m.groups[key]
			switch {
			case !ok:
				m.turnParked.Delete(key)
			case g.created.IsZero():
				// Its place is not known: it gives way to no one, and no one to it.
				if g.parkedForTurn() && m.turnRemaining(key, g, now) == 0 {
					due = append(due, key)
				}
			case !found || m.older(key, oldest, m.groups[oldest]):
				oldest, found = key, true
			}
		}
		if !found {
			return due
		}
		g := m.groups[oldest]
		if !g.parkedForTurn() {
			// Its pods were let in or parked for another reason since; the next one may be due.
			m.turnParked.Delete(oldest)
			due = due[:0]
			continue
		}
		if m.turnRemaining(oldest, g, now) == 0 {
			due = append(due, oldest)
		}
		return due
	}
}

// parkedForTurn reports whether a pod of the group is parked for its turn.
func (g *group) parkedForTurn() bool {
	for _, p := range g.parked {
		if p.reason == ParkedTurn {
			return true
		}
	}
	return false
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

// PodState is what the pod informer shows of one of a group's pods, as its quorum counts it.
type PodState int

const (
	// PodGone: the pod was deleted.
	PodGone PodState = iota
	// PodIdle: the pod takes no part in a round: it ended, is being deleted, or is held by
	// scheduling gates.
	PodIdle
	// PodReady: the pod can be scheduled.
	PodReady
	// PodBound: the pod is bound to a node and holds its room.
	PodBound
)

// PodChanged keeps the group's counters in step with the pod informer: s is the pod's new state.
// It reports the group's number of ready members.
func (m *Manager) PodChanged(key types.NamespacedName, uid types.UID, s PodState) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	if s >= PodReady {
		g.ready.Insert(uid)
	} else {
		g.ready.Delete(uid)
	}
	if s == PodBound {
		g.bound.Insert(uid)
		g.placed.Insert(uid)
	} else {
		g.bound.Delete(uid)
		if _, ok := g.reserved[uid]; !ok {
			g.placed.Delete(uid)
		}
	}
	if s == PodGone {
		m.forget(key, g, uid)
	}
	n := len(g.ready)
	m.gc(key, m.clock.Now())
	return n
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

// Holds reports whether the member still holds its reservation.
func (m *Manager) Holds(key types.NamespacedName, uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok {
		_, held := g.reserved[uid]
		return held
	}
	return false
}

// Reserve records that pod holds a reservation on node.
func (m *Manager) Reserve(key types.NamespacedName, pod *v1.Pod, node string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	g.reserved[pod.UID] = reservation{pod: pod, node: node}
	g.placed.Insert(pod.UID)
	delete(g.parked, pod.UID)
	delete(m.released, pod.UID)
}

// unreserve drops uid's reservation and remembers the node it gave back. The caller holds the
// lock.
func (m *Manager) unreserve(g *group, uid types.UID) {
	r, ok := g.reserved[uid]
	if !ok {
		return
	}
	delete(g.reserved, uid)
	g.dropPlace(uid)
	g.dropDomainIfEmpty()
	m.released[uid] = r.node
}

// dropPlace takes uid out of the quorum count unless it is bound.
func (g *group) dropPlace(uid types.UID) {
	if !g.bound.Has(uid) {
		g.placed.Delete(uid)
	}
}

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

// failRound ends the group's round: its waiting members are parked until the backoff ends, and
// the caller rejects them. The caller holds the lock.
func (m *Manager) failRound(key types.NamespacedName, g *group, now time.Time, why string) RoundFailure {
	released := sets.List(g.waiting)
	g.waiting = sets.New[types.UID]()
	m.endRound(key)
	g.failures++
	backoff := m.backoffBase
	for i := 1; i < g.failures && backoff < m.backoffMax; i++ {
		backoff *= 2
	}
	backoff = min(backoff, m.backoffMax)
	g.backoffUntil, g.backoff, g.failedAt, g.why = now.Add(backoff), backoff, now, why
	m.backingOff.Insert(key)
	for _, uid := range released {
		g.dropPlace(uid)
		if r, ok := g.reserved[uid]; ok {
			m.park(key, g, r.pod, ParkedBackoff, now)
		}
	}
	g.dropDomainIfEmpty()
	return RoundFailure{Released: released, Backoff: backoff, Why: why}
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

// TurnMax is how long a group that holds nothing gives way to another group's round at most.
func (m *Manager) TurnMax() time.Duration { return m.turnMax }

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
	f := m.failRound(key, g, m.clock.Now(), whyTimedOut)
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
// retried and the group keeps its round. why says what turned the member away, as a clause after
// "pod group ns/name".
func (m *Manager) MemberFailed(key types.NamespacedName, pod *v1.Pod, minMember int32, check SnapshotCheck, why string) MemberOutcome {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	if len(g.waiting) == 0 && len(g.placed) < int(minMember) {
		// The group holds nothing and a member does not fit: not a failed round, since nothing is
		// given back; the group waits for room (roomwait.go).
		m.waitForRoom(key, g, pod, why, m.clock.Now())
		return MemberOutcome{}
	}
	return m.memberFailed(key, g, pod, minMember, check, why)
}

// memberFailed is MemberFailed with the lock held and the member's own reservation dropped.
func (m *Manager) memberFailed(key types.NamespacedName, g *group, pod *v1.Pod, minMember int32, check SnapshotCheck, why string) MemberOutcome {
	if len(g.waiting) == 0 || len(g.placed) >= int(minMember) {
		return MemberOutcome{}
	}
	now := m.clock.Now()
	if m.staleSnapshot(check) {
		m.park(key, g, pod, ParkedRetry, now)
		return MemberOutcome{Verdict: VerdictRetry}
	}
	f := m.failRound(key, g, now, why)
	m.park(key, g, pod, ParkedBackoff, now)
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
		return UnreserveResult{Outcome: m.memberFailed(key, g, pod, minMember, check, why)}
	}
	g.waiting.Delete(pod.UID)
	timedOut := !now.Before(g.deadline)
	why = whyTimedOut
	if !timedOut {
		why = fmt.Sprintf("lost member %s before it was complete", pod.Name)
	}
	f := m.failRound(key, g, now, why)
	return UnreserveResult{Outcome: MemberOutcome{Verdict: VerdictFail, Failure: f}, Lost: true, TimedOut: timedOut}
}

// forget drops a deleted pod from its group. The caller holds the lock.
func (m *Manager) forget(key types.NamespacedName, g *group, uid types.UID) {
	if _, ok := g.reserved[uid]; ok {
		delete(g.reserved, uid)
		g.dropDomainIfEmpty()
	}
	g.placed.Delete(uid)
	g.bound.Delete(uid)
	g.ready.Delete(uid)
	delete(g.parked, uid)
	delete(g.told, uid)
	delete(m.released, uid)
	if g.room.waiter == uid {
		m.endRoomWait(key, g)
	}
	if len(g.ready) == 0 && len(g.placed) == 0 {
		// No member is left to take a turn or wait for room: no one gives way to the group.
		delete(m.turnWoken, key)
		g.room.need = RoomNeed{}
	}
}

// Drop handles a deleted PodGroup: its round ends without backoff, and the waiting members it
// returns, for the caller to reject, stay parked until the PodGroup comes back.
func (m *Manager) Drop(key types.NamespacedName) []types.UID {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return nil
	}
	released := sets.List(g.waiting)
	for _, uid := range released {
		g.dropPlace(uid)
		g.parked[uid] = parkedPod{pod: g.reserved[uid].pod, reason: ParkedNotFound}
	}
	g.dropDomainIfEmpty()
	g.waiting = sets.New[types.UID]()
	m.endRound(key)
	g.failures, g.backoffUntil = 0, time.Time{}
	m.gc(key, m.clock.Now())
	return released
}
