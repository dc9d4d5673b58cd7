package gangcore

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The line of groups parked for their turn names the oldest of them (in QOSSort's order: priority,
// creation, name) whatever happens to the groups in between: pods parked and let in by any path,
// groups forgotten and made anew, groups whose place is not known. Checked against reading every
// group, after each of many random steps.
func TestTurnLineNamesTheOldestParkedGroup(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 42))
	m, _, _ := testManager()
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	var keys []types.NamespacedName
	for i := range 40 {
		// Few priorities and creation times, so that ties fall to the name; namespaces one
		// a prefix of another, as "a/x" and "a-b/x" order by the whole key.
		keys = append(keys, types.NamespacedName{Namespace: []string{"a", "a-b", "b"}[i%3], Name: fmt.Sprintf("g%d", i)})
	}
	pod := func(key types.NamespacedName, j int) *v1.Pod {
		return member(key.Name, fmt.Sprintf("%s-%d", key.Name, j), fmt.Sprintf("uid-%s-%s-%d", key.Namespace, key.Name, j))
	}
	want := func() (types.NamespacedName, bool) {
		var first types.NamespacedName
		found := false
		for key, g := range m.groups {
			if g.created.IsZero() || !g.parkedForTurn() {
				continue
			}
			if !found || m.older(key, first, m.groups[first]) {
				first, found = key, true
			}
		}
		return first, found
	}
	for step := range 5000 {
		key := keys[rng.IntN(len(keys))]
		g := m.group(key)
		if g.created.IsZero() && rng.IntN(10) > 0 {
			// Its place, set once, as rules does: one group in ten never has one.
			g.priority = int32(rng.IntN(2))
			g.created = now.Add(time.Duration(rng.IntN(4)) * time.Second)
		}
		p := pod(key, rng.IntN(2))
		switch op := rng.IntN(5); op {
		case 0, 1:
			m.park(key, g, p, ParkedTurn, now)
		case 2:
			// Let in by PreEnqueue, a wake-up or a deletion: the line is not told.
			delete(g.parked, p.UID)
		case 3:
			// Parked for another reason instead.
			m.park(key, g, p, ParkedNoRoom, now)
		case 4:
			// Its pods gone and the group forgotten; it may come back with another place.
			clear(g.parked)
			g.wakeAt = time.Time{}
			m.gc(key, now)
		}
		wantKey, wantOK := want()
		gotKey, gotOK := m.firstParkedForTurn()
		if gotOK != wantOK || gotKey != wantKey {
			t.Fatalf("step %d: first parked for its turn %v (%v), want %v (%v)", step, gotKey, gotOK, wantKey, wantOK)
		}
	}
}
