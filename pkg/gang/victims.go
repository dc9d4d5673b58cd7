package gang

import (
	"context"
	"iter"
	"sync"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/preemption"
)

// VictimRule is the pod-group rule of berth's preemption: a bound group is a victim whole or not
// at all (its members on every node go with any one of them, and its cost counts them all), and
// a member never preempts its own group. That a group never preempts a group of equal or higher
// priority follows from the priority rule: a group's priority is its highest member's.
func VictimRule(context.Context, fwk.Handle) (preemption.Rule, error) {
	return groupRule{}, nil
}

type groupRule struct{}

// ForPreemptor indexes the placed pods by group, on first use: most attempts meet no group.
func (groupRule) ForPreemptor(preemptor *v1.Pod, placed iter.Seq[*v1.Pod]) preemption.Judge {
	return &groupJudge{preemptor: preemptor, placed: placed}
}

type groupJudge struct {
	preemptor *v1.Pod
	placed    iter.Seq[*v1.Pod]
	once      sync.Once
	groups    map[groupKey][]*v1.Pod
}

type groupKey struct{ namespace, name string }

func keyOfPod(pod *v1.Pod) (groupKey, bool) {
	name := pod.Labels[v1alpha1.PodGroupLabel]
	return groupKey{pod.Namespace, name}, name != ""
}

// Together returns every placed member of pod's group, on any node.
func (j *groupJudge) Together(pod *v1.Pod) []*v1.Pod {
	key, ok := keyOfPod(pod)
	if !ok {
		return nil
	}
	j.once.Do(func() {
		j.groups = map[groupKey][]*v1.Pod{}
		for p := range j.placed {
			if k, ok := keyOfPod(p); ok && p.DeletionTimestamp == nil {
				j.groups[k] = append(j.groups[k], p)
			}
		}
	})
	return j.groups[key]
}

// Verdict forbids a preemptor's own siblings.
func (j *groupJudge) Verdict(pods []*v1.Pod) preemption.Verdict {
	own, ok := keyOfPod(j.preemptor)
	if !ok {
		return preemption.NoSay
	}
	for _, p := range pods {
		if k, ok := keyOfPod(p); ok && k == own {
			return preemption.Never
		}
	}
	return preemption.NoSay
}

// Tally returns nil: groups bound no set of victims.
func (*groupJudge) Tally() preemption.Tally { return nil }
