package dra

import (
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

func TestFitsAfterFreeing(t *testing.T) {
	ctx := context.Background()
	m := NewMatcher(DefaultConfig())
	slices := []*resourceapi.ResourceSlice{
		slice("a", "node-a", gpuDevice("gpu-0", "80Gi", false), gpuDevice("gpu-1", "80Gi", true)),
		slice("b", "node-b", gpuDevice("gpu-0", "80Gi", false)),
	}
	// node-a: gpu-0 held whole by "whole" (pod v), gpu-1 shared by "s1" (60Gi, pods v and w).
	claims := []*resourceapi.ResourceClaim{
		allocated("ns", "whole", "node-a", []string{"v"}, result("gpu-0", "")),
		allocated("ns", "s1", "node-a", []string{"v", "w"}, result("gpu-1", "60Gi")),
		allocated("ns", "other", "node-b", []string{"x"}, result("gpu-0", "")),
	}
	requests := func(c *resourceapi.ResourceClaim) []DeviceRequest {
		getClaim, getClass := getters(c)
		pr, err := RequestOf(podWithClaims(c.Name), DefaultConfig(), getClaim, getClass)
		if err != nil {
			t.Fatal(err)
		}
		return pr.Requests
	}
	gone := func(pods ...string) func(*resourceapi.ResourceClaim) bool {
		return func(c *resourceapi.ResourceClaim) bool {
			for _, r := range c.Status.ReservedFor {
				found := false
				for _, p := range pods {
					found = found || r.Name == p
				}
				if !found {
					return false
				}
			}
			return len(c.Status.ReservedFor) > 0
		}
	}
	for _, tc := range []struct {
		name  string
		node  string
		claim *resourceapi.ResourceClaim
		freed func(*resourceapi.ResourceClaim) bool
		want  bool
	}{
		{name: "a whole GPU, nothing freed", node: "node-a", claim: claim("c", gpuClass.Name, 1, "", ""), freed: gone(), want: false},
		{name: "a whole GPU once v goes", node: "node-a", claim: claim("c", gpuClass.Name, 1, "", ""), freed: gone("v"), want: true},
		{name: "30Gi: the shared GPU stays held by w", node: "node-a", claim: claim("c", gpuClass.Name, 1, "30Gi", ""), freed: gone("v"), want: true},
		{name: "30Gi, nothing freed: 20Gi free on the shared GPU", node: "node-a", claim: claim("c", gpuClass.Name, 1, "30Gi", ""), freed: gone(), want: false},
		{name: "two whole GPUs: the shared one is still held by w", node: "node-a", claim: claim("c", gpuClass.Name, 2, "", ""), freed: gone("v"), want: false},
		{name: "two whole GPUs once v and w go", node: "node-a", claim: claim("c", gpuClass.Name, 2, "", ""), freed: gone("v", "w"), want: true},
		{name: "another node's victims free nothing here", node: "node-b", claim: claim("c", gpuClass.Name, 1, "", ""), freed: gone("v", "w"), want: false},
		{name: "a node without GPUs", node: "node-c", claim: claim("c", gpuClass.Name, 1, "", ""), freed: gone("v"), want: false},
		{name: "a NIC is not judged", node: "node-a", claim: claim("c", nicClass.Name, 1, "", ""), freed: gone("v", "w"), want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.FitsAfterFreeing(ctx, slices, claims, tc.node, requests(tc.claim), tc.freed); got != tc.want {
				t.Errorf("FitsAfterFreeing = %v, want %v", got, tc.want)
			}
		})
	}
}
