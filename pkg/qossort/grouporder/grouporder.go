// Package grouporder holds the one thing QOSSort needs to know about scheduler-plugins' pod
// groups (scheduling.x-k8s.io, joined by the label scheduling.x-k8s.io/pod-group): when each
// group was created. QOSSort sorts a group's members by that time and the group's name instead of
// by their own queue timestamps, so that a group's members leave the queue one after another and
// are not interleaved with another group's; Gang records the times.
//
// A sort key must not change while its entry sits in the queue's heap. Gang records a group's
// time, under its own lock, in the PreEnqueue check that lets the group's first member into the
// active queue, so the time is there before any member is; it records it once (a later PodGroup of
// the same name keeps the first time); and it forgets it only when the group has no pod left that
// could be queued. A member of a group Gang never admitted sorts by its own timestamp.
package grouporder

import (
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

var (
	created sync.Map // types.NamespacedName -> time.Time
	// groups counts the times in created. While it is zero, as in a cluster that uses no pod
	// groups, Of answers without reading the pod, whose labels QOSSort's Less would otherwise
	// fetch from memory for every comparison.
	groups atomic.Int64
)

// Note records when group was created, unless a time is recorded already.
func Note(group types.NamespacedName, at time.Time) {
	if _, loaded := created.LoadOrStore(group, at); !loaded {
		groups.Add(1)
	}
}

// Forget drops group's time.
func Forget(group types.NamespacedName) {
	if _, loaded := created.LoadAndDelete(group); loaded {
		groups.Add(-1)
	}
}

// Of returns the group pod belongs to and the group's recorded creation time, if both exist.
func Of(pod *v1.Pod) (types.NamespacedName, time.Time, bool) {
	if groups.Load() == 0 {
		return types.NamespacedName{}, time.Time{}, false
	}
	name := pod.Labels[v1alpha1.PodGroupLabel]
	if name == "" {
		return types.NamespacedName{}, time.Time{}, false
	}
	group := types.NamespacedName{Namespace: pod.Namespace, Name: name}
	at, ok := created.Load(group)
	if !ok {
		return types.NamespacedName{}, time.Time{}, false
	}
	return group, at.(time.Time), true
}
