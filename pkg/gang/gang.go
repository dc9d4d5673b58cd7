// Package gang is berth's Gang plugin: the pods of a PodGroup (scheduler-plugins' CRD
// scheduling.x-k8s.io/v1alpha1, joined by the label scheduling.x-k8s.io/pod-group) are bound all
// together or not at all.
//
// A member passes the scheduling cycle as usual, holds what it reserved (GPUs included) at
// Permit, and is let through only when minMember members hold a place; until then it waits, at
// most the group's scheduleTimeoutSeconds. When a member cannot be placed, or a waiting one is
// released, every waiting member is rejected at once, so every plugin's Unreserve gives back all
// the group holds, and the group stands aside for a short backoff while others complete. The
// manager type holds that state machine and the argument that it cannot deadlock.
//
// Pods Gang turns away are parked with their reason and woken by the change that can help:
// their PodGroup appearing or changing (the plugin's own PodGroup informer), a member arriving
// (the scheduler's pod informer), the end of a backoff (a timer), or capacity (queue events).
package gang

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
	"github.com/berth-sched/berth/pkg/apis/config/validation"
)

// Name is the plugin's name in the registry and in configuration.
const Name = "Gang"

// podGroupSignerName keys the SignPod fragment that keeps pods of different groups out of one
// batch.
const podGroupSignerName = "v1.Pod.Labels.PodGroupKey()"

// The PodGroup client has a rate limit of its own, so status writes never eat into the budget
// the scheduler's client needs for binding.
const (
	podGroupClientQPS   = 10
	podGroupClientBurst = 20
)

// timings are the manager's and the status writer's delays; tests shorten them.
type timings struct {
	backoffBase, backoffMax, settle, statusBatch time.Duration
}

// defaultTimings: settle is well below backoffBase, as the manager's argument requires, and
// backoffMax is far above the time a group needs to schedule its members back to back.
var defaultTimings = timings{
	backoffBase: 2 * time.Second,
	backoffMax:  32 * time.Second,
	settle:      time.Second,
	statusBatch: time.Second,
}

// Gang schedules the members of a PodGroup all or nothing.
type Gang struct {
	logger         klog.Logger
	handle         fwk.Handle
	defaultTimeout time.Duration
	groups         *manager
	podGroups      schedlisters.PodGroupLister
	members        members
	status         *statusWriter
	done           <-chan struct{}
	// rejectMu serializes Rejects of waiting pods (see reject).
	rejectMu sync.Mutex
}

var (
	_ fwk.PreEnqueuePlugin  = &Gang{}
	_ fwk.EnqueueExtensions = &Gang{}
	_ fwk.SignPlugin        = &Gang{}
	_ fwk.PreFilterPlugin   = &Gang{}
	_ fwk.PostFilterPlugin  = &Gang{}
	_ fwk.ReservePlugin     = &Gang{}
	_ fwk.PermitPlugin      = &Gang{}
)

// New builds the plugin: it validates its args, builds a PodGroup client from the scheduler's
// kubeconfig, and starts the PodGroup informer and the status writer, which live as long as ctx.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := gangArgs(obj)
	if err != nil {
		return nil, err
	}
	if h.KubeConfig() == nil {
		return nil, fmt.Errorf("%s needs the scheduler's kubeconfig to build a PodGroup client", Name)
	}
	cfg := rest.CopyConfig(h.KubeConfig())
	cfg.QPS, cfg.Burst = podGroupClientQPS, podGroupClientBurst
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the PodGroup client: %w", err)
	}
	return newGang(ctx, args, h, client, defaultTimings)
}

// gangArgs returns obj as validated GangArgs, or the defaults when obj is nil.
func gangArgs(obj runtime.Object) (*config.GangArgs, error) {
	if obj == nil {
		defaults, err := configv1.DefaultGangArgs()
		if err != nil {
			return nil, err
		}
		obj = defaults
	}
	args, ok := obj.(*config.GangArgs)
	if !ok {
		return nil, fmt.Errorf("want args of type GangArgs, got %T", obj)
	}
	if err := validation.ValidateGangArgs(nil, args); err != nil {
		return nil, err
	}
	return args, nil
}

func newGang(ctx context.Context, args *config.GangArgs, h fwk.Handle, client versioned.Interface, t timings) (*Gang, error) {
	// Without the CRD, the informer below would never sync and the scheduler would hang at start.
	if _, err := client.SchedulingV1alpha1().PodGroups("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return nil, fmt.Errorf("listing PodGroups (is the CRD podgroups.scheduling.x-k8s.io installed, and may the scheduler list it?): %w", err)
	}
	podInformer := h.SharedInformerFactory().Core().V1().Pods().Informer()
	if err := addGroupIndex(podInformer); err != nil {
		return nil, err
	}
	pgFactory := externalversions.NewSharedInformerFactory(client, 0)
	pgInformer := pgFactory.Scheduling().V1alpha1().PodGroups()
	statusFactory := informers.NewSharedInformerFactoryWithOptions(h.ClientSet(), 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = v1alpha1.PodGroupLabel }),
		informers.WithTransform(statusFields))
	statusPods := statusFactory.Core().V1().Pods().Informer()
	status, err := newStatusWriter(client, pgInformer.Lister(), statusPods, t.statusBatch)
	if err != nil {
		return nil, err
	}
	pl := &Gang{
		logger:         klog.FromContext(ctx).WithValues("plugin", Name),
		handle:         h,
		defaultTimeout: time.Duration(args.DefaultScheduleTimeoutSeconds) * time.Second,
		groups:         newManager(t.backoffBase, t.backoffMax, t.settle),
		podGroups:      pgInformer.Lister(),
		members:        members{indexer: podInformer.GetIndexer()},
		status:         status,
		done:           ctx.Done(),
	}
	if _, err := pgInformer.Informer().AddEventHandler(pl.podGroupHandler()); err != nil {
		return nil, err
	}
	if _, err := podInformer.AddEventHandler(pl.podHandler()); err != nil {
		return nil, err
	}
	pgFactory.Start(ctx.Done())
	statusFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), pgInformer.Informer().HasSynced, statusPods.HasSynced) {
		return nil, fmt.Errorf("%s: PodGroup and pod informers did not sync: %w", Name, context.Cause(ctx))
	}
	go status.run(ctx)
	RegisterMetrics()
	return pl, nil
}

// Name returns the plugin's name.
func (*Gang) Name() string { return Name }

// podGroupHandler wakes a group's parked pods when its PodGroup appears or its spec changes, and
// releases its waiting members when it is deleted.
//
// This, not a queue event, is how PodGroup changes reach the queue. The scheduler can watch a
// custom resource for EventsToRegister ("podgroups.v1alpha1.scheduling.x-k8s.io" makes it start a
// dynamic informer), but that informer keeps a second copy of every PodGroup and delivers its
// events in no order relative to this plugin's informer: a pod requeued by it could meet a lister
// that does not show the PodGroup yet, and be gated again with nothing left to wake it. These
// handlers run after this informer's cache holds the change, and manager.Admit/Wake make parking
// and waking atomic.
func (pl *Gang) podGroupHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pg, ok := obj.(*v1alpha1.PodGroup); ok {
				key := keyOf(pg)
				pl.activate(pl.groups.Wake(key, time.Now(), nil, wokenByPodGroup...))
				pl.status.enqueue(key)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*v1alpha1.PodGroup)
			cur, ok2 := newObj.(*v1alpha1.PodGroup)
			if !ok1 || !ok2 {
				return
			}
			key := keyOf(cur)
			if !equality.Semantic.DeepEqual(old.Spec, cur.Spec) {
				pl.activate(pl.groups.Wake(key, time.Now(), nil, wokenByPodGroup...))
			}
			pl.status.enqueue(key)
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if pg, ok := obj.(*v1alpha1.PodGroup); ok {
				key := keyOf(pg)
				pl.reject(pl.groups.Drop(key, time.Now()), fmt.Sprintf("pod group %s was deleted", key))
				pl.status.enqueue(key)
			}
		},
	}
}

// podHandler, on the scheduler's own pod informer, wakes a group's parked pods when a member
// arrives or loses its scheduling gates, and forgets deleted pods. Unscheduled-pod Add events
// reach plugins' queueing hints only with the GenericWorkload feature gate, so the queue alone
// would never requeue pods waiting for their siblings.
func (pl *Gang) podHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*v1.Pod); ok {
				if key, ok := groupOf(pod); ok {
					pl.wakeIfReady(key)
				}
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*v1.Pod)
			cur, ok2 := newObj.(*v1.Pod)
			if !ok1 || !ok2 {
				return
			}
			oldKey, wasMember := groupOf(old)
			key, isMember := groupOf(cur)
			if wasMember && oldKey != key {
				pl.groups.Forget(oldKey, old.UID, time.Now())
			}
			if isMember && (oldKey != key || !schedulable(old)) {
				pl.wakeIfReady(key)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if pod, ok := obj.(*v1.Pod); ok {
				if key, ok := groupOf(pod); ok {
					pl.groups.Forget(key, pod.UID, time.Now())
				}
			}
		},
	}
}

// wokenByPodGroup are the reasons a PodGroup appearing or changing may lift. A group that
// stands aside waits for its timer whatever changes.
var wokenByPodGroup = []parkReason{parkedNotFound, parkedTooFew, parkedMinResources}

// wakeIfReady wakes the group's pods waiting for siblings once minMember of its pods can be
// scheduled.
func (pl *Gang) wakeIfReady(key types.NamespacedName) {
	pl.activate(pl.groups.Wake(key, time.Now(), func() bool {
		pg, err := pl.podGroups.PodGroups(key.Namespace).Get(key.Name)
		return err == nil && pl.members.ready(key) >= minMemberOf(pg)
	}, parkedTooFew))
}

// wakeAt wakes the group's pods parked by a backoff or a settle window at t, when it ends.
func (pl *Gang) wakeAt(key types.NamespacedName, t time.Time) {
	time.AfterFunc(time.Until(t), func() {
		select {
		case <-pl.done:
		default:
			pl.activate(pl.groups.Wake(key, time.Now(), nil, parkedBackoff, parkedRetry))
		}
	})
}

// activate moves pods to the active queue; the queue runs PreEnqueue on them again.
func (pl *Gang) activate(pods []*v1.Pod) {
	if len(pods) == 0 {
		return
	}
	m := make(map[string]*v1.Pod, len(pods))
	for _, p := range pods {
		m[p.Namespace+"/"+p.Name] = p
	}
	pl.handle.Activate(pl.logger, m)
}

// reject rejects the given members if they wait at Permit; the framework then runs every
// plugin's Unreserve for them.
//
// Rejections are serialized, and Gang ends its rounds with its own timer rather than the
// framework's: in 1.37.1 two Rejects of one waiting pod at once race inside the framework
// (waitingPod.stopWithStatus writes under a read lock), and a group's members share a deadline, so
// their framework timers would fire together with the release each of them triggers.
func (pl *Gang) reject(waiting []types.UID, msg string) {
	pl.rejectMu.Lock()
	defer pl.rejectMu.Unlock()
	for _, uid := range waiting {
		if wp := pl.handle.GetWaitingPod(uid); wp != nil {
			wp.Reject(Name, msg)
		}
	}
}

// release rejects the members a failed round gave up and wakes the group when its backoff ends.
func (pl *Gang) release(key types.NamespacedName, f roundFailure, reason, msg string) {
	failedRounds.WithLabelValues(reason).Inc()
	pl.logger.V(2).Info("Pod group round failed", "podGroup", key, "reason", reason, "released", len(f.Released), "backoff", f.Backoff)
	pl.reject(f.Released, msg)
	pl.wakeAt(key, time.Now().Add(f.Backoff))
}

// PreEnqueue keeps a member out of the active queue while its group cannot be scheduled: its
// PodGroup is missing, fewer than minMember of its pods can be scheduled, or it stands aside
// after a failed round. PreEnqueue results reach no pod condition, so the first time a pod is
// held for a reason it gets an event saying which.
func (pl *Gang) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	key, ok := groupOf(pod)
	if !ok {
		return nil
	}
	_, reason, st, newlyParked := pl.admit(key, pod, nil)
	if newlyParked {
		kind := v1.EventTypeNormal
		if reason == parkedNotFound {
			kind = v1.EventTypeWarning
		}
		pl.handle.EventRecorder().Eventf(pod, nil, kind, "GangWaiting", "Scheduling", st.Message())
	}
	return st
}

// admit decides whether pod's group lets it be scheduled now, and parks it if not. capacity,
// given in PreFilter only, adds the check of minResources against the nodes.
func (pl *Gang) admit(key types.NamespacedName, pod *v1.Pod, capacity func(*v1alpha1.PodGroup, groupView) string) (*v1alpha1.PodGroup, parkReason, *fwk.Status, bool) {
	var pg *v1alpha1.PodGroup
	var msg string
	reason, ok, newlyParked := pl.groups.Admit(key, pod, time.Now(), func(g groupView) (parkReason, bool) {
		var err error
		if pg, err = pl.podGroups.PodGroups(key.Namespace).Get(key.Name); err != nil {
			msg = fmt.Sprintf("pod group %s does not exist; the pod waits until it is created", key)
			return parkedNotFound, false
		}
		if d := g.BackoffRemaining(); d > 0 {
			msg = fmt.Sprintf("pod group %s could not place all its members and stands aside for %v", key, d.Round(time.Millisecond))
			return parkedBackoff, false
		}
		minMember := minMemberOf(pg)
		if n := pl.members.ready(key); n < minMember {
			msg = fmt.Sprintf("pod group %s has %d of its %d (minMember) pods ready to schedule; waiting for the rest", key, n, minMember)
			return parkedTooFew, false
		}
		if capacity != nil && len(pg.Spec.MinResources) > 0 {
			if short := capacity(pg, g); short != "" {
				msg = fmt.Sprintf("pod group %s needs more than the cluster's free capacity (minResources): %s", key, short)
				return parkedMinResources, false
			}
		}
		return 0, true
	})
	if ok {
		return pg, 0, nil, false
	}
	return pg, reason, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg), newlyParked
}

// EventsToRegister returns the events that can help a pod Gang rejected: capacity, for groups
// whose minResources did not fit. A PodGroup appearing or changing, a member arriving and a
// backoff ending wake parked pods directly (see podGroupHandler and podHandler).
func (pl *Gang) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable}, QueueingHintFn: pl.isSchedulableAfterCapacityChange},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete | fwk.UpdatePodScaleDown}, QueueingHintFn: pl.isSchedulableAfterCapacityChange},
	}, nil
}

// isSchedulableAfterCapacityChange requeues a pod unless it is parked for a reason capacity
// cannot help; those are woken by their own triggers.
func (pl *Gang) isSchedulableAfterCapacityChange(_ klog.Logger, pod *v1.Pod, _, _ any) (fwk.QueueingHint, error) {
	key, ok := groupOf(pod)
	if !ok {
		return fwk.QueueSkip, nil
	}
	if reason, parked := pl.groups.ParkedReason(key, pod.UID); parked && !reason.wokenByCapacity() {
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}

// SignPod gives each group's members a signature fragment of their own: opportunistic batching
// then reuses a node list only between members of one group.
func (pl *Gang) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	key, ok := groupOf(pod)
	if !ok {
		return nil, nil
	}
	return []fwk.SignFragment{{Key: podGroupSignerName, Value: key.String()}}, nil
}

// PreFilter rejects a member early when its group cannot be scheduled (see PreEnqueue; the
// cluster may have changed since), or when the group's minResources exceed the cluster's free
// capacity. The rejections are UnschedulableAndUnresolvable: preempting for one member cannot
// help the group.
func (pl *Gang) PreFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	key, ok := groupOf(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	pg, _, st, _ := pl.admit(key, pod, func(pg *v1alpha1.PodGroup, g groupView) string {
		return capacityShortfall(nodes, wantedResources(pg), pl.placed(key, g))
	})
	if pg != nil && pg.Status.ScheduleStartTime.IsZero() {
		pl.status.noteStarted(key, time.Now())
	}
	return nil, st
}

// PreFilterExtensions returns nil: Gang does not filter nodes.
func (*Gang) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// wantedResources is what a group asks of the cluster: its minResources and a pod slot for each
// of minMember members.
func wantedResources(pg *v1alpha1.PodGroup) v1.ResourceList {
	want := pg.Spec.MinResources.DeepCopy()
	if _, ok := want[v1.ResourcePods]; !ok {
		want[v1.ResourcePods] = *resource.NewQuantity(int64(minMemberOf(pg)), resource.DecimalSI)
	}
	return want
}

// placed returns the group's members that hold a place: reserved or bound, each once.
func (pl *Gang) placed(key types.NamespacedName, g groupView) []*v1.Pod {
	pods := g.Reserved()
	seen := uids(pods)
	for _, p := range pl.members.bound(key) {
		if !seen.Has(p.UID) {
			pods = append(pods, p)
		}
	}
	return pods
}

// PostFilter runs when no node can take a member. If the member's group waits at Permit without
// quorum, the group lets go: its waiting members are rejected at once, which gives back all they
// hold, and it stands aside for its backoff. It returns Unschedulable without a nomination, so
// the preemption plugins still run and may make room for the pod.
func (pl *Gang) PostFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	key, ok := groupOf(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	pg, err := pl.podGroups.PodGroups(key.Namespace).Get(key.Name)
	if err != nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	now := time.Now()
	v := pl.groups.MemberUnschedulable(key, pod, uids(pl.members.bound(key)), minMemberOf(pg), now)
	switch v.Verdict {
	case verdictRetry:
		pl.wakeAt(key, v.RetryAt)
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf(
			"pod group %s keeps its waiting members: reservations released a moment ago may not show yet; retrying", key))
	case verdictFail:
		msg := fmt.Sprintf("pod group %s: member %s cannot be placed; all %d waiting members were released and the group stands aside for %v",
			key, pod.Name, len(v.Failure.Released), v.Failure.Backoff)
		pl.release(key, v.Failure, failedUnschedulable, msg)
		return nil, fwk.NewStatus(fwk.Unschedulable, msg)
	}
	return nil, fwk.NewStatus(fwk.Unschedulable)
}

// Reserve records the member's reservation for its group's quorum.
func (pl *Gang) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) *fwk.Status {
	if key, ok := groupOf(pod); ok {
		pl.groups.Reserve(key, pod)
	}
	return nil
}

// Unreserve forgets the member's reservation. A member lost while its group waits at Permit (it
// timed out, another plugin rejected it, it was preempted or deleted) ends the group's round: the
// other waiting members are rejected too, so the group gives back everything at once.
func (pl *Gang) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	key, ok := groupOf(pod)
	if !ok {
		return
	}
	r := pl.groups.Unreserve(key, pod.UID, time.Now())
	if r.Failed == nil {
		return
	}
	if r.TimedOut {
		pl.release(key, *r.Failed, failedTimeout, fmt.Sprintf(
			"pod group %s did not reach minMember within its schedule timeout; all its waiting members were released", key))
		return
	}
	pl.release(key, *r.Failed, failedReleased, fmt.Sprintf(
		"pod group %s lost member %s before it was complete; all its waiting members were released", key, pod.Name))
}

// Permit lets a member through once minMember members of its group hold a place, and lets its
// waiting siblings through with it; until then the member waits, at most until the round's
// deadline. The first member to wait activates its pending siblings, so the group is scheduled
// back to back rather than interleaved with others.
func (pl *Gang) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	key, ok := groupOf(pod)
	if !ok {
		return nil, 0
	}
	pg, err := pl.podGroups.PodGroups(key.Namespace).Get(key.Name)
	if err != nil {
		pl.groups.Park(key, pod, parkedNotFound)
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("pod group %s does not exist", key)), 0
	}
	minMember := minMemberOf(pg)
	v := pl.groups.Permit(key, pod, uids(pl.members.bound(key)), minMember, pl.timeout(pg), time.Now())
	switch {
	case v.Refused != 0:
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf(
			"pod group %s could not place all its members and stands aside", key)), 0
	case v.Wait > 0:
		if v.FirstWaiter {
			pl.expireAt(key, v.Deadline)
			pl.activateSiblings(key, pod)
		}
		// The framework's own timer is only a backstop behind Gang's (see reject).
		return fwk.NewStatus(fwk.Wait, fmt.Sprintf("waiting for %d (minMember) members of pod group %s", minMember, key)), v.Wait + frameworkTimerSlack
	}
	for _, uid := range v.Allow {
		if wp := pl.handle.GetWaitingPod(uid); wp != nil {
			wp.Allow(Name)
		}
	}
	if len(v.Allow) > 0 {
		quorumWait.Observe(v.QuorumWait.Seconds())
	}
	return nil, 0
}

// expireAt ends the group's round at deadline unless it has ended by then.
func (pl *Gang) expireAt(key types.NamespacedName, deadline time.Time) {
	time.AfterFunc(time.Until(deadline), func() {
		select {
		case <-pl.done:
			return
		default:
		}
		if f := pl.groups.Expire(key, deadline, time.Now()); f != nil {
			pl.release(key, *f, failedTimeout, fmt.Sprintf(
				"pod group %s did not reach minMember within its schedule timeout; all its waiting members were released", key))
		}
	})
}

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
func (pl *Gang) timeout(pg *v1alpha1.PodGroup) time.Duration {
	t := pl.defaultTimeout
	if s := pg.Spec.ScheduleTimeoutSeconds; s != nil && *s > 0 {
		t = time.Duration(*s) * time.Second
	}
	return min(t, maxPermitWait-frameworkTimerSlack)
}

// minMemberOf is the group's quorum; the CRD's minimum is 1, and an unset field reads as 1.
func minMemberOf(pg *v1alpha1.PodGroup) int32 {
	return max(pg.Spec.MinMember, 1)
}

func keyOf(pg *v1alpha1.PodGroup) types.NamespacedName {
	return types.NamespacedName{Namespace: pg.Namespace, Name: pg.Name}
}
