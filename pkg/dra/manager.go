package dra

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// Listed is Inventory over what the scheduler's shared DRA manager lists: slices with device
// taint rules applied, and claims with the allocations the DynamicResources plugin has made in
// memory and is still writing (its tracker's List leaves those out; without them, pods created
// together were all scored as if none of the others had been placed).
func Listed(m fwk.SharedDRAManager, cfg Config) (map[string]*NodeGPUs, []*SliceError, error) {
	slices, claims, err := listed(m)
	if err != nil {
		return nil, nil, err
	}
	nodes, errs := Inventory(cfg, slices, claims)
	return nodes, errs, nil
}

// listed are the manager's slices, and its claims with the allocations in flight in place.
func listed(m fwk.SharedDRAManager) ([]*resourceapi.ResourceSlice, []*resourceapi.ResourceClaim, error) {
	slices, err := m.ResourceSlices().ListWithDeviceTaintRules()
	if err != nil {
		return nil, nil, fmt.Errorf("listing ResourceSlices: %w", err)
	}
	claims, err := m.ResourceClaims().List()
	if err != nil {
		return nil, nil, fmt.Errorf("listing ResourceClaims: %w", err)
	}
	tracker := m.ResourceClaims()
	for i, c := range claims {
		if c.Status.Allocation != nil {
			continue
		}
		if a := tracker.GetPendingAllocation(c.UID); a != nil {
			pending := *c
			pending.Status.Allocation = a
			claims[i] = &pending
			continue
		}
		// The allocation may have been written and assumed, and no longer be in flight, between
		// List and GetPendingAllocation: the tracker assumes the written claim before it drops
		// the in-flight one, so a second look finds it.
		if fresh, err := tracker.Get(c.Namespace, c.Name); err == nil && fresh.Status.Allocation != nil {
			claims[i] = fresh
		}
	}
	return slices, claims, nil
}

// PodRequestFrom is RequestOf through the scheduler's shared DRA manager.
func PodRequestFrom(m fwk.SharedDRAManager, pod *v1.Pod, cfg Config) (PodRequest, error) {
	return RequestOf(pod, cfg, m.ResourceClaims().Get, func(name string) (*resourceapi.DeviceClass, error) {
		return m.DeviceClasses().Get(name)
	})
}
