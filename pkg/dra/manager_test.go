package dra

import (
	"context"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
	"k8s.io/utils/ptr"
)

// PreBind of the DynamicResources plugin writes a claim's allocation, assumes the written claim,
// and drops the allocation in flight only when PreBind ends. In between, upstream's
// GatherAllocatedState counted a share's consumed capacity twice, once from the assumed claim and
// once in flight, so the allocator saw a device fuller than it was: the pod scheduled in that
// moment was refused the last share of a GPU (TestDRAGPUScoringClaimTemplates put 7 of 8 pods on
// one node). hack/patches/dynamicresources_dra_manager.go.in counts a share once.
func TestManagerCountsAShareAssumedAndInFlightOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "c-uid", ResourceVersion: "1"},
	}
	other := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other", UID: "other-uid", ResourceVersion: "1"},
	}
	client := fake.NewClientset(claim, other)
	factory := informers.NewSharedInformerFactory(client, 0)
	claims := assumecache.NewAssumeCache(klog.FromContext(ctx), factory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
	tracker := dynamicresources.NewDRAManager(ctx, claims, nil, factory).ResourceClaims()
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()
	factory.WaitForCacheSync(ctx.Done())

	device := structured.MakeDeviceID(DefaultConfig().Driver, "n0", "gpu-0")
	share := func(c *resourceapi.ResourceClaim, id types.UID, memory string) *resourceapi.ResourceClaim {
		c = c.DeepCopy()
		c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
			Results: []resourceapi.DeviceRequestAllocationResult{{
				Request: "gpu", Driver: DefaultConfig().Driver, Pool: "n0", Device: "gpu-0",
				ShareID:          ptr.To(id),
				ConsumedCapacity: map[resourceapi.QualifiedName]resource.Quantity{DefaultMemory: resource.MustParse(memory)},
			}},
		}}
		return c
	}
	consumed := func(t *testing.T) int64 {
		t.Helper()
		var s *structured.AllocatedState
		// A concurrent change asks for another try; nothing changes here, so one retry suffices.
		for range 2 {
			var err error
			if s, err = tracker.GatherAllocatedState(); err == nil {
				break
			}
		}
		if s == nil {
			t.Fatal("GatherAllocatedState failed twice")
		}
		q := s.AggregatedCapacity[device][DefaultMemory]
		if q == nil {
			return 0
		}
		return q.Value()
	}
	want := func(t *testing.T, step string, gib int64) {
		t.Helper()
		if got := consumed(t); got != gib*gi {
			t.Errorf("%s: %s consumes %dGi, want %dGi", step, device, got/gi, gib)
		}
	}

	// Another claim's 20Gi share of the same GPU, already written and seen by the informer.
	written := share(other, "share-other", "20Gi")
	written.ResourceVersion = "2"
	if _, err := client.ResourceV1().ResourceClaims("ns").UpdateStatus(ctx, written, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllocated(ctx, t, tracker, other)
	// The manager's totals follow the informer through a handler of their own, which may run after
	// the assume cache's: wait for both (the CI run of 2026-11-28 read 0Gi here under load).
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return consumed(t) == 20*gi, nil
	}); err != nil {
		t.Fatalf("the other claim written: %s never consumed 20Gi: %v", device, err)
	}

	allocated := share(claim, "share-c", "20Gi")
	if err := tracker.SignalClaimPendingAllocation(claim.UID, allocated); err != nil {
		t.Fatal(err)
	}
	want(t, "in flight", 40)
	allocated = allocated.DeepCopy()
	allocated.ResourceVersion = "3"
	if err := tracker.AssumeClaimAfterAPICall(allocated); err != nil {
		t.Fatal(err)
	}
	want(t, "assumed and still in flight", 40)
	tracker.MaybeRemoveClaimPendingAllocation(claim.UID, true)
	want(t, "assumed", 40)
}

// waitAllocated waits until the tracker lists claim with an allocation.
func waitAllocated(ctx context.Context, t *testing.T, tracker fwk.ResourceClaimTracker, claim *resourceapi.ResourceClaim) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		c, err := tracker.Get(claim.Namespace, claim.Name)
		return err == nil && c.Status.Allocation != nil, nil
	}); err != nil {
		t.Fatalf("claim %s/%s not seen allocated: %v", claim.Namespace, claim.Name, err)
	}
}
