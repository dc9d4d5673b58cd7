package gpu

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestModelsOf(t *testing.T) {
	in := func(key string, values ...string) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}
	}
	terms := func(ts ...[]v1.NodeSelectorRequirement) *v1.Affinity {
		var sel v1.NodeSelector
		for _, t := range ts {
			sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: t})
		}
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &sel}}
	}
	reqs := func(r ...v1.NodeSelectorRequirement) []v1.NodeSelectorRequirement { return r }
	tests := []struct {
		name     string
		selector map[string]string
		affinity *v1.Affinity
		want     string
	}{
		{name: "no constraint", want: ""},
		{name: "another label", selector: map[string]string{"zone": "a"}, affinity: terms(reqs(in("zone", "a"))), want: ""},
		{name: "nodeSelector", selector: map[string]string{ModelLabel: "Tesla-T4"}, want: "Tesla-T4"},
		{name: "affinity In, sorted", affinity: terms(reqs(in(ModelLabel, "V100", "A10", "V100"))), want: "A10|V100"},
		{name: "terms add up", affinity: terms(reqs(in(ModelLabel, "T4")), reqs(in(ModelLabel, "A10"), in("zone", "a"))), want: "A10|T4"},
		{name: "a term without the label allows any", affinity: terms(reqs(in(ModelLabel, "T4")), reqs(in("zone", "a"))), want: ""},
		{name: "requirements of a term intersect", affinity: terms(reqs(in(ModelLabel, "T4", "A10"), in(ModelLabel, "A10", "P100"))), want: "A10"},
		{name: "NotIn is not a list of models", affinity: terms(reqs(v1.NodeSelectorRequirement{Key: ModelLabel, Operator: v1.NodeSelectorOpNotIn, Values: []string{"T4"}})), want: ""},
		{name: "nodeSelector and affinity intersect", selector: map[string]string{ModelLabel: "A10"}, affinity: terms(reqs(in(ModelLabel, "T4", "A10"))), want: "A10"},
		{name: "nothing in common", selector: map[string]string{ModelLabel: "P100"}, affinity: terms(reqs(in(ModelLabel, "T4"))), want: ""},
	}
	for _, tt := range tests {
		pod := &v1.Pod{Spec: v1.PodSpec{NodeSelector: tt.selector, Affinity: tt.affinity}}
		if got := ModelsOf(pod); got != tt.want {
			t.Errorf("%s: ModelsOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}
