// Package qossort is berth's QueueSort plugin: higher priority first, then the stronger QoS class
// (Guaranteed, Burstable, BestEffort), then first come, first served: the pod created first goes
// first; except that the members of a scheduler-plugins pod group sort by their group's creation
// time and name instead, so that one group's members are scheduled back to back.
//
// # Why creation time, and not the queue's timestamp
//
// The queue stamps a pod when it is added, and stamps it again each time an attempt fails. Sorting
// by that stamp gives first come, first served only to a scheduler that saw every pod arrive: one
// that starts (or a standby that takes over) stamps a whole backlog within a second, in the order
// of the informer's first list, which is the order of the pods' keys in etcd, not of their
// arrival. It also sends a pod that failed behind every pod that failed after it, so the pods
// woken most often by events that could not help them lose their place to the pods woken least:
// a backlog is reshuffled as it waits. The creation time is the same in every scheduler process
// and never changes while a pod waits, as a heap's key must not.
//
// A requeued pod keeps its creation time, so an old pod that keeps failing stays ahead of younger
// ones. It cannot starve them: upstream's queue parks a pod that failed until an event its
// plugins' queueing hints accept, then holds it for its backoff (1 s, doubling to 10 s), so it is
// tried at most once per event and backoff; it takes no room when it fails, and the pods behind it
// are tried in the same wake-up, right after it. The cost of its place is one scheduling cycle per
// wake-up, not the room. A creation time has whole seconds: pods created in the same second go in
// the order of their queue timestamps, which is the order this scheduler saw them in.
//
// Less reads the two entities it is given and, for pod group members, one time per group from the
// scheduler's podgroup.Order, which Gang writes. A sort key that could change while the entity
// sits in the heap (a PodGroup read from an informer cache, which may appear, go or be recreated
// meanwhile) would silently break the heap's order; the Order's times are set before a group's
// first member is queued and never change while one is (see there).
//
// # Native pod groups
//
// With GenericWorkload on, upstream's queue holds a native PodGroup's queued members as one
// entity, a *framework.QueuedPodGroupInfo, which carries the PodGroup (or CompositePodGroup)
// object. The queue swaps that object in place on every PodGroup update, while the entity sits in
// the heap. A PodGroup's creation time does not change with an update, but an update can carry a
// different object of the same name (one deleted and created again while the informer's watch was
// down arrives as an update after its relist). So the key is read from the object once per entity
// and kept, weakly, for as long as the queue keeps the entity: the entity a group's first queued
// member creates is sorted by the creation time of the PodGroup it was created for, the same in
// every scheduler process.
//
// A native group's member is never in the heap as a pod of its own while the scheduler runs with
// GenericWorkload: the queue puts every pod with spec.schedulingGroup into its group's entity, or
// keeps it outside the heap until it has seen the PodGroup (PriorityQueue.isPodGroupMember; the
// one exception, a resize deferred on a pod already bound, is no scheduling). Without the gate in
// the scheduler such pods are plain pods to it, upstream's GangScheduling is off, and they sort
// as plain pods, by their own creation time.
package qossort

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
	"weak"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/berth-sched/berth/pkg/podgroup"
)

// Name is the plugin's name in the registry and in configuration.
const Name = "QOSSort"

// QOSSort orders the scheduling queue.
type QOSSort struct {
	groups *podgroup.Order
	// native holds each queued native pod group entity's key, read once: see the package comment.
	native sync.Map // weak.Pointer[framework.QueuedPodGroupInfo] -> arrivalKey
}

var _ fwk.QueueSortPlugin = &QOSSort{}

// New builds the plugin; it takes no args.
func New(ctx context.Context, _ k8sruntime.Object, h fwk.Handle) (fwk.Plugin, error) {
	groups, err := podgroup.OrderOf(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return &QOSSort{groups: groups}, nil
}

// Name returns the plugin's name.
func (*QOSSort) Name() string { return Name }

// Less reports whether e1 should be scheduled before e2. The queue calls it a few times for every
// pod it adds or pops, so each entity's pod is looked up once, and a class is ranked without a map.
func (pl *QOSSort) Less(e1, e2 fwk.QueuedEntityInfo) bool {
	if p1, p2 := e1.GetPriority(), e2.GetPriority(); p1 != p2 {
		return p1 > p2
	}
	pod1, pod2 := podOf(e1), podOf(e2)
	if q1, q2 := rank(pod1), rank(pod2); q1 != q2 {
		return q1 > q2
	}
	k1, k2 := pl.arrival(e1, pod1), pl.arrival(e2, pod2)
	if !k1.at.Equal(k2.at) {
		return k1.at.Before(k2.at)
	}
	if k1.group != k2.group {
		return k1.group < k2.group
	}
	return e1.GetTimestamp().Before(e2.GetTimestamp())
}

// arrivalKey places an entity among those of its priority and class: a pod group member at its
// group's creation time, with the group's name to keep groups created in the same second apart;
// any other pod at its own creation time, with no group; a native pod group entity at its PodGroup's
// creation time, with its namespace/name; anything else at its queue timestamp.
type arrivalKey struct {
	at    time.Time
	group string
}

// arrival is e's key; pod is e's pod, or nil for an entity that is not one pod.
func (pl *QOSSort) arrival(e fwk.QueuedEntityInfo, pod *v1.Pod) arrivalKey {
	if pod != nil {
		if group, at, ok := pl.groups.Of(pod); ok {
			return arrivalKey{at: at, group: group.String()}
		}
		if !pod.CreationTimestamp.IsZero() {
			return arrivalKey{at: pod.CreationTimestamp.Time}
		}
	}
	if g, ok := e.(*framework.QueuedPodGroupInfo); ok && g.PodGroupInfo != nil {
		return pl.nativeArrival(g)
	}
	return arrivalKey{at: e.GetTimestamp()}
}

// nativeArrival is the key of a native pod group entity: the one read when the sort first saw it.
func (pl *QOSSort) nativeArrival(g *framework.QueuedPodGroupInfo) arrivalKey {
	wp := weak.Make(g)
	if k, ok := pl.native.Load(wp); ok {
		return k.(arrivalKey)
	}
	k := arrivalKey{at: g.GetTimestamp()}
	var created metav1.Time
	switch {
	case g.PodGroup != nil:
		created = g.PodGroup.CreationTimestamp
	case g.CompositePodGroup != nil:
		created = g.CompositePodGroup.CreationTimestamp
	}
	if !created.IsZero() {
		// The group's name goes into the key with a prefix a scheduler-plugins group's
		// namespace/name cannot have, so that a native group and a scheduler-plugins group of the
		// same name, created in the same second, stay two groups.
		k = arrivalKey{at: created.Time, group: "native:" + g.GetNamespace() + "/" + g.GetName()}
	}
	stored, loaded := pl.native.LoadOrStore(wp, k)
	if !loaded {
		runtime.AddCleanup(g, func(wp weak.Pointer[framework.QueuedPodGroupInfo]) { pl.native.Delete(wp) }, wp)
	}
	return stored.(arrivalKey)
}

// podEntity is what the queue's pod entries offer beyond QueuedEntityInfo.
type podEntity interface {
	GetPodInfo() fwk.PodInfo
}

// podOf is the pod of a pod entry, or nil for any other entity.
func podOf(e fwk.QueuedEntityInfo) *v1.Pod {
	pe, ok := e.(podEntity)
	if !ok {
		return nil
	}
	pi := pe.GetPodInfo()
	if pi == nil {
		return nil
	}
	return pi.GetPod()
}

// rank orders QoS classes, stronger first. A pod group entity of the native 1.37 API (pod nil)
// gathers pods of any class and its membership changes while it is queued, so it gets the middle
// rank: a group's key must not move while it sits in the heap.
func rank(pod *v1.Pod) int {
	if pod == nil {
		return 1
	}
	switch qos.GetPodQOS(pod) {
	case v1.PodQOSGuaranteed:
		return 2
	case v1.PodQOSBestEffort:
		return 0
	default:
		return 1
	}
}
