package topology

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/amount"
)

// Node is what the choice reads of a node: the node, for its domains, and Room, how many of the
// group's members fit on it (amount.Fits of what is free there and what a member asks). The caller counts
// Room from what it knows of the node, without a map per node: the choice reads every node of the
// cluster.
type Node struct {
	Node *v1.Node
	Room int
	// Evictable is how many more members would fit once the pods that the group's members may
	// preempt go; only ChooseToPreempt reads it.
	Evictable int
}

// Group is what a pod group still needs placed: Count members, each asking at most Member (the
// largest request of each resource among them; only messages read it: Node.Room counts it), and
// the nodes its members already hold a place on, which fix the domain.
type Group struct {
	Count  int
	Member amount.Amount
	Placed []string
}

// Choice is where a group goes: every node in Domain, of level Level. Room is how many more members
// like the group's the domain could take besides it.
type Choice struct {
	Level  int
	Domain Domain
	Room   int
}

// NoRoom is why no domain of the level can hold the group: Largest is the most members any of its
// domains can take, Split that the placed members are already in several domains. Fixed says that
// placed members fix the domain, Domain, and then Largest is its room. Each is what each member
// asks, as a person reads it.
type NoRoom struct {
	Key     string
	Count   int
	Each    string
	Largest int
	Split   bool
	Fixed   bool
	Domain  Domain
}

func (e *NoRoom) Error() string {
	each := ""
	if e.Each != "" {
		each = " (each " + e.Each + ")"
	}
	switch {
	case e.Split:
		return fmt.Sprintf("has placed members in more than one %s domain", e.Key)
	case e.Fixed:
		return fmt.Sprintf("needs room for %d more members%s in %s=%s, where its placed members are; it has room for %d",
			e.Count, each, e.Key, e.Domain, e.Largest)
	}
	return fmt.Sprintf("needs one %s domain with room for %d members%s; the largest has room for %d", e.Key, e.Count, each, e.Largest)
}

// Choose picks the domain for g under c. Among the domains that hold the whole group it takes the
// one with the least room left over, so that big domains stay whole for big groups (ties go to the
// first name). Nodes where members already hold a place leave only their domain. A preferred
// constraint that no domain of its level can meet tries each enclosing level in turn, and then
// takes no domain (ok, with a nil Choice). A required one returns a *NoRoom error.
func (ix *Index) Choose(c Constraint, nodes []Node, g Group) (*Choice, error) {
	return ix.choose(c, nodes, g, false)
}

// ChooseToPreempt is Choose for a group whose members may evict pods: a domain holds it when its
// Room and Evictable together do, and among those it takes the one where the fewest members need
// room that evictions free, then the least room left over. Preemption then looks for victims in that
// domain only (Gang's Filter keeps the members to it), so the domain fixes how many pods go: a rack
// that already has room for most of the group loses fewer pods than one that has room for none,
// whatever the racks are called. The Choice's Room counts what the evictions would free.
func (ix *Index) ChooseToPreempt(c Constraint, nodes []Node, g Group) (*Choice, error) {
	return ix.choose(c, nodes, g, true)
}

func (ix *Index) choose(c Constraint, nodes []Node, g Group, preempt bool) (*Choice, error) {
	var first *NoRoom
	for level := c.Level; level >= 0; level-- {
		choice, noRoom := ix.chooseAt(level, nodes, g, preempt)
		if noRoom == nil {
			return choice, nil
		}
		if first == nil {
			first = noRoom
		}
		if c.Required {
			break
		}
	}
	if c.Required {
		return nil, first
	}
	return nil, nil
}

func (ix *Index) chooseAt(level int, nodes []Node, g Group, preempt bool) (*Choice, *NoRoom) {
	// room counts what a domain could give the group; evict, of that, what evictions would free.
	room, evict := map[Domain]int{}, map[Domain]int{}
	noRoom := &NoRoom{Key: ix.levels[level], Count: g.Count, Each: g.Member.String()}
	// The placed members' nodes, each with its domain once found; usually none or a few.
	placed := make(map[string]bool, len(g.Placed))
	for _, name := range g.Placed {
		placed[name] = false
	}
	var fixed Domain
	haveFixed := false
	for _, n := range nodes {
		d, ok := ix.DomainOf(n.Node, level)
		if found, isPlaced := placed[n.Node.Name]; isPlaced && !found {
			placed[n.Node.Name] = true
			if !ok || haveFixed && d != fixed {
				noRoom.Split = true
			}
			fixed, haveFixed = d, true
		}
		if ok {
			room[d] += n.Room
			if preempt {
				room[d] += n.Evictable
				evict[d] += n.Evictable
			}
		}
	}
	if len(placed) > 0 {
		for _, found := range placed {
			noRoom.Split = noRoom.Split || !found
		}
		if noRoom.Split {
			return nil, noRoom
		}
		noRoom.Fixed, noRoom.Domain = true, fixed
		room = map[Domain]int{fixed: room[fixed]}
	}
	var best *Choice
	bestNeed := 0
	for _, d := range slices.Sorted(maps.Keys(room)) {
		r := room[d]
		noRoom.Largest = max(noRoom.Largest, r)
		if r < g.Count {
			continue
		}
		// need is how many members only evictions make room for; 0 unless preempting.
		need := max(0, g.Count-(r-evict[d]))
		if best == nil || need < bestNeed || need == bestNeed && r-g.Count < best.Room {
			best, bestNeed = &Choice{Level: level, Domain: d, Room: r - g.Count}, need
		}
	}
	if best == nil {
		return nil, noRoom
	}
	return best, nil
}
