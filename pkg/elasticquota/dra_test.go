package elasticquota

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/apis/config"
)

// sliceLister serves fixed slices.
type sliceLister []*resourceapi.ResourceSlice

func (l sliceLister) ListWithDeviceTaintRules() ([]*resourceapi.ResourceSlice, error) { return l, nil }

var _ fwk.ResourceSliceLister = sliceLister(nil)

// classLister serves fixed DeviceClasses.
type classLister map[string]*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) {
	var out []*resourceapi.DeviceClass
	for _, c := range l {
		out = append(out, c)
	}
	return out, nil
}

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	if c, ok := l[name]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("deviceclass %q not found", name)
}

var _ fwk.DeviceClassLister = classLister(nil)

func defaultCounting(t *testing.T) *draCounting {
	t.Helper()
	args, err := elasticQuotaArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	return newDRACounting(args)
}

func gpuRequest(name string, count int64, memory string) resourceapi.DeviceRequest {
	r := resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: "gpu.nvidia.com", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}}
	if memory != "" {
		r.Exactly.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse(memory)}}
	}
	return r
}

func TestClaimCharge(t *testing.T) {
	slices := sliceLister{{Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.nvidia.com", Pool: resourceapi.ResourcePool{Name: "n1"}, NodeName: ptr.To("n1"),
		Devices: []resourceapi.Device{
			{Name: "gpu-0", Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: resource.MustParse("80Gi")}}},
			{Name: "gpu-1", Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}},
				Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"productName": {StringValue: ptr.To("A100-40GB")}}},
		}}}}
	classes := classLister{"gpu.nvidia.com": {ObjectMeta: metav1.ObjectMeta{Name: "gpu.nvidia.com"}, Spec: resourceapi.DeviceClassSpec{
		Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.driver == "gpu.nvidia.com"`}}}}}}
	bigOnly := gpuRequest("g", 1, "")
	bigOnly.Exactly.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0`}}}
	admin := gpuRequest("g", 1, "10Gi")
	admin.Exactly.AdminAccess = ptr.To(true)
	const mem, count v1.ResourceName = "aliyun.com/gpu-mem", "aliyun.com/gpu-count"
	for _, tc := range []struct {
		name  string
		objs  *draObjects // default: slices and classes
		claim resourceapi.ResourceClaim
		want  amount.Amount
	}{
		{name: "pending share of memory", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{gpuRequest("g", 1, "10Gi")}}}}, want: amount.Amount{mem: 10000, count: 1000}},
		{name: "pending two devices of 512Mi: half a GiB each, rounded up in thousandths", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{gpuRequest("g", 2, "512Mi")}}}}, want: amount.Amount{mem: 1000, count: 2000}},
		{name: "pending whole device: the smallest device of its class", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{gpuRequest("g", 1, "")}}}}, want: amount.Amount{mem: 40000, count: 1000}},
		{name: "pending whole device: the smallest device its selectors match", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{bigOnly}}}}, want: amount.Amount{mem: 80000, count: 1000}},
		{name: "pending whole device of no device published: its memory unknown until allocated", objs: &draObjects{classes: classes}, claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{gpuRequest("g", 1, "")}}}}, want: amount.Amount{count: 1000}},
		{name: "monitoring access counts nothing", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{admin}}}}, want: amount.Amount{}},
		{name: "a share named with the driver's domain", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "g", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu.nvidia.com", Count: 1,
				Capacity: &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"gpu.nvidia.com/memory": resource.MustParse("12Gi")}}}}}}}}, want: amount.Amount{mem: 12000, count: 1000}},
		{name: "another class counts nothing", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "n", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "nic.example.com", Count: 1}}}}}}, want: amount.Amount{}},
		{name: "first available: the least of the choices", claim: resourceapi.ResourceClaim{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "g", FirstAvailable: []resourceapi.DeviceSubRequest{
				{Name: "big", DeviceClassName: "gpu.nvidia.com", Count: 1, Capacity: &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("40Gi")}}},
				{Name: "small", DeviceClassName: "gpu.nvidia.com", Count: 1, Capacity: &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("20Gi")}}},
			}}}}}}, want: amount.Amount{mem: 20000, count: 1000}},
		{name: "allocated with consumed capacity", claim: resourceapi.ResourceClaim{Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{
			Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Driver: "gpu.nvidia.com", Pool: "n1", Device: "gpu-0",
				ConsumedCapacity: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("16Gi")}}}}}}}, want: amount.Amount{mem: 16000, count: 1000}},
		{name: "allocated whole: the device's memory from its slice", claim: resourceapi.ResourceClaim{Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{
			Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Driver: "gpu.nvidia.com", Pool: "n1", Device: "gpu-0"}}}}}}, want: amount.Amount{mem: 80000, count: 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := tc.objs
			if objs == nil {
				objs = &draObjects{slices: slices, classes: classes}
			}
			if diff := cmp.Diff(tc.want, defaultCounting(t).claimCharge(&tc.claim, objs)); diff != "" {
				t.Errorf("charge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSharedClaimChargedToItsFirstReserver(t *testing.T) {
	a := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "a"}}
	b := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b", UID: "b"}}
	ref := func(uid types.UID) resourceapi.ResourceClaimConsumerReference {
		return resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: string(uid), UID: uid}
	}
	both := func(types.UID) bool { return true }
	onlyB := func(uid types.UID) bool { return uid == "b" }
	claim := &resourceapi.ResourceClaim{}
	if !chargedTo(claim, a, both) || !chargedTo(claim, b, both) {
		t.Errorf("a claim reserved for nobody counts against the pod being scheduled")
	}
	claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "g", UID: "g"}, ref("a"), ref("b")}
	if !chargedTo(claim, a, both) || chargedTo(claim, b, both) {
		t.Errorf("reserved for a then b: charged to a %v, to b %v; want a only", chargedTo(claim, a, both), chargedTo(claim, b, both))
	}
	if !chargedTo(claim, b, onlyB) {
		t.Errorf("a departing (no longer held) while still in reservedFor: the claim should count against b")
	}
	c := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "c", UID: "c"}}
	if chargedTo(claim, c, both) {
		t.Errorf("a pod joining a claim held by others counts it again")
	}
}

func TestElasticQuotaArgs(t *testing.T) {
	valid := func() *config.ElasticQuotaArgs {
		return &config.ElasticQuotaArgs{DRAResources: []config.DRAResource{{DeviceClassName: "gpu.example.com", Driver: "gpu.example.com",
			CountResource: "example.com/gpus", Capacities: []config.DRACapacity{{Name: "memory", Resource: "example.com/gpu-mem", Unit: resource.MustParse("1Mi")}}}}}
	}
	for _, tc := range []struct {
		name    string
		change  func(*config.ElasticQuotaArgs)
		wantErr string
	}{
		{name: "valid"},
		{name: "bad driver", change: func(a *config.ElasticQuotaArgs) { a.DRAResources[0].Driver = "GPU!" }, wantErr: "draResources[0].driver: Invalid value: \"GPU!\""},
		{name: "cpu as the count", change: func(a *config.ElasticQuotaArgs) { a.DRAResources[0].CountResource = "cpu" }, wantErr: "draResources[0].countResource: Invalid value: \"cpu\": must be an extended resource"},
		{name: "zero unit", change: func(a *config.ElasticQuotaArgs) { a.DRAResources[0].Capacities[0].Unit = resource.Quantity{} }, wantErr: "draResources[0].capacities[0].unit: Invalid value: \"0\": must be positive"},
		{name: "no capacity name", change: func(a *config.ElasticQuotaArgs) { a.DRAResources[0].Capacities[0].Name = "" }, wantErr: "draResources[0].capacities[0].name: Required value"},
		{name: "one resource twice", change: func(a *config.ElasticQuotaArgs) {
			a.DRAResources[0].Capacities[0].Resource = "example.com/gpus"
		}, wantErr: "draResources[0].capacities[0].resource: Duplicate value: \"example.com/gpus\""},
		{name: "driver twice", change: func(a *config.ElasticQuotaArgs) { a.DRAResources = append(a.DRAResources, a.DRAResources[0]) }, wantErr: "draResources[1].driver: Duplicate value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := valid()
			if tc.change != nil {
				tc.change(args)
			}
			_, err := elasticQuotaArgs(args)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
	if _, err := elasticQuotaArgs(&config.GangArgs{}); err == nil || !strings.Contains(err.Error(), "want args to be of type ElasticQuotaArgs") {
		t.Errorf("another plugin's args: %v", err)
	}
	d, err := elasticQuotaArgs(nil)
	if err != nil || len(d.DRAResources) != 1 || d.DRAResources[0].Driver != "gpu.nvidia.com" || d.DRAResources[0].Capacities[0].Unit.String() != "1Gi" {
		t.Errorf("defaults: %+v, %v", d, err)
	}
}

func TestIsSchedulableAfterClaimChange(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "w"}}
	held := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "c"}, Status: resourceapi.ResourceClaimStatus{
		Allocation:  &resourceapi.AllocationResult{},
		ReservedFor: []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "a", UID: "a"}, {Resource: "pods", Name: "b", UID: "b"}}}}
	released := held.DeepCopy()
	released.Status.ReservedFor = released.Status.ReservedFor[1:]
	freed := held.DeepCopy()
	freed.Status = resourceapi.ResourceClaimStatus{}
	elsewhere := held.DeepCopy()
	elsewhere.Namespace = "other"
	for _, tc := range []struct {
		name     string
		old, cur any
		want     fwk.QueueingHint
	}{
		{name: "freed", old: held, cur: freed, want: fwk.Queue},
		{name: "released by one pod", old: held, cur: released, want: fwk.Queue},
		{name: "deleted", old: held, cur: nil, want: fwk.Queue},
		{name: "reserved by one more", old: released, cur: held, want: fwk.QueueSkip},
		{name: "allocated", old: freed, cur: held, want: fwk.QueueSkip},
		{name: "another namespace", old: elsewhere, cur: freed, want: fwk.QueueSkip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := isSchedulableAfterClaimChange(klog.Background(), pod, tc.old, tc.cur)
			if err != nil || got != tc.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
