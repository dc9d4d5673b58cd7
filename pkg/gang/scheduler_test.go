package gang

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/metrics/testutil"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/kubernetes/test/utils/ktesting"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"

	"github.com/berth-sched/berth/pkg/qossort"
)

// The tests in this file run the real kube-scheduler (queue, cache, framework, binding cycle) with
// berth's QueueSort, NodeResourcesFit and Gang, on fake clients.

const ledgerName = "DeviceLedger"

// ledger reserves a device for each pod, the way GPUShare does: what it holds after Unreserve
// shows whether rejected members gave back everything.
type ledger struct {
	mu   sync.Mutex
	held map[types.UID]string
}

func (l *ledger) Name() string { return ledgerName }

func (l *ledger) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[pod.UID] = node
	return nil
}

func (l *ledger) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, pod.UID)
}

func (l *ledger) holders() sets.Set[types.UID] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return sets.KeySet(l.held)
}

type cluster struct {
	t      *testing.T
	ctx    context.Context
	client *kubefake.Clientset
	pgs    *pgfake.Clientset
	ledger *ledger
	sched  *scheduler.Scheduler
	// gang is the scheduler's Gang, for what a test reads of its state.
	gang *Gang
}

// schedulerOption changes the profile of startSchedulerWith's scheduler, and may add plugins to
// its registry.
type schedulerOption func(*schedulerapi.KubeSchedulerProfile, frameworkruntime.Registry)

// startScheduler runs a scheduler over the given objects. Scheduling starts once the queue has
// taken every unbound pod it can, so that the test, not the informers' timing, decides the order.
func startScheduler(t *testing.T, objs []runtime.Object, pgs []runtime.Object, wantActive int) *cluster {
	t.Helper()
	return startSchedulerWith(t, testTimings, objs, pgs, wantActive)
}

func startSchedulerWith(t *testing.T, timings timings, objs []runtime.Object, pgs []runtime.Object, wantActive int, opts ...schedulerOption) *cluster {
	t.Helper()
	disableWatchList(t)
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	c := &cluster{
		t:      t,
		ctx:    ctx,
		client: kubefake.NewClientset(objs...),
		pgs:    pgfake.NewSimpleClientset(pgs...),
		ledger: &ledger{held: map[types.UID]string{}},
	}
	c.client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		binding := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		gvr := v1.SchemeGroupVersion.WithResource("pods")
		obj, err := c.client.Tracker().Get(gvr, binding.Namespace, binding.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = binding.Target.Name
		return true, binding, c.client.Tracker().Update(gvr, pod, pod.Namespace)
	})

	registry := frameworkruntime.Registry{
		qossort.Name: qossort.New,
		Name: func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			args, err := gangArgs(obj)
			if err != nil {
				return nil, err
			}
			g, err := newGang(ctx, args, h, c.pgs, timings)
			c.gang = g
			return g, err
		},
		ledgerName: func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return c.ledger, nil },
	}
	enable := func(names ...string) schedulerapi.PluginSet {
		var s schedulerapi.PluginSet
		for _, n := range names {
			s.Enabled = append(s.Enabled, schedulerapi.Plugin{Name: n})
		}
		return s
	}
	prof := schedulerapi.KubeSchedulerProfile{
		SchedulerName: v1.DefaultSchedulerName,
		Plugins: &schedulerapi.Plugins{
			QueueSort:  enable(qossort.Name),
			PreEnqueue: enable(Name),
			PreFilter:  enable(names.NodeResourcesFit, Name),
			Filter:     enable(names.NodeResourcesFit),
			PostFilter: enable(Name),
			Reserve:    enable(Name, ledgerName),
			Permit:     enable(Name),
			Bind:       enable(names.DefaultBinder),
		},
		PluginConfig: []schedulerapi.PluginConfig{{
			Name: names.NodeResourcesFit,
			Args: &schedulerapi.NodeResourcesFitArgs{ScoringStrategy: &schedulerapi.ScoringStrategy{
				Type:      schedulerapi.LeastAllocated,
				Resources: []schedulerapi.ResourceSpec{{Name: string(v1.ResourceCPU), Weight: 1}},
			}},
		}},
	}
	for _, opt := range opts {
		opt(&prof, registry)
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: c.client.EventsV1()})
	t.Cleanup(broadcaster.Shutdown)
	informerFactory := scheduler.NewInformerFactory(c.client, 0, nil)
	sched, err := scheduler.New(ctx, c.client, informerFactory, nil, profile.NewRecorderFactory(broadcaster),
		scheduler.WithProfiles(prof), scheduler.WithFrameworkOutOfTreeRegistry(registry))
	if err != nil {
		t.Fatal(err)
	}
	c.sched = sched
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		t.Fatal(err)
	}
	c.eventually("the queue to take the pods", func() bool { return len(sched.SchedulingQueue.PodsInActiveQ()) == wantActive })
	go sched.Run(ctx)
	return c
}

func (c *cluster) eventually(what string, cond func() bool) {
	c.t.Helper()
	if err := wait.PollUntilContextTimeout(c.ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		_, queue := c.sched.SchedulingQueue.PendingPods()
		c.t.Fatalf("waiting for %s: %v; queue: %s; bound: %v", what, err, queue, c.bound())
	}
}

// bound returns, per group, the names of its bound pods.
func (c *cluster) bound() map[string][]string {
	pods, err := c.client.CoreV1().Pods("ns").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			g := p.Labels[v1alpha1.PodGroupLabel]
			got[g] = append(got[g], p.Name)
		}
	}
	return got
}

func cpuNode(name, cpu string) *v1.Node {
	return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{v1.ResourceCPU: cpu}).Obj()
}

// cpuMember is a 2-CPU member of group pg.
func cpuMember(pg, name string, priority int32) *v1.Pod {
	return st.MakePod().Namespace("ns").Name(name).UID("uid-"+name).Label(v1alpha1.PodGroupLabel, pg).
		SchedulerName(v1.DefaultSchedulerName).Priority(priority).Req(map[v1.ResourceName]string{v1.ResourceCPU: "2"}).Obj()
}

// twoGroupsInterleaved are two groups of four 2-CPU members on two nodes of 4 CPUs, each group
// needing the whole cluster, whose priorities interleave them in the queue: a0, b0, a1, b1, ...
func twoGroupsInterleaved() []runtime.Object {
	objs := []runtime.Object{cpuNode("n1", "4"), cpuNode("n2", "4")}
	for i := range 4 {
		objs = append(objs, cpuMember("a", fmt.Sprintf("a%d", i), int32(100-2*i)), cpuMember("b", fmt.Sprintf("b%d", i), int32(99-2*i)))
	}
	return objs
}

// A group that holds nothing gives way to another group's round in progress: b's members,
// interleaved with a's in the queue, do not come between a's, and a is bound without a failed round.
func TestAGroupGivesWayToARoundInProgress(t *testing.T) {
	failedBefore, err := testutil.GetCounterMetricValue(failedRounds.WithLabelValues(failedUnschedulable))
	if err != nil {
		t.Fatal(err)
	}
	// The give-way lasts until a's round ends or turn runs out. With the suite's 500 ms, a loaded
	// machine (-race, load 18) ran a's four cycles past it and b came between: a test of the
	// machine's pace, not of the rule. 30 s outlasts any round here; a binds as soon as its round ends.
	longTurn := testTimings
	longTurn.turn = 30 * time.Second
	c := startSchedulerWith(t, longTurn, twoGroupsInterleaved(), []runtime.Object{withTimeout(podGroup("a", 4), 600), withTimeout(podGroup("b", 4), 600)}, 8)
	c.eventually("group a bound whole", func() bool { return len(c.bound()["a"]) == 4 })
	failedAfter, err := testutil.GetCounterMetricValue(failedRounds.WithLabelValues(failedUnschedulable))
	if err != nil {
		t.Fatal(err)
	}
	if failedAfter != failedBefore {
		t.Errorf("%v rounds failed: b came between a's members", failedAfter-failedBefore)
	}
	if got := c.bound(); len(got["b"]) != 0 {
		t.Errorf("bound pods by group: %v; want none of b", got)
	}
}

func TestTwoGroupsThatFitOnlyAloneDoNotDeadlock(t *testing.T) {
	// Two nodes of 4 CPUs hold four 2-CPU pods. Groups a and b each need all four. Their
	// priorities interleave them in the queue and neither gives way to the other's round (as
	// after a round outlasts the give-way), so each gets two members waiting at Permit and
	// holding the whole cluster before either can complete: the deadlock Gang must break.
	objs := twoGroupsInterleaved()
	withLongTimeout := func(name string) runtime.Object {
		// Far longer than the test may take: only Gang's release can break the deadlock.
		return withTimeout(podGroup(name, 4), 600)
	}
	failedBefore, err := testutil.GetCounterMetricValue(failedRounds.WithLabelValues(failedUnschedulable))
	if err != nil {
		t.Fatal(err)
	}
	noGiving := testTimings
	noGiving.turn = 0
	c := startSchedulerWith(t, noGiving, objs, []runtime.Object{withLongTimeout("a"), withLongTimeout("b")}, 8)

	var winner, loser string
	c.eventually("one group to be bound whole", func() bool {
		got := c.bound()
		switch {
		case len(got["a"]) == 4:
			winner, loser = "a", "b"
		case len(got["b"]) == 4:
			winner, loser = "b", "a"
		default:
			return false
		}
		return true
	})
	failedAfter, err := testutil.GetCounterMetricValue(failedRounds.WithLabelValues(failedUnschedulable))
	if err != nil {
		t.Fatal(err)
	}
	if failedAfter <= failedBefore {
		t.Errorf("no round failed: the groups never contended, and the test did not exercise the deadlock")
	}

	// The loser keeps trying through several backoffs, and never gets a member bound or holds a device.
	time.Sleep(3 * testTimings.backoffMax)
	got := c.bound()
	if len(got[loser]) != 0 || len(got[winner]) != 4 {
		t.Errorf("bound pods by group: %v; want all of %s and none of %s", got, winner, loser)
	}
	wantHeld := sets.New[types.UID]()
	for i := range 4 {
		wantHeld.Insert(types.UID(fmt.Sprintf("uid-%s%d", winner, i)))
	}
	if diff := cmp.Diff(sets.List(wantHeld), sets.List(c.ledger.holders())); diff != "" {
		t.Errorf("devices held (-want +got): only the placed group may hold any\n%s", diff)
	}
}

func TestAGroupLargerThanTheClusterHoldsNothing(t *testing.T) {
	// Two of the three members fit; Gang must give their places back rather than bind them.
	objs := []runtime.Object{cpuNode("n1", "4"), cpuMember("a", "a0", 3), cpuMember("a", "a1", 2), cpuMember("a", "a2", 1)}
	c := startScheduler(t, objs, []runtime.Object{withTimeout(podGroup("a", 3), 600)}, 3)
	failedBefore, _ := testutil.GetCounterMetricValue(failedRounds.WithLabelValues(failedUnschedulable))
	c.eventually("the group to give back what it held", func() bool {
		failed, _ := testutil.GetCounterMetricValue(failedRounds.WithLabelValues(failedUnschedulable))
		return failed > failedBefore && c.ledger.holders().Len() == 0
	})
	time.Sleep(3 * testTimings.backoffMax)
	if got := c.bound(); len(got["a"]) != 0 {
		t.Errorf("members bound of a group that cannot be placed whole: %v", got["a"])
	}
	if held := c.ledger.holders(); held.Len() != 0 {
		t.Errorf("devices still held by a group that cannot be placed whole: %v", sets.List(held))
	}
}

func TestPodsThatArriveBeforeTheirPodGroupAreScheduledWhenItAppears(t *testing.T) {
	objs := []runtime.Object{cpuNode("n1", "8"), cpuMember("a", "a0", 0), cpuMember("a", "a1", 0), cpuMember("a", "a2", 0)}
	c := startScheduler(t, objs, nil, 0)
	time.Sleep(time.Second)
	if got := c.bound(); len(got) != 0 {
		t.Fatalf("pods bound without their PodGroup: %v", got)
	}
	if _, err := c.pgs.SchedulingV1alpha1().PodGroups("ns").Create(c.ctx, podGroup("a", 3).DeepCopy(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Far sooner than the queue's own flush of unschedulable pods (five minutes).
	c.eventually("the group to be bound", func() bool { return len(c.bound()["a"]) == 3 })
	c.eventually("the PodGroup's status to say so", func() bool {
		pg, err := c.pgs.SchedulingV1alpha1().PodGroups("ns").Get(c.ctx, "a", metav1.GetOptions{})
		return err == nil && pg.Status.Phase == v1alpha1.PodGroupScheduling && !pg.Status.ScheduleStartTime.IsZero()
	})
}

func TestMembersThatArriveOneByOneAreBoundTogether(t *testing.T) {
	c := startScheduler(t, []runtime.Object{cpuNode("n1", "8")}, []runtime.Object{podGroup("a", 3)}, 0)
	for i := range 3 {
		if got := c.bound(); len(got["a"]) != 0 {
			t.Fatalf("members bound before the group was complete: %v", got["a"])
		}
		if _, err := c.client.CoreV1().Pods("ns").Create(c.ctx, cpuMember("a", fmt.Sprintf("a%d", i), 0), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.eventually("the group to be bound", func() bool { return len(c.bound()["a"]) == 3 })
}
