package gpu

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// ModelLabel is the node label that names a node's GPU model, as NVIDIA's GPU Feature Discovery
// sets it (for example Tesla-T4). A pod that may run only on some GPU models says so with a
// nodeSelector or required node affinity on it; the fragmentation measure then counts, on each
// node, only the kinds of request that may run on the node's model.
const ModelLabel = "nvidia.com/gpu.product"

// modelSep separates the models of a PodShape's GPUModels; label values cannot hold it.
const modelSep = "|"

// ModelsOf is the set of GPU models (values of ModelLabel) that pod may run on by its nodeSelector
// and its required node affinity, sorted and joined by "|"; "" when they do not restrict the
// model. Only what can be written as a list of models restricts it: In on ModelLabel (a term
// without it, or with another operator on it, lets the pod run on any model as far as the measure
// is concerned). The affinity's terms are alternatives, so their models add up; the nodeSelector
// must hold as well, so the two are intersected. Pods whose constraints admit no model at all
// fit no node and never reach Score; they too get "".
func ModelsOf(pod *v1.Pod) string {
	var allowed []string // nil: any model
	if m, ok := pod.Spec.NodeSelector[ModelLabel]; ok {
		allowed = []string{m}
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if terms := termModels(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms); terms != nil {
			if allowed == nil {
				allowed = terms
			} else {
				allowed = slices.DeleteFunc(allowed, func(m string) bool { return !slices.Contains(terms, m) })
			}
		}
	}
	if len(allowed) == 0 {
		return ""
	}
	slices.Sort(allowed)
	return strings.Join(slices.Compact(allowed), modelSep)
}

// termModels is the models a list of node selector terms (any of which may match) allows, nil for
// any.
func termModels(terms []v1.NodeSelectorTerm) []string {
	var union []string
	for _, t := range terms {
		var term []string // nil: this term allows any model
		for _, r := range t.MatchExpressions {
			if r.Key != ModelLabel {
				continue
			}
			if r.Operator != v1.NodeSelectorOpIn {
				return nil
			}
			if term == nil {
				term = slices.Clone(r.Values)
			} else {
				term = slices.DeleteFunc(term, func(m string) bool { return !slices.Contains(r.Values, m) })
			}
			if term == nil {
				term = []string{}
			}
		}
		if term == nil {
			return nil
		}
		union = append(union, term...)
	}
	if union == nil {
		// Every term allows no model: the pod fits nowhere (see ModelsOf).
		return nil
	}
	return union
}
