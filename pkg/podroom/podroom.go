// Package podroom says whether a pod still holds its room, by the rule the scheduler's own cache
// follows, so that the plugins, the wait-reason publisher and kubectl berth count a node's pods
// alike.
package podroom

import (
	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
)

// Holds reports whether pod still holds the room it was given, bound to a node or reserved there
// by the scheduler: until it has run to its end (Succeeded or Failed) or is gone from the API. The
// scheduler lists pods without those two phases and forgets one that reaches either; a pod being
// deleted stays in its cache, and on its node, until the kubelet has stopped it, so a
// deletionTimestamp does not free its room. Callers that count a deleting pod as leaving (fair
// sharing, a group's members, a claim's reservations) test that beside Holds, under their own
// name. A pod not bound yet holds room only if the scheduler reserved some for it; callers that
// mean a node's bound pods check spec.nodeName as well.
func Holds(pod *v1.Pod) bool {
	return !podutil.IsPodTerminal(pod)
}
