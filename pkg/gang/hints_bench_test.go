package gang

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/gangcore"
)

// waitingGroups builds a Gang whose manager holds n groups of 4 members that wait for room, as
// after a full cluster turned them all away (BenchmarkBacklog): each group's first member is its
// waiter, turned away by the sum of room, and the other three are parked behind it. It returns
// the plugin and every group's members, oldest group first.
func waitingGroups(n int) (*Gang, [][]*v1.Pod) {
	m := testManager()
	pl := &Gang{shared: &shared{groups: m}}
	groups := make([][]*v1.Pod, n)
	for g := range groups {
		name := fmt.Sprintf("g%04d", g)
		key := types.NamespacedName{Namespace: "ns", Name: name}
		for i := range 4 {
			p := member(name, fmt.Sprintf("%s-%d", name, i), fmt.Sprintf("uid-%s-%d", name, i))
			m.PodChanged(key, p.UID, memberState(p))
			groups[g] = append(groups[g], p)
		}
		// Its place in QOSSort's order, before any group waits and holds the others back.
		m.Enqueue(key, groups[g][0], createdAt(t0.Add(time.Duration(g)*time.Millisecond)))
	}
	for g := range groups {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("g%04d", g)}
		m.MemberFailed(key, groups[g][0], 4, nil, gangcore.Cause{Why: "could not place member " + groups[g][0].Name})
		m.NoteNeed(key, gangcore.RoomNeed{All: amount.Amount{"cpu": 4000, "pods": 4 * amount.One}, One: amount.Amount{"cpu": 1000, "pods": amount.One}})
		for _, p := range groups[g][1:] {
			m.Park(key, p, gangcore.ParkedNoRoom)
		}
	}
	return pl, groups
}

// createdAt is a PodGroup created at that time, for an admission that checks no node.
type createdAt time.Time

func (c createdAt) Group() (gangcore.Spec, bool) {
	return gangcore.Spec{Created: time.Time(c)}, true
}
func (createdAt) Check(gangcore.GroupView) func() (gangcore.ParkReason, string, bool) { return nil }
func (createdAt) RoomShort() bool                                                     { return false }
func (createdAt) OlderFits([]gangcore.OlderWaiter) string                             { return "" }

// hintCases are the events of Gang's EventsToRegister against a waiter, a parked sibling and a
// pod outside any group, with the answer each must get.
func hintCases(groups [][]*v1.Pod) []struct {
	name     string
	pod      *v1.Pod
	old, cur any
	want     fwk.QueueingHint
} {
	deleted := st.MakePod().Namespace("ns").Name("filler").UID("filler").Node("n1").Req(map[v1.ResourceName]string{v1.ResourceCPU: "4"}).Obj()
	node := st.MakeNode().Name("n1").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourcePods: "110"}).Obj()
	relabelled := node.DeepCopy()
	relabelled.Labels = map[string]string{"rack": "r1"}
	grown := node.DeepCopy()
	grown.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("8")
	waiter, sibling := groups[len(groups)/2][0], groups[len(groups)/2][1]
	solo := st.MakePod().Namespace("ns").Name("solo").UID("solo").Obj()
	return []struct {
		name     string
		pod      *v1.Pod
		old, cur any
		want     fwk.QueueingHint
	}{
		{"waiter/pod deleted", waiter, deleted, nil, fwk.Queue},
		{"waiter/node added", waiter, nil, node, fwk.Queue},
		{"waiter/node grown", waiter, node, grown, fwk.Queue},
		{"waiter/node relabelled", waiter, node, relabelled, fwk.QueueSkip},
		{"parked sibling/pod deleted", sibling, deleted, nil, fwk.QueueSkip},
		{"pod outside groups/pod deleted", solo, deleted, nil, fwk.QueueSkip},
	}
}

// TestQueueingHintsWaitingGroups: among 1,000 groups waiting for room, only a group's waiter is
// requeued, and only by an event that can add room; its parked siblings and pods outside any
// group never are.
func TestQueueingHintsWaitingGroups(t *testing.T) {
	pl, groups := waitingGroups(1000)
	for _, tc := range hintCases(groups) {
		got, err := pl.isSchedulableAfterCapacityChange(klog.Background(), tc.pod, tc.old, tc.cur)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
}

// BenchmarkQueueingHints is one answer of Gang's hint with 1,000 groups (4,000 members) waiting
// for room: the queue asks it for every waiting pod Gang turned away on every pod deletion.
func BenchmarkQueueingHints(b *testing.B) {
	pl, groups := waitingGroups(1000)
	for _, tc := range hintCases(groups) {
		b.Run(tc.name, func(b *testing.B) {
			logger := klog.Background()
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := pl.isSchedulableAfterCapacityChange(logger, tc.pod, tc.old, tc.cur); got != tc.want {
					b.Fatalf("%v, want %v", got, tc.want)
				}
			}
		})
	}
}
