package gang

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/kubernetes/test/utils/ktesting"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/topology"
)

// testTimings keep backoffs short, on the real clock: these tests run the plugin as the
// scheduler does. The manager's own tests use a fake clock.
var testTimings = timings{
	backoffBase: 500 * time.Millisecond,
	backoffMax:  time.Second,
	statusBatch: 10 * time.Millisecond,
	turn:        500 * time.Millisecond,
	clock:       clock.RealClock{},
}

// recordingActivator stands in for the scheduling queue's Activate.
type recordingActivator struct {
	mu        sync.Mutex
	activated sets.Set[string]
}

func (a *recordingActivator) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range pods {
		a.activated.Insert(k)
	}
}

// take returns and clears the pods activated so far.
func (a *recordingActivator) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	got := sets.List(a.activated)
	a.activated = sets.New[string]()
	return got
}

// harness is a Gang plugin on a framework handle with fake clients, as the scheduler builds it.
type harness struct {
	t         testing.TB
	ctx       context.Context
	pl        *Gang
	fh        framework.Framework
	kube      *kubefake.Clientset
	pgs       *pgfake.Clientset
	activator *recordingActivator
	recorder  *events.FakeRecorder
	snapshot  *swappableSnapshot
	factory   informers.SharedInformerFactory
	// waiting is the scheduler's one map of pods waiting at Permit, shared by its profiles.
	waiting frameworkruntime.Option
}

func newHarness(t testing.TB, pgs []*v1alpha1.PodGroup, pods ...*v1.Pod) *harness {
	t.Helper()
	disableWatchList(t)
	schedmetrics.Register()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	var pgObjs, podObjs []runtime.Object
	for _, pg := range pgs {
		pgObjs = append(pgObjs, pg)
	}
	for _, p := range pods {
		podObjs = append(podObjs, p)
	}
	h := &harness{
		t:         t,
		ctx:       ctx,
		kube:      kubefake.NewClientset(podObjs...),
		pgs:       pgfake.NewSimpleClientset(pgObjs...),
		activator: &recordingActivator{activated: sets.New[string]()},
		recorder:  events.NewFakeRecorder(100),
		snapshot:  &swappableSnapshot{SharedLister: schedcache.NewEmptySnapshot()},
	}
	informerFactory := informers.NewSharedInformerFactory(h.kube, 0)
	h.factory, h.waiting = informerFactory, frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap())
	fh, err := frameworkruntime.NewFramework(ctx, nil, nil,
		frameworkruntime.WithClientSet(h.kube),
		frameworkruntime.WithInformerFactory(informerFactory),
		h.waiting,
		frameworkruntime.WithPodActivator(h.activator),
		frameworkruntime.WithEventRecorder(h.recorder),
		frameworkruntime.WithSnapshotSharedLister(h.snapshot),
	)
	if err != nil {
		t.Fatal(err)
	}
	h.fh = fh
	args, err := gangArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.pl, err = newGang(ctx, args, fh, h.pgs, testTimings); err != nil {
		t.Fatal(err)
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), h.pl.podEvents.HasSynced)
	return h
}

// swappableSnapshot stands in for the scheduler's snapshot, which each scheduling cycle renews.
type swappableSnapshot struct {
	fwk.SharedLister
}

// sees makes the next scheduling cycles see pods on their nodes.
func (h *harness) sees(pods ...*v1.Pod) {
	nodes := sets.New[string]()
	for _, p := range pods {
		nodes.Insert(p.Spec.NodeName)
	}
	var nodeObjs []*v1.Node
	for _, n := range sets.List(nodes) {
		nodeObjs = append(nodeObjs, st.MakeNode().Name(n).Obj())
	}
	h.snapshot.SharedLister = schedcache.NewSnapshot(pods, nodeObjs)
}

// waitAtPermit reserves pod and runs Permit, as the scheduling cycle does; a pod told to wait is
// parked at Permit like the framework does, and the returned channel yields its final verdict.
func (h *harness) waitAtPermit(pod *v1.Pod) (*fwk.Status, <-chan *fwk.Status) {
	h.t.Helper()
	if st := h.pl.Reserve(h.ctx, framework.NewCycleState(), pod, "node"); !st.IsSuccess() {
		h.t.Fatalf("Reserve(%s): %v", pod.Name, st)
	}
	st, timeout := h.pl.Permit(h.ctx, framework.NewCycleState(), pod, "node")
	if !st.IsWait() {
		return st, nil
	}
	h.fh.AddWaitingPod(pod, map[string]time.Duration{Name: timeout})
	done := make(chan *fwk.Status, 1)
	go func() { done <- h.fh.WaitOnPermit(h.ctx, pod) }()
	return st, done
}

// allWaitAtPermit reserves each of pods and has it wait at Permit, as members of a round that
// has not reached quorum do, and returns their verdicts to come.
func (h *harness) allWaitAtPermit(pods ...*v1.Pod) []<-chan *fwk.Status {
	h.t.Helper()
	var waiting []<-chan *fwk.Status
	for _, p := range pods {
		st, done := h.waitAtPermit(p)
		if !st.IsWait() {
			h.t.Fatalf("Permit(%s): %v, want Wait", p.Name, st)
		}
		waiting = append(waiting, done)
	}
	return waiting
}

// eventually polls cond until it holds.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	if err := wait.PollUntilContextTimeout(h.ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		h.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// activatedEventually waits until the queue was asked to activate exactly want.
func (h *harness) activatedEventually(want ...string) {
	h.t.Helper()
	var got sets.Set[string] = sets.New[string]()
	h.eventually("activation of "+strings.Join(want, ","), func() bool {
		got.Insert(h.activator.take()...)
		return got.Equal(sets.New(want...))
	})
}

func (h *harness) events() []string {
	var got []string
	for {
		select {
		case e := <-h.recorder.Events:
			got = append(got, e)
		default:
			return got
		}
	}
}

func verdict(t *testing.T, ch <-chan *fwk.Status) *fwk.Status {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting pod got no verdict")
		return nil
	}
}

func unresolvable(msg string) *fwk.Status {
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg)
}

func withTimeout(pg *v1alpha1.PodGroup, seconds int32) *v1alpha1.PodGroup {
	pg.Spec.ScheduleTimeoutSeconds = ptr.To(seconds)
	return pg
}

func TestPreEnqueue(t *testing.T) {
	gated := member("a", "a2", "uid-a2")
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
	terminating := st.MakePod().Namespace("ns").Name("a2").UID("uid-a2").Label(v1alpha1.PodGroupLabel, "a").Terminating().Obj()
	tests := []struct {
		name       string
		pgs        []*v1alpha1.PodGroup
		pods       []*v1.Pod
		pod        *v1.Pod
		want       *fwk.Status
		wantEvents []string
	}{
		{
			name: "a pod outside any group passes",
			pod:  st.MakePod().Namespace("ns").Name("solo").UID("solo").Obj(),
		},
		{
			name:       "a member whose PodGroup does not exist is held, and told why",
			pods:       []*v1.Pod{a1},
			pod:        a1,
			want:       unresolvable("pod group ns/a does not exist; the pod waits until it is created"),
			wantEvents: []string{"Warning GangWaiting pod group ns/a does not exist; the pod waits until it is created"},
		},
		{
			name:       "a member of a group with fewer than minMember pods is held",
			pgs:        []*v1alpha1.PodGroup{podGroup("a", 3)},
			pods:       []*v1.Pod{a1, a2},
			pod:        a1,
			want:       unresolvable("pod group ns/a has 2 of its 3 (minMember) pods ready to schedule; waiting for the rest"),
			wantEvents: []string{"Normal GangWaiting pod group ns/a has 2 of its 3 (minMember) pods ready to schedule; waiting for the rest"},
		},
		{
			name:       "a gated sibling is not ready",
			pgs:        []*v1alpha1.PodGroup{podGroup("a", 2)},
			pods:       []*v1.Pod{a1, gated},
			pod:        a1,
			want:       unresolvable("pod group ns/a has 1 of its 2 (minMember) pods ready to schedule; waiting for the rest"),
			wantEvents: []string{"Normal GangWaiting pod group ns/a has 1 of its 2 (minMember) pods ready to schedule; waiting for the rest"},
		},
		{
			name:       "a terminating sibling is not ready",
			pgs:        []*v1alpha1.PodGroup{podGroup("a", 2)},
			pods:       []*v1.Pod{a1, terminating},
			pod:        a1,
			want:       unresolvable("pod group ns/a has 1 of its 2 (minMember) pods ready to schedule; waiting for the rest"),
			wantEvents: []string{"Normal GangWaiting pod group ns/a has 1 of its 2 (minMember) pods ready to schedule; waiting for the rest"},
		},
		{
			name: "a member of a group with minMember pods passes",
			pgs:  []*v1alpha1.PodGroup{podGroup("a", 2)},
			pods: []*v1.Pod{a1, a2},
			pod:  a1,
		},
		{
			name: "pods of the same name in another namespace are another group",
			pgs:  []*v1alpha1.PodGroup{podGroup("a", 2)},
			pods: []*v1.Pod{a1, st.MakePod().Namespace("other").Name("a2").UID("other-a2").Label(v1alpha1.PodGroupLabel, "a").Obj()},
			pod:  a1,
			want: unresolvable("pod group ns/a has 1 of its 2 (minMember) pods ready to schedule; waiting for the rest"),
			wantEvents: []string{
				"Normal GangWaiting pod group ns/a has 1 of its 2 (minMember) pods ready to schedule; waiting for the rest",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.pgs, tc.pods...)
			if diff := cmp.Diff(tc.want, h.pl.PreEnqueue(h.ctx, tc.pod)); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			// Held again for the same reason, the pod gets no second event.
			h.pl.PreEnqueue(h.ctx, tc.pod)
			if diff := cmp.Diff(tc.wantEvents, h.events(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreFilter(t *testing.T) {
	node := func(name, cpu string) *v1.Node {
		return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{v1.ResourceCPU: cpu}).Obj()
	}
	withMin := func(pg *v1alpha1.PodGroup, cpu string) *v1alpha1.PodGroup {
		pg.Spec.MinResources = resources(map[v1.ResourceName]string{v1.ResourceCPU: cpu})
		return pg
	}
	boundA1 := member("a", "a1", "uid-a1")
	boundA1.Spec.NodeName = "n1"
	boundA1.Spec.Containers = st.MakePod().Req(map[v1.ResourceName]string{v1.ResourceCPU: "2"}).Obj().Spec.Containers
	tests := []struct {
		name  string
		pgs   []*v1alpha1.PodGroup
		pods  []*v1.Pod
		nodes []fwk.NodeInfo
		pod   *v1.Pod
		want  *fwk.Status
	}{
		{
			name: "a pod outside any group is skipped",
			pod:  st.MakePod().Namespace("ns").Name("solo").UID("solo").Obj(),
			want: fwk.NewStatus(fwk.Skip),
		},
		{
			name: "a member whose PodGroup does not exist is rejected",
			pods: []*v1.Pod{a1},
			pod:  a1,
			want: unresolvable("pod group ns/a does not exist; the pod waits until it is created"),
		},
		{
			name: "a member of a group with too few pods is rejected",
			pgs:  []*v1alpha1.PodGroup{podGroup("a", 3)},
			pods: []*v1.Pod{a1},
			pod:  a1,
			want: unresolvable("pod group ns/a has 1 of its 3 (minMember) pods ready to schedule; waiting for the rest"),
		},
		{
			name:  "a group whose minResources exceed free capacity is rejected, saying which",
			pgs:   []*v1alpha1.PodGroup{withMin(podGroup("a", 2), "10")},
			pods:  []*v1.Pod{a1, a2},
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "4")), nodeInfo(node("n2", "4"))},
			pod:   a2,
			want:  unresolvable("pod group ns/a needs more than the cluster's free capacity (minResources): cpu: 10 wanted, 8 free"),
		},
		{
			name:  "a group whose minResources fit passes",
			pgs:   []*v1alpha1.PodGroup{withMin(podGroup("a", 2), "8")},
			pods:  []*v1.Pod{a1, a2},
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "4")), nodeInfo(node("n2", "4"))},
			pod:   a2,
			want:  fwk.NewStatus(fwk.Skip), // admitted, and no domain for Filter to keep to
		},
		{
			name:  "what the group's bound members hold counts toward its minResources",
			pgs:   []*v1alpha1.PodGroup{withMin(podGroup("a", 2), "8")},
			pods:  []*v1.Pod{boundA1, a2},
			nodes: []fwk.NodeInfo{nodeInfo(node("n1", "4"), boundA1), nodeInfo(node("n2", "4"))},
			pod:   a2,
			want:  fwk.NewStatus(fwk.Skip), // admitted, and no domain for Filter to keep to
		},
		{
			name:  "minMember pod slots are part of what the group needs",
			pgs:   []*v1alpha1.PodGroup{withMin(podGroup("a", 2), "1")},
			pods:  []*v1.Pod{a1, a2},
			nodes: []fwk.NodeInfo{nodeInfo(st.MakeNode().Name("n1").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourcePods: "1"}).Obj())},
			pod:   a2,
			want:  unresolvable("pod group ns/a needs more than the cluster's free capacity (minResources): pods: 2 wanted, 1 free"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.pgs, tc.pods...)
			_, got := h.pl.PreFilter(h.ctx, framework.NewCycleState(), tc.pod, tc.nodes)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreFilterAfterAFailedRound(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	_, waiting := h.waitAtPermit(a1)
	h.pl.PostFilter(h.ctx, framework.NewCycleState(), a2, nil)
	verdict(t, waiting)
	_, got := h.pl.PreFilter(h.ctx, framework.NewCycleState(), a3, nil)
	want := fmt.Sprintf("pod group ns/a stands aside (backoff %v) because it could not place member a2: no node took it", testTimings.backoffBase)
	if got.Code() != fwk.UnschedulableAndUnresolvable || got.Message() != want {
		t.Errorf("PreFilter during the backoff: %v, want %q", got, want)
	}
	// The scheduler writes a pod's status whenever its message changes: one that counted down
	// would cost an API write on every retry of every member.
	time.Sleep(testTimings.backoffBase / 10)
	if _, again := h.pl.PreFilter(h.ctx, framework.NewCycleState(), a3, nil); again.Message() != got.Message() {
		t.Errorf("PreFilter's message changed during one backoff: %q, then %q", got.Message(), again.Message())
	}
	if got := h.pl.PreEnqueue(h.ctx, a3); got.IsSuccess() {
		t.Errorf("PreEnqueue let a member through during its group's backoff")
	}
	// A member that passed PreFilter before its group failed meets the backoff at Permit, and is
	// told the same.
	if refused, _ := h.pl.Permit(h.ctx, framework.NewCycleState(), a3, "node"); refused.Code() != fwk.UnschedulableAndUnresolvable || refused.Message() != want {
		t.Errorf("Permit during the backoff: %v, want %q", refused, want)
	}
	// At the end of the backoff the group's parked pods are activated again.
	h.activator.take()
	h.activatedEventually("ns/a1", "ns/a2", "ns/a3")
	if got := h.pl.PreEnqueue(h.ctx, a3); !got.IsSuccess() {
		t.Errorf("PreEnqueue after the backoff: %v", got)
	}
}

// The scheduler runs PostFilter also for a pod its PreFilter turned away. A member Gang held back
// itself (its group's minResources do not fit) has failed no round: PostFilter must not send its
// group into backoff, which would flip its message (a status write per flip) and park it for a
// timer instead of for the capacity that can let it in.
func TestPostFilterAfterGangsOwnPreFilter(t *testing.T) {
	pg := podGroup("a", 2)
	pg.Spec.MinResources = resources(map[v1.ResourceName]string{v1.ResourceCPU: "10"})
	h := newHarness(t, []*v1alpha1.PodGroup{pg}, a1, a2)
	nodes := []fwk.NodeInfo{nodeInfo(st.MakeNode().Name("n1").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4"}).Obj())}
	state := framework.NewCycleState()
	_, first := h.pl.PreFilter(h.ctx, state, a2, nodes)
	if first.Code() != fwk.UnschedulableAndUnresolvable {
		t.Fatalf("PreFilter: %v, want the minResources rejection", first)
	}
	if _, got := h.pl.PostFilter(h.ctx, state, a2, nil); got.Code() != fwk.Unschedulable {
		t.Errorf("PostFilter: %v", got)
	}
	if reason, _ := h.pl.groups.ParkedReason(types.NamespacedName{Namespace: "ns", Name: "a"}, a2.UID); reason != gangcore.ParkedMinResources {
		t.Errorf("after PostFilter the member is parked for %v, want %v (woken by capacity)", reason, gangcore.ParkedMinResources)
	}
	if _, again := h.pl.PreFilter(h.ctx, framework.NewCycleState(), a2, nodes); again.Message() != first.Message() {
		t.Errorf("the next attempt says %q, want %q again", again.Message(), first.Message())
	}
}

func TestPermitWaitsThenAllowsOnQuorum(t *testing.T) {
	pg := withTimeout(podGroup("a", 3), 30)
	h := newHarness(t, []*v1alpha1.PodGroup{pg}, a1, a2, a3)

	st1, done1 := h.waitAtPermit(a1)
	if diff := cmp.Diff(fwk.NewStatus(fwk.Wait, "waiting for 3 (minMember) members of pod group ns/a"), st1); diff != "" {
		t.Errorf("first member (-want +got):\n%s", diff)
	}
	// The first member to wait brings its siblings to the front of the queue.
	h.activatedEventually("ns/a2", "ns/a3")

	if _, done2 := h.waitAtPermit(a2); done2 == nil {
		t.Fatal("the second member did not wait")
	} else {
		if got := h.activator.take(); len(got) != 0 {
			t.Errorf("later members activate nobody, got %v", got)
		}
		st3, _ := h.waitAtPermit(a3)
		if !st3.IsSuccess() {
			t.Fatalf("the member that completes the group: %v", st3)
		}
		for i, ch := range []<-chan *fwk.Status{done1, done2} {
			if s := verdict(t, ch); !s.IsSuccess() {
				t.Errorf("waiting member %d: %v", i+1, s)
			}
		}
	}
}

func TestPermitWaitsAtMostTheGroupTimeout(t *testing.T) {
	tests := []struct {
		name string
		pg   *v1alpha1.PodGroup
		want time.Duration
	}{
		{name: "the PodGroup's scheduleTimeoutSeconds", pg: withTimeout(podGroup("a", 2), 30), want: 30 * time.Second},
		{name: "the plugin's default", pg: podGroup("a", 2), want: 60 * time.Second},
		{name: "a zero timeout means the default", pg: withTimeout(podGroup("a", 2), 0), want: 60 * time.Second},
		{name: "capped below the framework's limit", pg: withTimeout(podGroup("a", 2), 3600), want: maxPermitWait - frameworkTimerSlack},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, []*v1alpha1.PodGroup{tc.pg}, a1, a2)
			h.pl.Reserve(h.ctx, nil, a1, "node")
			// Gang ends the round itself at the group's timeout; the framework's timer is a later
			// backstop.
			_, got := h.pl.Permit(h.ctx, nil, a1, "node")
			if got != tc.want+frameworkTimerSlack {
				t.Errorf("framework wait %v, want %v + %v", got, tc.want, frameworkTimerSlack)
			}
		})
	}
}

func TestPermitTimeoutReleasesTheGroup(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{withTimeout(podGroup("a", 3), 1)}, a1, a2, a3)
	_, done1 := h.waitAtPermit(a1)
	_, done2 := h.waitAtPermit(a2)
	// The round's deadline was set by a1: both time out together.
	for _, ch := range []<-chan *fwk.Status{done1, done2} {
		if s := verdict(t, ch); s.Code() != fwk.Unschedulable || s.Plugin() != Name {
			t.Errorf("a member held past the group's timeout: %v", s)
		}
	}
	// The framework runs Unreserve for each; the group then stands aside.
	h.pl.Unreserve(h.ctx, nil, a1, "node")
	h.pl.Unreserve(h.ctx, nil, a2, "node")
	if got := h.pl.PreEnqueue(h.ctx, a3); got.IsSuccess() {
		t.Errorf("a group whose round timed out did not stand aside")
	}
}

// A member another plugin turns down in its own cycle (at Reserve or Permit, before it waited)
// ends its group's round, and the released siblings are told which member and where.
func TestUnreserveInItsOwnCycleSaysWhichMember(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	_, done := h.waitAtPermit(a1)
	if st := h.pl.Reserve(h.ctx, framework.NewCycleState(), a2, "node-b"); !st.IsSuccess() {
		t.Fatal(st)
	}
	h.pl.Unreserve(h.ctx, framework.NewCycleState(), a2, "node-b")
	want := fwk.NewStatus(fwk.Unschedulable, "pod group ns/a could not reserve member a2 on node node-b; all 1 waiting members were released and the group stands aside for 500ms").WithPlugin(Name)
	if diff := cmp.Diff(want, verdict(t, done)); diff != "" {
		t.Errorf("sibling (-want +got):\n%s", diff)
	}
}

func TestUnreserveReleasesWaitingSiblings(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	_, done1 := h.waitAtPermit(a1)
	_, done2 := h.waitAtPermit(a2)
	// a1 is rejected by something else (another plugin, preemption, deletion).
	h.fh.RejectWaitingPod(a1.UID)
	if s := verdict(t, done1); s.IsSuccess() {
		t.Fatalf("a1 was not rejected")
	}
	h.pl.Unreserve(h.ctx, nil, a1, "node")
	s := verdict(t, done2)
	want := fwk.NewStatus(fwk.Unschedulable, "pod group ns/a lost member a1 before it was complete; all 1 waiting members were released and the group stands aside for 500ms").WithPlugin(Name)
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("sibling (-want +got):\n%s", diff)
	}
}

func TestPostFilter(t *testing.T) {
	solo := st.MakePod().Namespace("ns").Name("solo").UID("solo").Obj()
	tests := []struct {
		name        string
		waiting     []*v1.Pod
		allowed     []*v1.Pod
		failing     *v1.Pod
		want        *fwk.Status
		wantRelease bool
	}{
		{
			name:        "a member that fits nowhere releases the waiting ones at once",
			waiting:     []*v1.Pod{a1, a2},
			failing:     a3,
			want:        fwk.NewStatus(fwk.Unschedulable, "pod group ns/a could not place member a3: Insufficient cpu, Insufficient memory; all 2 waiting members were released and the group stands aside for 500ms"),
			wantRelease: true,
		},
		{
			name:    "a group that already has quorum keeps what it holds",
			allowed: []*v1.Pod{a1, a2, a3},
			failing: member("a", "a4", "uid-a4"),
			want:    fwk.NewStatus(fwk.Unschedulable),
		},
		{
			name:    "a group with nothing waiting has nothing to release",
			failing: a3,
			want:    fwk.NewStatus(fwk.Unschedulable),
		},
		{
			name:    "a pod outside any group is left to the other plugins",
			waiting: []*v1.Pod{a1},
			failing: solo,
			want:    fwk.NewStatus(fwk.Unschedulable),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3, solo)
			var dones []<-chan *fwk.Status
			for _, p := range tc.waiting {
				_, done := h.waitAtPermit(p)
				dones = append(dones, done)
			}
			for _, p := range tc.allowed {
				h.waitAtPermit(p)
			}
			h.snapshot.SharedLister = schedcache.NewSnapshot(nil, []*v1.Node{st.MakeNode().Name("n1").Obj(), st.MakeNode().Name("n2").Obj()})
			statuses := framework.NewDefaultNodeToStatus()
			statuses.Set("n1", fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu"))
			statuses.Set("n2", fwk.NewStatus(fwk.Unschedulable, "Insufficient memory"))
			result, got := h.pl.PostFilter(h.ctx, framework.NewCycleState(), tc.failing, statuses)
			if result != nil {
				t.Errorf("PostFilter nominated %+v; it must leave nominations to preemption", result)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			for i, done := range dones {
				if !tc.wantRelease {
					h.fh.RejectWaitingPod(tc.waiting[i].UID)
					continue
				}
				s := verdict(t, done)
				if s.Code() != fwk.Unschedulable || s.Plugin() != Name || s.Message() != tc.want.Message() {
					t.Errorf("waiting member %s: %v", tc.waiting[i].Name, s)
				}
			}
		})
	}
}

// What a gang's members are told when one of them fits no node: the cause, in a text that changes
// only when the reasons do, not with how many nodes give each.
func TestNoNodeBecause(t *testing.T) {
	nodes := []*v1.Node{}
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		nodes = append(nodes, st.MakeNode().Name(n).Obj())
	}
	withStatuses := func(absent *fwk.Status, explicit map[string]*fwk.Status) *framework.NodeToStatus {
		return framework.NewNodeToStatus(explicit, absent)
	}
	unschedulable := func(reasons ...string) *fwk.Status { return fwk.NewStatus(fwk.Unschedulable, reasons...) }
	unresolvable := func(reasons ...string) *fwk.Status {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, reasons...)
	}
	tests := []struct {
		name     string
		nodes    []*v1.Node
		statuses fwk.NodeToStatusReader
		want     string
	}{
		{
			name:     "a PreFilter rejection stands for every node and is given alone",
			nodes:    nodes,
			statuses: withStatuses(unresolvable("quota team-g/quota: cpu used 0, requested for pod group g 3, max 2"), nil),
			want:     "quota team-g/quota: cpu used 0, requested for pod group g 3, max 2",
		},
		{
			name:  "the nodes' reasons, each once, in the order of their text",
			nodes: nodes,
			statuses: withStatuses(unresolvable(), map[string]*fwk.Status{
				"n1": unschedulable("Insufficient cpu"),
				"n2": unschedulable("Insufficient cpu", "Insufficient memory"),
				"n3": unresolvable("node(s) had untolerated taint {gpu: }"),
				"n4": unschedulable("Insufficient cpu"),
				"n5": unschedulable("Insufficient memory"),
			}),
			want: "Insufficient cpu, Insufficient memory, node(s) had untolerated taint {gpu: }",
		},
		{
			name:  "the same reasons in other proportions give the same text",
			nodes: nodes,
			statuses: withStatuses(unresolvable(), map[string]*fwk.Status{
				"n1": unschedulable("Insufficient memory"),
				"n2": unschedulable("Insufficient memory"),
				"n3": unresolvable("node(s) had untolerated taint {gpu: }"),
				"n4": unschedulable("Insufficient memory"),
				"n5": unschedulable("Insufficient cpu"),
			}),
			want: "Insufficient cpu, Insufficient memory, node(s) had untolerated taint {gpu: }",
		},
		{
			name:  "a reason every node gave is given alone",
			nodes: nodes[:2],
			statuses: withStatuses(unresolvable(), map[string]*fwk.Status{
				"n1": unschedulable("Insufficient cpu"),
				"n2": unschedulable("Insufficient cpu"),
			}),
			want: "Insufficient cpu",
		},
		{
			name:  "beyond three reasons, how many more",
			nodes: nodes,
			statuses: withStatuses(unresolvable(), map[string]*fwk.Status{
				"n1": unschedulable("e"), "n2": unschedulable("d"), "n3": unschedulable("c"), "n4": unschedulable("b"), "n5": unschedulable("a"),
			}),
			want: "a, b, c and 2 more",
		},
		{
			name:     "no node at all",
			statuses: withStatuses(unresolvable(), nil),
			want:     "no node took it",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.snapshot.SharedLister = schedcache.NewSnapshot(nil, tc.nodes)
			if got := h.pl.noNodeBecause(tc.statuses, nil); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPodGroupDeletionReleasesWaitingMembers(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
	_, done := h.waitAtPermit(a1)
	if err := h.pgs.SchedulingV1alpha1().PodGroups("ns").Delete(h.ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := verdict(t, done); s.Code() != fwk.Unschedulable || s.Message() != "pod group ns/a was deleted" {
		t.Errorf("a member of a deleted group: %v", s)
	}
	// Permit for a member of a group that no longer exists is refused.
	h.eventually("the lister to drop the PodGroup", func() bool {
		_, err := h.pl.podGroups.Of(types.NamespacedName{Namespace: "ns", Name: "a"})
		return apierrors.IsNotFound(err)
	})
	h.pl.Reserve(h.ctx, nil, a2, "node")
	if s, _ := h.pl.Permit(h.ctx, nil, a2, "node"); s.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("Permit without a PodGroup: %v", s)
	}
}

func TestParkedPodsWakeWhenTheirGroupCanGo(t *testing.T) {
	tests := []struct {
		name   string
		pgs    []*v1alpha1.PodGroup
		pods   []*v1.Pod
		change func(h *harness) error
	}{
		{
			name: "pods that came before their PodGroup wake when it is created",
			pods: []*v1.Pod{a1, a2},
			change: func(h *harness) error {
				_, err := h.pgs.SchedulingV1alpha1().PodGroups("ns").Create(h.ctx, podGroup("a", 2), metav1.CreateOptions{})
				return err
			},
		},
		{
			name: "pods waiting for siblings wake when the last one arrives",
			pgs:  []*v1alpha1.PodGroup{podGroup("a", 3)},
			pods: []*v1.Pod{a1, a2},
			change: func(h *harness) error {
				_, err := h.kube.CoreV1().Pods("ns").Create(h.ctx, a3, metav1.CreateOptions{})
				return err
			},
		},
		{
			name: "pods waiting for siblings wake when minMember drops",
			pgs:  []*v1alpha1.PodGroup{podGroup("a", 3)},
			pods: []*v1.Pod{a1, a2},
			change: func(h *harness) error {
				_, err := h.pgs.SchedulingV1alpha1().PodGroups("ns").Update(h.ctx, podGroup("a", 2), metav1.UpdateOptions{})
				return err
			},
		},
		{
			name: "pods waiting for a gated sibling wake when its gates are removed",
			pgs:  []*v1alpha1.PodGroup{podGroup("a", 2)},
			pods: []*v1.Pod{a1, func() *v1.Pod {
				p := a2.DeepCopy()
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
				return p
			}()},
			change: func(h *harness) error {
				_, err := h.kube.CoreV1().Pods("ns").Update(h.ctx, a2, metav1.UpdateOptions{})
				return err
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.pgs, tc.pods...)
			if st := h.pl.PreEnqueue(h.ctx, a1); st.IsSuccess() {
				t.Fatalf("a1 was not held")
			}
			if got := h.activator.take(); len(got) != 0 {
				t.Fatalf("activated %v before anything changed", got)
			}
			if err := tc.change(h); err != nil {
				t.Fatal(err)
			}
			h.activatedEventually("ns/a1")
			if st := h.pl.PreEnqueue(h.ctx, a1); !st.IsSuccess() {
				t.Errorf("a1 after the change: %v", st)
			}
		})
	}
}

func TestAnArrivalThatLeavesTheGroupShortWakesNobody(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1)
	h.pl.PreEnqueue(h.ctx, a1)
	if _, err := h.kube.CoreV1().Pods("ns").Create(h.ctx, a2, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("a2 in the informer", func() bool { return len(h.pl.members.of(keyA)) == 2 })
	if got := h.activator.take(); len(got) != 0 {
		t.Errorf("activated %v with 2 of 3 members", got)
	}
}

func TestQueueingHints(t *testing.T) {
	node := st.MakeNode().Name("n1").Obj()
	deleted := st.MakePod().Namespace("ns").Name("gone").UID("gone").Node("n1").Obj()
	tests := []struct {
		name   string
		reason gangcore.ParkReason
		pod    *v1.Pod
		want   fwk.QueueingHint
	}{
		{name: "a member held for too few pods ignores capacity", reason: gangcore.ParkedTooFew, pod: a1, want: fwk.QueueSkip},
		{name: "a member held for its missing PodGroup ignores capacity", reason: gangcore.ParkedNotFound, pod: a1, want: fwk.QueueSkip},
		{name: "a member of a group that stands aside ignores capacity", reason: gangcore.ParkedBackoff, pod: a1, want: fwk.QueueSkip},
		{name: "a member held for minResources is retried on capacity", reason: gangcore.ParkedMinResources, pod: a1, want: fwk.Queue},
		{name: "a member being retried is retried on capacity", reason: gangcore.ParkedRetry, pod: a1, want: fwk.Queue},
		{name: "a member not parked is retried", pod: a1, want: fwk.Queue},
		{name: "a pod outside any group is not Gang's to retry", pod: st.MakePod().Namespace("ns").Name("solo").Obj(), want: fwk.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// On a clock that stands still: no timer ends a park while the hint is asked.
			pl := &Gang{shared: &shared{groups: testManager()}}
			if tc.reason == gangcore.ParkedBackoff {
				// A group stands aside after a failed round; without one the park ends at once.
				pl.groups.Reserve(keyA, a2, "n1")
				pl.groups.Permit(keyA, a2, 3, time.Hour)
				pl.groups.MemberFailed(keyA, a3, 3, nil, gangcore.Cause{Why: "could not place member a3"})
			}
			if tc.reason != 0 {
				pl.groups.Park(keyA, tc.pod, tc.reason)
			}
			registered, err := pl.EventsToRegister(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range registered {
				var oldObj, newObj any = nil, node
				if e.Event.Resource == fwk.AssignedPod {
					oldObj, newObj = deleted, nil
				}
				got, err := e.QueueingHintFn(klog.Background(), tc.pod, oldObj, newObj)
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("%s: got %v, want %v", e.Event.Label(), got, tc.want)
				}
			}
		})
	}
}

func TestEventsToRegister(t *testing.T) {
	h := newHarness(t, nil)
	got, err := h.pl.EventsToRegister(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint}},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete | fwk.UpdatePodScaleDown}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(fwk.ClusterEventWithHint{}, "QueueingHintFn")); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// A node that becomes usable adds room as one that grows does: a group parked for want of a
// domain, or waiting for room, must hear of it (issue 42: a rack whose fourth node became ready
// was never given to the group that needed it).
func TestAddsRoom(t *testing.T) {
	base := st.MakeNode().Name("n1").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4"}).Obj()
	with := func(f func(*v1.Node)) *v1.Node {
		n := base.DeepCopy()
		f(n)
		return n
	}
	notReady := v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}
	tests := []struct {
		name     string
		old, cur *v1.Node
		want     bool
	}{
		{name: "a node added", cur: base, want: true},
		{name: "allocatable grew", old: base, cur: with(func(n *v1.Node) { n.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("8") }), want: true},
		{name: "allocatable shrank", old: base, cur: with(func(n *v1.Node) { n.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("2") })},
		{name: "labels alone", old: base, cur: with(func(n *v1.Node) { n.Labels = map[string]string{"a": "b"} })},
		{name: "the not-ready taint gone", old: with(func(n *v1.Node) { n.Spec.Taints = []v1.Taint{notReady} }), cur: base, want: true},
		{name: "a taint added", old: base, cur: with(func(n *v1.Node) { n.Spec.Taints = []v1.Taint{notReady} })},
		{name: "a PreferNoSchedule taint gone", old: with(func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "k", Effect: v1.TaintEffectPreferNoSchedule}}
		}), cur: base},
		{name: "uncordoned", old: with(func(n *v1.Node) { n.Spec.Unschedulable = true }), cur: base, want: true},
		{name: "cordoned", old: base, cur: with(func(n *v1.Node) { n.Spec.Unschedulable = true })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var oldObj any
			if tc.old != nil {
				oldObj = tc.old
			}
			if got := addsRoom(oldObj, tc.cur); got != tc.want {
				t.Errorf("addsRoom = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSignPod(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		want []fwk.SignFragment
	}{
		{name: "a pod outside any group adds nothing", pod: st.MakePod().Namespace("ns").Name("solo").Obj()},
		{name: "a member signs with its group", pod: a1, want: []fwk.SignFragment{{Key: podGroupSignerName, Value: "ns/a"}}},
		{name: "another group signs differently", pod: b1, want: []fwk.SignFragment{{Key: podGroupSignerName, Value: "ns/b"}}},
		{
			name: "the same group name in another namespace signs differently",
			pod:  st.MakePod().Namespace("other").Name("x").Label(v1alpha1.PodGroupLabel, "a").Obj(),
			want: []fwk.SignFragment{{Key: podGroupSignerName, Value: "other/a"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, status := (&Gang{}).SignPod(context.Background(), tc.pod)
			if !status.IsSuccess() {
				t.Fatalf("status %v", status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fragments (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGangArgs(t *testing.T) {
	tests := []struct {
		name    string
		obj     runtime.Object
		want    *config.GangArgs
		wantErr string
	}{
		{name: "no args take the defaults", want: &config.GangArgs{DefaultScheduleTimeoutSeconds: 60, TopologyLevels: topology.DefaultLevels()}},
		{name: "valid args", obj: &config.GangArgs{DefaultScheduleTimeoutSeconds: 5}, want: &config.GangArgs{DefaultScheduleTimeoutSeconds: 5}},
		{name: "invalid args", obj: &config.GangArgs{DefaultScheduleTimeoutSeconds: 0}, wantErr: "defaultScheduleTimeoutSeconds: Invalid value: 0: must be between 1 and 900"},
		{name: "another plugin's args", obj: &config.GPUShareArgs{}, wantErr: "want args to be of type GangArgs, got *config.GPUShareArgs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gangArgs(tc.obj)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewFailsClearlyWithoutTheCRD(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	pgs := pgfake.NewSimpleClientset()
	pgs.PrependReactor("list", "podgroups", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(v1alpha1.Resource("podgroups"), "")
	})
	kube := kubefake.NewClientset()
	fh, err := frameworkruntime.NewFramework(ctx, nil, nil,
		frameworkruntime.WithClientSet(kube),
		frameworkruntime.WithInformerFactory(informers.NewSharedInformerFactory(kube, 0)))
	if err != nil {
		t.Fatal(err)
	}
	args, _ := gangArgs(nil)
	_, err = newGang(ctx, args, fh, pgs, testTimings)
	if err == nil || !strings.Contains(err.Error(), "is the CRD podgroups.scheduling.x-k8s.io installed") || !apierrors.IsNotFound(errors.Unwrap(err)) {
		t.Errorf("error %v", err)
	}
}

func TestSchedulingAttemptReachesPodGroupStatus(t *testing.T) {
	h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 2)}, a1, a2)
	before := time.Now().Truncate(time.Second)
	h.pl.PreFilter(h.ctx, framework.NewCycleState(), a1, nil)
	h.eventually("the PodGroup's status", func() bool {
		pg, err := h.pgs.SchedulingV1alpha1().PodGroups("ns").Get(h.ctx, "a", metav1.GetOptions{})
		return err == nil && pg.Status.Phase == v1alpha1.PodGroupPending && !pg.Status.ScheduleStartTime.Before(&metav1.Time{Time: before})
	})
}

// The CI fault of TestManyGangsCompeteForRoomForAFew: a group deleted while its members waited at
// Permit. The scheduler rejects a waiting member whose deletion starts, while the binding cycle of
// another member, failed for the same deletion, runs Gang's Unreserve, which rejects the waiting
// siblings: two rejections of one waiting pod at once. Upstream's waitingPod wrote under its read
// lock there; hack/patches gives it the write lock. Run with -race, as make does: the race
// detector sees the two only when nothing else orders them, so the test tries 20 times; built
// without the patch it failed in 10 of 10 runs.
func TestSchedulerAndGangRejectOneWaitingMemberAtOnce(t *testing.T) {
	for range 20 {
		h := newHarness(t, []*v1alpha1.PodGroup{podGroup("a", 3)}, a1, a2, a3)
		_, done1 := h.waitAtPermit(a1)
		if st := h.pl.Reserve(h.ctx, framework.NewCycleState(), a2, "node-b"); !st.IsSuccess() {
			t.Fatal(st)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); <-start; h.fh.RejectWaitingPod(a1.UID) }()
		go func() { defer wg.Done(); <-start; h.pl.Unreserve(h.ctx, framework.NewCycleState(), a2, "node-b") }()
		close(start)
		wg.Wait()
		if s := verdict(t, done1); s.IsSuccess() {
			t.Fatalf("a1 was let through: %v", s)
		}
	}
}
