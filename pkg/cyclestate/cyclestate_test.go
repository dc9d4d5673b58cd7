package cyclestate

import (
	"testing"

	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type note struct{ text string }

func (n *note) Clone() fwk.StateData { return n }

type other struct{}

func (other) Clone() fwk.StateData { return other{} }

func TestOf(t *testing.T) {
	state := framework.NewCycleState()
	written := &note{"x"}
	state.Write("note", written)
	state.Write("other", other{})
	for _, tc := range []struct {
		name  string
		state Reader
		key   fwk.StateKey
		want  *note
	}{
		{"what was written", state, "note", written},
		{"nothing under the key", state, "missing", nil},
		{"another type under the key", state, "other", nil},
		{"no state", nil, "note", nil},
	} {
		got, ok := Of[*note](tc.state, tc.key)
		if got != tc.want || ok != (tc.want != nil) {
			t.Errorf("%s: Of = %v, %v; want %v", tc.name, got, ok, tc.want)
		}
	}
}
