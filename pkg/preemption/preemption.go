// Package preemption is berth's one PostFilter plugin: upstream's preemption evaluator
// (k8s.io/kubernetes/pkg/scheduler/framework/preemption) with an Interface that answers "which
// pods may be victims, and which must go together" by asking the victim rules of other concerns
// (a victims.Rule each: package elasticquota's reclaim of borrowed quota, package gang's whole groups).
// With no rule having a say it chooses exactly what DefaultPreemption chooses, and it replaces
// DefaultPreemption in berth's profiles.
package preemption

import (
	"context"
	"iter"
	"math/rand"
	"slices"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	kubeschedulerv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	berthconfig "github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/cyclestate"
	"github.com/berth-sched/berth/pkg/dra"
	"github.com/berth-sched/berth/pkg/victims"
)

// Name of the plugin in the registry and in scheduler configurations.
const Name = "BerthPreemption"

const attemptKey = "PostFilter" + Name

var (
	_ fwk.PostFilterPlugin  = &Preemption{}
	_ fwk.PreEnqueuePlugin  = &Preemption{}
	_ fwk.EnqueueExtensions = &Preemption{}
	_ preemption.Interface  = &Preemption{}
)

// Preemption is the PostFilter plugin.
type Preemption struct {
	fh        fwk.Handle
	fts       feature.Features
	args      config.DefaultPreemptionArgs
	rulesFor  []victims.RuleFor
	executor  *preemption.Executor
	evaluator *preemption.Evaluator
	evictions *evictions
	// offset picks where the dry run starts among the candidate nodes; tests fix it.
	offset func(n int32) int32
	// draMatcher judges DRA GPU claims in the dry run (dra.go).
	draMatcher *dra.Matcher
}

// Factory returns the plugin's factory: in each profile, every one of rules builds its victim rule
// from the profile's handle. Its args are DefaultPreemption's (DefaultPreemptionArgs), with the
// same defaults.
func Factory(rules ...func(ctx context.Context, h fwk.Handle) (victims.RuleFor, error)) func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		var rulesFor []victims.RuleFor
		for _, f := range rules {
			ruleFor, err := f(ctx, h)
			if err != nil {
				return nil, err
			}
			rulesFor = append(rulesFor, ruleFor)
		}
		return New(obj, h, feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate), rulesFor...)
	}
}

// New builds the plugin from DefaultPreemptionArgs (nil means the defaults) and victim rules.
func New(obj runtime.Object, h fwk.Handle, fts feature.Features, rulesFor ...victims.RuleFor) (*Preemption, error) {
	args, err := berthconfig.ArgsOf(obj, defaultArgs, validation.ValidateDefaultPreemptionArgs)
	if err != nil {
		return nil, err
	}
	pl := &Preemption{fh: h, fts: fts, args: *args, rulesFor: rulesFor, offset: rand.Int31n, evictions: newEvictions(),
		draMatcher: dra.NewMatcher(dra.DefaultConfig())}
	pl.executor = preemption.NewExecutor(h, fts)
	pl.evaluator = preemption.NewEvaluator(Name, h, pl, pl.executor)
	if err := pl.retryOnClaimRelease(klog.LoggerWithName(klog.Background(), Name)); err != nil {
		return nil, err
	}
	return pl, nil
}

// defaultArgs are upstream's DefaultPreemptionArgs as v1 defaulting gives an empty pluginConfig
// entry: what the plugin built with no args (nil) runs with.
func defaultArgs() (*config.DefaultPreemptionArgs, error) {
	v1args := &kubeschedulerv1.DefaultPreemptionArgs{}
	configv1.SetDefaults_DefaultPreemptionArgs(v1args)
	return &config.DefaultPreemptionArgs{
		MinCandidateNodesPercentage: *v1args.MinCandidateNodesPercentage,
		MinCandidateNodesAbsolute:   *v1args.MinCandidateNodesAbsolute,
	}, nil
}

// Name returns the plugin's name.
func (*Preemption) Name() string { return Name }

// attempt is one preemption attempt's Rules, written to the cycle state before the dry run, and
// the victims its dry runs chose, by node.
type attempt struct {
	preemptor *v1.Pod
	rules     []*victims.Rule
	chosen    sync.Map
	// companions are, by node, the nodes its dry run placed the preemptor's companions on.
	companions sync.Map
}

// Clone returns the attempt itself: it never changes.
func (a *attempt) Clone() fwk.StateData { return a }

// PostFilter asks every victim rule for its victims.Rule about pod, runs upstream's evaluator, and tells
// the Rules what it chose.
func (pl *Preemption) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	defer metrics.PreemptionAttempts.Inc()
	result, status, _ := pl.preempt(ctx, state, pod, m, "preemption: ")
	return result, status
}

// preempt is one preemption attempt for pod, in its cycle state: the Rules asked, upstream's
// evaluator run, the Rules told what it chose. It returns the evaluator's result, its status (the
// evaluator's message after prefix, or what a Rule's InProgress says of the victims), and the
// companions it nominated with their nodes.
func (pl *Preemption) preempt(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader, prefix string) (*fwk.PostFilterResult, *fwk.Status, map[*v1.Pod]string) {
	a := pl.newAttempt(pod)
	state.Write(attemptKey, a)
	result, status := pl.evaluator.Preempt(ctx, state, pod, pl.withDRAResolvable(pod, m))
	var (
		victims   []*v1.Pod
		nominated map[*v1.Pod]string
	)
	if status.IsSuccess() && result != nil && result.NominatedNodeName != "" {
		if chosen, ok := a.chosen.Load(result.NominatedNodeName); ok {
			victims = chosen.([]*v1.Pod)
			pl.evictions.add(victims, func(uid types.UID) bool { return pl.fh.GetWaitingPod(uid) != nil })
			pl.evictions.nominate(pod.UID, result.NominatedNodeName, victims)
			nominated = pl.nominateCompanions(klog.FromContext(ctx), a, result.NominatedNodeName, victims)
			for _, r := range a.rules {
				if r.Evicting != nil {
					r.Evicting(victims)
				}
			}
		}
	} else if status.Message() == terminatingOnNominated {
		node := pl.evictions.nominatedNode(pod)
		victims = pl.terminatingOn(node)
		// The room is the preemptor's while its victims go: kept in the queue's nominations
		// even when the pod's status, read back from the informer, does not show it yet.
		result = framework.NewPostFilterResultWithNominatedNode(node)
	}
	for _, r := range a.rules {
		if r.InProgress != nil && len(victims) > 0 {
			if msg := r.InProgress(victims); msg != "" {
				return result, fwk.NewStatus(status.Code(), msg), nominated
			}
		}
	}
	if msg := status.Message(); msg != "" {
		status = fwk.NewStatus(status.Code(), prefix+msg)
	}
	return result, status, nominated
}

// nominateCompanions nominates the preemptor's companions that exist (victims.Rule.CompanionPods)
// to the nodes the chosen candidate's dry run placed them on, as upstream's pod-group preemption
// nominates every member of the group: the room made for them is theirs against pods of their
// priority or lower, and each, when tried before its victims are gone, waits for them
// (PodEligibleToPreemptOthers) instead of preempting again. Nominated the preemptor alone, the
// second member of team-g's gangs evicted one more pod elsewhere, and the room made for it went to
// another gang of team-g (issue 42: two gangs of two evicted six pods). It returns the companions
// it nominated, with their nodes.
func (pl *Preemption) nominateCompanions(logger klog.Logger, a *attempt, node string, victims []*v1.Pod) map[*v1.Pod]string {
	placedOn, ok := a.companions.Load(node)
	if !ok {
		return nil
	}
	var pods []*v1.Pod
	for _, r := range a.rules {
		if r.CompanionPods != nil {
			pods = r.CompanionPods()
			break
		}
	}
	nominated := map[*v1.Pod]string{}
	for i, name := range placedOn.([]string) {
		if i == len(pods) {
			break
		}
		pi, err := framework.NewPodInfo(pods[i])
		if err != nil {
			continue
		}
		pl.fh.AddNominatedPod(logger, pi, &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: name})
		var there []*v1.Pod
		for _, v := range victims {
			if v.Spec.NodeName == name {
				there = append(there, v)
			}
		}
		pl.evictions.nominate(pods[i].UID, name, there)
		nominated[pods[i]] = name
		logger.V(4).Info("Companion nominated to the room its group's preemption made", "pod", klog.KObj(pods[i]), "node", name, "preemptor", klog.KObj(a.preemptor))
	}
	return nominated
}

// newAttempt asks every victim rule for its victims.Rule about preemptor.
func (pl *Preemption) newAttempt(preemptor *v1.Pod) *attempt {
	a := &attempt{preemptor: preemptor}
	for _, ruleFor := range pl.rulesFor {
		if r := ruleFor(preemptor, pl.placed()); r != nil {
			a.rules = append(a.rules, r)
		}
	}
	return a
}

// placed yields every pod on a node in the cycle's snapshot.
func (pl *Preemption) placed() iter.Seq[*v1.Pod] {
	nodes, err := pl.fh.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return func(func(*v1.Pod) bool) {}
	}
	return victims.PodsOn(nodes)
}

// terminatingOn returns the pods on the node that an earlier preemption is evicting.
func (pl *Preemption) terminatingOn(node string) []*v1.Pod {
	ni, err := pl.fh.SnapshotSharedLister().NodeInfos().Get(node)
	if err != nil {
		return nil
	}
	var pods []*v1.Pod
	for _, pi := range ni.GetPods() {
		if preemption.PodTerminatingByPreemption(pi.GetPod()) {
			pods = append(pods, pi.GetPod())
		}
	}
	return pods
}

func attemptOf(state fwk.CycleState) *attempt {
	if a, ok := cyclestate.Of[*attempt](state, attemptKey); ok && a != nil {
		return a
	}
	return &attempt{}
}

// PreEnqueue keeps a pod whose preemption is still being carried out (asynchronous preemption)
// out of the queue, as DefaultPreemption does.
func (pl *Preemption) PreEnqueue(_ context.Context, p *v1.Pod) *fwk.Status {
	if pl.fts.EnableAsyncPreemption && pl.executor.IsPodRunningPreemption(p.GetUID()) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished")
	}
	return nil
}

// EventsToRegister: as DefaultPreemption, the plugins whose failures preemption resolves decide
// when a pod is retried; PreEnqueue's gate lifts when the preemption's deletions are done.
func (pl *Preemption) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	if !pl.fts.EnableAsyncPreemption {
		return nil, nil
	}
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: func(klog.Logger, *v1.Pod, any, any) (fwk.QueueingHint, error) {
			return fwk.QueueSkip, nil
		}},
	}, nil
}

// GetOffsetAndNumCandidates is DefaultPreemption's: a random start, and at least
// minCandidateNodesPercentage of the nodes or minCandidateNodesAbsolute of them.
func (pl *Preemption) GetOffsetAndNumCandidates(numNodes int32) (int32, int32) {
	n := (numNodes * pl.args.MinCandidateNodesPercentage) / 100
	n = max(n, pl.args.MinCandidateNodesAbsolute)
	return pl.offset(numNodes), min(n, numNodes)
}

// CandidatesToVictimsMap is DefaultPreemption's.
func (pl *Preemption) CandidatesToVictimsMap(candidates []preemption.Candidate) map[string]*extenderv1.Victims {
	m := make(map[string]*extenderv1.Victims, len(candidates))
	for _, c := range candidates {
		m[c.Name()] = c.Victims()
	}
	return m
}

// OrderedScoreFuncs returns nil: the evaluator's own order of candidates (fewest PDB violations,
// lowest highest priority, ...), which counts every pod of a group that goes whole.
func (pl *Preemption) OrderedScoreFuncs(context.Context, map[string]*extenderv1.Victims) []func(string) int64 {
	return nil
}

// terminatingOnNominated is DefaultPreemption's reason for not preempting again while an earlier
// preemption's victims are still going.
const terminatingOnNominated = "not eligible due to a terminating pod on the nominated node."

// PodEligibleToPreemptOthers is DefaultPreemption's: not with preemptionPolicy Never, and not
// while a pod it may preempt on its nominated node is still terminating from an earlier
// preemption. berth adds the victims a rule allowed whatever their priority (a quota's reclaim,
// fair sharing): while one the pod's own preemption evicted on its nominated node is still going,
// the pod waits for it too. DefaultPreemption's check passes over pods of its priority, so a
// fair-sharing preemptor retried before its victim was gone evicted a second pod on the other
// node, and the room of the first went to a pod of the team above its share, evicted in turn
// (issue 42: 8 evictions where the split needed 6).
func (pl *Preemption) PodEligibleToPreemptOthers(_ context.Context, pod *v1.Pod, nominatedNodeStatus *fwk.Status) (bool, string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever {
		return false, "not eligible due to preemptionPolicy=Never."
	}
	nomNodeName := pl.evictions.nominatedNode(pod)
	// The status the evaluator read is of the node the pod's status names; for the node only the
	// plugin remembers there is none (the evaluator read the absent nodes' Unresolvable).
	if nomNodeName == "" || (pod.Status.NominatedNodeName != "" && nominatedNodeStatus.Code() == fwk.UnschedulableAndUnresolvable) {
		return true, ""
	}
	if nodeInfo, _ := pl.fh.MutableSnapshotSharedLister().NodeInfos().Get(nomNodeName); nodeInfo != nil {
		priority := corev1helpers.PodPriority(pod)
		pods := make([]*v1.Pod, 0, len(nodeInfo.GetPods()))
		for _, p := range nodeInfo.GetPods() {
			if corev1helpers.PodPriority(p.GetPod()) < priority && preemption.PodTerminatingByPreemption(p.GetPod()) {
				return false, terminatingOnNominated
			}
			pods = append(pods, p.GetPod())
		}
		if pl.evictions.waitsForItsVictims(pod.UID, nomNodeName, pods) {
			return false, terminatingOnNominated
		}
	}
	return true, ""
}

// victim is one unit of eviction: a pod, or pods that go together.
type victim struct {
	preemption.Victim
}

// SelectVictimsOnNode is DefaultPreemption's algorithm with the Rules asked at three points:
// which pods go together (a unit is offered whole, with its pods on other nodes), which units
// may be victims (victims.Never vetoes, victims.Allowed waives the priority rule), and which set of them a
// Tally accepts (offered least important first). Then, as upstream: remove every accepted victim,
// check that the preemptor fits, and reprieve victims most important first, PDB-violating ones
// before the others. When a victims.Rule gives the preemptor Companions, the candidate also places them
// (see dryRun.placeCompanions) and its victims are those of every node involved.
func (pl *Preemption) SelectVictimsOnNode(ctx context.Context, cycleState fwk.CycleState, preemptor *v1.Pod, nodeInfo fwk.NodeInfo,
	allPossibleVictims []*preemption.DomainVictim, pdbs []*policy.PodDisruptionBudget) ([]*v1.Pod, int, *fwk.Status) {
	a := attemptOf(cycleState)
	d := pl.newDryRun(ctx, cycleState, preemptor, a.rules, pdbs)
	mainNode := nodeInfo.Node().Name
	d.copies[mainNode] = nodeInfo
	victims, numViolating, status := d.selectOn(nodeInfo, allPossibleVictims)
	if !status.IsSuccess() {
		return nil, 0, status
	}
	d.chosen = slices.Clone(victims)
	if n := companions(a.rules); n > 0 {
		if err := d.place(mainNode); err != nil {
			return nil, 0, fwk.AsStatus(err)
		}
		more, moreViolating, status := d.placeCompanions(n)
		if !status.IsSuccess() {
			return nil, 0, status
		}
		victims, numViolating = append(victims, more...), numViolating+moreViolating
		a.companions.Store(mainNode, d.companionNodes)
	}
	pods := pl.evictions.asTerminating(podsOfAll(victims))
	a.chosen.Store(mainNode, pods)
	return pods, numViolating, nil
}

// potentialVictims turns the pods on the node into units (whole groups where a victims.Rule says pods
// go together), keeps those that may be victims, and, when a victims.Rule keeps a Tally, the set the
// tallies accept, least important first, after the victims chosen already (on other nodes of the
// same candidate). Without Rules it is DefaultPreemption's list. Units with a pod in gone
// (already removed by this dry run) are not offered again.
func potentialVictims(preemptor *v1.Pod, all []*preemption.DomainVictim, rules []*victims.Rule, gone map[types.UID]bool, chosen []*victim) ([]*victim, error) {
	priority := corev1helpers.PodPriority(preemptor)
	seen := make(map[types.UID]bool, len(gone))
	for uid := range gone {
		seen[uid] = true
	}
	var out []*victim
	for _, dv := range all {
		v := &victim{Victim: dv.Victim}
		if len(rules) > 0 {
			grouped, err := together(dv, rules, seen)
			if err != nil {
				return nil, err
			}
			if grouped == nil {
				continue
			}
			v = grouped
		}
		if eligible(v, priority, rules) {
			out = append(out, v)
		}
	}
	var tallies []func(victim []*v1.Pod) bool
	for _, r := range rules {
		if r.Tally != nil {
			tallies = append(tallies, r.Tally())
		}
	}
	if len(tallies) == 0 {
		return out, nil
	}
	for _, v := range chosen {
		for _, take := range tallies {
			// Accepted when they were chosen, by a tally that had taken no more than those before them.
			take(podsOf(v))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return preemption.MoreImportantVictim(out[j], out[i]) })
	accepted := out[:0]
	for _, v := range out {
		pods := podsOf(v)
		ok := true
		for _, take := range tallies {
			if !take(pods) {
				ok = false
				break
			}
		}
		if ok {
			accepted = append(accepted, v)
		}
	}
	return accepted, nil
}

// together returns dv as a unit with every pod a victims.Rule says goes with it, or nil when one of its
// pods was already offered in another unit.
func together(dv *preemption.DomainVictim, rules []*victims.Rule, seen map[types.UID]bool) (*victim, error) {
	pods := podsOf(dv)
	grouped := false
	for _, r := range rules {
		if r.Together == nil {
			continue
		}
		for _, p := range pods {
			if more := r.Together(p); len(more) > 0 {
				pods = mergePods(pods, more)
				grouped = true
			}
		}
	}
	for _, p := range pods {
		if seen[p.UID] {
			return nil, nil
		}
	}
	for _, p := range pods {
		seen[p.UID] = true
	}
	if !grouped {
		return &victim{Victim: dv.Victim}, nil
	}
	infos := make([]fwk.PodInfo, 0, len(pods))
	var priority int32
	for i, p := range pods {
		pi, err := podInfo(p, dv)
		if err != nil {
			return nil, err
		}
		infos = append(infos, pi)
		if pr := corev1helpers.PodPriority(p); i == 0 || pr > priority {
			priority = pr
		}
	}
	v, err := preemption.NewVictim(infos, priority, fwk.PodGroupKeyType)
	if err != nil {
		return nil, err
	}
	return &victim{Victim: v}, nil
}

func eligible(v *victim, priority int32, rules []*victims.Rule) bool {
	allowed := false
	if len(rules) > 0 {
		pods := podsOf(v)
		for _, r := range rules {
			if r.Verdict == nil {
				continue
			}
			switch r.Verdict(pods) {
			case victims.Never:
				return false
			case victims.Allowed:
				allowed = true
			}
		}
	}
	return allowed || v.Priority() < priority
}

func podsOfAll(vs []*victim) []*v1.Pod {
	var pods []*v1.Pod
	for _, v := range vs {
		pods = append(pods, podsOf(v)...)
	}
	return pods
}

func podsOf(v preemption.Victim) []*v1.Pod {
	pods := make([]*v1.Pod, 0, len(v.Pods()))
	for _, pi := range v.Pods() {
		pods = append(pods, pi.GetPod())
	}
	return pods
}

func mergePods(a, b []*v1.Pod) []*v1.Pod {
	have := make(map[types.UID]bool, len(a))
	for _, p := range a {
		have[p.UID] = true
	}
	for _, p := range b {
		if !have[p.UID] {
			have[p.UID] = true
			a = append(a, p)
		}
	}
	return a
}

// podInfo is p's PodInfo: the snapshot's when p is one of dv's pods, a new one for a pod on
// another node.
func podInfo(p *v1.Pod, dv *preemption.DomainVictim) (fwk.PodInfo, error) {
	for _, pi := range dv.Pods() {
		if pi.GetPod().UID == p.UID {
			return pi, nil
		}
	}
	return framework.NewPodInfo(p)
}
