// Package amount is berth's one model of an amount of resources: what a pod asks, what a node
// has free, what a quota allows or holds. The plugins, the wait-reason publisher and kubectl berth
// all count in it.
//
// Every resource is counted in thousandths of its unit (cpu in millicores, memory in thousandths
// of a byte, pods in thousandths of a pod), so that every resource is added and compared the same
// way, and a quota's min and max and a DRA claim's charge may be fractions of a unit. A node's
// room is counted as the scheduler counts it, in millicores for cpu and in whole units, rounded
// up, for everything else (Whole, FromScheduler): those are whole numbers of thousandths.
package amount

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Amount is an amount of each resource, in thousandths of the resource's unit. A missing entry is
// zero.
type Amount map[v1.ResourceName]int64

// Pods names the pod slots in an Amount: every pod asks One.
const Pods = v1.ResourcePods

// One is one whole unit of any resource: one pod, one byte, one GPU, one core.
const One = 1000

// Max is the most of one resource an Amount holds, so that sums of a cluster's worth of them cannot
// overflow int64: about 9 * 10^12 whole units (9 TB of memory). Larger amounts are counted as Max.
const Max = math.MaxInt64 / 1024

// Of converts a ResourceList exactly, to the thousandth. It reports the resources it had to clamp:
// negative amounts become 0, amounts beyond Max become Max.
func Of(list v1.ResourceList) (Amount, []string) {
	v := make(Amount, len(list))
	var problems []string
	for name, q := range list {
		switch {
		case q.Sign() < 0:
			problems = append(problems, fmt.Sprintf("%s %s is negative, counted as 0", name, q.String()))
			v[name] = 0
		case q.AsApproximateFloat64()*1000 >= float64(Max):
			problems = append(problems, fmt.Sprintf("%s %s is too large, counted as %s", name, q.String(), Text(name, Max)))
			v[name] = Max
		default:
			v[name] = q.MilliValue()
		}
	}
	sort.Strings(problems)
	return v, problems
}

// RequestOf is what pod requests as the scheduler sums it (containers, init containers, overhead),
// to the thousandth, leaving out what is not positive; extra makes room for entries the caller
// adds. Its pod slot is the caller's to add.
func RequestOf(pod *v1.Pod, extra int) Amount {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	v := make(Amount, len(reqs)+extra)
	for name, q := range reqs {
		if q.Sign() > 0 {
			v[name] = min(q.MilliValue(), Max)
		}
	}
	return v
}

// Whole is q of resource name as the scheduler counts it for a node's room, in thousandths:
// millicores for cpu, whole units rounded up for anything else.
func Whole(name v1.ResourceName, q resource.Quantity) int64 {
	if name == v1.ResourceCPU {
		return min(q.MilliValue(), Max)
	}
	return FromScheduler(name, q.Value())
}

// FromScheduler is v, the scheduler's own count of resource name (a NodeInfo's: millicores for
// cpu, whole units for anything else), in thousandths.
func FromScheduler(name v1.ResourceName, v int64) int64 {
	if name == v1.ResourceCPU {
		return v
	}
	return max(min(v, Max/One), -Max/One) * One
}

// Add adds w to v, scaled by n.
func (v Amount) Add(w Amount, n int64) {
	for name, x := range w {
		v[name] += x * n
	}
}

// Clone returns a copy of v; of nil, an empty Amount.
func (v Amount) Clone() Amount {
	c := make(Amount, len(v))
	for name, x := range v {
		c[name] = x
	}
	return c
}

// Sum is a + b, held at the largest or least int64 instead of overflowing: the room of many
// nodes, each up to Max, summed.
func Sum(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// Fits is how many members asking member fit into free: the least, over one pod slot each and
// the resources member asks for, of free over asked.
func Fits(free, member Amount) int {
	return FitsIn(member, func(name v1.ResourceName) int64 { return free[name] })
}

// FitsIn is Fits of the free room free reports, resource by resource.
func FitsIn(member Amount, free func(name v1.ResourceName) int64) int {
	n := free(Pods) / One
	for name, want := range member {
		if want > 0 && name != Pods {
			n = min(n, free(name)/want)
		}
	}
	return int(max(n, 0))
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
	if milli%One == 0 {
		return *resource.NewQuantity(milli/One, f)
	}
	return *resource.NewMilliQuantity(milli, f)
}

// Text is milli thousandths of resource name as a person reads it: "1500m", "4Gi".
func Text(name v1.ResourceName, milli int64) string {
	q := Quantity(name, milli)
	return q.String()
}

// String is v as a person reads it, by name, in the units of the API (cpu 1500m, memory 1Gi),
// leaving out pod slots and what is zero.
func (v Amount) String() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(v)) {
		if x := v[name]; x != 0 && name != Pods {
			parts = append(parts, string(name)+" "+Text(name, x))
		}
	}
	return strings.Join(parts, ", ")
}

// Listed is every non-zero entry of v, pod slots included, in name order and in the resources' own
// units, in braces: {cpu: 1500m, pods: 1}.
func (v Amount) Listed() string {
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
