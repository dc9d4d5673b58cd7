package elasticquota

import (
	"context"
	"iter"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/preemption"
	"github.com/berth-sched/berth/pkg/quota"
)

// VictimRule is the quota rule of berth's preemption (see quota.Reclaim): a quota below its min
// reclaims what others borrowed, and quotas are otherwise closed to each other. It reads the
// ledger the ElasticQuota plugin keeps for this scheduler.
func VictimRule(ctx context.Context, h fwk.Handle) (preemption.Rule, error) {
	s, err := sharedFor(ctx, h, nil, statusPeriod)
	if err != nil {
		return nil, err
	}
	return &victimRule{s}, nil
}

type victimRule struct{ *shared }

// ForPreemptor returns nil for a preemptor whose namespace has no quota: it preempts by priority.
// A member of a group short of minMember reclaims only if the group's share, as admission counts
// it, stays within the quota's min.
func (r *victimRule) ForPreemptor(preemptor *v1.Pod, _ iter.Seq[*v1.Pod]) preemption.Judge {
	gpuMemory := r.gpuMemory()
	request, err := quota.RequestOf(preemptor, gpuMemory)
	if err != nil {
		return nil
	}
	group := groupOf(preemptor)
	view, ok := r.ledger.ViewOf(preemptor.Namespace, group)
	if !ok {
		return nil
	}
	reclaim := r.ledger.ReclaimFor(preemptor, r.needOf(preemptor, group, request, view), gpuMemory)
	if reclaim == nil {
		return nil
	}
	return judge{r: reclaim, ledger: r.ledger}
}

type judge struct {
	r      *quota.Reclaim
	ledger *quota.Ledger
}

func (judge) Together(*v1.Pod) []*v1.Pod { return nil }

func (j judge) Verdict(pods []*v1.Pod) preemption.Verdict {
	switch j.r.Judge(pods) {
	case quota.Forbidden:
		return preemption.Never
	case quota.Borrowed:
		return preemption.Allowed
	default:
		return preemption.NoSay
	}
}

func (j judge) Tally() preemption.Tally { return j.r.Lenders() }

// InProgress names the quota whose reclaim the victims serve.
func (j judge) InProgress(victims []*v1.Pod) string { return j.r.InProgress(victims) }

// Evicting marks the victims as leaving in the ledger at once: until the informer shows their
// deletion, the next preemptor must not count what they hold as still lendable.
func (j judge) Evicting(victims []*v1.Pod) {
	for _, p := range victims {
		j.ledger.Leaving(p.UID)
	}
}
