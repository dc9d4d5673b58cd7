package gang

import (
	"context"
	"iter"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/preemption"
)

// VictimRule is the pod-group rule of berth's preemption: a bound group is a victim whole or not
// at all (its members on every node go with any one of them, and its cost counts them all), and
// a member never preempts its own group. That a group never preempts a group of equal or higher
// priority follows from the priority rule: a group's priority is its highest member's. A member
// of a group that still misses members preempts for all of them at once (preemption.Company).
func VictimRule(_ context.Context, h fwk.Handle) (preemption.Rule, error) {
	return groupRule{h: h}, nil
}

type groupRule struct{ h fwk.Handle }

// ForPreemptor indexes the placed pods by group, on first use: most attempts meet no group.
func (r groupRule) ForPreemptor(preemptor *v1.Pod, placed iter.Seq[*v1.Pod]) preemption.Judge {
	return &groupJudge{h: r.h, preemptor: preemptor, placed: placed}
}

type groupJudge struct {
	h         fwk.Handle
	preemptor *v1.Pod
	placed    iter.Seq[*v1.Pod]
	once      sync.Once
	groups    map[types.NamespacedName][]*v1.Pod
	company   sync.Once
	missing   int
}

var _ preemption.Company = &groupJudge{}

// Together returns every placed member of pod's group, on any node.
func (j *groupJudge) Together(pod *v1.Pod) []*v1.Pod {
	key, ok := podgroup.KeyOf(pod)
	if !ok {
		return nil
	}
	return j.index()[key]
}

func (j *groupJudge) index() map[types.NamespacedName][]*v1.Pod {
	j.once.Do(func() {
		j.groups = map[types.NamespacedName][]*v1.Pod{}
		for p := range j.placed {
			if k, ok := podgroup.KeyOf(p); ok && p.DeletionTimestamp == nil {
				j.groups[k] = append(j.groups[k], p)
			}
		}
	})
	return j.groups
}

// Companions is how many members the preemptor's group misses besides it: minMember less the
// members placed (bound, or reserved and waiting at Permit) and those nominated to a node by an
// earlier preemption (the dry run already counts them on their nodes). Gang lets none of them in
// until all are placed, so making room for this one alone would evict for nothing.
func (j *groupJudge) Companions() int {
	j.company.Do(func() {
		key, ok := podgroup.KeyOf(j.preemptor)
		c := coreOf(j.h)
		if !ok || c == nil {
			return
		}
		pg, err := c.podGroups.Get(key)
		if err != nil {
			return
		}
		present := map[types.UID]bool{}
		for _, p := range j.index()[key] {
			present[p.UID] = true
		}
		if nodes, err := j.h.SnapshotSharedLister().NodeInfos().List(); err == nil {
			for _, n := range nodes {
				for _, pi := range j.h.NominatedPodsForNode(n.Node().Name) {
					if k, ok := podgroup.KeyOf(pi.GetPod()); ok && k == key {
						present[pi.GetPod().UID] = true
					}
				}
			}
		}
		delete(present, j.preemptor.UID)
		j.missing = max(0, int(podgroup.MinMember(pg))-len(present)-1)
	})
	return j.missing
}

// coreOf returns the Gang state of h's scheduler, or nil where Gang is not enabled.
func coreOf(h fwk.Handle) *core {
	c, _ := cores.Lookup(h.SharedInformerFactory())
	return c
}

// Verdict forbids a preemptor's own siblings.
func (j *groupJudge) Verdict(pods []*v1.Pod) preemption.Verdict {
	own, ok := podgroup.KeyOf(j.preemptor)
	if !ok {
		return preemption.NoSay
	}
	for _, p := range pods {
		if k, ok := podgroup.KeyOf(p); ok && k == own {
			return preemption.Never
		}
	}
	return preemption.NoSay
}

// Tally returns nil: groups bound no set of victims.
func (*groupJudge) Tally() preemption.Tally { return nil }
