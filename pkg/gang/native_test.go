package gang

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/topology"
)

// nativeMember is a pod of the native PodGroup group.
func nativeMember(group, name string) *v1.Pod {
	p := oneCPU(st.MakePod().Namespace("ns").Name(name).UID("uid-" + name).Obj())
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	return p
}

// A native group goes through Gang as a scheduler-plugins one does: held until its PodGroup
// exists, woken when it appears, held for its minCount, and kept to one domain of the level its
// schedulingConstraints.topology names.
func TestNativeGroup(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	n1, n2, n3 := nativeMember("a", "n1"), nativeMember("a", "n2"), nativeMember("a", "n3")
	h := newHarness(t, nil, n1, n2)

	want := unresolvable("pod group ns/scheduling.k8s.io/a does not exist; the pod waits until it is created")
	if st := h.pl.PreEnqueue(h.ctx, n1); st.Code() != want.Code() || st.Message() != want.Message() {
		t.Fatalf("PreEnqueue before the PodGroup: %v, want %v", st, want)
	}
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "uid-a"},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3}},
			SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{
				Topology: []schedulingv1beta1.TopologyConstraint{{Key: topology.RackLabel}},
			},
		},
	}
	if _, err := h.kube.SchedulingV1beta1().PodGroups("ns").Create(h.ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.activatedEventually("ns/n1")

	want = unresolvable("pod group ns/scheduling.k8s.io/a has 2 of its 3 (minMember) pods ready to schedule; waiting for the rest")
	if st := h.pl.PreEnqueue(h.ctx, n1); st.Code() != want.Code() || st.Message() != want.Message() {
		t.Fatalf("PreEnqueue with 2 of 3 members: %v, want %v", st, want)
	}
	if _, err := h.kube.CoreV1().Pods("ns").Create(h.ctx, n3, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// n1 is the one member held for its siblings.
	h.activatedEventually("ns/n1")
	if st := h.pl.PreEnqueue(h.ctx, n1); !st.IsSuccess() {
		t.Fatalf("PreEnqueue with 3 of 3 members: %v", st)
	}

	// Rack r1 holds the group with the least room left over; r2 has more room.
	nodes := []fwk.NodeInfo{nodeInfo(rackNode("r1-0", "r1", "3")), nodeInfo(rackNode("r2-0", "r2", "4")), nodeInfo(rackNode("r2-1", "r2", "4"))}
	state := framework.NewCycleState()
	res, status := h.pl.PreFilter(h.ctx, state, n1, nodes)
	if !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	if res == nil || res.AllNodes() || !res.NodeNames.Equal(sets.New("r1-0")) {
		t.Errorf("PreFilter's nodes: %v, want r1-0, the one rack that holds the group with least left over", res)
	}

	// The round: two members wait at Permit for the third, which lets all through.
	var waiting []<-chan *fwk.Status
	for _, p := range []*v1.Pod{n1, n2} {
		st, done := h.waitAtPermit(p)
		if !st.IsWait() {
			t.Fatalf("Permit(%s): %v, want Wait", p.Name, st)
		}
		waiting = append(waiting, done)
	}
	if st, _ := h.waitAtPermit(n3); !st.IsSuccess() {
		t.Fatalf("Permit of the member that completes the group: %v", st)
	}
	for i, ch := range waiting {
		if s := verdict(t, ch); !s.IsSuccess() {
			t.Errorf("waiting member %d: %v", i+1, s)
		}
	}
}
