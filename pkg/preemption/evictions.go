package preemption

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// evictionShowsWithin bounds how long a victim counts as being evicted before its deletion shows
// in the scheduler's snapshot; past it, the eviction is taken to have failed (the executor has
// retried the preemptor already) and the pod may be chosen again.
const evictionShowsWithin = 30 * time.Second

// evictions are the victims this plugin's preemptions chose whose deletion the scheduler's
// snapshot does not show yet: upstream's executor deletes them in the background. A later
// preemption may choose such a pod again (its room is counted once: the first preemptor is
// nominated to the node and the dry run counts it there), but it must not ask for its deletion
// again. Asked, the executor of the second preemptor may find it gone already; when it was that
// preemptor's last victim, no deletion event follows and the executor does not activate the
// preemptor, which its PreEnqueue held out of the queue meanwhile: it waits for the queue's
// five-minute flush. So such a victim is handed to the evaluator as terminating (see
// asTerminating), as upstream hands over pods whose deletion it sees: the executor sends nothing
// for it, and the preemptor is retried by the deletion like any pod that waits for room. The set
// is as wide as upstream's executor (one per profile), whose deletions it tracks.
type evictions struct {
	mu    sync.Mutex
	since map[types.UID]time.Time
	// rooms are, by preemptor, the node its last preemption nominated it to and the victims it
	// evicted there (see waitsForItsVictims).
	rooms map[types.UID]room
	now   func() time.Time
}

// room is what one preemption freed for its preemptor: the node and the victims.
type room struct {
	node    string
	victims map[types.UID]bool
	at      time.Time
}

// roomKeptFor bounds how long a preemptor's room is remembered: longer than a victim's graceful
// termination (30 s by default) takes, so the preemptor waits for it rather than evicting again.
const roomKeptFor = 10 * time.Minute

func newEvictions() *evictions {
	return &evictions{since: map[types.UID]time.Time{}, rooms: map[types.UID]room{}, now: time.Now}
}

// nominate records that preemptor was nominated to node, its victims evicted there.
func (e *evictions) nominate(preemptor types.UID, node string, victims []*v1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	for uid, r := range e.rooms {
		if now.Sub(r.at) > roomKeptFor {
			delete(e.rooms, uid)
		}
	}
	r := room{node: node, victims: make(map[types.UID]bool, len(victims)), at: now}
	for _, p := range victims {
		r.victims[p.UID] = true
	}
	e.rooms[preemptor] = r
}

// nominatedNode is the node preemptor waits for: its status's nomination, or, while the status
// does not show it yet (the scheduler writes it after the cycle), the one its last preemption
// chose.
func (e *evictions) nominatedNode(preemptor *v1.Pod) string {
	if preemptor.Status.NominatedNodeName != "" {
		return preemptor.Status.NominatedNodeName
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if r, ok := e.rooms[preemptor.UID]; ok && e.now().Sub(r.at) <= roomKeptFor {
		return r.node
	}
	return ""
}

// waitsForItsVictims reports whether one of the pods on node, the preemptor's nominated node, is a
// victim its own preemption evicted there that has not gone yet (terminating, or its deletion not
// shown).
func (e *evictions) waitsForItsVictims(preemptor types.UID, node string, pods []*v1.Pod) bool {
	e.mu.Lock()
	r, ok := e.rooms[preemptor]
	e.mu.Unlock()
	if !ok || r.node != node {
		return false
	}
	for _, p := range pods {
		if r.victims[p.UID] && (p.DeletionTimestamp != nil || e.underway(p)) {
			return true
		}
	}
	return false
}

// add records pods as being evicted now, and forgets those whose deletion should have shown. A
// pod waiting at Permit (waiting says which) is not recorded: the executor rejects it in memory,
// nothing is deleted, and the pod goes back to the queue at once. Recorded, it counted as being
// evicted for evictionShowsWithin even after it was scheduled again and bound: a gang member
// rejected so and bound again 9 s later was handed to the next preemption of its group as
// terminating, and the executor evicted the other member alone (TestFairShareChurnEvictsOnly-
// WhatTheSplitNeeds under load, issue 42).
func (e *evictions) add(pods []*v1.Pod, waiting func(types.UID) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	for uid, t := range e.since {
		if now.Sub(t) > evictionShowsWithin {
			delete(e.since, uid)
		}
	}
	for _, p := range pods {
		if p.DeletionTimestamp == nil && !waiting(p.UID) {
			e.since[p.UID] = now
		}
	}
}

// underway reports whether p's eviction was started and its deletion does not show on p yet.
func (e *evictions) underway(p *v1.Pod) bool {
	if p.DeletionTimestamp != nil {
		// Terminating: upstream's rules for such pods apply.
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.since[p.UID]
	return ok && e.now().Sub(t) <= evictionShowsWithin
}

// asTerminating returns victims with each pod whose eviction is underway replaced by a copy that
// is terminating, so that the executor leaves it alone.
func (e *evictions) asTerminating(victims []*v1.Pod) []*v1.Pod {
	for i, p := range victims {
		if e.underway(p) {
			c := p.DeepCopy()
			c.DeletionTimestamp = &metav1.Time{Time: e.now()}
			victims[i] = c
		}
	}
	return victims
}
