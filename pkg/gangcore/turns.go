package gangcore

import (
	"container/heap"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

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
	if first, ok := m.firstParkedForTurn(); ok && m.older(first, key, g) {
		return m.turnMax
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

// older reports whether group other goes before group key (g) in QOSSort's order (see place). A
// group whose place is not known yet goes before none and after none. The caller holds the lock.
func (m *Manager) older(other, key types.NamespacedName, g *group) bool {
	o, ok := m.groups[other]
	if other == key || !ok || o.created.IsZero() || g.created.IsZero() {
		return false
	}
	return placeOf(other, o).before(placeOf(key, g))
}

// place is where a group stands in QOSSort's order: higher priority first, then created first,
// then by name.
type place struct {
	key      types.NamespacedName
	priority int32
	created  time.Time
}

func placeOf(key types.NamespacedName, g *group) place {
	return place{key: key, priority: g.priority, created: g.created}
}

func (a place) before(b place) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if !a.created.Equal(b.created) {
		return a.created.Before(b.created)
	}
	return a.key.String() < b.key.String()
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

// turnTaken records that a member of the group was admitted by PreFilter: its group's turn has
// come and its round starts in this scheduling cycle, or it fails and passes the turn on
// (waitForRoom).
func (m *Manager) turnTaken(key types.NamespacedName) {
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
		m.leaveTurnLine(key)
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

// nextTurns lists the groups parked for their turn whose turn has come (see wakeTurns). The
// caller holds the lock.
func (m *Manager) nextTurns(now time.Time) []types.NamespacedName {
	var due []types.NamespacedName
	if first, ok := m.firstParkedForTurn(); ok && m.turnRemaining(first, m.groups[first], now) == 0 {
		due = append(due, first)
	}
	for key := range m.turnParked.unplaced {
		// Its place is not known: it gives way to no one, and no one to it.
		if g, ok := m.groups[key]; !ok || !g.parkedForTurn() {
			m.turnParked.unplaced.Delete(key)
		} else if m.turnRemaining(key, g, now) == 0 {
			due = append(due, key)
		}
	}
	return due
}

// turnLine holds the groups with pods parked for their turn (ParkedTurn), in QOSSort's order: a
// group that holds nothing asks whether an older one is parked (turnRemaining) each time a member
// passes PreEnqueue or PreFilter or a timer fires, and each turn handed on asks which is oldest
// (nextTurns). Reading them all for each answer made a freeing in a deep backlog n²: 170 to 205 ms
// of the manager's time with 1,000 groups waiting (BenchmarkRoomEvent), 12 to 16% of
// berth-scheduler's CPU in BenchmarkBacklog's tries.
//
// A group may stay in the line after its pods were let in (they leave g.parked in many places):
// firstParkedForTurn drops such a group when it reaches the front, and nextTurns when it meets one.
type turnLine struct {
	// placed holds the groups whose place in QOSSort's order is known, each with the generation
	// of its entry in order; unplaced the others, which give way to no one and to which no one
	// gives way (see older).
	placed   map[types.NamespacedName]uint64
	unplaced sets.Set[types.NamespacedName]
	// order is a heap of placed's entries, oldest group first. An entry whose generation is not
	// its group's in placed is left over from an earlier stay in the line.
	order turnOrder
	gen   uint64
}

type turnEntry struct {
	place
	gen uint64
}

func newTurnLine() turnLine {
	return turnLine{placed: map[types.NamespacedName]uint64{}, unplaced: sets.New[types.NamespacedName]()}
}

// Len is how many groups are in the line.
func (l *turnLine) Len() int { return len(l.placed) + l.unplaced.Len() }

// joinTurnLine records that the group has a pod parked for its turn. The caller holds the lock.
func (m *Manager) joinTurnLine(key types.NamespacedName, g *group) {
	l := &m.turnParked
	if g.created.IsZero() {
		l.unplaced.Insert(key)
		return
	}
	if _, in := l.placed[key]; in {
		return
	}
	l.gen++
	l.placed[key] = l.gen
	heap.Push(&l.order, turnEntry{place: placeOf(key, g), gen: l.gen})
	if len(l.order) > 2*len(l.placed)+64 {
		// Left-over entries of groups that came and went: the line is rebuilt from placed.
		l.order = l.order[:0]
		for k, gen := range l.placed {
			if o, ok := m.groups[k]; ok {
				l.order = append(l.order, turnEntry{place: placeOf(k, o), gen: gen})
			} else {
				delete(l.placed, k)
			}
		}
		heap.Init(&l.order)
	}
}

// leaveTurnLine records that the group has no pod parked for its turn any more. The caller holds
// the lock.
func (m *Manager) leaveTurnLine(key types.NamespacedName) {
	delete(m.turnParked.placed, key)
	m.turnParked.unplaced.Delete(key)
}

// firstParkedForTurn returns the group parked for its turn that comes first in QOSSort's order,
// of those whose place is known: every younger group gives way to it. The caller holds the lock.
func (m *Manager) firstParkedForTurn() (types.NamespacedName, bool) {
	l := &m.turnParked
	for len(l.order) > 0 {
		e := l.order[0]
		if gen, in := l.placed[e.key]; in && gen == e.gen {
			if g, ok := m.groups[e.key]; ok && g.parkedForTurn() {
				return e.key, true
			}
			delete(l.placed, e.key)
		}
		heap.Pop(&l.order)
	}
	return types.NamespacedName{}, false
}

// turnOrder is a heap of turnEntry, by place.
type turnOrder []turnEntry

func (o turnOrder) Len() int           { return len(o) }
func (o turnOrder) Less(i, j int) bool { return o[i].before(o[j].place) }
func (o turnOrder) Swap(i, j int)      { o[i], o[j] = o[j], o[i] }
func (o *turnOrder) Push(x any)        { *o = append(*o, x.(turnEntry)) }
func (o *turnOrder) Pop() any {
	old := *o
	e := old[len(old)-1]
	*o = old[:len(old)-1]
	return e
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

// TurnMax is how long a group that holds nothing gives way to another group's round at most.
func (m *Manager) TurnMax() time.Duration { return m.turnMax }
