// Package tombstone reads what an informer's delete handler receives: the deleted object, or,
// when the watch missed the deletion, a cache.DeletedFinalStateUnknown holding the last state the
// informer knew of it (or nothing).
package tombstone

import "k8s.io/client-go/tools/cache"

// Unwrap is obj, or the object obj's tombstone holds (nil if none).
func Unwrap(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

// Key is the key obj's tombstone kept ("namespace/name", or the name of a cluster-scoped object),
// which names the object even when the tombstone lost it; "" when obj is no tombstone.
func Key(obj any) string {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Key
	}
	return ""
}

// As is obj, or the object its tombstone holds, as a T; ok is false for anything else, a
// tombstone without its object among them.
func As[T any](obj any) (T, bool) {
	v, ok := Unwrap(obj).(T)
	return v, ok
}
