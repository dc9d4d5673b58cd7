package inspect

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/pkg/quota"
)

// Quotas is ElasticQuotas (scheduling.x-k8s.io/v1alpha1) and how much of each is used.
type Quotas struct {
	Quotas []Quota `json:"quotas"`
	// AllNamespaces adds the namespace to the table, as kubectl does with -A.
	AllNamespaces bool `json:"-"`
}

// Quota is one ElasticQuota, per resource it names in min, max or used.
type Quota struct {
	Namespace string          `json:"namespace"`
	Name      string          `json:"name"`
	Resources []QuotaResource `json:"resources"`
	// Parent is the quota above it in a quota tree (berth.dev/parent-quota), NAMESPACE/NAME.
	Parent string `json:"parent,omitempty"`
	// Depth is how many of the listed quotas are above it: the table indents it by that much.
	Depth int `json:"-"`
	// Weight is its weight in fair sharing, and FairShare its part of what its level lends when
	// every quota there wants more than it gets: its weight over the weights of the quotas that
	// share with it (the listed children of its parent, or the listed tops). Both are empty for a
	// flat quota without berth's annotations, which takes no part in fair sharing.
	Weight    string `json:"weight,omitempty"`
	FairShare string `json:"fairShare,omitempty"`
}

// QuotaResource is one resource of a quota. Min and Max are nil when the quota does not set them
// (no guarantee; no limit); Used is nil while nothing has reported use.
type QuotaResource struct {
	Name v1.ResourceName    `json:"name"`
	Min  *resource.Quantity `json:"min,omitempty"`
	Max  *resource.Quantity `json:"max,omitempty"`
	Used *resource.Quantity `json:"used,omitempty"`
	// Borrowed is what is used above min: capacity lent by other quotas' unused min, which they
	// may take back by preemption.
	Borrowed resource.Quantity `json:"borrowed"`
	// LendingLimit and BorrowingLimit are the quota's berth.dev/lending-limit and
	// berth.dev/borrowing-limit of the resource; nil: no limit (or an annotation the scheduler
	// refuses, with a Warning event on the quota).
	LendingLimit   *resource.Quantity `json:"lendingLimit,omitempty"`
	BorrowingLimit *resource.Quantity `json:"borrowingLimit,omitempty"`
}

// QuotasOf builds the report from ElasticQuota objects.
func QuotasOf(quotas []v1alpha1.ElasticQuota) *Quotas {
	r := &Quotas{Quotas: []Quota{}}
	for i := range quotas {
		q := &quotas[i]
		names := map[v1.ResourceName]bool{}
		lending, borrowing := limitOf(q, quota.LendingLimitAnnotation), limitOf(q, quota.BorrowingLimitAnnotation)
		for _, l := range []v1.ResourceList{q.Spec.Min, q.Spec.Max, q.Status.Used, lending, borrowing} {
			for name := range l {
				names[name] = true
			}
		}
		sorted := make([]v1.ResourceName, 0, len(names))
		for name := range names {
			sorted = append(sorted, name)
		}
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		out := Quota{Namespace: q.Namespace, Name: q.Name, Resources: []QuotaResource{}}
		for _, name := range sorted {
			res := QuotaResource{Name: name, Min: quantity(q.Spec.Min, name), Max: quantity(q.Spec.Max, name), Used: quantity(q.Status.Used, name),
				LendingLimit: quantity(lending, name), BorrowingLimit: quantity(borrowing, name)}
			if res.Used != nil {
				res.Borrowed = res.Used.DeepCopy()
				if res.Min != nil {
					res.Borrowed.Sub(*res.Min)
				}
				if res.Borrowed.Sign() < 0 {
					res.Borrowed = *resource.NewQuantity(0, res.Used.Format)
				}
			}
			out.Resources = append(out.Resources, res)
		}
		r.Quotas = append(r.Quotas, out)
	}
	sort.Slice(r.Quotas, func(i, j int) bool {
		if r.Quotas[i].Namespace != r.Quotas[j].Namespace {
			return r.Quotas[i].Namespace < r.Quotas[j].Namespace
		}
		return r.Quotas[i].Name < r.Quotas[j].Name
	})
	r.Quotas = asTree(r.Quotas, quotas)
	return r
}

// asTree orders quotas as their tree (each parent followed by its children, indented), and fills
// in their weights and fair shares. A quota whose parent is not listed is shown at the top.
func asTree(sorted []Quota, objects []v1alpha1.ElasticQuota) []Quota {
	byName := map[string]*v1alpha1.ElasticQuota{}
	for i := range objects {
		byName[objects[i].Namespace+"/"+objects[i].Name] = &objects[i]
	}
	children := map[string][]Quota{}
	var tops []Quota
	for _, q := range sorted {
		eq := byName[q.Namespace+"/"+q.Name]
		q.Parent = strings.TrimSpace(eq.Annotations[quota.ParentAnnotation])
		if _, ok := byName[q.Parent]; ok && q.Parent != q.Namespace+"/"+q.Name {
			children[q.Parent] = append(children[q.Parent], q)
		} else {
			tops = append(tops, q)
		}
	}
	fair := func(q Quota) (float64, bool) {
		eq := byName[q.Namespace+"/"+q.Name]
		_, parent := eq.Annotations[quota.ParentAnnotation]
		_, namespaces := eq.Annotations[quota.NamespacesAnnotation]
		w, weighted := eq.Annotations[quota.WeightAnnotation]
		if !parent && !namespaces && !weighted && len(children[q.Namespace+"/"+q.Name]) == 0 {
			return 0, false
		}
		if !weighted {
			return 1, true
		}
		x, err := resource.ParseQuantity(strings.TrimSpace(w))
		if err != nil || x.Sign() <= 0 {
			return 0, false
		}
		return x.AsApproximateFloat64(), true
	}
	var out []Quota
	seen := map[string]bool{}
	var walk func(level []Quota, depth int)
	walk = func(level []Quota, depth int) {
		total := 0.0
		for _, q := range level {
			if w, ok := fair(q); ok {
				total += w
			}
		}
		for _, q := range level {
			name := q.Namespace + "/" + q.Name
			if seen[name] {
				continue // a cycle of parents: the scheduler reports it; show each quota once
			}
			seen[name] = true
			q.Depth = depth
			if w, ok := fair(q); ok {
				q.Weight = strconv.FormatFloat(w, 'f', -1, 64)
				q.FairShare = fmt.Sprintf("%.0f%%", 100*w/total)
			}
			out = append(out, q)
			walk(children[name], depth+1)
		}
	}
	walk(tops, 0)
	return out
}

// limitOf reads a lending or borrowing limit annotation of q; nil if it has none or cannot be read.
func limitOf(q *v1alpha1.ElasticQuota, annotation string) v1.ResourceList {
	text, ok := q.Annotations[annotation]
	if !ok {
		return nil
	}
	v, err := quota.ParseResourceList(text)
	if err != nil {
		return nil
	}
	return v.ResourceList()
}

func quantity(l v1.ResourceList, name v1.ResourceName) *resource.Quantity {
	q, ok := l[name]
	if !ok {
		return nil
	}
	return &q
}

// ListQuotas reads the report from the cluster, in namespace ns (all namespaces if empty).
func ListQuotas(ctx context.Context, groups versioned.Interface, ns string) (*Quotas, error) {
	list, err := groups.SchedulingV1alpha1().ElasticQuotas(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing ElasticQuotas (is the %s CRD installed?): %w", v1alpha1.SchemeGroupVersion, err)
	}
	r := QuotasOf(list.Items)
	r.AllNamespaces = ns == metav1.NamespaceAll
	return r, nil
}

// WriteTable prints one row per quota and resource. Wide adds how much of min is used.
func (r *Quotas) WriteTable(w io.Writer, wide bool) error {
	if len(r.Quotas) == 0 {
		_, err := fmt.Fprintln(w, "No elastic quotas found.")
		return err
	}
	header := []string{"NAME", "RESOURCE", "MIN", "MAX", "USED", "BORROWED", "FAIR-SHARE", "WEIGHT"}
	// The limits' columns only when some quota has one: most clusters set none.
	limits := false
	for _, q := range r.Quotas {
		for _, res := range q.Resources {
			limits = limits || res.LendingLimit != nil || res.BorrowingLimit != nil
		}
	}
	if limits {
		header = append(header, "LENDING-LIMIT", "BORROWING-LIMIT")
	}
	if wide {
		header = append(header, "USED/MIN")
	}
	if r.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := newTable(w, header...)
	for _, q := range r.Quotas {
		for i, res := range q.Resources {
			name, ns, share, weight := "", "", "", ""
			if i == 0 {
				name, ns, share, weight = strings.Repeat("  ", q.Depth)+q.Name, q.Namespace, orNone(q.FairShare), orNone(q.Weight)
			}
			cells := []string{name, string(res.Name), quantityText(res.Min), quantityText(res.Max), quantityText(res.Used), res.Borrowed.String(), share, weight}
			if limits {
				cells = append(cells, quantityText(res.LendingLimit), quantityText(res.BorrowingLimit))
			}
			if wide {
				cells = append(cells, usedOfMin(res))
			}
			if r.AllNamespaces {
				cells = append([]string{ns}, cells...)
			}
			t.row(cells...)
		}
		if len(q.Resources) == 0 {
			cells := []string{strings.Repeat("  ", q.Depth) + q.Name, "<none>", "", "", "", "", orNone(q.FairShare), orNone(q.Weight)}
			if limits {
				cells = append(cells, "", "")
			}
			if r.AllNamespaces {
				cells = append([]string{q.Namespace}, cells...)
			}
			t.row(cells...)
		}
	}
	return t.flush()
}

func quantityText(q *resource.Quantity) string {
	if q == nil {
		return "<none>"
	}
	return q.String()
}

func usedOfMin(res QuotaResource) string {
	if res.Used == nil || res.Min == nil || res.Min.IsZero() {
		return "<none>"
	}
	return fmt.Sprintf("%d%%", res.Used.MilliValue()*100/res.Min.MilliValue())
}
