package preemption

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
)

// nativeGroup is the scheduler's view of a native pod group in its cycle, as much of it as
// PodGroupPostFilter reads.
type nativeGroup struct {
	fwk.PodGroupInfo
	pods     []*v1.Pod
	podGroup *schedulingv1beta1.PodGroup
}

func (g nativeGroup) GetUnscheduledPods() []*v1.Pod { return g.pods }

func (g nativeGroup) GetPodGroup() *schedulingv1beta1.PodGroup { return g.podGroup }

// A native group's preemption is its first member's, with its missing members as companions: one
// decision for the group, every member nominated to the room made for it. Tried again while the
// victims still go, the group keeps those nominations (as upstream's evaluator keeps them for an
// "ongoing preemption") and evicts nothing more: a failure would have cleared every member's
// nomination. The cluster is gangCluster: one victim on n1 holds room
// for both members.
func TestANativeGroupsPreemptionNominatesItsMembers(t *testing.T) {
	e, m0, m1 := gangCluster(t)
	group := nativeGroup{pods: []*v1.Pod{m0, m1}}
	bound := func() int {
		list, err := e.fh.ClientSet().CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				n++
			}
		}
		return n
	}
	nominations := func(try string) {
		t.Helper()
		result, status := e.pl.PodGroupPostFilter(e.ctx, nil, group, nil)
		if !status.IsSuccess() || result == nil {
			t.Fatalf("%s: %v, want success", try, status)
		}
		for _, m := range []*v1.Pod{m0, m1} {
			got := result.NominatingInfos[types.NamespacedName{Namespace: m.Namespace, Name: m.Name}]
			if got == nil || got.NominatedNodeName != "n1" {
				t.Errorf("%s: %s nominated %+v, want n1", try, m.Name, got)
			}
		}
		if n := bound(); n != 5 {
			t.Errorf("%s: %d pods left, want 5: one victim on n1", try, n)
		}
	}
	nominations("the group's preemption")
	// The victim is still going (the snapshot shows it) when the group is tried again.
	nominations("the group tried again")
}

// A native group whose policy is Never preempts nothing, as upstream's evaluator has it: any member
// saying Never, or with PodGroupPreemptionPolicy on, the PodGroup's own policy (a member's then
// does not count). One node of 4 cpu holds two pods of 2 cpu at priority 0; the group's two members ask
// 1 cpu each at priority 10, so without the policy one victim would go.
func TestANativeGroupOfPolicyNeverPreemptsNothing(t *testing.T) {
	never, lower := v1.PreemptNever, schedulingv1beta1.PreemptLowerPriority
	groupNever := schedulingv1beta1.PreemptNever
	for _, tc := range []struct {
		name      string
		gate      bool
		m1Never   bool
		pgPolicy  *schedulingv1beta1.PreemptionPolicy
		wantEvict bool
	}{
		{name: "gate off, a member says Never", m1Never: true},
		{name: "gate off, no member says Never", wantEvict: true},
		{name: "gate on, the PodGroup says Never", gate: true, pgPolicy: &groupNever},
		{name: "gate on, the PodGroup says PreemptLowerPriority, a member Never", gate: true, m1Never: true, pgPolicy: &lower, wantEvict: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m0 := pod("m-0", "", 10, "1", map[string]string{"group": "m"})
			m1 := pod("m-1", "", 10, "1", map[string]string{"group": "m"})
			if tc.m1Never {
				m1.Spec.PreemptionPolicy = &never
			}
			pods := []*v1.Pod{pod("big-0", "n1", 0, "2", nil), pod("big-1", "n1", 0, "2", nil), m0, m1}
			var e *env
			e = newEnv(t, []*v1.Node{node("n1")}, pods, gangLike(func() fwk.Handle { return e.fh }, m0, m1))
			e.pl.fts.EnablePodGroupPreemptionPolicy = tc.gate
			pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "m"}}
			pg.Spec.PreemptionPolicy = tc.pgPolicy
			_, status := e.pl.PodGroupPostFilter(e.ctx, nil, nativeGroup{pods: []*v1.Pod{m0, m1}, podGroup: pg}, nil)
			list, err := e.fh.ClientSet().CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			evicted := len(list.Items) < len(pods)
			if evicted != tc.wantEvict {
				t.Errorf("evicted: %v, want %v (status %v)", evicted, tc.wantEvict, status)
			}
			if !tc.wantEvict && (status.IsSuccess() || !strings.Contains(status.Message(), "preemptionPolicy=Never")) {
				t.Errorf("status %v, want Unschedulable naming the policy", status)
			}
		})
	}
}
