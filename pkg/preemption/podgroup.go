package preemption

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

var _ fwk.PodGroupPostFilterPlugin = &Preemption{}

// PodGroupPostFilter makes room for a native pod group whose cycle failed. The scheduler tries a
// native group's members in one cycle and runs none of their PostFilters: without this, berth's
// profiles, which turn DefaultPreemption off, had no preemption for native groups at all. It is
// the preemption a member of a scheduler-plugins group gets from PostFilter: the group's first
// member preempts, its missing members as its companions (Gang's victims.Rule), so berth's victim
// rules all have their say: a running scheduler-plugins group goes whole or not at all, a quota
// gives nothing below its min, and a group that needs a topology domain finds its victims in the
// one Gang's PreFilter chose. Upstream's workload-aware preemption (KEP-5710), which places the
// members in a dry run over the whole cluster, knows none of these: it evicted one member of a
// running scheduler-plugins group, pods of a quota within its min, and the rack with more victims.
// A group that no preemption can help is reported Unschedulable, not UnschedulableAndUnresolvable,
// so that Gang's PodGroupPostFilter, after this one, still sees the failure and has the group
// wait for room.
func (pl *Preemption) PodGroupPostFilter(ctx context.Context, _ fwk.PodGroupCycleState, pgInfo fwk.PodGroupInfo, _ fwk.PodGroupSchedulingFunc) (_ *fwk.PodGroupPostFilterResult, status *fwk.Status) {
	fw, ok := pl.fh.(framework.Framework)
	pods := pgInfo.GetUnscheduledPods()
	if !ok || len(pods) == 0 {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	defer func() { metrics.WorkloadPreemptionAttempts.WithLabelValues(status.Code().String()).Inc() }()
	if pl.preemptsNever(pgInfo, pods) {
		return nil, fwk.NewStatus(fwk.Unschedulable, "pod group preemption: not eligible due to preemptionPolicy=Never")
	}
	preemptor := pods[0]
	// A cycle state of the preemptor's own, as its PostFilter would get: the group's cycle state
	// holds what Gang recorded of the failed cycle, which its PodGroupPostFilter reads next.
	state := framework.NewCycleState()
	pre, st, _ := fw.RunPreFilterPlugins(ctx, state, preemptor)
	if !st.IsSuccess() {
		return nil, fwk.NewStatus(fwk.Unschedulable, "pod group preemption: "+st.Message())
	}
	m, err := pl.filterStatuses(ctx, state, preemptor, pre)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("pod group preemption: %w", err))
	}
	result, st, nominated := pl.preempt(ctx, state, preemptor, m, "pod group preemption: ")
	if result == nil || result.NominatedNodeName == "" {
		return nil, fwk.NewStatus(fwk.Unschedulable, st.Reasons()...)
	}
	infos := map[types.NamespacedName]*fwk.NominatingInfo{}
	nominate := func(p *v1.Pod, node string) {
		infos[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: node}
	}
	nominate(preemptor, result.NominatedNodeName)
	if !st.IsSuccess() {
		// The victims of the group's last preemption still go. As upstream's evaluator does then
		// ("ongoing preemption"), the members keep the rooms it nominated them to: a failure
		// would clear every member's nomination, and the room would go to whichever pod came next.
		for _, p := range pods[1:] {
			if node := pl.evictions.nominatedNode(p); node != "" {
				nominate(p, node)
			}
		}
		return &fwk.PodGroupPostFilterResult{NominatingInfos: infos}, fwk.NewStatus(fwk.Success, st.Message())
	}
	for p, node := range nominated {
		nominate(p, node)
	}
	return &fwk.PodGroupPostFilterResult{NominatingInfos: infos}, st
}

// filterStatuses is what the scheduler hands PostFilter: each node's Filter status for pod, and
// the nodes PreFilter left out unresolvable.
func (pl *Preemption) filterStatuses(ctx context.Context, state fwk.CycleState, pod *v1.Pod, pre *fwk.PreFilterResult) (fwk.NodeToStatusReader, error) {
	nodes, err := pl.fh.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, err
	}
	m := framework.NewDefaultNodeToStatus()
	for _, n := range nodes {
		if n.Node() == nil {
			continue
		}
		name := n.Node().Name
		if pre != nil && !pre.AllNodes() && !pre.NodeNames.Has(name) {
			continue
		}
		if st := pl.fh.RunFilterPluginsWithNominatedPods(ctx, state, pod, n); !st.IsSuccess() {
			m.Set(name, st)
		} else {
			m.Set(name, fwk.NewStatus(fwk.Unschedulable, "the pod's group does not fit whole"))
		}
	}
	return m, nil
}

// preemptsNever is the group's preemption policy as upstream's evaluator reads it: the PodGroup's
// own with PodGroupPreemptionPolicy on, else Never if any member says Never. The member that
// preempts for the group reads only its own.
func (pl *Preemption) preemptsNever(pgInfo fwk.PodGroupInfo, pods []*v1.Pod) bool {
	if pl.fts.EnablePodGroupPreemptionPolicy {
		pg := pgInfo.GetPodGroup()
		return pg != nil && pg.Spec.PreemptionPolicy != nil && *pg.Spec.PreemptionPolicy == schedulingv1beta1.PreemptNever
	}
	for _, p := range pods {
		if p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy == v1.PreemptNever {
			return true
		}
	}
	return false
}
