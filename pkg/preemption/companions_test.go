package preemption

import (
	"context"
	"iter"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/berth-sched/berth/pkg/victims"
)

// A gang's preemption makes room for its members that miss (Companions) and nominates them to it,
// not only the member that preempts (issue 42, docs/quota-fair-sharing.md "Not built yet" 6b): the other
// member, tried while the victims are still going, waits for them and evicts nothing more. With
// the preemptor alone nominated, the other member preempted for itself again, on the node whose
// victim started last (team-g's two gangs of two evicted six pods where four were enough).
//
// n1 holds two pods of 2 cpu, n2 four of 1 cpu that started later, all of priority 0; the gang's
// two members ask 1 cpu each at priority 10. The first member's preemption evicts one pod of n1,
// which leaves room for both.
func TestAGangsPreemptionNominatesItsMembers(t *testing.T) {
	e, m0, m1 := gangCluster(t)

	postFilter := func(p *v1.Pod) string {
		t.Helper()
		state := framework.NewCycleState()
		if _, status, _ := e.fh.RunPreFilterPlugins(e.ctx, state, p); !status.IsSuccess() {
			t.Fatalf("PreFilter: %v", status)
		}
		m := framework.NewDefaultNodeToStatus()
		for _, n := range []string{"n1", "n2"} {
			m.Set(n, fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu"))
		}
		result, status := e.pl.PostFilter(e.ctx, state, p, m)
		if result == nil || result.NominatingInfo == nil {
			t.Fatalf("%s: no node nominated (%v)", p.Name, status)
		}
		return result.NominatedNodeName
	}
	left := func() []string {
		list, err := e.fh.ClientSet().CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				names = append(names, p.Name)
			}
		}
		slices.Sort(names)
		return names
	}

	if got := postFilter(m0); got != "n1" {
		t.Fatalf("m-0 nominated to %s, want n1: one victim there holds room for the gang", got)
	}
	// The scheduler nominates the preemptor to the node its PostFilter returned.
	pi, err := framework.NewPodInfo(m0)
	if err != nil {
		t.Fatal(err)
	}
	e.fh.AddNominatedPod(klog.FromContext(e.ctx), pi, &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: "n1"})
	after := left()
	if len(after) != 5 {
		t.Fatalf("m-0's preemption left %v, want one pod of n1 evicted", after)
	}
	// The victim is still going (the snapshot shows it) when m-1 is tried.
	if got := postFilter(m1); got != "n1" {
		t.Errorf("m-1 nominated to %s, want n1, the room m-0's preemption made for it", got)
	}
	if got := left(); !slices.Equal(got, after) {
		t.Errorf("m-1's attempt evicted more: %v left, want %v", got, after)
	}
}

// gangLike is the pod-group rule's say in miniature: a member's siblings are never victims, and
// the members neither placed nor nominated are its companions.
func gangLike(fh func() fwk.Handle, members ...*v1.Pod) victims.RuleFor {
	return func(preemptor *v1.Pod, _ iter.Seq[*v1.Pod]) *victims.Rule {
		nominated := map[string]bool{}
		for _, n := range []string{"n1", "n2"} {
			for _, pi := range fh().NominatedPodsForNode(n) {
				nominated[pi.GetPod().Name] = true
			}
		}
		var waiting []*v1.Pod
		for _, m := range members {
			if m.UID != preemptor.UID && !nominated[m.Name] {
				waiting = append(waiting, m)
			}
		}
		return &victims.Rule{
			Verdict: func(pods []*v1.Pod) victims.Verdict {
				if pods[0].Labels["group"] == preemptor.Labels["group"] {
					return victims.Never
				}
				return victims.NoSay
			},
			Companions:    func() int { return len(waiting) },
			CompanionPods: func() []*v1.Pod { return waiting },
		}
	}
}

// gangCluster is the cluster of the companion tests: n1 holds two pods of 2 cpu, n2 four of 1 cpu
// that started later, all of priority 0; gang m's two members, m-0 and m-1, ask 1 cpu each at
// priority 10, so one victim on n1 holds room for both.
func gangCluster(t *testing.T) (*env, *v1.Pod, *v1.Pod) {
	t.Helper()
	started := func(p *v1.Pod, at int64) *v1.Pod {
		p.Status.StartTime = &metav1.Time{Time: time.Unix(at, 0)}
		return p
	}
	m0 := pod("m-0", "", 10, "1", map[string]string{"group": "m"})
	m1 := pod("m-1", "", 10, "1", map[string]string{"group": "m"})
	pods := []*v1.Pod{
		started(pod("big-0", "n1", 0, "2", nil), 1000), started(pod("big-1", "n1", 0, "2", nil), 1000),
		started(pod("s-0", "n2", 0, "1", nil), 2000), started(pod("s-1", "n2", 0, "1", nil), 2000),
		started(pod("s-2", "n2", 0, "1", nil), 2000), started(pod("s-3", "n2", 0, "1", nil), 2000),
		m0, m1,
	}
	var e *env
	e = newEnv(t, []*v1.Node{node("n1"), node("n2")}, pods, gangLike(func() fwk.Handle { return e.fh }, m0, m1))
	e.pl.offset = func(int32) int32 { return 0 }
	return e, m0, m1
}
