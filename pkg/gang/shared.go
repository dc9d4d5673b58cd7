package gang

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/activate"
	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/podroom"
	"github.com/berth-sched/berth/pkg/process"
	"github.com/berth-sched/berth/pkg/tombstone"
)

// shared is Gang's state for one scheduler process: the group state machine, the PodGroup
// informer, the status writer and the informer handlers that wake parked pods. A plugin factory
// runs once per profile; every profile that enables Gang shares it, as it shares the
// scheduler's informers, queue and map of pods waiting at Permit, so a group's members count
// toward one quorum whichever profile placed them, and one status writer serves them all.
type shared struct {
	logger klog.Logger
	// handle is the first profile's. What it asks of the handle (activating pods, finding a pod
	// waiting at Permit) is the scheduler's, not the profile's.
	handle    fwk.Handle
	groups    *gangcore.Manager
	podGroups *podgroup.Groups
	members   members
	status    *statusWriter
	// quotas lists the ElasticQuotas, for the sum of room (roomsum.go).
	quotas schedlisters.ElasticQuotaLister
	// nodes lists the scheduler's nodes, for the topology label of a node a capacity event names
	// (inRequiredLevel).
	nodes corelisters.NodeLister
	// podEvents is the pod handler's registration: its counts are complete once it has synced.
	podEvents cache.ResourceEventHandlerRegistration
	// rejectMu serializes Rejects of waiting pods (see reject).
	rejectMu sync.Mutex
}

// perScheduler holds each scheduler's shared state, keyed by the informer factory its profiles share.
var perScheduler process.Shared[informers.SharedInformerFactory, *shared]

// sharedFor returns the shared state of h's scheduler, building it on the first call, with client for
// PodGroups (nil: the scheduler's, see podgroup.For). It lives as long as ctx, the scheduler's.
func sharedFor(ctx context.Context, h fwk.Handle, client versioned.Interface, t timings) (*shared, error) {
	return perScheduler.Get(ctx, h.SharedInformerFactory(), func() (*shared, error) { return newShared(ctx, h, client, t) })
}

func newShared(ctx context.Context, h fwk.Handle, client versioned.Interface, t timings) (*shared, error) {
	groups, err := podgroup.For(ctx, h, client)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	podInformer := h.SharedInformerFactory().Core().V1().Pods().Informer()
	statusFactory, statusPods := statusPodInformer(h.ClientSet())
	status, err := newStatusWriter(groups.Client, groups.PodGroups.Lister(), statusPods, t.statusBatch)
	if err != nil {
		return nil, err
	}
	if podgroup.NativeEnabled() {
		status.serveNative(h.ClientSet(), groups)
	}
	c := &shared{
		logger:    klog.FromContext(ctx).WithValues("plugin", Name),
		handle:    h,
		podGroups: groups,
		members:   members{indexer: groups.Pods},
		status:    status,
		nodes:     h.SharedInformerFactory().Core().V1().Nodes().Lister(),
	}
	var native func(types.NamespacedName) bool
	if podgroup.NativeEnabled() {
		native = func(key types.NamespacedName) bool { _, ok := podgroup.NativeName(key); return ok }
	}
	c.groups = gangcore.NewManager(gangcore.Config{
		BackoffBase: t.backoffBase,
		BackoffMax:  t.backoffMax,
		TurnMax:     t.turn,
		Clock:       t.clock,
		Hooks: gangcore.Hooks{
			Activate: c.activate,
			Expired:  func(key types.NamespacedName, f gangcore.RoundFailure) { c.release(key, f, failedTimeout) },
			Queued:   groups.Order.Note,
			Gone:     groups.Order.Forget,
		},
		Native: native,
	})
	if err := groups.AddEventHandler(c.podGroupHandler()); err != nil {
		return nil, err
	}
	if c.podEvents, err = podInformer.AddEventHandler(c.podHandler()); err != nil {
		return nil, err
	}
	nodeInformer := h.SharedInformerFactory().Core().V1().Nodes().Informer()
	if _, err := nodeInformer.AddEventHandler(c.nodeHandler()); err != nil {
		return nil, err
	}
	// Taken, not started: ElasticQuota starts it when enabled (see quotaIn).
	quotas := groups.Informers.Scheduling().V1alpha1().ElasticQuotas()
	c.quotas = quotas.Lister()
	if _, err := quotas.Informer().AddEventHandler(c.quotaHandler()); err != nil {
		return nil, err
	}
	statusFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), statusPods.HasSynced) {
		return nil, fmt.Errorf("%s: the pod informer of the status writer did not sync: %w", Name, context.Cause(ctx))
	}
	go status.run(ctx)
	RegisterMetrics()
	return c, nil
}

// podGroupHandler wakes a group's parked pods when its PodGroup (of either API: see
// podgroup.Groups.AddEventHandler) appears or its spec changes, lets
// its waiting members through when a lower minMember completes it, and releases them when it is
// deleted.
//
// This, not a queue event, is how PodGroup changes reach the queue. The scheduler can watch a
// custom resource for EventsToRegister ("podgroups.v1alpha1.scheduling.x-k8s.io" makes it start a
// dynamic informer), but that informer keeps a second copy of every PodGroup and delivers its
// events in no order relative to this plugin's informer: a pod requeued by it could meet a lister
// that does not show the PodGroup yet, and be gated again with nothing left to wake it. These
// handlers run after this informer's cache holds the change, and the manager's Enqueue, Admit and Wake make parking
// and waking atomic.
func (c *shared) podGroupHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pg, ok := obj.(*podgroup.Group); ok {
				key := pg.Key
				c.activate(c.groups.Wake(key, nil, wokenByPodGroup...))
				c.status.enqueue(key)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*podgroup.Group)
			cur, ok2 := newObj.(*podgroup.Group)
			if !ok1 || !ok2 {
				return
			}
			key := cur.Key
			if podgroup.SpecChanged(old, cur) {
				c.groups.EndRoomWait(key)
				c.allow(c.groups.Reevaluate(key, cur.MinMember))
				c.activate(c.groups.Wake(key, nil, wokenByPodGroup...))
			}
			c.status.enqueue(key)
		},
		DeleteFunc: func(obj any) {
			if pg, ok := obj.(*podgroup.Group); ok {
				key := pg.Key
				c.reject(key, c.groups.Drop(key), fmt.Sprintf("pod group %s was deleted", key))
				c.status.enqueue(key)
			}
		},
	}
}

// podHandler, on the scheduler's own pod informer, keeps the groups' counts of ready and bound
// members, and wakes a group's parked pods when a member arrives or loses its scheduling gates.
// Unscheduled-pod Add events reach plugins' queueing hints only with the GenericWorkload feature
// gate, so the queue alone would never requeue pods waiting for their siblings.
func (c *shared) podHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*v1.Pod); ok {
				if key, ok := podgroup.KeyOf(pod); ok {
					c.groups.PodChanged(key, pod.UID, memberState(pod))
					c.wakeIfReady(key)
					c.newCandidate(key, pod)
				}
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*v1.Pod)
			cur, ok2 := newObj.(*v1.Pod)
			if !ok1 || !ok2 {
				return
			}
			if cur.Spec.NodeName != "" && podroom.Holds(old) {
				switch {
				case !podroom.Holds(cur):
					c.groups.PodFreed(cur.UID, cur.Spec.NodeName, "")
				case scaledDown(old, cur):
					c.groups.PodFreed(cur.UID, cur.Spec.NodeName, cur.ResourceVersion)
				default:
					c.groups.BoundPodChanged(cur.UID, cur.ResourceVersion)
				}
			}
			oldKey, wasMember := podgroup.KeyOf(old)
			key, isMember := podgroup.KeyOf(cur)
			if wasMember && oldKey != key {
				c.groups.PodChanged(oldKey, old.UID, gangcore.PodGone)
			}
			if isMember {
				c.groups.PodChanged(key, cur.UID, memberState(cur))
				if oldKey != key || !schedulable(old) {
					c.wakeIfReady(key)
					c.newCandidate(key, cur)
				}
			}
		},
		DeleteFunc: func(obj any) {
			if pod, ok := tombstone.As[*v1.Pod](obj); ok {
				// A pod that finished gave its room back then (the scheduler forgets it).
				if pod.Spec.NodeName != "" && podroom.Holds(pod) {
					c.groups.PodFreed(pod.UID, pod.Spec.NodeName, "")
				}
				if key, ok := podgroup.KeyOf(pod); ok {
					c.groups.PodChanged(key, pod.UID, gangcore.PodGone)
				}
			}
		},
	}
}

// scaledDown reports whether a bound pod's update lowered its requests in place (a resize), by the
// scheduler's own reading: the update for which the queue tells plugins UpdatePodScaleDown.
func scaledDown(old, cur *v1.Pod) bool {
	for _, e := range framework.PodSchedulingPropertiesChange(cur, old, false) {
		if e.ActionType&fwk.UpdatePodScaleDown != 0 {
			return true
		}
	}
	return false
}

// nodeHandler cuts short the backoffs of groups that stand aside (manager.RoomFreed) when a node
// joins or grows, and cuts short the waits of native groups (roomseen.go). Pods ending do the same from
// podHandler. The queue's events cannot: a member in backoff is held in PreEnqueue, and PreEnqueue
// alone cannot tell that room appeared.
func (c *shared) nodeHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if n, ok := obj.(*v1.Node); ok {
				c.groups.NodeGrew(n.Name, n.ResourceVersion)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			n, ok := newObj.(*v1.Node)
			if !ok {
				return
			}
			if addsRoom(oldObj, newObj) {
				c.groups.NodeGrew(n.Name, n.ResourceVersion)
			} else {
				c.groups.NodeChanged(n.Name, n.ResourceVersion)
			}
		},
		DeleteFunc: func(obj any) {
			if n, ok := tombstone.As[*v1.Node](obj); ok {
				c.groups.NodeChanged(n.Name, "")
			}
		},
	}
}

// quotaHandler ends the waits for room of a namespace's groups when an ElasticQuota appears
// there: its reclaim may let them preempt pods of any priority, which the sum of room held them
// back without counting (roomsum.go).
func (c *shared) quotaHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			// The ElasticQuota informer's: its namespace is all that is read.
			if q, err := meta.Accessor(obj); err == nil {
				c.groups.EndRoomWaitsIn(q.GetNamespace())
			}
		},
	}
}

// newCandidate ends the group's wait for room when pod joins the members it may place: the least
// its group needs (roomsum.go) may be less with it.
func (c *shared) newCandidate(key types.NamespacedName, pod *v1.Pod) {
	if pod.Spec.NodeName == "" && schedulable(pod) {
		c.groups.EndRoomWait(key)
	}
}

// wokenByPodGroup are the reasons a PodGroup appearing or changing may lift. A group that
// stands aside waits for its timer whatever changes.
var wokenByPodGroup = []gangcore.ParkReason{gangcore.ParkedNotFound, gangcore.ParkedTooFew, gangcore.ParkedMinResources, gangcore.ParkedTopology, gangcore.ParkedBadTopology}

// wakeIfReady wakes the group's pods waiting for siblings once minMember of its pods can be
// scheduled.
func (c *shared) wakeIfReady(key types.NamespacedName) {
	c.activate(c.groups.Wake(key, func(g gangcore.GroupView) bool {
		pg, err := c.podGroups.Of(key)
		return err == nil && g.Ready() >= pg.MinMember
	}, gangcore.ParkedTooFew))
}

// activate moves pods to the active queue; the queue runs PreEnqueue on them again.
func (c *shared) activate(pods []*v1.Pod) { activate.Pods(c.handle, c.logger, pods) }

// allow lets through the waiting members of a round that reached quorum.
func (c *shared) allow(v gangcore.PermitVerdict) {
	for _, uid := range v.Allow {
		if wp := c.handle.GetWaitingPod(uid); wp != nil {
			wp.Allow(Name)
		}
	}
	if len(v.Allow) > 0 {
		quorumWait.Observe(v.QuorumWait.Seconds())
	}
}

// reject rejects the given members of key's group waiting at Permit; the framework then runs
// every plugin's Unreserve for them.
//
// A member that Gang's Permit told to wait joins the framework's waiting pods only once the
// scheduling cycle has run the remaining Permit plugins. A member released in between is rejected
// as soon as it shows up there; it cannot be let through, since its group's round is over, and it
// leaves the manager's reservations only through its Unreserve.
//
// Rejections are serialized, and Gang ends its rounds with its own timer rather than the
// framework's: in 1.37 two Rejects of one waiting pod at once race inside the framework
// (waitingPod.stopWithStatus writes under a read lock), and a group's members share a deadline, so
// their framework timers would fire together with the release each of them triggers. The
// scheduler's own Reject of a member whose deletion starts cannot be serialized from here:
// hack/patches fixes the framework for that one.
func (c *shared) reject(key types.NamespacedName, waiting []types.UID, msg string) {
	var late []types.UID
	c.rejectMu.Lock()
	for _, uid := range waiting {
		if wp := c.handle.GetWaitingPod(uid); wp != nil {
			wp.Reject(Name, msg)
		} else {
			late = append(late, uid)
		}
	}
	c.rejectMu.Unlock()
	for _, uid := range late {
		go c.rejectWhenParked(key, uid, msg)
	}
}

// rejectWhenParked rejects a released member once the framework parks it at Permit, or gives up
// when its reservation is gone (another plugin's Permit turned it down, or it was deleted). Both
// follow within the member's scheduling cycle.
func (c *shared) rejectWhenParked(key types.NamespacedName, uid types.UID, msg string) {
	for c.groups.Holds(key, uid) {
		c.rejectMu.Lock()
		wp := c.handle.GetWaitingPod(uid)
		if wp != nil {
			wp.Reject(Name, msg)
		}
		c.rejectMu.Unlock()
		if wp != nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// release rejects the members a failed round gave up, and returns the message they are rejected
// with; the manager wakes the group when its backoff ends.
func (c *shared) release(key types.NamespacedName, f gangcore.RoundFailure, reason string) string {
	failedRounds.WithLabelValues(reason).Inc()
	c.logger.V(2).Info("Pod group round failed", "podGroup", key, "reason", reason, "why", f.Why, "released", len(f.Released), "backoff", f.Backoff)
	msg := fmt.Sprintf("pod group %s %s; all %d waiting members were released and the group stands aside for %v",
		key, f.Why, len(f.Released), f.Backoff)
	if f.Backoff == 0 {
		msg = fmt.Sprintf("pod group %s %s; all %d waiting members were released and the group waits for that member to be let in",
			key, f.Why, len(f.Released))
	}
	c.reject(key, f.Released, msg)
	return msg
}
