package gangcore

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"

	"github.com/berth-sched/berth/pkg/topology"
)

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
	// Queued is told that a member of a group passed its group's rules and may enter the active
	// queue, where QOSSort sorts it by when its group was created. Gone is told that a group's
	// state was dropped: none of its pods can be queued any more before a member passes again, so
	// its sort time can go too. Unlike the others both run under the lock, at once, so that
	// neither comes between the other and the state it follows.
	Queued func(types.NamespacedName, time.Time)
	Gone   func(types.NamespacedName)
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
// A member that another plugin's PreFilter refused (a quota's fair share, say: Cause.ByPreFilter)
// also ends B's round, but B does not stand aside: it holds nothing then, waits until that plugin
// lets the member in, and gives way to A's round in progress as any group that holds nothing does
// (turnRemaining).
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
	turnParked turnLine
	// turnWoken holds the groups whose pods parked for their turn were woken, with when, until one
	// of them is admitted by PreFilter (turnTaken) or parked for another reason: a younger group
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
	// wakes counts Wake's calls for the group: Admit's check, run without the lock, is
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
		turnParked:  newTurnLine(),
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
		m.leaveTurnLine(key)
		delete(m.turnWoken, key)
		m.roomWaiting.Delete(key)
		m.hooks.Gone(key)
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
