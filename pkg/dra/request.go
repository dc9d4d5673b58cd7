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
	// Capacity is the share of each device's capacities asked for, by capacity name, as the
	// request writes it.
	Capacity map[resourceapi.QualifiedName]resource.Quantity
	// AdminAccess asks for monitoring access, which consumes nothing.
	AdminAccess bool
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

// ClaimRequests are a claim's requests, each with its class's selectors; a prioritized list
// (firstAvailable) by its first choice, and requests for monitoring (adminAccess) left out: they
// consume nothing.
func ClaimRequests(claim *resourceapi.ResourceClaim, cfg Config, getClass func(name string) (*resourceapi.DeviceClass, error)) ([]DeviceRequest, error) {
	var out []DeviceRequest
	for i := range claim.Spec.Devices.Requests {
		choices, err := RequestChoices(claim, i, getClass)
		if err != nil {
			return nil, err
		}
		if dr := choices[0]; !dr.AdminAccess {
			if q, ok := CapacityOf(dr.Capacity, cfg.Driver, cfg.Memory); ok {
				dr.Memory = q.Value()
			}
			out = append(out, dr)
		}
	}
	return out, nil
}

// RequestChoices are the ways request i of claim can be met, in the claim's order of preference:
// the request itself (exactly), or each subrequest of a prioritized list (firstAvailable), named
// "request/subrequest". Each has its class's CEL selectors, then its own. Memory is left 0: what
// names a GPU's memory is the caller's Config.
func RequestChoices(claim *resourceapi.ResourceClaim, i int, getClass func(name string) (*resourceapi.DeviceClass, error)) ([]DeviceRequest, error) {
	r := claim.Spec.Devices.Requests[i]
	field := fmt.Sprintf("resourceclaim %s/%s: spec.devices.requests[%d]", claim.Namespace, claim.Name, i)
	type choice struct {
		name      string
		class     string
		selectors []resourceapi.DeviceSelector
		mode      resourceapi.DeviceAllocationMode
		count     int64
		capacity  *resourceapi.CapacityRequirements
		admin     bool
	}
	var choices []choice
	switch {
	case r.Exactly != nil:
		e := r.Exactly
		choices = append(choices, choice{r.Name, e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count, e.Capacity, e.AdminAccess != nil && *e.AdminAccess})
	case len(r.FirstAvailable) > 0:
		for _, s := range r.FirstAvailable {
			choices = append(choices, choice{r.Name + "/" + s.Name, s.DeviceClassName, s.Selectors, s.AllocationMode, s.Count, s.Capacity, false})
		}
	default:
		return nil, fmt.Errorf("%s: neither exactly nor firstAvailable is set", field)
	}
	out := make([]DeviceRequest, 0, len(choices))
	for _, c := range choices {
		dr := DeviceRequest{Claim: types.NamespacedName{Namespace: claim.Namespace, Name: claim.Name}, Request: c.name, Class: c.class, AdminAccess: c.admin}
		switch c.mode {
		case resourceapi.DeviceAllocationModeAll:
			dr.All = true
		case resourceapi.DeviceAllocationModeExactCount, "":
			dr.Count = max(c.count, 1)
		default:
			return nil, fmt.Errorf("%s: allocationMode %q is not one berth knows", field, c.mode)
		}
		if c.capacity != nil {
			dr.Capacity = c.capacity.Requests
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
		for _, s := range c.selectors {
			if s.CEL != nil {
				dr.Selectors = append(dr.Selectors, s.CEL.Expression)
			}
		}
		out = append(out, dr)
	}
	return out, nil
}

// CapacityOf finds a capacity by its name, written bare or with the driver's domain: a name
// without a domain is in the driver's (resource.k8s.io's QualifiedName).
// It serves requests and consumed capacity (quantities) and slices (DeviceCapacity) alike.
func CapacityOf[V any](list map[resourceapi.QualifiedName]V, driver string, name resourceapi.QualifiedName) (V, bool) {
	if v, ok := list[name]; ok {
		return v, true
	}
	v, ok := list[resourceapi.QualifiedName(driver)+"/"+name]
	return v, ok
}

// Share is the memory a request for a share of memory (0: none named) takes from dev, as the
// allocator rounds it by the device's request policy; ok is false if the policy refuses it. A
// device that is not shareable is taken whole.
func Share(dev *Device, cfg Config, memory int64) (int64, bool) {
	if !dev.Shared || dev.Slice == nil {
		return dev.Memory, true
	}
	c, ok := CapacityOf(dev.Slice.Capacity, cfg.Driver, cfg.Memory)
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
