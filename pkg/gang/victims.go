package gang

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/victims"
)

// VictimRule is the pod-group rule of berth's preemption: a bound group is a victim whole or not
// at all (its members on every node go with any one of them, and its cost counts them all), and
// a member never preempts its own group. That a group never preempts a group of equal or higher
// priority follows from the priority rule: a group's priority is its highest member's. A member
// of a group that still misses members, of either API, preempts for all of them at once
// (Rule.Companions): a native group's first member does so for its group (BerthPreemption's
// PodGroupPostFilter).
func VictimRule(_ context.Context, h fwk.Handle) (victims.RuleFor, error) {
	return func(preemptor *v1.Pod, placed iter.Seq[*v1.Pod]) *victims.Rule {
		// It indexes the placed pods by group on first use: most attempts meet no group.
		g := &groupRule{h: h, preemptor: preemptor, placed: placed}
		return &victims.Rule{Together: g.Together, Verdict: g.Verdict, Companions: g.Companions, CompanionPods: g.CompanionPods}
	}, nil
}

// groupRule is the rule's say in one preemption attempt.
type groupRule struct {
	h         fwk.Handle
	preemptor *v1.Pod
	placed    iter.Seq[*v1.Pod]
	once      sync.Once
	groups    map[types.NamespacedName][]*v1.Pod
	company   sync.Once
	missing   int
	// waiting are the group's members not placed nor nominated, the preemptor aside.
	waiting []*v1.Pod
}

// Together returns every placed member of pod's group, on any node; none for a native group,
// which the scheduler's own preemption unit keeps whole as its disruptionMode says (all: whole;
// single, the default: one by one).
func (g *groupRule) Together(pod *v1.Pod) []*v1.Pod {
	key, ok := podgroup.PluginsKeyOf(pod)
	if !ok {
		return nil
	}
	return g.index()[key]
}

func (g *groupRule) index() map[types.NamespacedName][]*v1.Pod {
	g.once.Do(func() {
		g.groups = map[types.NamespacedName][]*v1.Pod{}
		for p := range g.placed {
			if k, ok := podgroup.KeyOf(p); ok && p.DeletionTimestamp == nil {
				g.groups[k] = append(g.groups[k], p)
			}
		}
	})
	return g.groups
}

// Companions is how many members the preemptor's group misses besides it: minMember less the
// members placed (bound, or reserved and waiting at Permit) and those nominated to a node by an
// earlier preemption (the dry run already counts them on their nodes). Gang lets none of them in
// until all are placed, so making room for this one alone would evict for nothing.
func (g *groupRule) Companions() int {
	g.company.Do(func() {
		key, ok := podgroup.KeyOf(g.preemptor)
		c := lookupShared(g.h)
		if !ok || c == nil {
			return
		}
		pg, err := c.podGroups.Of(key)
		if err != nil {
			return
		}
		present := map[types.UID]bool{}
		for _, p := range g.index()[key] {
			present[p.UID] = true
		}
		if nodes, err := g.h.SnapshotSharedLister().NodeInfos().List(); err == nil {
			for _, n := range nodes {
				for _, pi := range g.h.NominatedPodsForNode(n.Node().Name) {
					if k, ok := podgroup.KeyOf(pi.GetPod()); ok && k == key {
						present[pi.GetPod().UID] = true
					}
				}
			}
		}
		delete(present, g.preemptor.UID)
		g.missing = max(0, int(pg.MinMember)-len(present)-1)
		for _, p := range podgroup.Pods(c.podGroups.Pods, key) {
			if p.UID != g.preemptor.UID && !present[p.UID] && p.Spec.NodeName == "" && podgroup.Live(p) {
				g.waiting = append(g.waiting, p)
			}
		}
		slices.SortFunc(g.waiting, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	})
	return g.missing
}

// CompanionPods are the members Companions counts that exist: waiting, neither placed nor
// nominated.
func (g *groupRule) CompanionPods() []*v1.Pod {
	g.Companions()
	return g.waiting
}

// lookupShared returns the Gang state of h's scheduler, or nil where Gang is not enabled.
func lookupShared(h fwk.Handle) *shared {
	c, _ := perScheduler.Lookup(h.SharedInformerFactory())
	return c
}

// Verdict forbids a preemptor's own siblings.
func (g *groupRule) Verdict(pods []*v1.Pod) victims.Verdict {
	own, ok := podgroup.KeyOf(g.preemptor)
	if !ok {
		return victims.NoSay
	}
	for _, p := range pods {
		if k, ok := podgroup.KeyOf(p); ok && k == own {
			return victims.Never
		}
	}
	return victims.NoSay
}
