// Package gang is berth's Gang plugin: the pods of a PodGroup are bound all together or not at
// all. A group is a scheduler-plugins PodGroup (scheduling.x-k8s.io/v1alpha1, joined by the label
// scheduling.x-k8s.io/pod-group) or, with the GenericWorkload gate, a native one
// (scheduling.k8s.io/v1beta1, joined by spec.schedulingGroup); pkg/podgroup hands Gang either as
// a podgroup.Group, and only the status writer (status.go) reads the APIs' own types.
//
// A member passes the scheduling cycle as usual, holds what it reserved (GPUs included) at
// Permit, and is let through only when minMember members hold a place; until then it waits, at
// most the group's scheduleTimeoutSeconds. When a member cannot be placed, or a waiting one is
// released, every waiting member is rejected at once, so every plugin's Unreserve gives back all
// the group holds, and the group stands aside for a short backoff while others complete. That
// state machine, and the argument that it cannot deadlock, is pkg/gangcore's; this package reads
// the scheduler's cycle for it and acts on what it decides.
//
// gang.go holds the extension points in the order the scheduler calls them, each followed by
// what only it uses. The rest: admission.go, what the core's admission of a member reads of its
// PodGroup and the snapshot; shared.go, the state one scheduler process shares among its
// profiles and the informer handlers that wake parked pods; topology.go, a group's domain;
// roomsum.go and capacity.go, the cluster's free room against a group's needs; groupcycle.go, a
// native group's cycle and its PodGroupPostFilter; status.go, PodGroup status of both APIs;
// victims.go, the group rule of berth's preemption.
//
// Pods Gang turns away are parked with their reason and woken by the change that can help:
// their PodGroup appearing or changing (the plugin's own PodGroup informer), a member arriving
// (the scheduler's pod informer), the end of a backoff (a timer), or capacity (queue events).
package gang

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/clock"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
	"github.com/berth-sched/berth/pkg/apis/config/validation"
	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
)

// Name is the plugin's name in the registry and in configuration.
const Name = "Gang"

// podGroupSignerName keys the SignPod fragment that keeps pods of different groups out of one
// batch.
const podGroupSignerName = "v1.Pod.Labels.PodGroupKey()"

// timings are the manager's and the status writer's delays; tests shorten them.
type timings struct {
	backoffBase, backoffMax, statusBatch time.Duration
	// turn is how long a group that holds nothing gives way to another group's round in progress.
	turn  time.Duration
	clock gangcore.Clock
}

// defaultTimings: backoffMax is far above the time a group needs to schedule its members back to
// back.
var defaultTimings = timings{
	backoffBase: 2 * time.Second,
	backoffMax:  32 * time.Second,
	statusBatch: time.Second,
	turn:        2 * time.Second,
	clock:       clock.RealClock{},
}

// The extension points Gang serves, in the order the scheduler calls them; a native group's
// failed cycle also reaches PodGroupPostFilter (groupcycle.go).
var (
	_ fwk.PreEnqueuePlugin         = &Gang{}
	_ fwk.SignPlugin               = &Gang{}
	_ fwk.PreFilterPlugin          = &Gang{}
	_ fwk.FilterPlugin             = &Gang{}
	_ fwk.PostFilterPlugin         = &Gang{}
	_ fwk.ReservePlugin            = &Gang{}
	_ fwk.PermitPlugin             = &Gang{}
	_ fwk.PodGroupPostFilterPlugin = &Gang{}
	_ fwk.EnqueueExtensions        = &Gang{}
)

// Gang schedules the members of a PodGroup all or nothing. Each profile that enables it gets a
// Gang of its own, over the state its process shares (shared.go).
type Gang struct {
	*shared
	handle         fwk.Handle
	defaultTimeout time.Duration
	// index holds the topology levels a PodGroup may ask for and each node's domains (topology.go).
	index *topology.Index
}

// New builds the plugin: it validates its args, and joins the state its process shares, which the first
// profile to enable Gang builds (see shared.go).
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := gangArgs(obj)
	if err != nil {
		return nil, err
	}
	return newGang(ctx, args, h, nil, defaultTimings)
}

// gangArgs returns obj as validated GangArgs, or the defaults when obj is nil.
func gangArgs(obj runtime.Object) (*config.GangArgs, error) {
	return config.ArgsOf(obj, configv1.DefaultGangArgs, validation.ValidateGangArgs)
}

func newGang(ctx context.Context, args *config.GangArgs, h fwk.Handle, client versioned.Interface, t timings) (*Gang, error) {
	c, err := sharedFor(ctx, h, client, t)
	if err != nil {
		return nil, err
	}
	return &Gang{
		shared:         c,
		handle:         h,
		defaultTimeout: time.Duration(args.DefaultScheduleTimeoutSeconds) * time.Second,
		index:          topology.NewIndex(args.TopologyLevels),
	}, nil
}

// Name returns the plugin's name.
func (*Gang) Name() string { return Name }

// TopologyLevels are the levels a PodGroup of this profile may ask for, outermost first.
func (g *Gang) TopologyLevels() topology.Levels { return g.index.Levels() }

// PreEnqueue keeps a member out of the active queue while its group cannot be scheduled: its
// PodGroup is missing, fewer than minMember of its pods can be scheduled, or it stands aside
// after a failed round. PreEnqueue results reach no pod condition, so the first time a pod is
// held for a reason it gets an event saying which; later holds for that reason get none.
func (pl *Gang) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	key, ok := podgroup.KeyOf(pod)
	if !ok {
		return nil
	}
	a := pl.groups.Enqueue(key, pod, &admission{pl: pl, key: key, pod: pod})
	if a.Reason == 0 {
		return nil
	}
	st := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, a.Msg)
	if a.FirstTime {
		kind := v1.EventTypeNormal
		if a.Reason == gangcore.ParkedNotFound {
			kind = v1.EventTypeWarning
		}
		pl.handle.EventRecorder().Eventf(pod, nil, kind, "GangWaiting", "Scheduling", st.Message())
	}
	return st
}

// SignPod gives each group's members a signature fragment of their own: opportunistic batching
// then reuses a node list only between members of one group.
func (pl *Gang) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	key, ok := podgroup.KeyOf(pod)
	if !ok {
		return nil, nil
	}
	return []fwk.SignFragment{{Key: podGroupSignerName, Value: key.String()}}, nil
}

// PreFilter rejects a member early when its group cannot be scheduled (see PreEnqueue; the
// cluster may have changed since), or when the group's minResources exceed the cluster's free
// capacity. The rejections are UnschedulableAndUnresolvable: preempting for one member cannot
// help the group. A group no domain of its required topology level holds, or that holds nothing
// and does not fit the cluster's free room, is rejected by Filter instead, as Pending on every
// node, so that the event that frees room skips its backoff. The order of the checks is the
// core's (gangcore.Manager.Admit); admission.go reads what they need of the PodGroup and the
// snapshot.
func (pl *Gang) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	// Only the leader runs scheduling cycles: any pod's cycle starts the status writer.
	pl.status.leading.Lead()
	key, ok := podgroup.KeyOf(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	c := &admission{pl: pl, key: key, pod: pod, nodes: nodes}
	a := pl.groups.Admit(key, pod, c)
	if c.pg != nil && c.pg.Started.IsZero() {
		pl.status.noteStarted(key, time.Now())
	}
	logger := klog.FromContext(ctx)
	switch {
	case a.RoomShort:
		// Who is turned away by the sum, and who goes, in order, is what tells whether the room
		// went to the oldest group (issue 28).
		logger.V(4).Info("Pod group does not fit the cluster's free room", "podGroup", key, "pod", klog.KObj(pod), "need", c.room.need.All, "oneMemberNeeds", c.room.need.One)
		state.Write(roomStateKey, c.room)
		pl.noteTried(state, pod, c.room)
		return nil, nil
	case a.GaveWayTo != "":
		logger.V(4).Info("Pod group gives way to an older one the free room holds", "podGroup", key, "pod", klog.KObj(pod), "older", a.GaveWayTo)
	case a.Reason == 0 && a.HoldsNothing:
		logger.V(4).Info("Pod group takes its turn", "podGroup", key, "pod", klog.KObj(pod))
	}
	if a.Reason != 0 {
		if a.Reason == gangcore.ParkedBadTopology && a.FirstTime {
			pl.warnPodGroup(c.pg, a.Msg)
		}
		state.Write(heldStateKey, heldMark{})
		if a.Reason == gangcore.ParkedTopology {
			// Rejected as Pending, by Filter on every node (roomsum.go says why there): room
			// freed in a domain then requeues the member past the queue's backoff, which its
			// failed tries under churn grow to 10 s. As an UnschedulableAndUnresolvable PreFilter
			// rejection the member waited it out whenever the active queue was not empty (the
			// queue pops the backoff queue only when it is): issue 42, fault 2.
			state.Write(roomStateKey, &roomState{msg: a.Msg})
			return nil, nil
		}
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, a.Msg)
	}
	pl.noteTried(state, pod, nil)
	if c.domain == nil {
		// Nothing for Filter to do.
		return nil, fwk.NewStatus(fwk.Skip)
	}
	state.Write(topologyStateKey, c.domain)
	// Only the domain's nodes go on to Filter and Score: without this the scheduler, finding a
	// small domain's few feasible nodes among thousands, filters every node of the cluster for each
	// member (the adaptive share of nodes to score never fills). The others are unresolvable, as
	// Filter would have them: preemption looks inside the domain only.
	return &fwk.PreFilterResult{NodeNames: c.domain.nodes}, nil
}

// PreFilterExtensions returns nil: Gang's Filter reads only node labels, which no pod changes.
func (*Gang) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// heldStateKey marks in a member's CycleState that Gang's PreFilter held it back: the scheduler
// still runs PostFilter for it, and that must not count as a failure of its group's round.
const heldStateKey fwk.StateKey = "PreFilter" + Name

type heldMark struct{}

func (heldMark) Clone() fwk.StateData { return heldMark{} }

func marked(state fwk.CycleState, key fwk.StateKey) bool {
	if state == nil {
		return false
	}
	_, err := state.Read(key)
	return err == nil
}

// Filter turns away the nodes outside the member's domain. They are unresolvable: preemption
// looks for room only inside the domain. PreFilter already names the domain's nodes, so the
// scheduler passes Filter no others; Filter stays for callers that filter any node (preemption's
// dry runs, the extender-style checks of other profiles).
func (pl *Gang) Filter(_ context.Context, state fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	if r := roomStateOf(state); r != nil {
		// The group cannot fit the cluster's room at all (roomsum.go), or no domain of the
		// level it requires (PreFilter).
		return fwk.NewStatus(fwk.Pending, r.msg)
	}
	s := topologyStateOf(state)
	if s == nil || ni.Node() == nil || s.nodes.Has(ni.Node().Name) {
		return nil
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, s.outside)
}

// PostFilter runs when no node can take a member. If the member's group waits at Permit without
// quorum, the group lets go: its waiting members are rejected at once, which gives back all they
// hold, and it stands aside for its backoff; unless this cycle's snapshot still showed room that
// another round has given back since, on a node that turned the member away, and then the member
// is retried (see manager). A member another plugin's PreFilter refused (its quota's fair share,
// say) makes its group wait for that plugin to let it in, not stand aside (gangcore.Cause). A
// member Gang's own PreFilter held back has failed no round and stays parked for its reason. It
// returns Unschedulable without a nomination, so the preemption plugins still run and may make
// room for the pod.
func (pl *Gang) PostFilter(_ context.Context, state fwk.CycleState, pod *v1.Pod, statuses fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	key, ok := podgroup.KeyOf(pod)
	if !ok || marked(state, heldStateKey) {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	pg, err := pl.podGroups.Of(key)
	if err != nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	domain := topologyStateOf(state)
	cause := gangcore.Cause{
		Why: fmt.Sprintf("could not place member %s: %s", pod.Name, pl.noNodeBecause(statuses, domain)),
		// After a PreFilter refusal the scheduler gives every node, looked at or not, that
		// plugin's status (findNodesThatFitPod); the status of nodes it did not look at names no
		// plugin otherwise.
		ByPreFilter: statuses != nil && statuses.Get("").Plugin() != "",
	}
	v := pl.groups.MemberFailed(key, pod, pg.MinMember, pl.snapshotCheck(func(node string) bool {
		return statuses != nil && statuses.Get(node).Code() == fwk.Unschedulable
	}), cause)
	if room := roomStateOf(state); room != nil {
		pl.groups.NoteNeed(key, room.need)
	}
	// The scheduler looked only inside the group's domain: the member is told which and why, or
	// it would read only that most nodes "didn't satisfy plugin(s) [Gang]".
	var reasons []string
	switch v.Verdict {
	case gangcore.VerdictRetry:
		reasons = append(reasons, fmt.Sprintf(
			"pod group %s keeps its waiting members: this attempt saw room held that has been given back since; retrying", key))
	case gangcore.VerdictFail:
		reasons = append(reasons, pl.release(key, v.Failure, failedUnschedulable))
	}
	if domain != nil {
		reasons = append(reasons, fmt.Sprintf("pod group %s goes to %s%s; nodes outside it were not considered", key, domain.name, domain.because))
	}
	return nil, fwk.NewStatus(fwk.Unschedulable, reasons...)
}

// noNodeBecause sums up why no node took a member, for the messages of its group: a PreFilter
// plugin's rejection, which every node shares, or else the reasons the nodes gave, in the order of
// their text and without counts. The scheduler writes a pod's condition whenever its message
// changes, and every member of a waiting group is retried after each backoff: counts, or an order
// by them, would change with every pod that comes or goes anywhere in the cluster and cost a write
// per member per retry. The member tried has the scheduler's own message, with the counts. Nodes
// outside the member's domain, which the scheduler did not look at, give the domain's name.
func (pl *Gang) noNodeBecause(statuses fwk.NodeToStatusReader, domain *topologyState) string {
	const none = "no node took it"
	if statuses == nil {
		return none
	}
	nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return none
	}
	given := sets.New[string]()
	var last *fwk.Status
	for _, n := range nodes {
		if domain != nil && !domain.nodes.Has(n.Node().Name) {
			given.Insert(domain.outside)
			continue
		}
		// Nodes in a row share a status after a PreFilter rejection: each is read once.
		st := statuses.Get(n.Node().Name)
		if st == last {
			continue
		}
		last = st
		if st.IsRejected() {
			given.Insert(st.Reasons()...)
		}
	}
	if given.Len() == 0 {
		return none
	}
	const shown = 3
	reasons := sets.List(given)
	text := strings.Join(reasons[:min(shown, len(reasons))], ", ")
	if len(reasons) > shown {
		text += fmt.Sprintf(" and %d more", len(reasons)-shown)
	}
	return text
}

// snapshotCheck reads this scheduling cycle's snapshot for the manager: whether it still shows a
// released pod on its node, and whether that node's verdict on the failing member (rejected)
// could have been different without it. It runs only within a scheduling cycle, where the
// snapshot is stable.
func (pl *Gang) snapshotCheck(rejected func(node string) bool) gangcore.SnapshotCheck {
	return func(uid types.UID, node string) (bool, bool) {
		ni, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(node)
		if err != nil {
			return false, false
		}
		for _, p := range ni.GetPods() {
			if p.GetPod().UID == uid {
				return true, rejected(node)
			}
		}
		return false, false
	}
}

// Reserve records the member's reservation for its group's quorum, and the topology domain its
// PreFilter chose, which then holds for the group's other members.
func (pl *Gang) Reserve(_ context.Context, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	if key, ok := podgroup.KeyOf(pod); ok {
		pl.groups.Reserve(key, pod, node)
		if s := topologyStateOf(state); s != nil {
			pl.groups.NoteDomain(key, &s.choice)
		}
		notePlaced(state, pod)
	}
	return nil
}

// Permit lets a member through once minMember members of its group hold a place, and lets its
// waiting siblings through with it; until then the member waits, at most until the round's
// deadline. The first member to wait activates its pending siblings, so the group is scheduled
// back to back rather than interleaved with others.
func (pl *Gang) Permit(_ context.Context, state fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	key, ok := podgroup.KeyOf(pod)
	if !ok {
		return nil, 0
	}
	pg, err := pl.podGroups.Of(key)
	if err != nil {
		pl.groups.Park(key, pod, gangcore.ParkedNotFound)
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("pod group %s does not exist", key)), 0
	}
	minMember := pg.MinMember
	v := pl.groups.Permit(key, pod, minMember, pl.timeout(pg))
	if v.Refused != 0 {
		msg := fmt.Sprintf("pod group %s could not place all its members and stands aside", key)
		if v.Why != "" {
			msg = gangcore.StandsAside(key, v.Backoff, v.Why)
		}
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg), 0
	}
	if state != nil {
		state.Write(permitStateKey, permitMark{})
	}
	switch {
	case v.Wait > 0:
		if v.FirstWaiter {
			pl.activateSiblings(key, pod)
		}
		// The framework's own timer is only a backstop behind Gang's (see reject).
		return fwk.NewStatus(fwk.Wait, fmt.Sprintf("waiting for %d (minMember) members of pod group %s", minMember, key)), v.Wait + frameworkTimerSlack
	}
	pl.allow(v)
	return nil, 0
}

// permitStateKey marks in a member's CycleState that Gang's Permit let it through or told it to
// wait: from then on its Unreserve may run outside its scheduling cycle.
const permitStateKey fwk.StateKey = "Permit" + Name

type permitMark struct{}

func (permitMark) Clone() fwk.StateData { return permitMark{} }

func passedPermit(state fwk.CycleState) bool { return marked(state, permitStateKey) }

// activateSiblings moves the group's pending members, other than pod, to the active queue.
func (pl *Gang) activateSiblings(key types.NamespacedName, pod *v1.Pod) {
	var pending []*v1.Pod
	for _, p := range pl.members.of(key) {
		if p.UID != pod.UID && p.Spec.NodeName == "" && schedulable(p) && pl.handle.GetWaitingPod(p.UID) == nil {
			pending = append(pending, p)
		}
	}
	pl.activate(pending)
}

// frameworkTimerSlack is how much later than Gang's own deadline the framework's Permit timer
// fires; the framework caps a Permit wait at maxPermitWait.
const (
	frameworkTimerSlack = 30 * time.Second
	maxPermitWait       = 15 * time.Minute
)

// timeout is how long a round of pg may wait at Permit.
func (pl *Gang) timeout(pg *podgroup.Group) time.Duration {
	t := pl.defaultTimeout
	if pg.ScheduleTimeout > 0 {
		t = pg.ScheduleTimeout
	}
	return min(t, maxPermitWait-frameworkTimerSlack)
}

// Unreserve forgets the member's reservation. A member lost while its group waits at Permit (it
// timed out, another plugin rejected it, it was preempted or deleted) ends the group's round: the
// other waiting members are rejected too, so the group gives back everything at once. A member
// turned down in its own scheduling cycle by Reserve or Permit, whether or not Gang's Reserve ran
// for it, is judged like one that fit no node (PostFilter), against the node it was tried on. A
// member that Gang's Permit had let through or told to wait, and that is not waiting in its
// group's round now (its bind failed, or it was released with an earlier round), only gives its
// place back: its failure says nothing about whether the current round can complete, and its
// Unreserve runs in its binding goroutine, where the scheduler's snapshot is not this cycle's but
// is being renewed for the next one.
func (pl *Gang) Unreserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) {
	key, ok := podgroup.KeyOf(pod)
	if !ok {
		return
	}
	if passedPermit(state) {
		pl.clearNomination(ctx, pod)
	}
	minMember := int32(1)
	if pg, err := pl.podGroups.Of(key); err == nil {
		minMember = pg.MinMember
	}
	var check gangcore.SnapshotCheck
	var why string
	if !passedPermit(state) {
		check = pl.snapshotCheck(func(n string) bool { return n == node })
		why = fmt.Sprintf("could not reserve member %s on node %s", pod.Name, node)
	}
	r := pl.groups.Unreserve(key, pod, minMember, check, why)
	if r.Outcome.Verdict != gangcore.VerdictFail {
		return
	}
	switch {
	case r.TimedOut:
		pl.release(key, r.Outcome.Failure, failedTimeout)
	case r.Lost:
		pl.release(key, r.Outcome.Failure, failedReleased)
	default:
		pl.release(key, r.Outcome.Failure, failedUnschedulable)
	}
}

// clearNomination takes back the nominatedNodeName that kube-scheduler 1.37 writes to a pod
// about to wait at Permit (NominatedNodeNameForExpectation, on by default). When the pod is
// rejected, the scheduler means to clear it, but compares against its copy of the pod from before
// the write and so leaves it in place; its queue then counts the pod as nominated to the node, and
// every pod of equal or lower priority finds that room taken while the released member stands
// aside. With many groups releasing members, freed room stayed empty for over a minute.
func (pl *Gang) clearNomination(ctx context.Context, pod *v1.Pod) {
	_, err := pl.handle.ClientSet().CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType,
		[]byte(`{"status":{"nominatedNodeName":null}}`), metav1.PatchOptions{}, "status")
	if err != nil && !apierrors.IsNotFound(err) {
		klog.FromContext(ctx).Error(err, "Clearing the nominated node of a released pod group member", "pod", klog.KObj(pod))
	}
}

// EventsToRegister returns the events that can help a pod Gang rejected: capacity, for groups
// whose minResources or topology domain did not fit (node labels make the domains). A PodGroup appearing or changing, a member arriving and a
// backoff ending wake parked pods directly (see podGroupHandler and podHandler).
func (pl *Gang) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		// UpdateNodeTaint is also how the queue tells a node uncordoned.
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint}, QueueingHintFn: pl.isSchedulableAfterCapacityChange},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete | fwk.UpdatePodScaleDown}, QueueingHintFn: pl.isSchedulableAfterCapacityChange},
	}, nil
}

// isSchedulableAfterCapacityChange requeues a pod unless it is parked for a reason capacity
// cannot help; those are woken by their own triggers. A node whose labels alone changed helps
// only a group looking for a topology domain: it frees no room.
func (pl *Gang) isSchedulableAfterCapacityChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	key, ok := podgroup.KeyOf(pod)
	if !ok {
		return fwk.QueueSkip, nil
	}
	reason, parked := pl.groups.ParkedReason(key, pod.UID)
	if parked && !reason.WokenByCapacity() {
		// A group's waiter is Gang's to requeue when Gang's Filter turned it away for the sum of
		// room (roomsum.go): the queue asks Gang only then, and skips its backoff. Every waiter
		// is asked on every event, so an event that adds no room must not move them all.
		if reason == gangcore.ParkedNoRoom && addsRoom(oldObj, newObj) {
			if _, whole := podgroup.NativeName(key); whole {
				// The queue holds a native group's members as one entity, which moves only when
				// every member passes PreEnqueue: the wait ends here, where the event is known to
				// add room, and whichever member is asked first moves the group without a detour
				// through the waiter's PreEnqueue and its siblings' activation.
				pl.groups.EndRoomWait(key)
				return fwk.Queue, nil
			}
		}
		if reason == gangcore.ParkedNoRoom && addsRoom(oldObj, newObj) && pl.groups.IsRoomWaiter(key, pod.UID) {
			if v := logger.V(5); v.Enabled() {
				// Not built when off: the queue asks every waiting pod on every event.
				v.Info("Room may have been freed for a pod group's waiter", "podGroup", key, "pod", klog.KObj(pod))
			}
			return fwk.Queue, nil
		}
		return fwk.QueueSkip, nil
	}
	if parked && reason == gangcore.ParkedTopology && !pl.inRequiredLevel(key, oldObj, newObj) {
		return fwk.QueueSkip, nil
	}
	if parked && reason != gangcore.ParkedTopology && !addsRoom(oldObj, newObj) {
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}

// inRequiredLevel reports whether a capacity event can change a domain of the topology level
// group key requires: the node it names (the node added or updated, or the node of the pod that
// ended) carries that level's label. A node without it is in no domain of the level, so room
// there cannot help a group no domain holds. Each such event requeued every member of every
// group waiting for a rack, ahead of younger groups the room would hold (BenchmarkBacklog: 10
// rack groups tried 3 times per freed CPU node, 30 to 40 ms each, delayed the groups the room was
// for by 0.2 to 0.4 s). When the group, its level or the node cannot be read, it says yes.
func (pl *Gang) inRequiredLevel(key types.NamespacedName, oldObj, newObj any) bool {
	pg, err := pl.podGroups.Of(key)
	if err != nil {
		return true
	}
	c, ok, err := pl.index.Levels().ConstraintOf(pg.Topology)
	if err != nil || !ok || !c.Required {
		return true
	}
	obj := newObj
	if obj == nil {
		obj = oldObj // a pod deleted
	}
	var node *v1.Node
	switch o := obj.(type) {
	case *v1.Node:
		node = o
	case *v1.Pod:
		if o == nil {
			return true
		}
		if node, err = pl.nodes.Get(o.Spec.NodeName); err != nil {
			return true
		}
	}
	if node == nil {
		return true
	}
	_, has := node.Labels[c.Key]
	return has
}

// addsRoom reports whether a capacity event can add room: a pod deleted or scaled down, a node
// added, a node whose allocatable grew in some resource, or one that became usable (uncordoned,
// or a taint that keeps pods off gone: the node lifecycle controller's not-ready taint when the
// node becomes ready); not a node update that only shrank it, changed its labels or added taints.
func addsRoom(oldObj, newObj any) bool {
	old, ok1 := oldObj.(*v1.Node)
	cur, ok2 := newObj.(*v1.Node)
	if !ok1 || !ok2 || old == nil || cur == nil {
		return true
	}
	if noderoom.AllocatableGrew(old, cur) {
		return true
	}
	if old.Spec.Unschedulable && !cur.Spec.Unschedulable {
		return true
	}
	for i := range old.Spec.Taints {
		t := &old.Spec.Taints[i]
		if t.Effect != v1.TaintEffectPreferNoSchedule && !slices.ContainsFunc(cur.Spec.Taints, func(c v1.Taint) bool { return c.MatchTaint(t) }) {
			return true
		}
	}
	return false
}
