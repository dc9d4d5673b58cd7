// Package cyclestate reads what a plugin wrote into a scheduling cycle's state earlier in the
// cycle: one reading for a pod's cycle and a native pod group's, where each plugin spelled its own.
package cyclestate

import fwk "k8s.io/kube-scheduler/framework"

// Reader is a cycle's state: fwk.CycleState, or a native pod group's fwk.PodGroupCycleState.
type Reader interface {
	Read(key fwk.StateKey) (fwk.StateData, error)
}

// Of is what state holds under key, as a T; ok is false when state is nil, holds nothing under
// key, or holds something else there.
func Of[T fwk.StateData](state Reader, key fwk.StateKey) (T, bool) {
	var zero T
	if state == nil {
		return zero, false
	}
	d, err := state.Read(key)
	if err != nil {
		return zero, false
	}
	v, ok := d.(T)
	return v, ok
}
