package dra

import (
	"context"
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/gpu"
)

// benchCluster is the DRA benchmark's shape: nodes of 8 shareable 80Gi GPUs, with claims of
// 10 to 40Gi allocated round-robin over the GPUs, and one pending pod asking for a 20Gi share.
func benchCluster(b *testing.B, nodes, claims int) ([]*resourceapi.ResourceSlice, []*resourceapi.ResourceClaim, *DeviceRequest) {
	b.Helper()
	var slices []*resourceapi.ResourceSlice
	for n := range nodes {
		var devs []resourceapi.Device
		for g := range 8 {
			devs = append(devs, gpuDevice(fmt.Sprintf("gpu-%d", g), "80Gi", true))
		}
		s := slice(fmt.Sprintf("slice-%d", n), fmt.Sprintf("node-%d", n), devs...)
		s.UID = k8stypes.UID("uid-" + s.Name)
		s.ResourceVersion = "1"
		slices = append(slices, s)
	}
	var cs []*resourceapi.ResourceClaim
	for i := range claims {
		gpuIndex := i % (nodes * 8)
		c := allocated("ns", fmt.Sprintf("claim-%d", i), fmt.Sprintf("node-%d", gpuIndex/8), []string{fmt.Sprintf("pod-%d", i)},
			result(fmt.Sprintf("gpu-%d", gpuIndex%8), fmt.Sprintf("%dGi", 10*(1+i%4))))
		cs = append(cs, c)
	}
	gc, gcl := getters(claim("share", "gpu.nvidia.com", 1, "20Gi", ""))
	pr, err := RequestOf(podWithClaims("share"), DefaultConfig(), gc, gcl)
	if err != nil {
		b.Fatal(err)
	}
	return slices, cs, &pr.Requests[0]
}

// BenchmarkScorePodInventory is what GPUShare's PreScore did per DRA pod before the layout was
// cached: build the inventory of every slice and claim, then view every node through the matcher.
func BenchmarkScorePodInventory(b *testing.B) {
	slices, claims, r := benchCluster(b, 100, 1000)
	m := NewMatcher(DefaultConfig())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		inv, _ := Inventory(DefaultConfig(), slices, claims)
		if !m.AsksForGPUs(ctx, r, inv) {
			b.Fatal("the request matches no GPU")
		}
		for _, n := range inv {
			devs, req, ok := m.View(ctx, n, r)
			if ok {
				gpu.Score(devs, req, gpu.Binpack)
			}
		}
	}
}

// BenchmarkScorePodSnapshot is the same through a LayoutCache, as GPUShare's PreScore scores
// now: the slices are the same from pod to pod, the claims are counted anew.
func BenchmarkScorePodSnapshot(b *testing.B) {
	slices, claims, r := benchCluster(b, 100, 1000)
	cache := NewLayoutCache(NewMatcher(DefaultConfig()))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		snap := cache.Snapshot(slices, claims)
		if !snap.AsksForGPUs(ctx, r) {
			b.Fatal("the request matches no GPU")
		}
		for n := range 100 {
			devs, req, ok := snap.View(ctx, fmt.Sprintf("node-%d", n), r)
			if ok {
				gpu.Score(devs, req, gpu.Binpack)
			}
		}
	}
}
