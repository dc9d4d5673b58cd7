package gang

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/cyclestate"
	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/noderoom"
)

// Room by the sum (see roomwait.go for why).
//
// A member of a group that holds nothing is turned away as Pending, on every node, when the
// cluster's free room summed over the snapshot's nodes cannot hold the least its group still needs,
// or when no single node has room for the least any one member asks; in both, even counting as
// free what every pod it could preempt holds. The queue then puts it straight into the active
// queue when Gang's hint accepts an event, skipping its backoff, and QOSSort puts the oldest group
// first. The sum and the best node are upper bounds of the room the group could use and the needs
// lower bounds, so a group that could fit is never held here: they count only the nodes some
// member may go to at all (not cordoned, no taint it does not tolerate: usableByAny), and packing
// and selectors stay with the Filter plugins and the queue's usual backoff.
//
// The per-node bound is what keeps a deep backlog in order when nodes join one after another
// (issue 42, fault 3). Free room scattered over small nodes covers the sum, so without it the
// waiters were turned away by NodeResourcesFit and sat out the queue's backoff; a node joining
// while the scheduler was still working through the last event's requeues then went to a younger
// group already in the active queue, ahead of older ones it had just turned away.
//
// The check runs in PreFilter but the rejection is Filter's: kube-scheduler 1.37 takes a Pending
// status from PreFilter for an error (RunPreFilterPlugins), and records Pending from Filter (and
// Permit) only. Filter returns it on every node before NodeResourcesFit runs, which is why berth's
// profiles enable Gang first under filter. Preemption passes nodes that are Pending by (it looks
// at Unschedulable ones only), which is right: even evicting all it may would not make room.

// roomStateKey marks in a member's CycleState that its group cannot fit the cluster's room.
const roomStateKey fwk.StateKey = "PreFilter" + Name + "/room"

// roomState is what Filter tells every node's check of a member whose group does not fit, and
// the least the group needs in all and on one node, which its wait for room keeps (see olderFits).
type roomState struct {
	msg  string
	need gangcore.RoomNeed
}

func (s *roomState) Clone() fwk.StateData { return s }

func roomStateOf(state fwk.CycleState) *roomState {
	s, _ := cyclestate.Of[*roomState](state, roomStateKey)
	return s
}

// roomShort says why pod's group, which holds nothing, cannot fit the cluster's room, or "" if
// it may. minMember members are still to place; candidates are the group's ready, unplaced pods.
func (pl *Gang) roomShort(key types.NamespacedName, pod *v1.Pod, minMember int, nodes []fwk.NodeInfo) *roomState {
	preempts := mayPreempt(pod)
	if preempts && pl.quotaIn(pod.Namespace) {
		// A quota may reclaim what it lent from pods of any priority (ElasticQuota's victim rule),
		// which no sum of lower-priority pods bounds.
		return nil
	}
	candidates := []*v1.Pod{pod}
	for _, p := range pl.members.of(key) {
		if p.UID != pod.UID && p.Spec.NodeName == "" && schedulable(p) {
			candidates = append(candidates, p)
		}
	}
	need := gangcore.RoomNeed{All: leastNeed(candidates, minMember), One: leastOne(candidates)}
	if need.All == nil {
		return nil
	}
	counting := "what pods of lower priority hold counted as free"
	if !preempts {
		counting = "its members may not preempt"
	}
	usable := usableByAny(candidates)
	short := roomShortOf(nodes, need.All, nil, usable)
	if len(short) > 0 && preempts {
		short = roomShortOf(nodes, need.All, pod, usable)
	}
	if len(short) > 0 {
		for i, name := range short {
			short[i] = "Insufficient " + name
		}
		return &roomState{need: need, msg: fmt.Sprintf("pod group %s needs at least %s for the %d members it still has to place: %s in the whole cluster (%s); it is tried again at once when room is freed",
			key, need.All, minMember, strings.Join(short, ", "), counting)}
	}
	if nodeHolds(nodes, need.One, nil, usable) || preempts && nodeHolds(nodes, need.One, pod, usable) {
		return nil
	}
	return &roomState{need: need, msg: fmt.Sprintf("pod group %s has no node with room for any of its members, each of which needs at least %s on one node (%s); it is tried again at once when room is freed",
		key, need.One, counting)}
}

// olderFits names the first of older, the groups that go before this one in QOSSort's order, wait
// for room and were turned away by the sum, whose least need the nodes' free room now holds, or
// returns "". A room event requeues
// such a group's waiter at once, but the scheduler updates its snapshot before it moves pods from
// the unschedulable pool, and a younger group's member already in the active queue (requeued by
// an earlier event) can be tried in between and take the room: it gives way instead.
func olderFits(older []gangcore.OlderWaiter, nodes []fwk.NodeInfo) string {
	if len(older) == 0 {
		return ""
	}
	all := amount.Amount{}
	for _, w := range older {
		for name := range w.Need.All {
			all[name] = 1
		}
	}
	// Older groups mostly ask alike: whether some node holds one member is asked once per shape.
	holdsOne := map[string]bool{}
	oneFits := func(one amount.Amount) bool {
		shape := one.String()
		held, asked := holdsOne[shape]
		if !asked {
			held = nodeHolds(nodes, one, nil, nil)
			holdsOne[shape] = held
		}
		return held
	}
	// With many older groups waiting, asking each after every node would cost more than the sum:
	// they are asked after 1, 2, 4, ... nodes and after the last.
	t := newTally(all)
	for i, n := range nodes {
		t.add(n, nil)
		if i+1 == len(nodes) || i&(i+1) == 0 {
			for _, w := range older {
				if t.covers(w.Need.All) && oneFits(w.Need.One) {
					return w.Key.String()
				}
			}
		}
	}
	return ""
}

// usableByAny reports whether some of candidates may go to a node at all (noderoom.Usable): room on
// a cordoned node, or behind a taint they do not tolerate, is no room for the group. Counted, the
// free room of nodes not yet ready let a deep backlog's waiters through to Filter, where
// NodeResourcesFit and TaintToleration turned them away instead of Gang: they then kept those
// plugins among their rejectors, so that every later room event moved each of them out of the
// unschedulable pool again (and Gang's PreEnqueue parked it behind the group taking its turn),
// under the queue's lock, ahead of the first group's members (issue 42, fault 3).
func usableByAny(candidates []*v1.Pod) func(*v1.Node) bool {
	comparisonOperators := noderoom.ComparisonOperators()
	return func(n *v1.Node) bool {
		return slices.ContainsFunc(candidates, func(p *v1.Pod) bool {
			return noderoom.Usable(n, p.Spec.Tolerations, comparisonOperators)
		})
	}
}

// leastOne is the least any one of candidates asks, resource by resource, and a pod slot: no
// member fits a node whose free room does not cover it.
func leastOne(candidates []*v1.Pod) amount.Amount {
	one := amount.Amount{amount.Pods: amount.One}
	for i, p := range candidates {
		r := noderoom.RequestOf(p)
		if i == 0 {
			maps.Copy(one, r)
			continue
		}
		for name, v := range one {
			if name != amount.Pods {
				one[name] = min(v, r[name])
			}
		}
	}
	for name, v := range one {
		if v <= 0 {
			delete(one, name)
		}
	}
	return one
}

// nodeHolds reports whether some node that usable passes (any, if nil) has free room that covers
// one; with preemptor, counting as free what the pods of lower priority than it hold. It stops at
// the first such node.
func nodeHolds(nodes []fwk.NodeInfo, one amount.Amount, preemptor *v1.Pod, usable func(*v1.Node) bool) bool {
	t := newTally(one)
	for _, n := range nodes {
		if usable != nil && n.Node() != nil && !usable(n.Node()) {
			continue
		}
		clear(t.free)
		if t.add(n, preemptor); t.covers(one) {
			return true
		}
	}
	return false
}

// leastNeed is the least the group can need to place n of candidates: for each resource the n
// smallest requests, and n pod slots. It is nil when fewer than n candidates exist, which Gang
// holds back for its own reason.
func leastNeed(candidates []*v1.Pod, n int) amount.Amount {
	if n <= 0 || len(candidates) < n {
		return nil
	}
	requests := make([]amount.Amount, len(candidates))
	names := map[v1.ResourceName]bool{}
	for i, p := range candidates {
		requests[i] = noderoom.RequestOf(p)
		for name := range requests[i] {
			names[name] = true
		}
	}
	need := amount.Amount{amount.Pods: int64(n) * amount.One}
	values := make([]int64, len(candidates))
	for name := range names {
		for i, r := range requests {
			values[i] = r[name]
		}
		slices.Sort(values)
		var sum int64
		for _, v := range values[:n] {
			sum += v
		}
		if sum > 0 {
			need[name] = sum
		}
	}
	return need
}

// roomShortOf names, in order, the resources of need that the free room of the nodes usable passes
// (all, if nil), summed, does not cover; with preemptor, counting as free what the pods of lower
// priority than it hold. It stops at the node where the sum covers need: on a cluster that is not
// full, after a few nodes. Summing
// every node was a millisecond at 5,000 nodes, on the scheduling goroutine, for every group.
func roomShortOf(nodes []fwk.NodeInfo, need amount.Amount, preemptor *v1.Pod, usable func(*v1.Node) bool) []string {
	t := newTally(need)
	for _, n := range nodes {
		if usable != nil && n.Node() != nil && !usable(n.Node()) {
			continue
		}
		if t.add(n, preemptor); t.covers(need) {
			return nil
		}
	}
	var short []string
	for i, name := range t.names {
		if need[name] > t.free[i] {
			short = append(short, string(name))
		}
	}
	return short
}

// tally sums the free room of a few resources over nodes. A node short of a resource
// (overcommitted) adds nothing rather than take from the others.
type tally struct {
	need  amount.Amount
	names []v1.ResourceName
	free  []int64
}

// newTally counts the resources named in need, in order.
func newTally(need amount.Amount) *tally {
	names := slices.Sorted(maps.Keys(need))
	return &tally{need: need, names: names, free: make([]int64, len(names))}
}

// add adds what n has free; with preemptor, counting as free what the pods of lower priority
// than it hold.
func (t *tally) add(n fwk.NodeInfo, preemptor *v1.Pod) {
	if n.Node() == nil {
		return
	}
	if preemptor != nil {
		free := noderoom.FreeFor(n, t.need, preemptor)
		for i, name := range t.names {
			t.free[i] = amount.Sum(t.free[i], max(free[name], 0))
		}
		return
	}
	for i, name := range t.names {
		t.free[i] = amount.Sum(t.free[i], max(noderoom.FreeOn(n, name), 0))
	}
}

// covers reports whether the sum so far covers need, whose resources the tally counts.
func (t *tally) covers(need amount.Amount) bool {
	for i, name := range t.names {
		if need[name] > t.free[i] {
			return false
		}
	}
	return true
}

// quotaIn reports whether an ElasticQuota stands in namespace. The lister is the process's
// ElasticQuota informer's, which ElasticQuota (and BerthPreemption's quota rule) start; without
// them it stays empty, and no quota rule can let a pod preempt either.
func (pl *Gang) quotaIn(namespace string) bool {
	if pl.quotas == nil {
		return false
	}
	qs, err := pl.quotas.ElasticQuotas(namespace).List(labels.Everything())
	return err != nil || len(qs) > 0
}
