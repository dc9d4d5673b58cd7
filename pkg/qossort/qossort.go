// Package qossort is berth's QueueSort plugin: higher priority first, then the stronger QoS class
// (Guaranteed, Burstable, BestEffort), then the earlier queue timestamp.
//
// Less reads nothing but the two entities it is given. A sort key that depended on anything else
// (a PodGroup in an informer cache, a map another goroutine writes) could change while the entity
// sits in the heap and silently break the heap's order; it would also put a lock and a lookup on
// the queue's hottest path.
package qossort

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
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
	return e1.GetTimestamp().Before(e2.GetTimestamp())
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
