package preemption

import (
	"context"
	"fmt"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"

	"github.com/berth-sched/berth/pkg/victims"
)

// dryRun is one candidate's simulation: the preemptor's cycle state (the evaluator's clone for
// this candidate), copies of the nodes Filter runs on, changed as victims go and companions are
// placed, and the pods removed so far. Every other node is read from the snapshot and never
// changed: its pods that go reach only the PreFilter extensions, which keep their own account.
type dryRun struct {
	pl        *Preemption
	ctx       context.Context
	logger    klog.Logger
	state     fwk.CycleState
	preemptor *v1.Pod
	rules     []*victims.Rule
	pdbs      []*policy.PodDisruptionBudget
	copies    map[string]fwk.NodeInfo
	removed   map[types.UID]bool
	// chosen are the victims this candidate settled on, on every node so far: a Tally bounds
	// them all together (a lender's min holds across nodes, not per node).
	chosen []*victim
	placed int
	// companionNodes are the nodes placeCompanions put the companions on, in order.
	companionNodes []string
	// parent is the dry run a fork reads its other nodes from.
	parent *dryRun
}

func (pl *Preemption) newDryRun(ctx context.Context, state fwk.CycleState, preemptor *v1.Pod, rules []*victims.Rule, pdbs []*policy.PodDisruptionBudget) *dryRun {
	return &dryRun{pl: pl, ctx: ctx, logger: klog.FromContext(ctx), state: state, preemptor: preemptor, rules: rules, pdbs: pdbs,
		copies: map[string]fwk.NodeInfo{}, removed: map[types.UID]bool{}}
}

// view is the node as this dry run sees it, read-only: its copy, its parent's, or the snapshot's.
func (d *dryRun) view(name string) (fwk.NodeInfo, error) {
	if ni, ok := d.copies[name]; ok {
		return ni, nil
	}
	if d.parent != nil {
		return d.parent.view(name)
	}
	return d.pl.fh.SnapshotSharedLister().NodeInfos().Get(name)
}

// current is the node as this dry run has left it: its copy, or a new copy when pods this dry
// run removed (a group's members on other nodes) still run there in the snapshot.
func (d *dryRun) current(name string) (fwk.NodeInfo, error) {
	ni, err := d.view(name)
	if err != nil {
		return nil, err
	}
	if _, copied := d.copies[name]; copied {
		return ni, nil
	}
	for _, pi := range ni.GetPods() {
		if d.removed[pi.GetPod().UID] {
			return d.copyOf(name)
		}
	}
	return ni, nil
}

// copyOf returns this dry run's copy of the node, made on first use without the pods removed so far.
func (d *dryRun) copyOf(name string) (fwk.NodeInfo, error) {
	if ni, ok := d.copies[name]; ok {
		return ni, nil
	}
	ni, err := d.pl.fh.SnapshotSharedLister().NodeInfos().Get(name)
	if err != nil {
		return nil, err
	}
	if ni, err = d.without(ni); err != nil {
		return nil, err
	}
	d.copies[name] = ni
	return ni, nil
}

// without returns a copy of the snapshot's ni without the pods removed so far.
func (d *dryRun) without(ni fwk.NodeInfo) (fwk.NodeInfo, error) {
	var gone []*v1.Pod
	for _, pi := range ni.GetPods() {
		if d.removed[pi.GetPod().UID] {
			gone = append(gone, pi.GetPod())
		}
	}
	ni = ni.Snapshot()
	for _, p := range gone {
		if err := ni.RemovePod(d.logger, p); err != nil {
			return nil, err
		}
	}
	return ni, nil
}

// change removes (add false) or returns a unit's pods, on whichever nodes they run.
func (d *dryRun) change(v *victim, add bool) error {
	for _, pi := range v.Pods() {
		name := pi.GetPod().Spec.NodeName
		ni, err := d.view(name)
		if err != nil {
			return err
		}
		_, own := d.copies[name]
		var status *fwk.Status
		if add {
			if own {
				ni.AddPodInfo(pi)
			}
			delete(d.removed, pi.GetPod().UID)
			status = d.pl.fh.RunPreFilterExtensionAddPod(d.ctx, d.state, d.preemptor, pi, ni)
		} else {
			if own {
				if err := ni.RemovePod(d.logger, pi.GetPod()); err != nil {
					return err
				}
			}
			d.removed[pi.GetPod().UID] = true
			status = d.pl.fh.RunPreFilterExtensionRemovePod(d.ctx, d.state, d.preemptor, pi, ni)
		}
		if !status.IsSuccess() {
			return status.AsError()
		}
	}
	return nil
}

func (d *dryRun) fits(ni fwk.NodeInfo) *fwk.Status {
	status := d.pl.fh.RunFilterPluginsWithNominatedPods(d.ctx, d.state, d.preemptor, ni)
	if status.IsSuccess() {
		return status
	}
	// DynamicResources cannot see victims' devices freed (dra.go).
	return d.draFits(ni, status)
}

// selectOn is DefaultPreemption's choice of victims on one node (nodeInfo, a copy this dry run
// owns), with the Rules asked as SelectVictimsOnNode says.
func (d *dryRun) selectOn(nodeInfo fwk.NodeInfo, all []*preemption.DomainVictim) ([]*victim, int, *fwk.Status) {
	potential, err := potentialVictims(d.preemptor, all, d.rules, d.removed, d.chosen)
	if err != nil {
		return nil, 0, fwk.AsStatus(err)
	}
	if len(potential) == 0 {
		return nil, 0, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "No preemption victims found for incoming pod")
	}
	for _, v := range potential {
		if err := d.change(v, false); err != nil {
			return nil, 0, fwk.AsStatus(err)
		}
	}
	if status := d.fits(nodeInfo); !status.IsSuccess() {
		return nil, 0, status
	}
	sort.Slice(potential, func(i, j int) bool { return preemption.MoreImportantVictim(potential[i], potential[j]) })

	violating, nonViolating := preemption.FilterVictimsWithPDBViolation(potential, d.pdbs)
	var victims []*victim
	reprieve := func(v *victim) (bool, error) {
		if err := d.change(v, true); err != nil {
			return false, err
		}
		fits := d.fits(nodeInfo).IsSuccess()
		if !fits {
			if err := d.change(v, false); err != nil {
				return false, err
			}
			victims = append(victims, v)
		}
		return fits, nil
	}
	numViolating := 0
	for _, vv := range violating {
		fits, err := reprieve(vv.Victim)
		if err != nil {
			return nil, 0, fwk.AsStatus(err)
		}
		if !fits {
			numViolating += vv.ViolateCount
		}
	}
	for _, v := range nonViolating {
		if _, err := reprieve(v); err != nil {
			return nil, 0, fwk.AsStatus(err)
		}
	}
	if len(violating) != 0 && len(nonViolating) != 0 {
		sort.Slice(victims, func(i, j int) bool { return preemption.MoreImportantVictim(victims[i], victims[j]) })
	}
	return victims, numViolating, nil
}

// place puts a pod like the preemptor on the node, so that the pods placed after it see it there.
func (d *dryRun) place(name string) error {
	ni, err := d.copyOf(name)
	if err != nil {
		return err
	}
	p := d.preemptor.DeepCopy()
	p.UID = types.UID(fmt.Sprintf("%s-companion-%d", d.preemptor.UID, d.placed))
	p.Name = fmt.Sprintf("%s-companion-%d", d.preemptor.Name, d.placed)
	p.Spec.NodeName = name
	d.placed++
	pi, err := framework.NewPodInfo(p)
	if err != nil {
		return err
	}
	ni.AddPodInfo(pi)
	if status := d.pl.fh.RunPreFilterExtensionAddPod(d.ctx, d.state, d.preemptor, pi, ni); !status.IsSuccess() {
		return status.AsError()
	}
	return nil
}

// placeCompanions places n pods like the preemptor, one at a time: on the first node where one
// fits as things are, else on the node whose victims upstream's evaluator prefers (its
// SelectCandidate: fewest PDB violations, lowest highest priority, ...), each node judged by
// DefaultPreemption's choice of victims there. It returns every victim it took, or Unschedulable
// when one of them fits nowhere: then the candidate takes nothing.
func (d *dryRun) placeCompanions(n int) ([]*victim, int, *fwk.Status) {
	nodes, err := d.pl.fh.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, 0, fwk.AsStatus(err)
	}
	var (
		victims      []*victim
		numViolating int
	)
	for i := range n {
		name, took, violating, status := d.placeOne(nodes)
		if !status.IsSuccess() {
			return nil, 0, fwk.NewStatus(fwk.Unschedulable,
				fmt.Sprintf("preemption cannot make room for the other %d members of the group the pod needs: %s", n-i, status.Message()))
		}
		for _, v := range took {
			if err := d.change(v, false); err != nil {
				return nil, 0, fwk.AsStatus(err)
			}
		}
		if err := d.place(name); err != nil {
			return nil, 0, fwk.AsStatus(err)
		}
		d.companionNodes = append(d.companionNodes, name)
		victims, numViolating = append(victims, took...), numViolating+violating
		d.chosen = append(d.chosen, took...)
	}
	return victims, numViolating, nil
}

// placeOne finds the node for one companion and the victims it needs there, without changing
// this dry run: each node's victims are chosen in a fork of it.
func (d *dryRun) placeOne(nodes []fwk.NodeInfo) (string, []*victim, int, *fwk.Status) {
	var open []string
	for _, n := range nodes {
		if n.Node() == nil {
			continue
		}
		name := n.Node().Name
		ni, err := d.current(name)
		if err != nil {
			return "", nil, 0, fwk.AsStatus(err)
		}
		status := d.fits(ni)
		if status.IsSuccess() {
			return name, nil, 0, nil
		}
		if status.Code() != fwk.UnschedulableAndUnresolvable {
			open = append(open, name)
		}
	}
	type trial struct {
		victims      []*victim
		numViolating int
	}
	trials := map[string]trial{}
	var candidates []preemption.Candidate
	for _, name := range open {
		f, ni, err := d.fork(name)
		if err != nil {
			return "", nil, 0, fwk.AsStatus(err)
		}
		all, err := d.pl.evaluator.GetVictimsOnNode(d.ctx, ni)
		if err != nil {
			return "", nil, 0, fwk.AsStatus(err)
		}
		victims, numViolating, status := f.selectOn(ni, all)
		if status.Code() == fwk.Error {
			return "", nil, 0, status
		}
		if !status.IsSuccess() || len(victims) == 0 {
			continue
		}
		trials[name] = trial{victims, numViolating}
		candidates = append(candidates, &companionCandidate{name: name, victims: &extenderv1.Victims{
			Pods: podsOfAll(victims), NumPDBViolations: int64(numViolating)}})
	}
	if len(candidates) == 0 {
		return "", nil, 0, fwk.NewStatus(fwk.Unschedulable, "no node has room for another, even after preemption")
	}
	best := d.pl.evaluator.SelectCandidate(d.ctx, candidates)
	t := trials[best.Name()]
	return best.Name(), t.victims, t.numViolating, nil
}

// fork is a dry run on a clone of this one's cycle state that may change only its own copy of
// the node name; every other node it reads from this dry run, unchanged.
func (d *dryRun) fork(name string) (*dryRun, fwk.NodeInfo, error) {
	ni, err := d.view(name)
	if err != nil {
		return nil, nil, err
	}
	f := d.pl.newDryRun(d.ctx, d.state.Clone(), d.preemptor, d.rules, d.pdbs)
	f.parent = d
	f.chosen = slices.Clone(d.chosen)
	for uid := range d.removed {
		f.removed[uid] = true
	}
	own := ni.Snapshot()
	if _, copied := d.copies[name]; !copied {
		if own, err = d.without(ni); err != nil {
			return nil, nil, err
		}
	}
	f.copies[name] = own
	return f, own, nil
}

// companionCandidate is one node's victims for a companion, in the evaluator's terms.
type companionCandidate struct {
	name    string
	victims *extenderv1.Victims
}

func (c *companionCandidate) Victims() *extenderv1.Victims { return c.victims }
func (c *companionCandidate) Name() string                 { return c.name }
func (c *companionCandidate) NumPodGroupDisruptions() int  { return 0 }

// companions is the most Companions any victims.Rule asks for.
func companions(rules []*victims.Rule) int {
	n := 0
	for _, r := range rules {
		if r.Companions != nil {
			n = max(n, r.Companions())
		}
	}
	return n
}
