package gangcore

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/berth-sched/berth/pkg/amount"
)

// Waiting for room.
//
// A group that holds nothing and whose member finds no node has lost nothing and given nothing
// back: it only waits for room. It used to stand aside for backoffBase and be retried by a timer,
// so each waiting group cost a scheduling cycle every two seconds while nothing changed, and the
// first group that fitted when room appeared waited for its timer.
//
// Now the member that found no room (the waiter) carries its group. It goes back to the queue's
// unschedulable pods, rejected by the plugins that turned it away, and their queueing hints
// requeue it on the events that can change their answer: a pod ending or deleted, a node added or
// grown, quota freed. The group's other members wait in Gang's PreEnqueue, parked for no room, and
// Gang's own hints skip them: a room event costs one scheduling cycle per waiting group, its
// waiter's, not one per member, and nothing while nothing changes. When the waiter passes
// PreFilter's admission with the room the group needs (Admit), the wait ends and its siblings are
// activated; QOSSort puts them right behind it (a group's members share one sort key), and the
// oldest groups first. Passing PreEnqueue only makes the group one woken for its turn
// (waiterLetIn).
//
// Who turned the waiter away decides when it is tried again. Rejected by NodeResourcesFit,
// GPUShare or ElasticQuota, it sits out the queue's backoff, which grows with each attempt: when
// room was freed node by node, the older groups, retried and turned away a moment before, waited
// while younger ones took the room (issue 28). So when the cluster's free room cannot hold the
// group at all, Gang turns the waiter away itself, as Pending (pkg/gang's roomsum.go): the queue then moves it
// to the active queue past its backoff as soon as Gang's hint accepts a room event, and the hint
// accepts every event that can raise the free sum (a bound pod deleted or scaled down, a node
// added or its allocatable changed); a new member, or an ElasticQuota in the group's namespace,
// ends the wait. A younger group that holds nothing gives way to an older one that waits for
// room the free sum now holds, or that is parked or woken for its turn (manager.turnRemaining):
// the scheduler updates its snapshot before it moves pods out of the unschedulable pool, and a
// younger group's member already in the active queue could otherwise take the room in between.
//
// A timer stays as a backstop, should the waiter's requeue be lost: it starts at minRoomBackstop,
// the period at which the queue flushes unschedulable pods anyway (which brings the waiter back
// too), and doubles with each consecutive wait up to maxRoomBackstop. It started at backoffMax
// (32 s) once: with 1,000 groups waiting, their backstops cost 3,500 scheduling cycles a minute,
// 6-7% of a core, while nothing changed (BenchmarkBacklog). A PodGroup change (say a lower minMember) ends the wait at once, and
// quorum forgets it.
type roomWait struct {
	// waiter is the member that found no room; zero when the group does not wait.
	waiter types.UID
	// until is when the backstop timer ends the wait.
	until time.Time
	// waits counts consecutive waits, for the backstop's doubling.
	waits int
	// why says what the waiter lacked, as a clause after "pod group ns/name".
	why string
	// need is the least the group needs, when the waiter was turned away by the sum of room or
	// for want of a node with room for one member (pkg/gang's roomsum.go); zero otherwise.
	need RoomNeed
	// fresh is set for a native group's wait until its waiter is first held (WaitsForRoom).
	fresh bool
}

// minRoomBackstop is a waiting group's first backstop: upstream's queue flushes unschedulable pods
// after five minutes too. maxRoomBackstop caps its doubling.
const (
	minRoomBackstop = 5 * time.Minute
	maxRoomBackstop = 40 * time.Minute
)

// waitForRoom starts the group's wait for room, with pod as its waiter. The caller holds the lock.
func (m *Manager) waitForRoom(key types.NamespacedName, g *group, pod *v1.Pod, why string, now time.Time) {
	backstop := minRoomBackstop
	for i := 0; i < g.room.waits && backstop < maxRoomBackstop; i++ {
		backstop *= 2
	}
	backstop = min(backstop, maxRoomBackstop)
	native := m.native != nil && m.native(key)
	g.room = roomWait{waiter: pod.UID, until: now.Add(backstop), waits: g.room.waits + 1, why: why, fresh: native}
	m.roomWaiting.Insert(key)
	klog.Background().V(4).Info("Pod group waits for room", "podGroup", key, "waiter", klog.KObj(pod), "waits", g.room.waits)
	m.park(key, g, pod, ParkedNoRoom, now)
	// The room is not this group's to take: the groups that gave way to it go on.
	m.turnWoken[key] = now
	m.passTurn(key)
}

// EndRoomWait ends the group's wait for room and activates the members parked for it, on a timer
// of its own: a native group's PreEnqueue and Gang's hints, which call it, run under the queue's
// lock, which activation takes.
func (m *Manager) EndRoomWait(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok {
		if g.room.waiter != "" {
			klog.Background().V(4).Info("Pod group's wait for room ends", "podGroup", key)
			// Its turn has come, but it has not taken it: its waiter is on its way to the active
			// queue, and a younger group's member popped in the meantime would find it neither
			// waiting (olderFits) nor placing (turnRemaining) and take the room. That was the
			// hand-over fault of issue 28: one run in ten of TestBacklogShort let a younger
			// group in, its member popped while the freeing's requeue of the older waiters was
			// under way. It gives way to the group as to one woken for its turn, until the group
			// is admitted, turned away again, or turnMax has passed.
			m.turnWoken[key] = m.clock.Now()
		}
		m.endRoomWait(key, g)
	}
}

// waiterLetIn records that pod passed PreEnqueue. If it is its group's waiter, let in by its own
// plugins' hints on a room event, the group is given way to as one woken for its turn, for
// turnMax at most (turnRemaining, OlderWaiting), but its wait goes on, and its other members stay
// parked, until Admit finds the room holds the group. Had they followed the waiter at once, each
// room event would cost every waiting group a cycle per member, all but the waiter's futile
// whenever the room cannot hold it (BenchmarkBacklog: 3,973 cycles after one freeing among 1,000
// waiting groups of 4, 2,933 of them members told their group waits). A native group's wait ends
// here: the queue moves its members as one entity, only when every member passes PreEnqueue.
func (m *Manager) waiterLetIn(key types.NamespacedName, pod types.UID) {
	if m.native != nil && m.native(key) {
		m.EndRoomWait(key)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok && g.room.waiter == pod {
		m.roomWaiting.Delete(key)
		m.turnWoken[key] = m.clock.Now()
	}
}

// EndRoomWaitsIn ends the waits for room of the groups in namespace.
func (m *Manager) EndRoomWaitsIn(namespace string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, g := range m.groups {
		if key.Namespace == namespace {
			m.endRoomWait(key, g)
		}
	}
}

// NoteNeed records that the group's waiter was turned away by the room there is (pkg/gang's roomsum.go),
// and the least its group needs.
func (m *Manager) NoteNeed(key types.NamespacedName, need RoomNeed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok && g.room.waiter != "" {
		g.room.need = need
	}
}

// RoomNeed is the least a group that holds nothing needs: in All, and on some one node for any
// one member (One).
type RoomNeed struct {
	All, One amount.Amount
}

// OlderWaiter is a group that waits for room, turned away by the room there is, and what it needs.
type OlderWaiter struct {
	Key  types.NamespacedName
	Need RoomNeed
}

// OlderWaiting lists the groups older than key's (see older) whose waiters the sum of room
// turned away, and which still wait or have just been woken for their turn (see EndRoomWait):
// PreFilter reads the turn first and this after, and a wait that ends in between must be seen
// by one of them.
func (m *Manager) OlderWaiting(key types.NamespacedName) []OlderWaiter {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	if !ok {
		return nil
	}
	var out []OlderWaiter
	add := func(other types.NamespacedName) {
		if o, ok := m.groups[other]; ok && o.room.need.All != nil && m.older(other, key, g) {
			out = append(out, OlderWaiter{Key: other, Need: o.room.need})
		}
	}
	for other := range m.roomWaiting {
		add(other)
	}
	now := m.clock.Now()
	for other, at := range m.turnWoken {
		// A group woken for its turn is given way to for turnMax at most, as in turnRemaining: one
		// whose pods went before it was tried must not hold the younger ones back.
		if !m.roomWaiting.Has(other) && now.Before(at.Add(m.turnMax)) {
			add(other)
		}
	}
	return out
}

// GiveWay parks pod for its turn, behind an older group (see olderFits): it is woken when that
// group's round ends or it fails, or after turnMax.
func (m *Manager) GiveWay(key types.NamespacedName, pod *v1.Pod) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	g := m.group(key)
	g.parked[pod.UID] = parkedPod{pod: pod, reason: ParkedTurn}
	m.joinTurnLine(key, g)
	m.armWake(key, g, now.Add(m.turnMax))
}

// IsRoomWaiter reports whether pod is the member its group's wait for room hangs on.
func (m *Manager) IsRoomWaiter(key types.NamespacedName, pod types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[key]
	return ok && g.room.waiter != "" && g.room.waiter == pod
}

// endRoomWait is EndRoomWait with the lock held; also called when the waiter is deleted.
func (m *Manager) endRoomWait(key types.NamespacedName, g *group) {
	if g.room.waiter == "" {
		return
	}
	g.room.waiter, g.room.until = "", time.Time{}
	m.roomWaiting.Delete(key)
	var pods []*v1.Pod
	for uid, p := range g.parked {
		if p.reason == ParkedNoRoom {
			pods = append(pods, p.pod)
			delete(g.parked, uid)
		}
	}
	if len(pods) > 0 {
		m.clock.AfterFunc(0, func() { m.hooks.Activate(pods) })
	}
}
