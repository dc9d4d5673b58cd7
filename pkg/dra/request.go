package dra

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// DeviceRequest is one request of a claim for devices. Whether it asks for GPUs is for a Matcher
// to say, against the devices published.
type DeviceRequest struct {
	Claim types.NamespacedName
	// Request is the request's name in the claim; for a prioritized list (firstAvailable), the
	// first subrequest's, "main/sub", which berth takes as the one the claim will get.
	Request string
	Class   string
	// Count is how many devices; All asks for every matching device of the node (Count 0).
	Count int64
	All   bool
	// Memory is the share of each device's memory capacity asked for, in bytes; 0 asks for no
	// share, which takes a shareable device's default and any other device whole.
	Memory int64
	// Selectors are the class's CEL selectors, then the request's.
	Selectors []string
}

// PodRequest is what a pod's claims ask for.
type PodRequest struct {
	// Requests are the requests of the pod's claims not yet allocated.
	Requests []DeviceRequest
	// Allocated are the pod's claims already allocated (shared with pods placed earlier): they ask
	// for nothing more.
	Allocated []*resourceapi.ResourceClaim
}

// ClaimNames are the names of the ResourceClaims a pod uses, as the DynamicResources plugin
// resolves them; a claim from a template the resourceclaim controller has yet to create is an error.
func ClaimNames(pod *v1.Pod) ([]string, error) {
	var names []string
	for i := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil {
			return nil, err
		}
		if name != nil {
			names = append(names, *name)
		}
	}
	return names, nil
}

// RequestOf reads what the pod's claims ask for, through getClaim and getClass (the scheduler's
// DRA manager, or plain maps in tests).
func RequestOf(pod *v1.Pod, cfg Config,
	getClaim func(namespace, name string) (*resourceapi.ResourceClaim, error),
	getClass func(name string) (*resourceapi.DeviceClass, error)) (PodRequest, error) {
	names, err := ClaimNames(pod)
	if err != nil {
		return PodRequest{}, err
	}
	var pr PodRequest
	for _, name := range names {
		claim, err := getClaim(pod.Namespace, name)
		if err != nil {
			return PodRequest{}, fmt.Errorf("resourceclaim %s/%s: %w", pod.Namespace, name, err)
		}
		if claim.Status.Allocation != nil {
			pr.Allocated = append(pr.Allocated, claim)
			continue
		}
		reqs, err := ClaimRequests(claim, cfg, getClass)
		if err != nil {
			return PodRequest{}, err
		}
		pr.Requests = append(pr.Requests, reqs...)
	}
	return pr, nil
}

// ClaimRequests are a claim's requests, each with its class's selectors.
func ClaimRequests(claim *resourceapi.ResourceClaim, cfg Config, getClass func(name string) (*resourceapi.DeviceClass, error)) ([]DeviceRequest, error) {
	var out []DeviceRequest
	for i, r := range claim.Spec.Devices.Requests {
		field := fmt.Sprintf("resourceclaim %s/%s: spec.devices.requests[%d]", claim.Namespace, claim.Name, i)
		dr := DeviceRequest{Claim: types.NamespacedName{Namespace: claim.Namespace, Name: claim.Name}, Request: r.Name}
		var (
			selectors []resourceapi.DeviceSelector
			mode      resourceapi.DeviceAllocationMode
			count     int64
			capacity  *resourceapi.CapacityRequirements
		)
		switch {
		case r.Exactly != nil:
			e := r.Exactly
			if e.AdminAccess != nil && *e.AdminAccess {
				// Monitoring access consumes nothing.
				continue
			}
			dr.Class, selectors, mode, count, capacity = e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count, e.Capacity
		case len(r.FirstAvailable) > 0:
			s := r.FirstAvailable[0]
			dr.Request = r.Name + "/" + s.Name
			dr.Class, selectors, mode, count, capacity = s.DeviceClassName, s.Selectors, s.AllocationMode, s.Count, s.Capacity
		default:
			return nil, fmt.Errorf("%s: neither exactly nor firstAvailable is set", field)
		}
		switch mode {
		case resourceapi.DeviceAllocationModeAll:
			dr.All = true
		case resourceapi.DeviceAllocationModeExactCount, "":
			dr.Count = max(count, 1)
		default:
			return nil, fmt.Errorf("%s: allocationMode %q is not one berth knows", field, mode)
		}
		if capacity != nil {
			if q, ok := capacity.Requests[cfg.Memory]; ok {
				dr.Memory = q.Value()
			}
		}
		class, err := getClass(dr.Class)
		if err != nil {
			return nil, fmt.Errorf("%s: deviceclass %q: %w", field, dr.Class, err)
		}
		for _, s := range class.Spec.Selectors {
			if s.CEL != nil {
				dr.Selectors = append(dr.Selectors, s.CEL.Expression)
			}
		}
		for _, s := range selectors {
			if s.CEL != nil {
				dr.Selectors = append(dr.Selectors, s.CEL.Expression)
			}
		}
		out = append(out, dr)
	}
	return out, nil
}

// Share is the memory a request for a share of memory (0: none named) takes from dev, as the
// allocator rounds it by the device's request policy; ok is false if the policy refuses it. A
// device that is not shareable is taken whole.
func Share(dev *Device, cfg Config, memory int64) (int64, bool) {
	if !dev.Shared || dev.Slice == nil {
		return dev.Memory, true
	}
	c, ok := dev.Slice.Capacity[cfg.Memory]
	if !ok || c.RequestPolicy == nil {
		if memory == 0 {
			return dev.Memory, true
		}
		return memory, memory <= dev.Memory
	}
	p := c.RequestPolicy
	if memory == 0 {
		if p.Default == nil {
			return dev.Memory, true
		}
		memory = p.Default.Value()
	}
	switch {
	case len(p.ValidValues) > 0:
		for _, v := range p.ValidValues {
			if v.Value() >= memory {
				return v.Value(), true
			}
		}
		return 0, false
	case p.ValidRange != nil:
		r := p.ValidRange
		if r.Min != nil {
			memory = max(memory, r.Min.Value())
		}
		if r.Step != nil && r.Step.Value() > 0 {
			base, step := quantityValue(r.Min), r.Step.Value()
			if over := (memory - base) % step; over != 0 {
				memory += step - over
			}
		}
		if r.Max != nil && memory > r.Max.Value() {
			return 0, false
		}
	}
	return memory, memory <= dev.Memory
}

func quantityValue(q *resource.Quantity) int64 {
	if q == nil {
		return 0
	}
	return q.Value()
}
