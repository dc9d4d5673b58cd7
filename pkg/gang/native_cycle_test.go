package gang

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/component-base/metrics/testutil"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// The scheduler tries a native PodGroup's members in one cycle and keeps no record of the events
// that come while that cycle runs, as it does for a pod's cycle: an event is lost to a group whose
// members are in flight. The tests here hold a native group's cycle at one point (cycleGate), free
// room there, and see whether the group is tried again.

const cycleGateName = "CycleGate"

// cycleGate holds the first native group cycle that reaches it until released: in PreFilter, for
// the first member the scheduler tries, or in PodGroupPostFilter.
type cycleGate struct {
	once             sync.Once
	entered, release chan struct{}
}

func newCycleGate() *cycleGate {
	return &cycleGate{entered: make(chan struct{}), release: make(chan struct{})}
}

func (*cycleGate) Name() string { return cycleGateName }

func (g *cycleGate) hold() {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
}

func (g *cycleGate) PreFilter(_ context.Context, state fwk.CycleState, _ *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	if state.IsPodGroupSchedulingCycle() {
		g.hold()
	}
	return nil, nil
}

func (*cycleGate) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func (g *cycleGate) PodGroupPostFilter(context.Context, fwk.PodGroupCycleState, fwk.PodGroupInfo, fwk.PodGroupSchedulingFunc) (*fwk.PodGroupPostFilterResult, *fwk.Status) {
	g.hold()
	return nil, fwk.NewStatus(fwk.Unschedulable)
}

// nativeProfile is berth's profile for native groups on the test scheduler: upstream's
// GangScheduling for PlacementFeasible (which it runs only when the plugin is in the profile),
// Gang's Filter ahead of NodeResourcesFit (the sum of room, roomsum.go) and its
// PodGroupPostFilter. gate, if set, goes in PreFilter (before or after Gang's) or after Gang in
// PodGroupPostFilter, as where says.
func nativeProfile(gate *cycleGate, where string) schedulerOption {
	return func(prof *schedulerapi.KubeSchedulerProfile, registry frameworkruntime.Registry) {
		p := prof.Plugins
		plugin := func(name string) schedulerapi.Plugin { return schedulerapi.Plugin{Name: name} }
		p.PreEnqueue.Enabled = append(p.PreEnqueue.Enabled, plugin(names.GangScheduling))
		p.Filter.Enabled = []schedulerapi.Plugin{plugin(Name), plugin(names.NodeResourcesFit)}
		p.PreFilter.Enabled = []schedulerapi.Plugin{plugin(names.NodeResourcesFit), plugin(Name)}
		p.PodGroupPostFilter.Enabled = []schedulerapi.Plugin{plugin(Name)}
		if gate == nil {
			return
		}
		registry[cycleGateName] = func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return gate, nil }
		switch where {
		case "before Gang's PreFilter":
			p.PreFilter.Enabled = []schedulerapi.Plugin{plugin(names.NodeResourcesFit), plugin(cycleGateName), plugin(Name)}
		case "after Gang's PreFilter":
			p.PreFilter.Enabled = append(p.PreFilter.Enabled, plugin(cycleGateName))
		case "after Gang's PodGroupPostFilter":
			p.PodGroupPostFilter.Enabled = append(p.PodGroupPostFilter.Enabled, plugin(cycleGateName))
		default:
			panic("no such place for the gate: " + where)
		}
	}
}

// nativeCPUMember is a 1-CPU member of the native PodGroup group that the scheduler has already
// told it could not place (its PodScheduled condition): a pod that has waited before. Gang holds
// such a member in PreEnqueue while its group waits for room, so the group is parked after its
// first failed cycle (a member never told goes in once: see admit).
func nativeCPUMember(group, name string) *v1.Pod {
	p := st.MakePod().Namespace("ns").Name(name).UID("uid-" + name).SchedulerName(v1.DefaultSchedulerName).
		Req(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj()
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable}}
	return p
}

func nativePodGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-pg-" + name)},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount},
		}},
	}
}

// nativeBound counts the bound pods of the native group.
func (c *cluster) nativeBound(group string) int {
	pods, err := c.client.CoreV1().Pods("ns").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	n := 0
	for _, p := range pods.Items {
		if sg := p.Spec.SchedulingGroup; sg != nil && *sg.PodGroupName == group && p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// handledEvents is how many events of kind the scheduler's event handler has finished: the cache
// has been updated and the queue told.
func handledEvents(t *testing.T, kind fwk.ClusterEvent) uint64 {
	t.Helper()
	n, err := testutil.GetHistogramMetricCount(metrics.EventHandlingLatency.WithLabelValues(kind.Label()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// freeing is a way the holder pod gives its 1 CPU back, and the event the scheduler's queue
// gets for it.
type freeing struct {
	name  string
	event fwk.ClusterEvent
	free  func(c *cluster) error
}

var freeings = []freeing{
	{name: "deleted", event: framework.EventAssignedPodDelete, free: func(c *cluster) error {
		return c.client.CoreV1().Pods("ns").Delete(c.ctx, "holder", metav1.DeleteOptions{})
	}},
	// An in-place resize that lowers the pod's requests (the kubelet has actuated it: spec and
	// status agree).
	{name: "scaled down", event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.UpdatePodScaleDown}, free: func(c *cluster) error {
		pod, err := c.client.CoreV1().Pods("ns").Get(c.ctx, "holder", metav1.GetOptions{})
		if err != nil {
			return err
		}
		pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{}
		// The fake clientset keeps no resourceVersion of its own.
		pod.ResourceVersion = "2"
		_, err = c.client.CoreV1().Pods("ns").Update(c.ctx, pod, metav1.UpdateOptions{})
		return err
	}},
}

// A native group of three 1-CPU members on a node of 3 CPUs, one of which a pod holds: the sum of
// room turns the group away, and it waits for room. The pod is deleted, or scaled down in place to
// no requests, while the group's first cycle is held at one point, and both the scheduler's and
// Gang's handlers of that have run before the cycle goes on: the queue's event came while the
// group's members were in flight, and is lost to it, and the cycle's snapshot, taken before, still
// shows the pod as it was. The group must be tried again and bound, wherever the cycle was held:
//   - before Gang's PreFilter: Gang counts the freeing before its first look at the cycle, and only
//     the snapshot can tell that the cycle did not see it;
//   - after Gang's PreFilter: Gang counts the freeing during the cycle (its first guard);
//   - after Gang's PodGroupPostFilter: the group already waits for room when the freeing comes.
//
// Issue 45: TestNativeAndBerthGroupsShareRoomWhole's native group, whose cycles were set off by the
// deletions of the other group's members one by one, missed the last deletion in flight and waited
// with the room free.
func TestNativeGroupCycleThatMissedAFreeingIsTriedAgain(t *testing.T) {
	for _, freeing := range freeings {
		for _, where := range []string{"before Gang's PreFilter", "after Gang's PreFilter", "after Gang's PodGroupPostFilter"} {
			t.Run(freeing.name+", "+where, func(t *testing.T) {
				testNativeGroupCycleMissing(t, freeing, where)
			})
		}
	}
}

func testNativeGroupCycleMissing(t *testing.T, freeing freeing, where string) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	holder := st.MakePod().Namespace("ns").Name("holder").UID("uid-holder").Node("n1").
		Req(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj()
	objs := []runtime.Object{cpuNode("n1", "3"), holder, nativePodGroup("a", 3)}
	for i := range 3 {
		objs = append(objs, nativeCPUMember("a", fmt.Sprintf("a%d", i)))
	}
	gate := newCycleGate()
	c := startSchedulerWith(t, testTimings, objs, nil, 3, nativeProfile(gate, where))

	select {
	case <-gate.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the group's cycle did not reach the gate")
	}
	freed, handled := c.gang.groups.RoomFreedCount(), handledEvents(t, freeing.event)
	if err := freeing.free(c); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(c.ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return handledEvents(t, freeing.event) > handled, nil
	}); err != nil {
		t.Fatalf("the scheduler did not handle the freeing (%s)", freeing.event.Label())
	}
	// Gang's handler runs apart from the scheduler's; one that does not count the freeing fails
	// here, and the cycle goes on regardless, to show what the group makes of it.
	if err := wait.PollUntilContextTimeout(c.ctx, 20*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return c.gang.groups.RoomFreedCount() > freed, nil
	}); err != nil {
		t.Errorf("Gang did not count the pod %s as room freed", freeing.name)
	}
	close(gate.release)
	released := time.Now()

	// The queue's backoff is 1 s at first; Gang's backstop for a group waiting for room is
	// five minutes, as is the queue's flush of its unschedulable entities.
	if err := wait.PollUntilContextTimeout(c.ctx, 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return c.nativeBound("a") == 3, nil
	}); err != nil {
		_, queue := c.sched.SchedulingQueue.PendingPods()
		t.Fatalf("the group was not bound within 10 s of the freeing its cycle missed (%d of 3 bound); queue: %s", c.nativeBound("a"), queue)
	}
	t.Logf("bound whole %v after the cycle went on", time.Since(released).Round(time.Millisecond))
}
