package quota

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/pkg/amount"
)

// The annotations that put an ElasticQuota in a tree (docs/quota-trees.md).
const (
	// ParentAnnotation names the quota's parent, NAMESPACE/NAME.
	ParentAnnotation = "berth.dev/parent-quota"
	// NamespacesAnnotation lists, comma-separated, every namespace the quota covers (its own only
	// if listed; empty: none). Without it a quota covers its own namespace.
	NamespacesAnnotation = "berth.dev/namespaces"
	// LendingLimitAnnotation caps what of its idle min a quota lends (a resource list, as min).
	LendingLimitAnnotation = "berth.dev/lending-limit"
	// BorrowingLimitAnnotation caps what a quota uses above its min (a resource list, as min).
	BorrowingLimitAnnotation = "berth.dev/borrowing-limit"
	// WeightAnnotation is the quota's weight in fair sharing, a positive quantity (default 1).
	WeightAnnotation = "berth.dev/weight"
)

// inTree reports whether eq places itself in a tree: it names a parent or the namespaces it
// covers. Any other ElasticQuota is flat: a top-level quota of its own namespace, chosen among
// the namespace's flat quotas exactly as SpecOf chooses.
func inTree(eq *v1alpha1.ElasticQuota) bool {
	_, parent := eq.Annotations[ParentAnnotation]
	_, namespaces := eq.Annotations[NamespacesAnnotation]
	return parent || namespaces
}

// TreeQuota is one quota of a tree.
type TreeQuota struct {
	Spec Spec
	// Namespaces are the namespaces whose pods the quota counts itself, sorted.
	Namespaces []string
	// Children are the names of the quotas whose parent it is, sorted.
	Children []string
}

// Tree is every quota the scheduler enforces, flat ones included (top-level quotas of one
// namespace each). It is built whole by TreeOf and never changed afterwards.
type Tree struct {
	quotas      map[string]*TreeQuota
	byNamespace map[string]string
}

// Quota returns the quota named name (NAMESPACE/NAME), or nil.
func (t *Tree) Quota(name string) *TreeQuota {
	if t == nil {
		return nil
	}
	return t.quotas[name]
}

// Names returns the names of every quota, sorted.
func (t *Tree) Names() []string {
	if t == nil {
		return nil
	}
	names := make([]string, 0, len(t.quotas))
	for name := range t.quotas {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// QuotaOf returns the name of the quota that covers namespace ns, "" if none.
func (t *Tree) QuotaOf(ns string) string {
	if t == nil {
		return ""
	}
	return t.byNamespace[ns]
}

// Path returns the quotas from the one covering ns up to the top of its tree; nil if no quota
// covers ns.
func (t *Tree) Path(ns string) []*TreeQuota {
	var path []*TreeQuota
	for q := t.Quota(t.QuotaOf(ns)); q != nil; q = t.quotas[q.Spec.Parent] {
		path = append(path, q)
	}
	return path
}

// Subtree returns the namespaces covered by name and every quota below it, sorted.
func (t *Tree) Subtree(name string) []string {
	var out []string
	var walk func(string)
	walk = func(n string) {
		q := t.quotas[n]
		out = append(out, q.Namespaces...)
		for _, c := range q.Children {
			walk(c)
		}
	}
	if t.Quota(name) != nil {
		walk(name)
	}
	sort.Strings(out)
	return out
}

// withFlat returns a copy of t in which namespace ns is covered by spec as a flat quota (by
// nothing, spec nil), replacing whatever covered ns alone. It serves Ledger.SetQuota.
func (t *Tree) withFlat(ns string, spec *Spec) *Tree {
	c := &Tree{quotas: map[string]*TreeQuota{}, byNamespace: map[string]string{}}
	if t != nil {
		for name, q := range t.quotas {
			if len(q.Namespaces) == 1 && q.Namespaces[0] == ns && len(q.Children) == 0 {
				continue
			}
			c.quotas[name] = q
		}
		for n, name := range t.byNamespace {
			if _, ok := c.quotas[name]; ok {
				c.byNamespace[n] = name
			}
		}
	}
	if spec != nil {
		// Keyed by namespace too: callers of SetQuota may give two namespaces' quotas one name.
		key := ns + "\x00" + spec.Name
		c.quotas[key] = &TreeQuota{Spec: *spec, Namespaces: []string{ns}}
		c.byNamespace[ns] = key
	}
	return c
}

// TreeOf builds the tree of every ElasticQuota in the cluster. Repairs are the problems fixed by
// fixed rules (SpecOf's, and a lending limit above min lowered to min): the tree is built with them
// and they are reported. Invalid are the problems that leave no tree to enforce: then tree is nil,
// and the caller keeps the last valid tree in force. They are:
//   - an annotation that cannot be read;
//   - a parent that is not an enforced ElasticQuota;
//   - a cycle of parents;
//   - a namespace covered by two quotas;
//   - children whose min adds up, in a resource their parent names, to more than the parent's min.
func TreeOf(quotas []*v1alpha1.ElasticQuota) (tree *Tree, repairs, invalid []Problem) {
	// Flat quotas: one per namespace, chosen as SpecOf chooses.
	flat := map[string][]*v1alpha1.ElasticQuota{}
	var enforced []*v1alpha1.ElasticQuota
	for _, eq := range quotas {
		if inTree(eq) {
			enforced = append(enforced, eq)
		} else {
			flat[eq.Namespace] = append(flat[eq.Namespace], eq)
		}
	}
	for _, eqs := range flat {
		chosen, ignored := oldest(eqs)
		enforced = append(enforced, chosen)
		repairs = append(repairs, ignored...)
	}
	sort.Slice(enforced, func(i, j int) bool { return nameOf(enforced[i]) < nameOf(enforced[j]) })

	t := &Tree{quotas: map[string]*TreeQuota{}, byNamespace: map[string]string{}}
	objects := map[string]*v1alpha1.ElasticQuota{}
	for _, eq := range enforced {
		name := nameOf(eq)
		spec, fixed := specOf(eq)
		repairs = append(repairs, fixed...)
		namespaces, err := readTree(eq, spec)
		if err != nil {
			invalid = append(invalid, Problem{Quota: eq, Message: err.Error()})
			continue
		}
		if spec.LendingLimit != nil {
			var notes []string
			for res, x := range spec.LendingLimit {
				if x > spec.Min[res] {
					notes = append(notes, fmt.Sprintf("lending limit %s %s is above min %s, lowered to min", res, amount.Text(res, x), amount.Text(res, spec.Min[res])))
					spec.LendingLimit[res] = spec.Min[res]
				}
			}
			if len(notes) > 0 {
				sort.Strings(notes)
				repairs = append(repairs, Problem{Quota: eq, Message: strings.Join(notes, "; ")})
			}
		}
		t.quotas[name] = &TreeQuota{Spec: *spec, Namespaces: namespaces}
		objects[name] = eq
	}

	// A namespace in two quotas: each is told about the other.
	covering := map[string][]string{}
	for _, name := range t.Names() {
		for _, ns := range t.quotas[name].Namespaces {
			covering[ns] = append(covering[ns], name)
		}
	}
	for ns, names := range covering {
		if len(names) == 1 {
			t.byNamespace[ns] = names[0]
			continue
		}
		for _, name := range names {
			invalid = append(invalid, Problem{Quota: objects[name], Message: fmt.Sprintf(
				"namespace %s is covered by %d quotas (%s): a namespace may be in one quota only", ns, len(names), strings.Join(names, ", "))})
		}
	}

	// Parents: known, and no cycle.
	for _, name := range t.Names() {
		parent := t.quotas[name].Spec.Parent
		if parent == "" {
			continue
		}
		if _, ok := t.quotas[parent]; !ok {
			invalid = append(invalid, Problem{Quota: objects[name], Message: fmt.Sprintf(
				"parent quota %s (annotation %s) is not an ElasticQuota that berth enforces", parent, ParentAnnotation)})
			continue
		}
		if cycle := cycleFrom(t, name); cycle != nil {
			invalid = append(invalid, Problem{Quota: objects[name], Message: fmt.Sprintf(
				"its parents form a cycle: %s", strings.Join(cycle, " -> "))})
			continue
		}
		t.quotas[parent].Children = append(t.quotas[parent].Children, name)
		t.quotas[parent].Spec.Fair = true
	}

	// Children's min is carved out of their parent's.
	for _, name := range t.Names() {
		q := t.quotas[name]
		if len(q.Children) == 0 {
			continue
		}
		sum := amount.Amount{}
		for _, c := range q.Children {
			sum.Add(t.quotas[c].Spec.Min, 1)
		}
		var notes []string
		for res, x := range sum {
			if x > 0 && q.Spec.names(res) && x > q.Spec.Min[res] {
				var parts []string
				for _, c := range q.Children {
					if m := t.quotas[c].Spec.Min[res]; m > 0 {
						parts = append(parts, c+" "+amount.Text(res, m))
					}
				}
				notes = append(notes, fmt.Sprintf("its children's min %s adds up to %s (%s), above its own min %s",
					res, amount.Text(res, x), strings.Join(parts, ", "), amount.Text(res, q.Spec.Min[res])))
			}
		}
		sort.Strings(notes)
		for _, n := range notes {
			invalid = append(invalid, Problem{Quota: objects[name], Message: n})
		}
	}
	sortProblems(repairs)
	if len(invalid) > 0 {
		sortProblems(invalid)
		return nil, repairs, invalid
	}
	return t, repairs, nil
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := nameOf(ps[i].Quota), nameOf(ps[j].Quota)
		if a != b {
			return a < b
		}
		return ps[i].Message < ps[j].Message
	})
}

// cycleFrom returns the cycle that name's chain of parents runs into, or nil.
func cycleFrom(t *Tree, name string) []string {
	seen := map[string]int{}
	var chain []string
	for n := name; n != ""; {
		if i, ok := seen[n]; ok {
			return append(chain[i:], n)
		}
		seen[n] = len(chain)
		chain = append(chain, n)
		q, ok := t.quotas[n]
		if !ok {
			return nil
		}
		n = q.Spec.Parent
	}
	return nil
}

func nameOf(eq *v1alpha1.ElasticQuota) string { return eq.Namespace + "/" + eq.Name }

// readTree reads eq's tree annotations into spec, and returns the namespaces eq covers.
func readTree(eq *v1alpha1.ElasticQuota, spec *Spec) ([]string, error) {
	a := eq.Annotations
	spec.Fair = inTree(eq)
	namespaces := []string{eq.Namespace}
	if list, ok := a[NamespacesAnnotation]; ok {
		namespaces = nil
		for _, ns := range strings.Split(list, ",") {
			ns = strings.TrimSpace(ns)
			if ns == "" {
				continue
			}
			if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
				return nil, fmt.Errorf("annotation %s: %q is not a namespace name: %s", NamespacesAnnotation, ns, strings.Join(errs, "; "))
			}
			namespaces = append(namespaces, ns)
		}
		slices.Sort(namespaces)
		namespaces = slices.Compact(namespaces)
	}
	if parent, ok := a[ParentAnnotation]; ok {
		ns, name, found := strings.Cut(strings.TrimSpace(parent), "/")
		if !found || ns == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("annotation %s: %q is not NAMESPACE/NAME", ParentAnnotation, parent)
		}
		spec.Parent = ns + "/" + name
		if spec.Parent == spec.Name {
			return nil, fmt.Errorf("annotation %s: the quota names itself as its parent", ParentAnnotation)
		}
	}
	if w, ok := a[WeightAnnotation]; ok {
		q, err := resource.ParseQuantity(strings.TrimSpace(w))
		if err != nil {
			return nil, fmt.Errorf("annotation %s: %q is not a quantity: %v", WeightAnnotation, w, err)
		}
		if q.Sign() <= 0 || q.MilliValue() <= 0 || q.AsApproximateFloat64() > 1e6 {
			return nil, fmt.Errorf("annotation %s: %s is not a weight: want a positive number, at least 0.001, at most 1000000", WeightAnnotation, w)
		}
		spec.Weight = q.MilliValue()
		spec.Fair = true
	}
	for _, l := range []struct {
		annotation string
		into       *amount.Amount
	}{{LendingLimitAnnotation, &spec.LendingLimit}, {BorrowingLimitAnnotation, &spec.BorrowingLimit}} {
		text, ok := a[l.annotation]
		if !ok {
			continue
		}
		v, err := ParseResourceList(text)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: %v", l.annotation, err)
		}
		*l.into = v
	}
	return namespaces, nil
}

// ParseResourceList reads a resource list written as min is in YAML or JSON, as a map:
// `{cpu: 4, memory: 8Gi}` or `{"cpu": "4"}`. A negative amount is an error here: an annotation
// has no schema to refuse it earlier.
func ParseResourceList(text string) (amount.Amount, error) {
	var list v1.ResourceList
	if err := yaml.UnmarshalStrict([]byte(text), &list); err != nil {
		return nil, fmt.Errorf("%q is not a resource list such as {cpu: 4, memory: 8Gi}: %v", text, err)
	}
	for name, q := range list {
		if q.Sign() < 0 {
			return nil, fmt.Errorf("%s %s is negative", name, q.String())
		}
	}
	v, problems := amount.Of(list)
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return v, nil
}
