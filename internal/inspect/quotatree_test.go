package inspect

import (
	"bytes"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// A quota tree is printed as a tree: each parent followed by its children, indented, with each
// quota's weight and its fair share among the quotas it shares with; a flat quota without
// berth's annotations has neither.
func TestQuotaTreeTable(t *testing.T) {
	eq := func(ns, name, used string, kv ...string) v1alpha1.ElasticQuota {
		q := v1alpha1.ElasticQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{}},
			Spec:   v1alpha1.ElasticQuotaSpec{Min: v1.ResourceList{"cpu": resource.MustParse("2")}},
			Status: v1alpha1.ElasticQuotaStatus{Used: v1.ResourceList{"cpu": resource.MustParse(used)}}}
		for i := 0; i < len(kv); i += 2 {
			q.Annotations[kv[i]] = kv[i+1]
		}
		return q
	}
	r := QuotasOf([]v1alpha1.ElasticQuota{
		eq("team-c", "quota", "3", "berth.dev/parent-quota", "org/dept", "berth.dev/weight", "2"),
		eq("flat", "quota", "1"),
		eq("team-a", "quota", "1", "berth.dev/parent-quota", "org/dept"),
		eq("org", "dept", "6", "berth.dev/namespaces", ""),
		eq("team-b", "quota", "2", "berth.dev/parent-quota", "org/dept", "berth.dev/weight", "1"),
		eq("team-a2", "proj", "0", "berth.dev/parent-quota", "team-a/quota"),
	})
	r.AllNamespaces = true
	var out bytes.Buffer
	if err := r.WriteTable(&out, false); err != nil {
		t.Fatal(err)
	}
	want := `NAMESPACE   NAME       RESOURCE   MIN   MAX      USED   BORROWED   FAIR-SHARE   WEIGHT
flat        quota      cpu        2     <none>   1      0          <none>       <none>
org         dept       cpu        2     <none>   6      4          100%         1
team-a        quota    cpu        2     <none>   1      0          25%          1
team-a2         proj   cpu        2     <none>   0      0          100%         1
team-b        quota    cpu        2     <none>   2      0          25%          1
team-c        quota    cpu        2     <none>   3      1          50%          2
`
	if out.String() != want {
		t.Errorf("the table:\n%s\nwant:\n%s", out.String(), want)
	}
}

// Lending and borrowing limits get their columns once some quota has one.
func TestQuotaLimitsColumns(t *testing.T) {
	q := v1alpha1.ElasticQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "quota", Annotations: map[string]string{
		"berth.dev/lending-limit": "{cpu: 1}", "berth.dev/borrowing-limit": `{"memory": "2Gi"}`}},
		Spec:   v1alpha1.ElasticQuotaSpec{Min: v1.ResourceList{"cpu": resource.MustParse("2"), "memory": resource.MustParse("4Gi")}},
		Status: v1alpha1.ElasticQuotaStatus{Used: v1.ResourceList{"cpu": resource.MustParse("1")}}}
	bad := q.DeepCopy()
	bad.Namespace, bad.Annotations = "team-b", map[string]string{"berth.dev/lending-limit": "cpu"}
	var out bytes.Buffer
	if err := QuotasOf([]v1alpha1.ElasticQuota{q, *bad}).WriteTable(&out, false); err != nil {
		t.Fatal(err)
	}
	want := `NAME    RESOURCE   MIN   MAX      USED     BORROWED   FAIR-SHARE   WEIGHT   LENDING-LIMIT   BORROWING-LIMIT
quota   cpu        2     <none>   1        0          <none>       <none>   1               <none>
        memory     4Gi   <none>   <none>   0                                <none>          2Gi
quota   cpu        2     <none>   1        0          <none>       <none>   <none>          <none>
        memory     4Gi   <none>   <none>   0                                <none>          <none>
`
	if out.String() != want {
		t.Errorf("the table:\n%s\nwant:\n%s", out.String(), want)
	}
}
