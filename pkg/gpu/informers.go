package gpu

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
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
	addOrUpdate := func(node *v1.Node) {
		if err := c.AddOrUpdateNode(node); err != nil {
			onError(node, err)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if node, ok := asNode(logger, obj); ok {
				addOrUpdate(node)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, okOld := asNode(logger, oldObj)
			cur, okCur := asNode(logger, newObj)
			// Nodes update their status every few seconds; only a change of GPUs is worth the lock.
			if okCur && (!okOld || NodeChanged(old, cur, c.res)) {
				addOrUpdate(cur)
			}
		},
		DeleteFunc: func(obj any) {
			if name, ok := deletedNodeName(logger, obj); ok {
				c.DeleteNode(name)
			}
		},
	}
}

// deletedNodeName is the name of a deleted node, from the node or its tombstone. The cache keys
// nodes by name, which the tombstone's key gives even without the object.
func deletedNodeName(logger klog.Logger, obj any) (string, bool) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		if _, name, err := toolscache.SplitMetaNamespaceKey(t.Key); err == nil && name != "" {
			return name, true
		}
		obj = t.Obj
	}
	node, ok := asNode(logger, obj)
	if !ok {
		return "", false
	}
	return node.Name, true
}

func (c *Cache) podHandler(logger klog.Logger, onError func(runtime.Object, error)) toolscache.ResourceEventHandlerFuncs {
	addOrUpdate := func(pod *v1.Pod) {
		if err := c.AddOrUpdatePod(pod); err != nil {
			onError(pod, err)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := asPod(logger, obj); ok {
				addOrUpdate(pod)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, okOld := asPod(logger, oldObj)
			cur, okCur := asPod(logger, newObj)
			if !okCur {
				return
			}
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
		DeleteFunc: func(obj any) {
			if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if pod, ok := asPod(logger, obj); ok {
				c.DeletePod(pod.UID)
			}
		},
	}
}

func asNode(logger klog.Logger, obj any) (*v1.Node, bool) {
	node, ok := obj.(*v1.Node)
	if !ok {
		logger.Error(nil, "Node informer delivered an unexpected object; GPU accounting skips it", "type", fmt.Sprintf("%T", obj))
	}
	return node, ok
}

func asPod(logger klog.Logger, obj any) (*v1.Pod, bool) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		logger.Error(nil, "Pod informer delivered an unexpected object; GPU accounting skips it", "type", fmt.Sprintf("%T", obj))
	}
	return pod, ok
}

// Reporter logs what the cache finds wrong with a pod or node and, given a recorder, records it as
// a Warning event on the object, where the user looks. The plugin and the extender report alike.
func Reporter(logger klog.Logger, recorder events.EventRecorder) func(runtime.Object, error) {
	return func(obj runtime.Object, err error) {
		reason := "InvalidGPUInformation"
		switch obj.(type) {
		case *v1.Node:
			reason = "InvalidGPUMemoryAnnotation"
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
