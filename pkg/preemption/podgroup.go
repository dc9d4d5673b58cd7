package preemption

import (
	"context"
	"fmt"

	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

var _ fwk.PodGroupPostFilterPlugin = &Preemption{}

// podGroupEvaluator is upstream's preemption for a native pod group as a whole (KEP-5710), which
// DefaultPreemption runs at PodGroupPostFilter; nil while GenericWorkload is off.
type podGroupEvaluator interface {
	Preempt(ctx context.Context, pgInfo fwk.PodGroupInfo, f fwk.PodGroupSchedulingFunc) (*fwk.PodGroupPostFilterResult, *fwk.Status)
}

// PodGroupPostFilter makes room for a native pod group whose cycle failed. The scheduler tries a
// native group's members in one cycle and runs none of their PostFilters: without this, berth's
// profiles, which turn DefaultPreemption off, had no preemption for native groups at all. It is
// upstream's workload-aware preemption, as DefaultPreemption runs it: the whole cluster is the
// domain, the group's members are placed together in the dry run, a running native group of
// disruptionMode all goes whole or not at all, and berth's victim rules (quota, scheduler-plugins
// groups whole) have no say yet. A group that no preemption can help is reported Unschedulable,
// not UnschedulableAndUnresolvable as upstream's evaluator says, so that Gang's PodGroupPostFilter,
// after this one, still sees the failure and has the group wait for room.
func (pl *Preemption) PodGroupPostFilter(ctx context.Context, _ fwk.PodGroupCycleState, pgInfo fwk.PodGroupInfo, f fwk.PodGroupSchedulingFunc) (_ *fwk.PodGroupPostFilterResult, status *fwk.Status) {
	if pl.podGroups == nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	defer func() { metrics.WorkloadPreemptionAttempts.WithLabelValues(status.Code().String()).Inc() }()
	mutable := pl.fh.MutableSnapshotSharedLister()
	if err := mutable.StartMutations(); err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group preemption: starting the snapshot's mutations: %w", err))
	}
	defer func() {
		if err := mutable.EndMutations(); err != nil {
			status = fwk.AsStatus(fmt.Errorf("pod group preemption: ending the snapshot's mutations: %w", err))
		}
	}()
	res, st := pl.podGroups.Preempt(ctx, pgInfo, f)
	if st.Code() == fwk.UnschedulableAndUnresolvable {
		st = fwk.NewStatus(fwk.Unschedulable, st.Reasons()...)
	}
	if msg := st.Message(); msg != "" && !st.IsSuccess() {
		return res, fwk.NewStatus(st.Code(), "pod group preemption: "+msg)
	}
	return res, st
}
