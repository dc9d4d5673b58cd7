// Package quota is berth's ElasticQuota ledger: what every pod holds, by UID, per namespace, and
// each namespace's quota (min and max) as the scheduler enforces it. It knows no scheduling
// framework types: the ElasticQuota plugin (package elasticquota) and the quota victim rule of
// berth's preemption (package preemption) are built on it.
//
// The model, in full in docs/quota.md:
//   - A quota names resources in min and max. A pod of its namespace is admitted while
//     used + request <= max for every resource max names; a resource max leaves out is not limited.
//   - What a quota uses above min is borrowed, resource by resource: it may be reclaimed by a pod
//     of a quota that is below its min and asks for that resource, never taking the lender below
//     its own min in a resource it borrows (reclaim.go).
//   - A resource the quota names in neither min nor max is outside the quota altogether.
//   - Quotas may form a tree (tree.go): a pod is admitted only within every quota on its path, and a
//     quota counts its children's use. A quota without the tree's annotations is flat: at the top,
//     of its own namespace.
package quota

import (
	"fmt"
	"math"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/berth-sched/berth/pkg/gpu"
)

// PodsResource counts pods: every pod requests one.
const PodsResource = v1.ResourcePods

// Amount is an amount of each resource, in thousandths of the resource's unit (cpu in millicores,
// memory in thousandths of a byte, GPU memory in thousandths of the node's unit), so every
// resource is added and compared the same way. A missing entry is zero. It is noderoom.Amount's
// idea at a finer grain: a quota's min and max and a DRA claim's charge may be fractions of a
// unit, which the scheduler's whole units for a node's room would round.
type Amount map[v1.ResourceName]int64

// maxMilli caps quantities so that sums of a cluster's worth of them cannot overflow int64.
const maxMilli = math.MaxInt64 / 1024

// AmountOf converts a ResourceList. It reports the resources it had to clamp: negative amounts
// become 0, amounts beyond what int64 milli-units hold become the largest it keeps.
func AmountOf(list v1.ResourceList) (Amount, []string) {
	v := make(Amount, len(list))
	var problems []string
	for name, q := range list {
		switch {
		case q.Sign() < 0:
			problems = append(problems, fmt.Sprintf("%s %s is negative, counted as 0", name, q.String()))
			v[name] = 0
		case q.AsApproximateFloat64()*1000 >= float64(maxMilli):
			problems = append(problems, fmt.Sprintf("%s %s is too large, counted as %s", name, q.String(), Text(name, maxMilli)))
			v[name] = maxMilli
		default:
			v[name] = q.MilliValue()
		}
	}
	sort.Strings(problems)
	return v, problems
}

// RequestOf is what a pod holds against its quota: its requests as the scheduler counts them
// (containers, init containers, overhead), one pod, and GPU memory counted as GPUShare counts it,
// from container limits of gpuMemory.
func RequestOf(pod *v1.Pod, gpuMemory v1.ResourceName) (Amount, error) {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	v := make(Amount, len(reqs)+2)
	for name, q := range reqs {
		if q.Sign() > 0 {
			v[name] = min(q.MilliValue(), maxMilli)
		}
	}
	v[PodsResource] = 1000
	g, err := gpu.RequestOf(pod, gpuMemory)
	if err != nil {
		return nil, err
	}
	if g.Total > 0 {
		v[gpuMemory] = min(g.Total, maxMilli/1000) * 1000
	} else {
		delete(v, gpuMemory)
	}
	return v, nil
}

// Add adds w to v, scaled by n.
func (v Amount) Add(w Amount, n int64) {
	for name, x := range w {
		v[name] += x * n
	}
}

// Clone returns a copy of v.
func (v Amount) Clone() Amount {
	c := make(Amount, len(v))
	for name, x := range v {
		c[name] = x
	}
	return c
}

// Scaled returns v times n.
func (v Amount) Scaled(n int64) Amount {
	c := make(Amount, len(v))
	c.Add(v, n)
	return c
}

// String lists v's non-zero entries in name order, in the resources' own units.
func (v Amount) String() string {
	names := make([]string, 0, len(v))
	for name, x := range v {
		if x != 0 {
			names = append(names, string(name))
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name + ": " + Text(v1.ResourceName(name), v[v1.ResourceName(name)]))
	}
	return "{" + b.String() + "}"
}

// ResourceList converts v back into quantities.
func (v Amount) ResourceList() v1.ResourceList {
	list := make(v1.ResourceList, len(v))
	for name, x := range v {
		list[name] = Quantity(name, x)
	}
	return list
}

// Quantity is milli thousandths of resource name as the API writes it: binary units for memory,
// storage and huge pages.
func Quantity(name v1.ResourceName, milli int64) resource.Quantity {
	f := resource.DecimalSI
	if name == v1.ResourceMemory || name == v1.ResourceEphemeralStorage || strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) {
		f = resource.BinarySI
	}
	if milli%1000 == 0 {
		return *resource.NewQuantity(milli/1000, f)
	}
	return *resource.NewMilliQuantity(milli, f)
}

// Text is milli thousandths of resource name as a person reads it: "1500m", "4Gi".
func Text(name v1.ResourceName, milli int64) string {
	q := Quantity(name, milli)
	return q.String()
}
