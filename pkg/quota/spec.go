package quota

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/amount"
)

// Spec is one namespace's quota as berth enforces it.
type Spec struct {
	// Name is the ElasticQuota's namespace/name, as messages show it.
	Name string
	// Min is what the quota is guaranteed; a resource it leaves out (and max names) is guaranteed 0.
	Min amount.Amount
	// Max bounds what the quota's pods hold; a resource it leaves out is not limited.
	Max amount.Amount

	// The fields below are set by a quota tree's annotations (tree.go); a flat quota leaves them
	// zero.

	// Parent is the parent quota's NAMESPACE/NAME, "" for a quota at the top.
	Parent string
	// Weight is the quota's weight in fair sharing, in thousandths; 0 stands for the default, 1.
	Weight int64
	// LendingLimit caps what of its idle min the quota lends, for the resources it names; nil: no cap.
	LendingLimit amount.Amount
	// BorrowingLimit caps what the quota uses above its min, for the resources it names; nil: no cap.
	BorrowingLimit amount.Amount
	// Fair is set for a quota that takes part in fair sharing: one in a tree (it names a parent or
	// its namespaces, or is a parent) or with a weight. Flat quotas without berth's annotations
	// keep scheduler-plugins' behaviour: they never preempt or are preempted for fairness.
	Fair bool
}

// weight is Weight with its default.
func (s *Spec) weight() int64 {
	if s.Weight <= 0 {
		return 1000
	}
	return s.Weight
}

// names reports whether the quota names resource in min or max: resources it names in neither
// are outside the quota.
func (s *Spec) names(resource v1.ResourceName) bool {
	_, inMin := s.Min[resource]
	_, inMax := s.Max[resource]
	return inMin || inMax
}

// Problem is what is wrong with an ElasticQuota, and what berth does about it.
type Problem struct {
	Quota   *v1alpha1.ElasticQuota
	Message string
}

// SpecOf reads one namespace's ElasticQuotas. berth enforces one per namespace, deterministically
// chosen: the oldest, ties broken by name. Its problems are repaired by fixed rules, each reported:
//   - a negative quantity counts as 0 (a negative max forbids the resource);
//   - a min above max is lowered to max;
//   - every other ElasticQuota of the namespace is ignored, and says so.
//
// SpecOf returns nil when quotas is empty.
func SpecOf(quotas []*v1alpha1.ElasticQuota) (*Spec, []Problem) {
	if len(quotas) == 0 {
		return nil, nil
	}
	eq, problems := oldest(quotas)
	spec, fixed := specOf(eq)
	return spec, append(problems, fixed...)
}

// oldest chooses among one namespace's ElasticQuotas the oldest, ties broken by name, and tells
// every other one that it is ignored. quotas is not empty.
func oldest(quotas []*v1alpha1.ElasticQuota) (*v1alpha1.ElasticQuota, []Problem) {
	sorted := append([]*v1alpha1.ElasticQuota(nil), quotas...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	eq := sorted[0]
	var problems []Problem
	for _, other := range sorted[1:] {
		problems = append(problems, Problem{Quota: other, Message: fmt.Sprintf(
			"namespace %s has %d ElasticQuotas; berth enforces only the oldest, %s, and ignores this one",
			eq.Namespace, len(sorted), eq.Name)})
	}
	return eq, problems
}

// specOf reads one ElasticQuota's min and max, repairing what it must (see SpecOf).
func specOf(eq *v1alpha1.ElasticQuota) (*Spec, []Problem) {
	var problems []Problem
	minV, minProblems := amount.Of(eq.Spec.Min)
	maxV, maxProblems := amount.Of(eq.Spec.Max)
	var notes []string
	for _, p := range minProblems {
		notes = append(notes, "min: "+p)
	}
	for _, p := range maxProblems {
		notes = append(notes, "max: "+p)
	}
	for name, lo := range minV {
		if hi, ok := maxV[name]; ok && lo > hi {
			notes = append(notes, fmt.Sprintf("min %s %s is above max %s, lowered to max", name, amount.Text(name, lo), amount.Text(name, hi)))
			minV[name] = hi
		}
	}
	if len(notes) > 0 {
		sort.Strings(notes)
		problems = append(problems, Problem{Quota: eq, Message: "invalid quantities: " + strings.Join(notes, "; ")})
	}
	return &Spec{Name: eq.Namespace + "/" + eq.Name, Min: minV, Max: maxV}, problems
}
