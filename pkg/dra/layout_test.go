package dra

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestSnapshotViewsAsInventory: a Snapshot shows every node to every request as Inventory and
// Matcher.View do, from the first claim to the last, on one cached layout, and a changed slice
// is seen at once.
func TestSnapshotViewsAsInventory(t *testing.T) {
	slices := []*resourceapi.ResourceSlice{
		slice("a", "node-a", gpuDevice("gpu-0", "80Gi", true), gpuDevice("gpu-1", "80Gi", true)),
		slice("b", "node-b", gpuDevice("gpu-0", "80Gi", true)),
		slice("w", "node-w", gpuDevice("gpu-0", "80Gi", false), gpuDevice("gpu-1", "80Gi", false)),
	}
	slices = append(slices, migSlices("node-m")...)
	for i, s := range slices {
		s.UID, s.ResourceVersion = types.UID(s.Name), fmt.Sprint(i+1)
	}
	gc, gcl := getters(claim("share", "gpu.nvidia.com", 1, "20Gi", ""), claim("one", "gpu.nvidia.com", 1, "", `!has(device.attributes["gpu.nvidia.com"].profile)`),
		claim("mig", "gpu.nvidia.com", 1, "", `device.attributes["gpu.nvidia.com"].profile == "gpu-0-mig-1g10gb-1"`))
	var reqs []*DeviceRequest
	for _, n := range []string{"share", "one", "mig"} {
		pr, err := RequestOf(podWithClaims(n), DefaultConfig(), gc, gcl)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, &pr.Requests[0])
	}
	reqs = append(reqs, &DeviceRequest{Count: 1, Selectors: []string{nicClass.Spec.Selectors[0].CEL.Expression}})
	all := []*resourceapi.ResourceClaim{
		allocated("ns", "c0", "node-a", nil, result("gpu-0", "40Gi")),
		allocated("ns", "c1", "node-w", nil, result("gpu-0", "")),
		allocated("ns", "c2", "node-a", nil, result("gpu-0", "30Gi")),
		allocated("ns", "c3", "node-m", nil, result("gpu-0-mig-1g10gb-1", "")),
		allocated("ns", "c4", "node-b", nil, result("gpu-0", "80Gi")),
		allocated("ns", "c5", "node-w", nil, result("gpu-1", "")),
		{ObjectMeta: claim("pending", "gpu.nvidia.com", 1, "", "").ObjectMeta},
	}
	m := NewMatcher(DefaultConfig())
	cache := NewLayoutCache(m)
	ctx := context.Background()
	compare := func(t *testing.T, slices []*resourceapi.ResourceSlice, claims []*resourceapi.ResourceClaim) {
		t.Helper()
		inv, _ := Inventory(DefaultConfig(), slices, claims)
		snap := cache.Snapshot(slices, claims)
		for _, node := range []string{"node-a", "node-b", "node-w", "node-m", "node-none"} {
			if (inv[node] != nil) != snap.Has(node) {
				t.Errorf("%s: in the inventory %v, in the snapshot %v", node, inv[node] != nil, snap.Has(node))
			}
			for _, r := range reqs {
				if a, b := m.AsksForGPUs(ctx, r, inv), snap.AsksForGPUs(ctx, r); a != b {
					t.Errorf("%v asks for GPUs: inventory %v, snapshot %v", r.Selectors, a, b)
				}
				if inv[node] == nil {
					continue
				}
				d1, r1, ok1 := m.View(ctx, inv[node], r)
				d2, r2, ok2 := snap.View(ctx, node, r)
				if d := cmp.Diff([]any{d1, r1, ok1}, []any{d2, r2, ok2}); d != "" {
					t.Errorf("%s %v with %d claims (-inventory +snapshot):\n%s", node, r.Selectors, len(claims), d)
				}
			}
		}
	}
	for i := range all {
		compare(t, slices, all[:i+1])
	}
	first := cache.l
	if first == nil || first.from == nil {
		t.Fatal("no layout cached")
	}
	// Another order of the same slices is the same layout.
	reversed := []*resourceapi.ResourceSlice{}
	for i := len(slices) - 1; i >= 0; i-- {
		reversed = append(reversed, slices[i])
	}
	compare(t, reversed, all)
	if cache.l != first {
		t.Error("the same slices in another order built a new layout")
	}
	// A slice updated to 40Gi GPUs: the views change at once.
	changed := append([]*resourceapi.ResourceSlice{}, slices...)
	changed[1] = slice("b", "node-b", gpuDevice("gpu-0", "40Gi", true))
	changed[1].UID, changed[1].ResourceVersion = "b", "100"
	compare(t, changed, all)
	if cache.l == first {
		t.Error("an updated slice kept the old layout")
	}
	// A slice deleted.
	compare(t, changed[1:], all)
}
