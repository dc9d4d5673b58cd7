package podgroup

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// A group's time is the first one noted, until it is forgotten; pods outside any group, or in a
// group with no time, have none.
func TestNoteOnceUntilForgotten(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := types.NamespacedName{Namespace: "ns", Name: "train"}
	member := st.MakePod().Namespace("ns").Name("w-0").Label(v1alpha1.PodGroupLabel, "train").Obj()
	stranger := st.MakePod().Namespace("other").Name("w-0").Label(v1alpha1.PodGroupLabel, "train").Obj()
	plain := st.MakePod().Namespace("ns").Name("p").Obj()
	var o Order

	if _, _, ok := o.Of(member); ok {
		t.Fatal("a time before any was noted")
	}
	o.Note(key, t0)
	o.Note(key, t0.Add(time.Hour)) // a PodGroup recreated under the same name keeps the first time
	if group, at, ok := o.Of(member); !ok || group != key || !at.Equal(t0) {
		t.Errorf("Of(member) = %v, %v, %v; want %v, %v", group, at, ok, key, t0)
	}
	if _, _, ok := o.Of(stranger); ok {
		t.Error("a pod of a same-named group in another namespace got the time")
	}
	if _, _, ok := o.Of(plain); ok {
		t.Error("a pod in no group got a time")
	}
	o.Forget(key)
	if _, _, ok := o.Of(member); ok {
		t.Error("a time after Forget")
	}
}

// The count that lets Of skip the pod follows Note and Forget exactly: a second Note of a group, or
// a Forget of one never noted, does not move it.
func TestCount(t *testing.T) {
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	b := types.NamespacedName{Namespace: "ns", Name: "b"}
	member := st.MakePod().Namespace("ns").Name("a-0").Label(v1alpha1.PodGroupLabel, "a").Obj()
	var o Order
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o.Note(a, at)
	o.Note(a, at)
	o.Note(b, at)
	o.Forget(types.NamespacedName{Namespace: "ns", Name: "never"})
	if n := o.groups.Load(); n != 2 {
		t.Errorf("count %d after noting two groups, want 2", n)
	}
	o.Forget(b)
	if _, _, ok := o.Of(member); !ok {
		t.Error("a member lost its group's time when another group was forgotten")
	}
	o.Forget(a)
	o.Forget(a)
	if n := o.groups.Load(); n != 0 {
		t.Errorf("count %d after forgetting both, want 0", n)
	}
	if _, _, ok := o.Of(member); ok {
		t.Error("a time after Forget")
	}
}
