package gangcore

import (
	"maps"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// Room freed while a native group's cycle runs (issue 45).
//
// The scheduler's queue holds a native group's members as one entity, pops it for one cycle, and,
// unlike a pod's cycle, keeps no record of the events that come while the members are in flight:
// when the cycle fails, the entity goes back as it was, and an AssignedPodDelete or NodeAdd that
// came meanwhile reached no queueing hint for it. If the cycle's snapshot, taken when it began,
// did not show that room either, and Gang then has the group wait for room, nothing is left to
// wake it but the backstop (minutes). Gang's own informer handlers see every freeing too, on
// goroutines of their own: before, during or after the scheduler's handler, which updates the
// cache the snapshot is taken from and then tells the queue. So whichever comes first, a freeing
// that a native group may have missed brings the group back within roomRecheck, while the
// queue's event, when it reaches the group parked, still moves it at once:
//
//   - seen by Gang before the group's cycle decides to wait (PodGroupPostFilter), it is recorded
//     here until a snapshot shows it: a cycle whose snapshot still shows a freed pod on its node,
//     or a pod scaled down in place, or a node that joined or grew, at another resourceVersion
//     than the freeing's, missed room; so did a cycle during
//     which RoomFreed's count changed. The group then waits for room with a backstop of
//     roomRecheck rather than minutes.
//   - seen by Gang after a group began to wait, it cuts every native group's backstop to
//     roomRecheck: a group whose cycle was in flight when the queue was told is found by no hint.
//
// A freeing is recorded, and then counted (RoomFreed, under the manager's lock); a cycle reads the
// count when its first member is let on, and, when it fails, checks a copy of the record against
// its snapshot with no lock held (a minute's deletions can be many), then decides to wait under the
// manager's lock, reading the count again. A freeing is either in the copy, or counted after the
// cycle's first reading and before the decision (the count moved: the wait is short), or counted
// after the decision (and shortens it). The backstop's timer wakes the members
// parked for room through the queue's Activate, which finds the group parked: PreEnqueue parks
// them only until the backstop ends, and after it lets them go to the queue's backoff.
// Scheduler-plugins groups need none of this: their waiter is a pod, whose cycle the queue keeps
// events for.

// roomRecheck is how soon a native group that may have missed a freeing is tried again should the
// queue's event for it be lost: a scheduling cycle or two on a loaded machine, and less than the
// queue's backoff after a few failed cycles (1 s doubling to 10 s), which no event shortens.
const roomRecheck = time.Second

// freedHorizon is how long a freeing is kept unshown: the scheduler's handler updates the cache
// within a moment of Gang's, so an entry older than this can only be one no native group's cycle
// looked at since.
const freedHorizon = time.Minute

// freedRoom is the freeings Gang's handlers saw that no native group's cycle has yet seen in its
// snapshot. Kept only while native groups are served. It has a lock of its own, never held with the
// manager's, so that node and pod updates, most of which free nothing, do not wait for the manager,
// nor the manager for a copy of the record.
type freedRoom struct {
	mu sync.Mutex
	// pods holds the pods deleted, finished or scaled down while bound, with their node.
	pods map[types.UID]freedPod
	// nodes holds the nodes that joined, grew or became usable, with their latest resourceVersion.
	nodes map[string]freedNode
	// pruned is when entries past freedHorizon were last dropped.
	pruned time.Time
}

type freedPod struct {
	node string
	// version is the pod's latest resourceVersion when it was scaled down (it holds less room), ""
	// when it holds none (deleted or finished: the scheduler forgets it).
	version string
	at      time.Time
}

// shownBy reports whether a snapshot in which the pod is at version v (ok false: not on the node)
// shows the freeing.
func (p freedPod) shownBy(v string, ok bool) bool {
	if p.version == "" {
		return !ok
	}
	// On the node at another version: older, or newer than Gang's handler has seen yet.
	return ok && v == p.version
}

type freedNode struct {
	version string
	at      time.Time
}

func newFreedRoom() *freedRoom {
	return &freedRoom{pods: map[types.UID]freedPod{}, nodes: map[string]freedNode{}}
}

// prune drops entries older than freedHorizon, at most once per half of it. The caller holds f.mu.
func (f *freedRoom) prune(now time.Time) {
	if now.Sub(f.pruned) < freedHorizon/2 {
		return
	}
	f.pruned = now
	for uid, p := range f.pods {
		if now.Sub(p.at) > freedHorizon {
			delete(f.pods, uid)
		}
	}
	for name, n := range f.nodes {
		if now.Sub(n.at) > freedHorizon {
			delete(f.nodes, name)
		}
	}
}

// SnapshotView is what a failed cycle's snapshot shows: pod uid's resourceVersion on node, and
// node's (false: the snapshot has no such pod there, or no such node).
type SnapshotView struct {
	PodVersion  func(uid types.UID, node string) (string, bool)
	NodeVersion func(name string) (string, bool)
}

// missedBy reports whether view, a cycle's snapshot, misses a freeing recorded here, and forgets
// those it shows: later snapshots show them too. The record's lock is held only to copy it and to
// forget; the snapshot is read with no lock held. A freeing recorded after the copy is counted
// after it too (recordFreed), which the caller sees.
func (f *freedRoom) missedBy(view SnapshotView) bool {
	f.mu.Lock()
	pods, nodes := maps.Clone(f.pods), maps.Clone(f.nodes)
	f.mu.Unlock()

	missed := false
	var shownPods []types.UID
	var shownNodes []string
	for uid, p := range pods {
		if p.shownBy(view.PodVersion(uid, p.node)) {
			shownPods = append(shownPods, uid)
		} else {
			missed = true
		}
	}
	for name, n := range nodes {
		if v, ok := view.NodeVersion(name); ok && v == n.version {
			shownNodes = append(shownNodes, name)
		} else {
			// Not in the snapshot, or another version: older, or newer than Gang's handler has
			// seen yet, in which case the next cycle finds them equal.
			missed = true
		}
	}
	if len(shownPods)+len(shownNodes) == 0 {
		return missed
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	// An entry recorded again since the copy is a later freeing, or a later version, that this
	// snapshot was not checked against: kept.
	for _, uid := range shownPods {
		if f.pods[uid] == pods[uid] {
			delete(f.pods, uid)
		}
	}
	for _, name := range shownNodes {
		if f.nodes[name] == nodes[name] {
			delete(f.nodes, name)
		}
	}
	return missed
}

// PodFreed records that a bound pod that held room was deleted or finished (version ""), or was
// scaled down in place at version, and frees room (RoomFreed).
func (m *Manager) PodFreed(uid types.UID, node, version string) {
	m.recordFreed(func(f *freedRoom, now time.Time) { f.pods[uid] = freedPod{node: node, version: version, at: now} })
}

// NodeGrew records that a node joined, grew or became usable, at version, and frees room
// (RoomFreed).
func (m *Manager) NodeGrew(name, version string) {
	m.recordFreed(func(f *freedRoom, now time.Time) { f.nodes[name] = freedNode{version: version, at: now} })
}

// recordFreed lets record note a freeing, when native groups are served, and then frees room
// (RoomFreed): a cycle whose copy of the record (missedBy) lacks the freeing finds RoomFreed's
// count moved since its first member was let on, or, if it decided to wait first, has its wait
// cut short.
func (m *Manager) recordFreed(record func(f *freedRoom, now time.Time)) {
	if f := m.freed; f != nil {
		f.mu.Lock()
		now := m.clock.Now()
		record(f, now)
		f.prune(now)
		f.mu.Unlock()
	}
	m.RoomFreed()
}

// BoundPodChanged follows a pod recorded as scaled down to its latest version, as NodeChanged
// follows a node: a later update that frees nothing (its status, say) does not make every cycle
// look as if it missed the scale-down. It takes only the record's lock.
func (m *Manager) BoundPodChanged(uid types.UID, version string) {
	f := m.freed
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.pods[uid]; ok && p.version != "" {
		p.version = version
		f.pods[uid] = p
	}
}

// NodeChanged follows a recorded node to its latest version; a node deleted (version "") is
// forgotten. It frees no room and takes only the record's lock.
func (m *Manager) NodeChanged(name, version string) {
	f := m.freed
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[name]
	switch {
	case !ok:
	case version == "":
		delete(f.nodes, name)
	default:
		n.version = version
		f.nodes[name] = n
	}
}

// recheckNativeRoomWaits cuts the backstop of every native group that waits for room to
// roomRecheck. The caller holds the lock.
func (m *Manager) recheckNativeRoomWaits() {
	if m.freed == nil || m.roomWaiting.Len() == 0 {
		return
	}
	now := m.clock.Now()
	for key := range m.roomWaiting {
		if !m.native(key) {
			continue
		}
		if g, ok := m.groups[key]; ok && g.room.waiter != "" {
			m.recheckRoomWait(key, g, now)
		}
	}
}

// recheckRoomWait cuts the group's backstop to roomRecheck from now, if it ends later. The caller
// holds the lock.
func (m *Manager) recheckRoomWait(key types.NamespacedName, g *group, now time.Time) {
	at := now.Add(roomRecheck)
	if g.room.until.After(at) {
		klog.Background().V(4).Info("Room freed: native pod group's wait for room is cut short", "podGroup", key, "left", roomRecheck)
		g.room.until = at
		m.armWake(key, g, at)
	}
}

// GroupCycleFailed is MemberFailed for a native group's failed cycle (PodGroupPostFilter), whose
// first member was let on when RoomFreed's count was since, and whose snapshot view shows: a group
// that holds nothing waits for room, with a backstop of roomRecheck if room was freed since or the
// snapshot misses a freeing Gang has seen.
func (m *Manager) GroupCycleFailed(key types.NamespacedName, pod *v1.Pod, minMember int32, check SnapshotCheck, cause Cause, since uint64, view SnapshotView) MemberOutcome {
	// Before the lock, which every group's PreEnqueue, Permit and hints wait on: a freeing this
	// misses is counted after since (recordFreed), which the check below sees.
	missed := m.freed != nil && m.freed.missedBy(view)
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.group(key)
	if len(g.waiting) == 0 && len(g.placed) < int(minMember) {
		now := m.clock.Now()
		m.waitForRoom(key, g, pod, cause.Why, now)
		if m.roomFreed != since || missed {
			m.recheckRoomWait(key, g, now)
		}
		return MemberOutcome{}
	}
	return m.memberFailed(key, g, pod, minMember, check, cause)
}
