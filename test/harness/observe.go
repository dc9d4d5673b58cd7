package harness

import "k8s.io/client-go/tools/cache"

// Observing adapts observe, told each object and whether it was deleted (a tombstone unwrapped),
// to an informer's handler.
func Observing(observe func(obj any, deleted bool)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { observe(obj, false) },
		UpdateFunc: func(_, obj any) { observe(obj, false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			observe(obj, true)
		},
	}
}
