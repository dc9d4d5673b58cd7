package gang

import (
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Waiting for room.
//
// A group that holds nothing and whose member finds no node has lost nothing and given nothing
// back: it only waits for room. It used to stand aside for backoffBase and be retried by a timer,
// so each waiting group cost a scheduling cycle every two seconds while nothing changed, and the
// first group that fitted when room appeared waited for its timer.
//
// Now the member that found no room (the waiter) carries its group. It goes back to the queue's
// unschedulable pods, rejected by the plugins that turned it away (NodeResourcesFit, GPUShare,
// ElasticQuota, ...), and their queueing hints requeue it on the events that can change their
// answer: a pod ending or deleted, a node added or grown, quota freed. The group's other members
// wait in Gang's PreEnqueue, parked for no room, and Gang's own hints skip them: a room event
// costs one scheduling cycle per waiting group, its waiter's, not one per member, and nothing
// while nothing changes. When the waiter passes PreEnqueue again the wait ends and its siblings
// are activated; QOSSort puts them right behind it (a group's members share one sort key), and
// the oldest groups first, so the oldest group whose need fits takes the room.
//
// Room must go to the oldest groups first, and upstream's queue gets in the way: a pod that keeps
// failing is backed off (1 s doubling to 10 s), so room appearing while a wake's retries are under
// way went to the younger groups not yet retried, while older ones, turned away a moment before,
// sat out their backoff (BenchmarkBacklog saw the second freeing of room for 10 groups bind
// groups 33 to 42 of 300, with 10 to 32 waiting; the first freeing of the short run bound groups
// 0 to 4 and 34 to 38: room freed node by node met groups turned away by the node before). So
// when room may have appeared (an assigned pod deleted or ended, a node added, grown or made
// schedulable), the waiters of the roomHead oldest groups that may sit in backoff (turned away
// within roomBackoff and not kicked since) are activated past it, at once, before the hints'
// younger waiters are reached; QOSSort tries them first. A kicked waiter may run its cycle
// before the scheduler's snapshot shows the room, so the kicks are looked at again roomKickEvery
// after the last note, and again while that kicks someone. A group is kicked at most once per
// roomKickEvery, doubling with each kick of its wait up to roomKickMax: a stream of pods ending
// that never makes room for a big group costs at most roomHead cycles per roomKickMax, not a
// tight loop. Younger groups keep to the hints and their backoff.
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
	// pod is the waiter; failed is when it was last turned away, kicked when RoomAppeared last
	// activated it, and kicks how often it has since the wait began.
	pod            *v1.Pod
	failed, kicked time.Time
	kicks          int
}

// minRoomBackstop is a waiting group's first backstop: upstream's queue flushes unschedulable pods
// after five minutes too. maxRoomBackstop caps its doubling.
const (
	minRoomBackstop = 5 * time.Minute
	maxRoomBackstop = 40 * time.Minute
)

// waitForRoom starts the group's wait for room, with pod as its waiter. The caller holds the lock.
func (m *manager) waitForRoom(key types.NamespacedName, g *group, pod *v1.Pod, why string, now time.Time) {
	backstop := minRoomBackstop
	for i := 0; i < g.room.waits && backstop < maxRoomBackstop; i++ {
		backstop *= 2
	}
	backstop = min(backstop, maxRoomBackstop)
	g.room = roomWait{waiter: pod.UID, until: now.Add(backstop), waits: g.room.waits + 1, why: why, pod: pod, failed: now, kicked: g.room.kicked, kicks: g.room.kicks}
	m.park(key, g, pod, parkedNoRoom, now)
}

// WaitsForRoom reports whether pod is held back because its group waits for room, and what the
// waiter lacked. The waiter itself is never held: its own plugins decided that it may try again.
func (v groupView) WaitsForRoom(pod types.UID) (bool, string) {
	r := v.g.room
	return r.waiter != "" && r.waiter != pod && v.now.Before(r.until), r.why
}

// EndRoomWait ends the group's wait for room and activates the members parked for it, on a timer
// of its own: PreEnqueue, which calls it, runs under the queue's lock, which activation takes.
func (m *manager) EndRoomWait(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok {
		m.endRoomWait(g)
	}
}

// endRoomWait is EndRoomWait with the lock held; also called when the waiter is deleted.
func (m *manager) endRoomWait(g *group) {
	if g.room.waiter == "" {
		return
	}
	g.room.waiter, g.room.until, g.room.pod = "", time.Time{}, nil
	var pods []*v1.Pod
	for uid, p := range g.parked {
		if p.reason == parkedNoRoom {
			pods = append(pods, p.pod)
			delete(g.parked, uid)
		}
	}
	if len(pods) > 0 {
		m.clock.AfterFunc(0, func() { m.hooks.activate(pods) })
	}
}

// waitsForRoom is what a member held back while its group waits for room is told. It leaves out
// the backstop, which grows, so that the message changes only when the cause does.
func waitsForRoom(key types.NamespacedName, why string) string {
	return fmt.Sprintf("pod group %s waits for room because it %s; it is tried again when that member's own check may pass (pods end, nodes join or grow, quota is freed)", key, why)
}

// The limits of RoomAppeared: how many of the oldest groups it kicks, how long after a waiter
// was turned away it may sit in backoff (upstream's default podMaxBackoffSeconds), and how often
// one group is kicked at most, at first and at last.
const (
	roomHead      = 16
	roomBackoff   = 10 * time.Second
	roomKickEvery = 100 * time.Millisecond
	roomKickMax   = 1600 * time.Millisecond
)

// RoomAppeared returns the waiters to kick now, of the n oldest waiting groups by older that may
// sit in backoff, and notes them kicked. A group waits between kicks roomKickEvery, doubled with
// each kick of its wait up to roomKickMax.
func (m *manager) RoomAppeared(n int, older func(a, b *v1.Pod) int) []*v1.Pod {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	var waiting []*group
	for _, g := range m.groups {
		if r := g.room; r.waiter != "" && now.Sub(r.failed) < roomBackoff && r.kicked.Before(r.failed) {
			waiting = append(waiting, g)
		}
	}
	slices.SortFunc(waiting, func(a, b *group) int { return older(a.room.pod, b.room.pod) })
	var pods []*v1.Pod
	for _, g := range waiting[:min(n, len(waiting))] {
		if now.Sub(g.room.kicked) >= min(roomKickEvery<<min(max(g.room.kicks-1, 0), 8), roomKickMax) {
			g.room.kicked = now
			g.room.kicks++
			pods = append(pods, g.room.pod)
		}
	}
	return pods
}

// olderGroup orders pods by when returns for their groups, then by name.
func olderGroup(when func(*v1.Pod) time.Time) func(a, b *v1.Pod) int {
	return func(a, b *v1.Pod) int {
		if c := when(a).Compare(when(b)); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	}
}
