// Package gangtest holds the fixtures that the tests of Gang's core (pkg/gangcore) and of the
// plugin (pkg/gang) share: members of two groups, a and b, in namespace ns, and the time their
// fake clocks start at. pkg/gangcore's tests cannot import pkg/gang's, which imports the core.
package gangtest

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// T0 is when the tests' fake clocks start.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// GroupLabel is how a member names its group: scheduler-plugins' label, which pkg/podgroup reads.
const GroupLabel = v1alpha1.PodGroupLabel

// Member returns a pod of group pg in namespace ns.
func Member(pg, name, uid string) *v1.Pod {
	return st.MakePod().Namespace("ns").Name(name).UID(uid).Label(GroupLabel, pg).Obj()
}

// Told returns a copy of p marked as the scheduler marks a pod it could not place (its
// PodScheduled condition): a member that has been tried, which Gang holds in PreEnqueue while its
// group waits, where a member never tried goes in once.
func Told(p *v1.Pod) *v1.Pod {
	p = p.DeepCopy()
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable}}
	return p
}

// Three members of group a, two of group b, and a's key.
var (
	A1   = Member("a", "a1", "uid-a1")
	A2   = Member("a", "a2", "uid-a2")
	A3   = Member("a", "a3", "uid-a3")
	B1   = Member("b", "b1", "uid-b1")
	B2   = Member("b", "b2", "uid-b2")
	KeyA = types.NamespacedName{Namespace: "ns", Name: "a"}
)
