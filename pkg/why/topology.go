package why

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/topology"
)

// topologyBlocks answers for a member of a group that requires one domain of a level
// (berth.dev/topology-required) when no domain of that level has room for the members still to
// place: Gang holds every member until one does, whatever room the cluster has elsewhere. It
// counts as Gang's choice does (docs/gang-topology.md): the members still to place are every
// waiting member, at least enough to reach minMember, each asking what the largest asks; a
// domain's room is summed node by node over the nodes the pod may use; a group with members bound
// is fixed to their domain. It leaves the answer to explainGang when a domain has the room (the
// group waits for something else) and for preferred or invalid annotations, which do not hold a
// group back for want of a domain.
func (c *cluster) topologyBlocks(w *Answer, g *gangState) bool {
	levels := c.in.Levels
	if levels == nil {
		levels = topology.DefaultLevels()
	}
	con, ok, err := levels.ConstraintOf(g.pg.Topology)
	if err != nil || !ok || !con.Required {
		return false
	}
	labels := map[string]map[string]string{}
	for i := range c.in.Nodes {
		labels[c.in.Nodes[i].Name] = c.in.Nodes[i].Labels
	}
	n := TopologyNeedOf(g.bound, g.waiting, g.minMember, labels, levels, con.Level)
	if n.Count == 0 {
		return false
	}
	member, largest, need, fixed := n.Member, n.Largest, n.Count, n.Fixed
	if len(fixed) > 1 {
		// Placed spread (before the annotation was set): Gang no longer chooses one domain.
		return false
	}
	rooms := DomainRooms(c.nodes, levels, con.Level, c.in.Pod.Spec.Tolerations, member)
	domains := make([]topology.Domain, 0, len(rooms))
	total := 0
	for d, r := range rooms {
		domains = append(domains, d)
		total += r
	}
	// Most room first, then by name, so that the answer is the same on every run.
	slices.SortFunc(domains, func(a, b topology.Domain) int {
		if rooms[a] != rooms[b] {
			return rooms[b] - rooms[a]
		}
		return strings.Compare(string(a), string(b))
	})
	best, bestRoom := topology.Domain(""), 0
	switch {
	case len(fixed) == 1:
		best, bestRoom = fixed[0], rooms[fixed[0]]
	case len(domains) > 0:
		best, bestRoom = domains[0], rooms[domains[0]]
	}
	if bestRoom >= need {
		return false
	}

	w.Cause, w.Berth = CauseTopology, true
	like := fmt.Sprintf("like %s (%s)", largest.Name, member.String())
	switch {
	case len(domains) == 0:
		w.Summary = fmt.Sprintf("pod group %s requires one %s (berth.dev/topology-required) for %d %s, and no node it may use has the label %s: the level has no domain",
			g.key, con.Key, need, pluralWord(need, "member"), con.Key)
		w.Unblock = []string{
			fmt.Sprintf("nodes labelled %s (with the outer levels of %v) that the members may use", con.Key, []string(levels[:con.Level])),
			fmt.Sprintf("or the PodGroup's annotation %s removed or made %s", topology.RequiredAnnotation, topology.PreferredAnnotation),
		}
		return true
	case len(fixed) == 1:
		w.Summary = fmt.Sprintf("pod group %s requires one %s (berth.dev/topology-required) and its %d bound %s fixed it at %s=%s, which has room for %d of the %d %s still to place",
			g.key, con.Key, len(g.bound), pluralWord(len(g.bound), "member"), con.Key, best, bestRoom, need, pluralWord(need, "member"))
	default:
		w.Summary = fmt.Sprintf("pod group %s requires one %s (berth.dev/topology-required) for its %d %s still to place; the largest room any %s has is %d, at %s=%s",
			g.key, con.Key, need, pluralWord(need, "member"), con.Key, bestRoom, con.Key, best)
	}
	w.Details = append(w.Details,
		fmt.Sprintf("members: %d bound, %d waiting, minMember %d; each counted %s", len(g.bound), n.Waiting, g.minMember, like),
		fmt.Sprintf("room in members per %s (usable nodes only): %s", con.Key, roomList(domains, rooms, 5)))
	if total >= need && len(fixed) == 0 {
		w.Details = append(w.Details, fmt.Sprintf("the %d %ss together have room for %d: the group would fit spread over them, which the annotation forbids",
			len(domains), con.Key, total))
	}
	w.Unblock = []string{fmt.Sprintf("room for %d more %s %s in %s=%s (the one with the most room): pods there ending, or nodes added to it",
		need-bestRoom, pluralWord(need-bestRoom, "member"), like, con.Key, best)}
	if len(fixed) == 0 {
		w.Unblock = append(w.Unblock, fmt.Sprintf("or another %s with room for all %d", con.Key, need))
		if total >= need {
			w.Unblock = append(w.Unblock, fmt.Sprintf("or the PodGroup's annotation made %s: %s, which spreads the group when no %s holds it",
				topology.PreferredAnnotation, con.Key, con.Key))
		}
	}
	return true
}

// TopologyNeed is what a group that asks for one domain of a level still needs placed, as Gang's
// choice counts it (docs/gang-topology.md).
type TopologyNeed struct {
	// Waiting counts the waiting members Gang would place: those not held by scheduling gates.
	Waiting int
	// Count is the members still to place: every such waiting member, at least enough to reach
	// minMember; 0 when none waits.
	Count int
	// Member is what each is counted as asking: what the largest of them asks, which is Largest.
	Member  amount.Amount
	Largest *v1.Pod
	// Fixed are the domains of the level the bound members are in: one fixes the group there.
	Fixed []topology.Domain
}

// TopologyNeedOf is the need of a group whose live members (podgroup.Live) are bound and waiting,
// with its minMember, over nodes whose labels are by node name: why and kubectl berth gangs both
// count a group's members through it, as Gang's own choice counts them.
func TopologyNeedOf(bound, waiting []*v1.Pod, minMember int32, labels map[string]map[string]string, levels topology.Levels, level int) TopologyNeed {
	n := TopologyNeed{Member: amount.Amount{}}
	var largestReq amount.Amount
	for _, m := range waiting {
		if len(m.Spec.SchedulingGates) > 0 {
			continue
		}
		n.Waiting++
		r := noderoom.RequestOf(m)
		for name, v := range r {
			n.Member[name] = max(n.Member[name], v)
		}
		if n.Largest == nil || biggerRequest(r, largestReq) {
			n.Largest, largestReq = m, r
		}
	}
	if n.Waiting > 0 {
		n.Count = max(n.Waiting, int(minMember)-len(bound))
	}
	for _, b := range bound {
		if d, in := levels.DomainOf(labels[b.Spec.NodeName], level); in && !slices.Contains(n.Fixed, d) {
			n.Fixed = append(n.Fixed, d)
		}
	}
	return n
}

// biggerRequest orders members for naming the largest: more cpu, then more memory.
func biggerRequest(a, b amount.Amount) bool {
	const cpu, memory = v1.ResourceCPU, v1.ResourceMemory
	if a[cpu] != b[cpu] {
		return a[cpu] > b[cpu]
	}
	return a[memory] > b[memory]
}

// roomList is "z1/b1/r1 2, z1/b1/r2 1, ..." for the first n domains, with a count of the rest.
func roomList(domains []topology.Domain, rooms map[topology.Domain]int, n int) string {
	var parts []string
	for i, d := range domains {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(domains)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", d, rooms[d]))
	}
	return strings.Join(parts, ", ")
}

// DomainRooms is how many members asking member each domain of level has room for, counting only
// the nodes a member with tolerations may use, as Gang's choice counts them.
func DomainRooms(nodes []*noderoom.Node, levels topology.Levels, level int, tolerations []v1.Toleration, member amount.Amount) map[topology.Domain]int {
	room := map[topology.Domain]int{}
	comparisonOperators := noderoom.ComparisonOperators()
	for _, n := range nodes {
		if d, ok := levels.DomainOf(n.Node.Labels, level); ok && noderoom.Usable(n.Node, tolerations, comparisonOperators) {
			room[d] += amount.Fits(n.Free, member)
		}
	}
	return room
}
