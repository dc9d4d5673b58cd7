package gang

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/cyclestate"
	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
)

// A PodGroup that names a topology level (berth.dev/topology-required or -preferred) is placed in
// one domain of that level, chosen for the group as a whole before any member binds: PreFilter
// chooses it (pkg/topology, from this cycle's snapshot) or reads the one the group's reserved
// members fixed, Filter turns away every node outside it, and Reserve records it for the
// group's next members; the last reservation to go drops it (manager.unreserve). A required level
// no domain can hold parks the group whole until capacity or the PodGroup changes; together with
// quorum at Permit, no member is bound outside the domain and no group is bound in part.

// topologyStateKey keeps the domain PreFilter chose for a member, for Filter and Reserve.
const topologyStateKey fwk.StateKey = "PreFilter" + Name + "/topology"

// topologyState is a member's domain in one scheduling cycle. It is never changed once written.
type topologyState struct {
	choice topology.Choice
	// nodes are the snapshot's nodes in the domain: PreFilter's result and Filter's answer.
	nodes sets.Set[string]
	// name is the domain as kubectl berth gangs shows it (berth.dev/rack=z1/b1/r2), outside
	// Filter's reason for a node outside it, and because why it is the group's: what a member
	// that fits none of its nodes is told.
	name, outside, because string
}

func (s *topologyState) Clone() fwk.StateData { return s }

func topologyStateOf(state fwk.CycleState) *topologyState {
	s, _ := cyclestate.Of[*topologyState](state, topologyStateKey)
	return s
}

// newTopologyState is the state of a member going to choice, because.
func (pl *Gang) newTopologyState(choice topology.Choice, nodes []fwk.NodeInfo, because string) *topologyState {
	in := sets.New[string]()
	for _, ni := range nodes {
		if n := ni.Node(); n != nil {
			if d, ok := pl.index.DomainOf(n, choice.Level); ok && d == choice.Domain {
				in.Insert(n.Name)
			}
		}
	}
	pl.index.Sweep(len(nodes))
	name := fmt.Sprintf("%s=%s", pl.index.Levels()[choice.Level], choice.Domain)
	return &topologyState{
		choice:  choice,
		nodes:   in,
		name:    name,
		outside: "node(s) outside the pod group's domain " + name,
		because: because,
	}
}

// domainAsk is what a group asks of the topology, read under the manager's lock (askDomain) for
// a choice made without it (choose): the choice reads every node.
type domainAsk struct {
	c topology.Constraint
	// fixed is the domain the group's reserved members hold, if any.
	fixed *topology.Choice
	group topology.Group
	pod   *v1.Pod
}

// askDomain is the topology part of PreFilter's admission, under the manager's lock: what pg's
// members ask of the topology (nil: nothing), or why the group cannot go and what it is told.
func (pl *Gang) askDomain(key types.NamespacedName, pg *podgroup.Group, g gangcore.GroupView, pod *v1.Pod) (*domainAsk, gangcore.ParkReason, string) {
	c, ok, err := pl.index.Levels().ConstraintOf(pg.Topology)
	if err != nil {
		return nil, gangcore.ParkedBadTopology, fmt.Sprintf("pod group %s cannot be placed: %v; it waits until that is fixed", key, err)
	}
	if !ok {
		return nil, 0, ""
	}
	if d := g.Domain(); d != nil {
		return &domainAsk{c: c, fixed: d}, 0, ""
	}
	return &domainAsk{c: c, group: pl.topologyGroup(key, pg, g, pod), pod: pod}, 0, ""
}

// chooseDomain is the domain the group's members go to among the snapshot's nodes (nil:
// anywhere), or why the group cannot go now and what it is told. It changes nothing but the
// domain index, and runs without the manager's lock.
func (pl *Gang) chooseDomain(key types.NamespacedName, a *domainAsk, nodes []fwk.NodeInfo) (*topologyState, gangcore.ParkReason, string) {
	if a == nil {
		return nil, 0, ""
	}
	if a.fixed != nil {
		return pl.newTopologyState(*a.fixed, nodes, ", where its first members are reserved"), 0, ""
	}
	c, group, pod := a.c, a.group, a.pod
	choice, err := pl.index.Choose(c, topologyNodes(nodes, group.Member, pod, false), group)
	preempting := false
	if err != nil && mayPreempt(pod) {
		// A domain that would hold the group once pods of lower priority than its members go:
		// Filter keeps the members to it, so preemption makes room for them there and nowhere else.
		choice, _ = pl.index.ChooseToPreempt(c, topologyNodes(nodes, group.Member, pod, true), group)
		preempting = true
	}
	if choice == nil && err != nil {
		return nil, gangcore.ParkedTopology, fmt.Sprintf("pod group %s %v (%s)", key, err, c.Mode())
	}
	if choice == nil {
		return nil, 0, ""
	}
	return pl.newTopologyState(*choice, nodes, chosenBecause(c, *choice, group, preempting)), 0, ""
}

// chosenBecause says why choice is the group's domain, as a clause after its name, as a member
// that fits none of its nodes is told: without counts of room, which change with every pod that
// comes or goes.
func chosenBecause(c topology.Constraint, choice topology.Choice, g topology.Group, preempting bool) string {
	switch {
	case len(g.Placed) > 0:
		return ", where its placed members are"
	case preempting:
		return fmt.Sprintf(": no %s domain has room for its %d members, and this one would once pods of lower priority go", c.Key, g.Count)
	case choice.Level != c.Level:
		return fmt.Sprintf(": no %s domain has room for its %d members (%s), and this enclosing one has", c.Key, g.Count, c.Mode())
	}
	return fmt.Sprintf(", the %s domain with room for its %d members and the least left over", c.Key, g.Count)
}

// topologyGroup is what the group still needs placed: each ready member without a place (pod
// included), at least enough to reach minMember, each counted at the largest request among them.
func (pl *Gang) topologyGroup(key types.NamespacedName, pg *podgroup.Group, g gangcore.GroupView, pod *v1.Pod) topology.Group {
	placedNodes := sets.New[string]()
	placed := sets.New[types.UID]()
	for uid, node := range g.PlacedReservations() {
		placedNodes.Insert(node)
		placed.Insert(uid)
	}
	for _, p := range pl.members.bound(key) {
		placedNodes.Insert(p.Spec.NodeName)
		placed.Insert(p.UID)
	}
	member := amount.Amount{}
	pending := 0
	add := func(p *v1.Pod) {
		pending++
		for name, v := range noderoom.RequestOf(p) {
			member[name] = max(member[name], v)
		}
	}
	add(pod)
	for _, p := range pl.members.of(key) {
		if p.UID != pod.UID && p.Spec.NodeName == "" && schedulable(p) && !placed.Has(p.UID) {
			add(p)
		}
	}
	count := max(pending, int(pg.MinMember)-placed.Len(), 1)
	return topology.Group{Count: count, Member: member, Placed: sets.List(placedNodes)}
}

// topologyNodes is what the choice reads of the snapshot's nodes: each node and how many members
// asking member fit on it, none on a node pod cannot use (cordoned, or tainted against it: the
// group's members share pod's tolerations); with preempt, also how many more would once the pods
// of lower priority than pod go, which preemption could give it. It runs for every node of the
// cluster, so the usual case counts without a map per node (noderoom.FitsOn).
func topologyNodes(nodes []fwk.NodeInfo, member amount.Amount, pod *v1.Pod, preempt bool) []topology.Node {
	comparisonOperators := noderoom.ComparisonOperators()
	out := make([]topology.Node, 0, len(nodes))
	for _, n := range nodes {
		if n.Node() == nil {
			continue
		}
		tn := topology.Node{Node: n.Node()}
		if !noderoom.Usable(n.Node(), pod.Spec.Tolerations, comparisonOperators) {
			out = append(out, tn)
			continue
		}
		tn.Room = noderoom.FitsOn(n, member)
		if preempt {
			tn.Evictable = max(0, amount.Fits(noderoom.FreeFor(n, member, pod), member)-tn.Room)
		}
		out = append(out, tn)
	}
	return out
}

// mayPreempt reports whether pod may evict others at all.
func mayPreempt(pod *v1.Pod) bool {
	return pod.Spec.PreemptionPolicy == nil || *pod.Spec.PreemptionPolicy != v1.PreemptNever
}

// warnPodGroup puts a problem with a PodGroup where its owner looks: a Warning event on it.
func (pl *Gang) warnPodGroup(pg *podgroup.Group, msg string) {
	pl.logger.Info("PodGroup's topology cannot be honoured", "podGroup", pg.Key, "problem", msg)
	recorder := pl.handle.EventRecorder()
	if recorder == nil || pg == nil {
		return
	}
	recorder.Eventf(podgroup.EventTarget(pg), nil, v1.EventTypeWarning, "InvalidTopology", "Scheduling", "%s", msg)
}
