package gang

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/podgroup"
)

// admission is what the core's admission of one member (gangcore.Manager.Admit and Enqueue)
// reads of its PodGroup and of the scheduler's snapshot; the core decides in what order. It keeps
// what PreFilter acts on: the PodGroup, the domain chosen, the room the group did not fit.
type admission struct {
	pl    *Gang
	key   types.NamespacedName
	pod   *v1.Pod
	nodes []fwk.NodeInfo // the snapshot's; none in PreEnqueue

	pg     *podgroup.Group
	domain *topologyState
	room   *roomState
}

var _ gangcore.Cluster = &admission{}

// Group reads the member's PodGroup.
func (a *admission) Group() (gangcore.Spec, bool) {
	var err error
	if a.pg, err = a.pl.podGroups.Of(a.key); err != nil {
		return gangcore.Spec{}, false
	}
	return gangcore.Spec{MinMember: a.pg.MinMember, Created: a.pg.Created}, true
}

// Check reads, under the manager's lock, the group's placed members and what it asks of the
// topology, and returns the check of minResources and the domain choice, which read every node.
func (a *admission) Check(g gangcore.GroupView) func() (gangcore.ParkReason, string, bool) {
	pg := a.pg
	var placed []*v1.Pod
	if len(pg.MinResources) > 0 {
		placed = a.pl.placed(a.key, g)
	}
	ask, bad, badMsg := a.pl.askDomain(a.key, pg, g, a.pod)
	return func() (gangcore.ParkReason, string, bool) {
		a.domain = nil
		if len(pg.MinResources) > 0 {
			if short := capacityShortfall(a.nodes, wantedResources(pg), placed); short != "" {
				return gangcore.ParkedMinResources, fmt.Sprintf("pod group %s needs more than the cluster's free capacity (minResources): %s", a.key, short), false
			}
		}
		if bad != 0 {
			return bad, badMsg, false
		}
		var reason gangcore.ParkReason
		var msg string
		a.domain, reason, msg = a.pl.chooseDomain(a.key, ask, a.nodes)
		return reason, msg, a.domain != nil
	}
}

// RoomShort sums the cluster's free room against what the group still needs (roomsum.go).
func (a *admission) RoomShort() bool {
	a.room = a.pl.roomShort(a.key, a.pod, int(a.pg.MinMember), a.nodes)
	return a.room != nil
}

// OlderFits names an older waiting group the free room holds (roomsum.go).
func (a *admission) OlderFits(older []gangcore.OlderWaiter) string {
	return olderFits(older, a.nodes)
}

// placed returns the group's members that hold a place: reserved or bound, each once.
func (pl *Gang) placed(key types.NamespacedName, g gangcore.GroupView) []*v1.Pod {
	pods := g.Reserved()
	seen := uids(pods)
	for _, p := range pl.members.bound(key) {
		if !seen.Has(p.UID) {
			pods = append(pods, p)
		}
	}
	return pods
}
