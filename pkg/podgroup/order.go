package podgroup

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/process"
)

// Order holds when each admitted group was created: the one thing QOSSort needs to know about
// pod groups. QOSSort sorts a group's members by that time and the group's name instead of by
// their own queue timestamps, so that a group's members leave the queue one after another and are
// not interleaved with another group's; Gang records the times.
//
// A sort key must not change while its entry sits in the queue's heap. Gang records a group's
// time, under its own lock, in the PreEnqueue check that lets the group's first member into the
// active queue, so the time is there before any member is; it records it once (a later PodGroup of
// the same name keeps the first time); and it forgets it only when the group has no pod left that
// could be queued. A member of a group Gang never admitted sorts by its own timestamp.
type Order struct {
	created sync.Map // types.NamespacedName -> time.Time
	// groups counts the times in created. While it is zero, as in a cluster that uses no pod
	// groups, Of answers without reading the pod, whose labels QOSSort's Less would otherwise
	// fetch from memory for every comparison.
	groups atomic.Int64
}

// orders holds each scheduler's Order, keyed by the informer factory its profiles share: the
// queue, and so its sort, is the scheduler's, whichever profile's Gang admitted a group.
var orders process.Shared[informers.SharedInformerFactory, *Order]

// OrderOf returns the Order of h's scheduler, which lives as long as ctx, the scheduler's.
func OrderOf(ctx context.Context, h fwk.Handle) (*Order, error) {
	factory := h.SharedInformerFactory()
	if factory == nil {
		return nil, fmt.Errorf("the order of pod groups needs the scheduler's informer factory")
	}
	return orders.Get(ctx, factory, func() (*Order, error) { return &Order{}, nil })
}

// Note records when group was created, unless a time is recorded already.
func (o *Order) Note(group types.NamespacedName, at time.Time) {
	if _, loaded := o.created.LoadOrStore(group, at); !loaded {
		o.groups.Add(1)
	}
}

// Forget drops group's time.
func (o *Order) Forget(group types.NamespacedName) {
	if _, loaded := o.created.LoadAndDelete(group); loaded {
		o.groups.Add(-1)
	}
}

// Of returns the group pod belongs to and the group's recorded creation time, if both exist.
func (o *Order) Of(pod *v1.Pod) (types.NamespacedName, time.Time, bool) {
	if o.groups.Load() == 0 {
		return types.NamespacedName{}, time.Time{}, false
	}
	group, ok := KeyOf(pod)
	if !ok {
		return types.NamespacedName{}, time.Time{}, false
	}
	at, ok := o.created.Load(group)
	if !ok {
		return types.NamespacedName{}, time.Time{}, false
	}
	return group, at.(time.Time), true
}
