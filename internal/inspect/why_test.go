package inspect

import (
	"bytes"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/why"
)

// The answer berth-scheduler published on the pod (internal/waitreason) is shown for a pending pod,
// not for one bound since.
func TestWhyTableShowsPublished(t *testing.T) {
	cpu := func(q string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse(q)} }
	pod := func(name, node, q string) v1.Pod {
		return v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)},
			Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpu(q), Limits: cpu(q)}}}},
			Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: why.WaitingForCondition, Status: v1.ConditionTrue,
				Reason: why.CauseResources, Message: "Resources: no node it may use has room", LastTransitionTime: metav1.Now()}}},
		}
	}
	in := why.Input{
		Nodes:     []v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: v1.NodeStatus{Allocatable: cpu("2")}}},
		Pods:      []v1.Pod{pod("big", "", "4"), pod("bound", "n", "1")},
		Resources: res,
	}
	table := func(i int) string {
		in.Pod = &in.Pods[i]
		var b bytes.Buffer
		if err := (&Why{Answer: why.Of(in)}).WriteTable(&b, false); err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%s", b.String())
		return b.String()
	}
	if got := table(0); !strings.Contains(got, "Published by berth (berth.dev/WaitingFor Resources, ") {
		t.Errorf("the table does not show the published answer:\n%s", got)
	}
	if got := table(1); strings.Contains(got, "Published") {
		t.Errorf("a bound pod shows a published answer:\n%s", got)
	}
}
