package gpu

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"github.com/berth-sched/berth/pkg/tombstone"
)

// AddEventHandlers keeps the cache in step with a pod and a node informer over the whole cluster
// (the scheduler's, which leaves out finished pods, will do): bound pods hold the devices their
// annotations name, so a restart rebuilds the accounting from the API; pods that finish or go
// away release theirs; nodes' GPUs follow their capacity and annotation as they change.
//
// What the cache reports about one object (a malformed annotation, a bound GPU pod that names no
// devices) goes to onError, or Reporter(logger, nil) if onError is nil; the handlers carry on
// either way.
// The cache is complete once every returned registration HasSynced.
func (c *Cache) AddEventHandlers(podInformer, nodeInformer toolscache.SharedInformer, logger klog.Logger,
	onError func(obj runtime.Object, err error)) ([]toolscache.ResourceEventHandlerRegistration, error) {
	if onError == nil {
		onError = Reporter(logger, nil)
	}
	opts := toolscache.HandlerOptions{Logger: &logger}
	nodeReg, err := nodeInformer.AddEventHandlerWithOptions(c.nodeHandler(logger, onError), opts)
	if err != nil {
		return nil, fmt.Errorf("watching nodes for GPUs: %w", err)
	}
	podReg, err := podInformer.AddEventHandlerWithOptions(c.podHandler(logger, onError), opts)
	if err != nil {
		// A half-fed cache must not stay registered: it would hold nodes and never release pods.
		_ = nodeInformer.RemoveEventHandler(nodeReg)
		return nil, fmt.Errorf("watching pods for GPU memory: %w", err)
	}
	return []toolscache.ResourceEventHandlerRegistration{nodeReg, podReg}, nil
}

func (c *Cache) nodeHandler(logger klog.Logger, onError func(runtime.Object, error)) toolscache.ResourceEventHandlerFuncs {
	return handler(logger, onError, c.AddOrUpdateNode,
		func(old *v1.Node, okOld bool, cur *v1.Node, addOrUpdate func(*v1.Node)) {
			// Nodes update their status every few seconds; only a change of GPUs is worth the lock.
			if !okOld || NodeChanged(old, cur, c.res) {
				addOrUpdate(cur)
			}
		},
		func(obj any) {
			if name, ok := DeletedNodeName(logger, obj); ok {
				c.DeleteNode(name)
			}
		})
}

// DeletedNodeName is the name of a deleted node, from the node or its tombstone. The cache keys
// nodes by name, which the tombstone's key gives even without the object.
func DeletedNodeName(logger klog.Logger, obj any) (string, bool) {
	if _, name, err := toolscache.SplitMetaNamespaceKey(tombstone.Key(obj)); err == nil && name != "" {
		return name, true
	}
	node, ok := as[*v1.Node](logger, tombstone.Unwrap(obj))
	if !ok {
		return "", false
	}
	return node.Name, true
}

func (c *Cache) podHandler(logger klog.Logger, onError func(runtime.Object, error)) toolscache.ResourceEventHandlerFuncs {
	return handler(logger, onError, c.AddOrUpdatePod,
		func(old *v1.Pod, okOld bool, cur *v1.Pod, addOrUpdate func(*v1.Pod)) {
			switch {
			case okOld && old.UID != cur.UID:
				// A relist after a missed watch reports a pod deleted and re-created under the same
				// name as an update: the old pod's devices are free.
				c.DeletePod(old.UID)
				addOrUpdate(cur)
			case !okOld || PodChanged(old, cur):
				addOrUpdate(cur)
			}
		},
		func(obj any) {
			if pod, ok := as[*v1.Pod](logger, tombstone.Unwrap(obj)); ok {
				c.DeletePod(pod.UID)
			}
		})
}

// handler feeds the cache from an informer of Ts: an added T through add, whose errors go to
// onError; an update whose new object is a T through update (old is its predecessor, if okOld),
// which calls addOrUpdate if the change concerns the cache; a deletion through deleted.
func handler[T runtime.Object](logger klog.Logger, onError func(runtime.Object, error), add func(T) error,
	update func(old T, okOld bool, cur T, addOrUpdate func(T)), deleted func(obj any)) toolscache.ResourceEventHandlerFuncs {
	addOrUpdate := func(obj T) {
		if err := add(obj); err != nil {
			onError(obj, err)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := as[T](logger, obj); ok {
				addOrUpdate(o)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, okOld := as[T](logger, oldObj)
			if cur, ok := as[T](logger, newObj); ok {
				update(old, okOld, cur, addOrUpdate)
			}
		},
		DeleteFunc: deleted,
	}
}

// as is obj as a T. An informer of Ts delivers nothing else; if it does, the object is logged and
// skipped rather than break the cache.
func as[T any](logger klog.Logger, obj any) (T, bool) {
	o, ok := obj.(T)
	if !ok {
		logger.Error(nil, "Informer delivered an unexpected object; GPU accounting skips it", "want", fmt.Sprintf("%T", o), "type", fmt.Sprintf("%T", obj))
	}
	return o, ok
}

// Reporter logs what the cache finds wrong with a pod or node and, given a recorder, records it as
// a Warning event on the object, where the user looks. The plugin and the extender report alike.
func Reporter(logger klog.Logger, recorder events.EventRecorder) func(runtime.Object, error) {
	return func(obj runtime.Object, err error) {
		reason := "InvalidGPUInformation"
		switch obj.(type) {
		case *v1.Node:
			reason = "InvalidGPUMemoryAnnotation"
			if _, ok := err.(*LinksError); ok {
				reason = "InvalidGPUTopologyAnnotation"
			}
		case *v1.Pod:
			reason = "InvalidGPUAssignment"
		}
		logger.Error(err, "Ignoring malformed GPU information", "object", objectRef(obj), "reason", reason)
		if recorder != nil {
			recorder.Eventf(obj, nil, v1.EventTypeWarning, reason, "Scheduling", "%v", err)
		}
	}
}

func objectRef(obj runtime.Object) klog.ObjectRef {
	switch o := obj.(type) {
	case *v1.Pod:
		return klog.KObj(o)
	case *v1.Node:
		return klog.KObj(o)
	default:
		return klog.ObjectRef{}
	}
}
