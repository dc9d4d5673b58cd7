package topology

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Resources are amounts by resource name, in the units the scheduler counts them (millicores for
// cpu, a count for pods, the value for anything else).
type Resources map[string]int64

// Node is what the choice reads of a node: its labels and what is free on it.
type Node struct {
	Name   string
	Labels map[string]string
	Free   Resources
}

// Group is what a pod group still needs placed: Count members, each asking at most Member (the
// largest request of each resource among them; "pods" is counted apart), and the nodes its members
// already hold a place on, which fix the domain.
type Group struct {
	Count  int
	Member Resources
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
// domains can take (the domain placed members fix, if any), Split that the placed members are
// already in several domains.
type NoRoom struct {
	Key     string
	Count   int
	Largest int
	Split   bool
}

func (e *NoRoom) Error() string {
	if e.Split {
		return fmt.Sprintf("its placed members are in more than one %s domain", e.Key)
	}
	return fmt.Sprintf("needs one %s domain with room for %d members; the largest has room for %d", e.Key, e.Count, e.Largest)
}

// Choose picks the domain for g under c. Among the domains that hold the whole group it takes the
// one with the least room left over, so that big domains stay whole for big groups (ties go to the
// first name). Nodes where members already hold a place leave only their domain. A preferred
// constraint that no domain of its level can meet tries each enclosing level in turn, and then
// takes no domain (ok, with a nil Choice). A required one returns a *NoRoom error.
func (l Levels) Choose(c Constraint, nodes []Node, g Group) (*Choice, error) {
	var first *NoRoom
	for level := c.Level; level >= 0; level-- {
		choice, noRoom := l.chooseAt(level, nodes, g)
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

func (l Levels) chooseAt(level int, nodes []Node, g Group) (*Choice, *NoRoom) {
	room := map[Domain]int{}
	where := map[string]Domain{}
	for _, n := range nodes {
		d, ok := l.DomainOf(n.Labels, level)
		if !ok {
			continue
		}
		where[n.Name] = d
		room[d] += Fits(n.Free, g.Member)
	}
	noRoom := &NoRoom{Key: l[level], Count: g.Count}
	if len(g.Placed) > 0 {
		fixed, ok := where[g.Placed[0]]
		for _, name := range g.Placed[1:] {
			if d, in := where[name]; !in || d != fixed {
				ok = false
			}
		}
		if !ok {
			noRoom.Split = true
			return nil, noRoom
		}
		room = map[Domain]int{fixed: room[fixed]}
	}
	var best *Choice
	for _, d := range slices.Sorted(maps.Keys(room)) {
		r := room[d]
		noRoom.Largest = max(noRoom.Largest, r)
		if r >= g.Count && (best == nil || r-g.Count < best.Room) {
			best = &Choice{Level: level, Domain: d, Room: r - g.Count}
		}
	}
	if best == nil {
		return nil, noRoom
	}
	return best, nil
}

// Fits is how many members asking member fit into free: the least, over one pod slot each and
// the resources member asks for, of free over asked.
func Fits(free, member Resources) int {
	n := free[Pods]
	for name, want := range member {
		if want > 0 && name != Pods {
			n = min(n, free[name]/want)
		}
	}
	return int(max(n, 0))
}

// Pods names the free pod slots in Resources.
const Pods = "pods"

// Requests is what pod asks for, as Resources count it.
func Requests(pod *v1.Pod) Resources {
	out := Resources{}
	for name, q := range resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}) {
		v := q.Value()
		if name == v1.ResourceCPU {
			v = q.MilliValue()
		}
		out[string(name)] = v
	}
	return out
}
