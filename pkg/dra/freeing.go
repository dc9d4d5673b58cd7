package dra

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"
)

// FitsAfterFreeing reports whether requests (a pod's claims not yet allocated) can all be
// allocated on node once the claims that freed picks out are deallocated: preemption's question,
// which the DynamicResources plugin cannot answer because it sees every allocated claim as taken
// until the claim's status says otherwise. slices and claims are what the scheduler's DRA
// manager lists. A request this view cannot place (one for no GPU of the node, or more devices than
// are free) makes the answer false, so a false answer never lets preemption take victims in vain.
//
// Requests are placed first fit, one after another, in the order the pod's claims list them, as
// the allocator tries them; a request that fits only in an order the allocator would not try is
// judged not to fit.
func (m *Matcher) FitsAfterFreeing(ctx context.Context, slices []*resourceapi.ResourceSlice, claims []*resourceapi.ResourceClaim,
	node string, requests []DeviceRequest, freed func(*resourceapi.ResourceClaim) bool) bool {
	var local []*resourceapi.ResourceSlice
	for _, s := range slices {
		if s.Spec.NodeName == nil || *s.Spec.NodeName == node || s.Spec.PerDeviceNodeSelection != nil {
			local = append(local, s)
		}
	}
	var held []*resourceapi.ResourceClaim
	for _, c := range claims {
		if c.Status.Allocation != nil && !freed(c) {
			held = append(held, c)
		}
	}
	nodes, _ := Inventory(m.cfg, local, held)
	n := nodes[node]
	if n == nil {
		return len(requests) == 0
	}
	for i := range requests {
		if !m.take(ctx, n, &requests[i]) {
			return false
		}
	}
	return true
}

// take allocates r on n's GPUs, first fit, marking what it takes.
func (m *Matcher) take(ctx context.Context, n *NodeGPUs, r *DeviceRequest) bool {
	want, matched := r.Count, false
	for _, g := range n.GPUs {
		for i := range g.Devices {
			d := &g.Devices[i]
			if !r.All && want == 0 {
				return true
			}
			if !m.Matches(ctx, r, d) {
				continue
			}
			matched = true
			amount, ok := Share(d, m.cfg, r.Memory)
			if !ok || (d.Allocated && !d.Shared) || amount > g.Free() {
				if r.All {
					// All asks for every matching device: one that is taken fails it.
					return false
				}
				continue
			}
			g.Used += amount
			d.Allocated = true
			want--
		}
	}
	if r.All {
		return matched
	}
	return want <= 0
}
