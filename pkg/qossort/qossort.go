// Package qossort is berth's QueueSort plugin: higher priority first, then the stronger QoS class
// (Guaranteed, Burstable, BestEffort), then the earlier queue timestamp; except that the members
// of a scheduler-plugins pod group sort by their group's creation time and name instead of their
// own timestamps, so that one group's members are scheduled back to back.
//
// Less reads the two entities it is given and, for pod group members, one time per group from
// grouporder. A sort key that could change while the entity sits in the heap (a PodGroup read from
// an informer cache, which may appear, go or be recreated meanwhile) would silently break the
// heap's order; grouporder's times are set before a group's first member is queued and never
// change while one is (see there).
package qossort

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"

	"github.com/berth-sched/berth/pkg/qossort/grouporder"
)

// Name is the plugin's name in the registry and in configuration.
const Name = "QOSSort"

// QOSSort orders the scheduling queue.
type QOSSort struct{}

var _ fwk.QueueSortPlugin = &QOSSort{}

// New builds the plugin; it takes no args.
func New(_ context.Context, _ runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	return &QOSSort{}, nil
}

// Name returns the plugin's name.
func (*QOSSort) Name() string { return Name }

// Less reports whether e1 should be scheduled before e2.
func (*QOSSort) Less(e1, e2 fwk.QueuedEntityInfo) bool {
	if p1, p2 := e1.GetPriority(), e2.GetPriority(); p1 != p2 {
		return p1 > p2
	}
	if q1, q2 := rank(e1), rank(e2); q1 != q2 {
		return q1 > q2
	}
	k1, k2 := arrival(e1), arrival(e2)
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
// anything else at its own queue timestamp, with no group.
type arrivalKey struct {
	at    time.Time
	group string
}

func arrival(e fwk.QueuedEntityInfo) arrivalKey {
	if pe, ok := e.(podEntity); ok && pe.GetPodInfo() != nil && pe.GetPodInfo().GetPod() != nil {
		if group, at, ok := grouporder.Of(pe.GetPodInfo().GetPod()); ok {
			return arrivalKey{at: at, group: group.String()}
		}
	}
	return arrivalKey{at: e.GetTimestamp()}
}

// podEntity is what the queue's pod entries offer beyond QueuedEntityInfo.
type podEntity interface {
	GetPodInfo() fwk.PodInfo
}

// rank orders QoS classes, stronger first. A pod group entity of the native 1.37 API gathers pods
// of any class and its membership changes while it is queued, so it gets the middle rank: a
// group's key must not move while it sits in the heap.
func rank(e fwk.QueuedEntityInfo) int {
	pe, ok := e.(podEntity)
	if !ok || pe.GetPodInfo() == nil || pe.GetPodInfo().GetPod() == nil {
		return classRank[v1.PodQOSBurstable]
	}
	return classRank[qos.GetPodQOS(pe.GetPodInfo().GetPod())]
}

var classRank = map[v1.PodQOSClass]int{
	v1.PodQOSGuaranteed: 2,
	v1.PodQOSBurstable:  1,
	v1.PodQOSBestEffort: 0,
}
