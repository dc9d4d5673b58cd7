package elasticquota

import (
	"context"
	"iter"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/quota"
	"github.com/berth-sched/berth/pkg/victims"
)

// VictimRule is the quota rule of berth's preemption (see quota.Reclaim): a quota below its min
// reclaims what others borrowed, and quotas are otherwise closed to each other. It reads the
// ledger the ElasticQuota plugin keeps for this scheduler.
func VictimRule(ctx context.Context, h fwk.Handle) (victims.RuleFor, error) {
	s, err := sharedFor(ctx, h, nil, statusPeriod)
	if err != nil {
		return nil, err
	}
	return (&victimRule{s}).ForPreemptor, nil
}

type victimRule struct{ *shared }

// ForPreemptor returns nil for a preemptor whose namespace has no quota: it preempts by priority.
// A member of a group short of minMember reclaims only if the group's share, as admission counts
// it, stays within the quota's min.
func (r *victimRule) ForPreemptor(preemptor *v1.Pod, placed iter.Seq[*v1.Pod]) *victims.Rule {
	gpuMemory := r.gpuMemory()
	request, err := r.requestOf(preemptor)
	if err != nil {
		return nil
	}
	group := groupOf(preemptor)
	view, ok := r.ledger.ViewOf(preemptor.Namespace, group)
	if !ok {
		return nil
	}
	need := r.needOf(preemptor, group, request, view)
	// Before its quota's side is weighed: a claim it lost must not count against it.
	if r.ledger.EndLostArrival(preemptor.UID, placed) {
		r.logger.V(4).Info("Preemptor lost the room its victims left; it no longer counts as on its way in", "pod", klog.KObj(preemptor))
	}
	reclaim := r.ledger.PreemptionFor(preemptor, need, gpuMemory, r.capacity())
	if reclaim == nil {
		return nil
	}
	reclaim.UseRequests(r.requestOf)
	q := quotaRule{r: reclaim, ledger: r.ledger, preemptor: preemptor, need: need}
	return &victims.Rule{Verdict: q.Verdict, Tally: q.Tally, Evicting: q.Evicting, InProgress: reclaim.InProgress}
}

// quotaRule is the rule's say in one preemption attempt.
type quotaRule struct {
	r         *quota.Reclaim
	ledger    *quota.Ledger
	preemptor *v1.Pod
	need      amount.Amount
}

// Verdict lets a victim that holds what its quota borrowed go whatever its priority (Allowed), and
// keeps one of another quota that lends the preemptor nothing (Never): quotas are otherwise
// closed to each other.
func (q quotaRule) Verdict(pods []*v1.Pod) victims.Verdict {
	switch q.r.Judge(pods) {
	case quota.Forbidden:
		return victims.Never
	case quota.Borrowed:
		return victims.Allowed
	default:
		return victims.NoSay
	}
}

// Tally counts, for one candidate, what each lender still has to give above its min.
func (q quotaRule) Tally() func([]*v1.Pod) bool { return q.r.Lenders().Take }

// Evicting marks the victims as leaving in the ledger at once, and the preemptor as on its way
// in: until the informer shows their deletion and the preemptor holds its share, the next
// preemptor must not count what they hold as still lendable, nor its quota as still short.
func (q quotaRule) Evicting(victims []*v1.Pod) {
	uids := make([]types.UID, 0, len(victims))
	for _, p := range victims {
		q.ledger.Leaving(p.UID)
		uids = append(uids, p.UID)
	}
	q.ledger.Incoming(q.preemptor, q.need, uids)
}
