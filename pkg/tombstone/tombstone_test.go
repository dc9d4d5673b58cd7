package tombstone

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestAs(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	for _, tc := range []struct {
		name string
		obj  any
		ok   bool
	}{
		{"the object", pod, true},
		{"its tombstone", cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}, true},
		{"a tombstone without it", cache.DeletedFinalStateUnknown{Key: "ns/p"}, false},
		{"another type", &v1.Node{}, false},
		{"a tombstone of another type", cache.DeletedFinalStateUnknown{Key: "n", Obj: &v1.Node{}}, false},
		{"nil", nil, false},
	} {
		got, ok := As[*v1.Pod](tc.obj)
		if ok != tc.ok || ok && got != pod {
			t.Errorf("%s: As = %v, %v; want ok %v", tc.name, got, ok, tc.ok)
		}
	}
}

func TestKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  any
		want string
	}{
		{"a tombstone", cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: &v1.Pod{}}, "ns/p"},
		{"a tombstone without its object", cache.DeletedFinalStateUnknown{Key: "n"}, "n"},
		{"the object", &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, ""},
		{"nil", nil, ""},
	} {
		if got := Key(tc.obj); got != tc.want {
			t.Errorf("%s: Key = %q, want %q", tc.name, got, tc.want)
		}
	}
}
