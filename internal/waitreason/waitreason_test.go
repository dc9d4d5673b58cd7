package waitreason

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/leader"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/pkg/why"
)

var epoch = time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)

// fixture is a publisher over a fake clientset, its caches filled by hand so that a test decides
// what the cache has seen (the scheduler's informers lag the API server).
type fixture struct {
	p        *publisher
	client   *fake.Clientset
	recorder *events.FakeRecorder
	factory  informers.SharedInformerFactory
}

func newFixture(t testing.TB, cfg Config, objs ...*v1.Pod) *fixture {
	t.Helper()
	logger, _ := ktesting.NewTestContext(t)
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	f := &fixture{client: client, recorder: events.NewFakeRecorder(100), factory: factory}
	f.p = &publisher{
		cfg:      cfg,
		client:   client,
		pods:     factory.Core().V1().Pods().Lister(),
		nodes:    factory.Core().V1().Nodes().Lister(),
		gate:     leader.NewGate(func() (bool, bool) { return true, true }),
		logger:   logger,
		now:      func() time.Time { return epoch },
		profiles: map[string]profile{"berth": {recorder: f.recorder, key: "berth"}},
		last:     map[types.UID]string{},
		checked:  map[types.UID]time.Time{},
	}
	f.node("node", "2")
	for _, p := range objs {
		f.cache(p)
		if _, err := client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// node puts a node with cpu allocatable in the cache.
func (f *fixture) node(name, cpu string) {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("16Gi"), v1.ResourcePods: resource.MustParse("110"),
	}}}
	_ = f.factory.Core().V1().Nodes().Informer().GetIndexer().Update(n)
}

func (f *fixture) cache(p *v1.Pod) {
	_ = f.factory.Core().V1().Pods().Informer().GetIndexer().Update(p)
}

// writes are the status patches since the last call, by pod name, and the events.
func (f *fixture) writes(t *testing.T) (patched []string, events []string) {
	t.Helper()
	for _, a := range f.client.Actions() {
		if pa, ok := a.(clienttesting.PatchAction); ok && pa.GetSubresource() == "status" {
			patched = append(patched, pa.GetName())
		}
	}
	f.client.ClearActions()
	for {
		select {
		case e := <-f.recorder.Events:
			events = append(events, e)
		default:
			return patched, events
		}
	}
}

// waiting is a pod of profile "berth" that asks for cpu and has waited since at.
func waiting(name, cpu string, at time.Time) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), CreationTimestamp: metav1.NewTime(at.Add(-time.Second))},
		Spec: v1.PodSpec{SchedulerName: "berth", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending, Conditions: []v1.PodCondition{{
			Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
			Message: "0/1 nodes are available: 1 Insufficient cpu.", LastTransitionTime: metav1.NewTime(at),
		}}},
	}
}

// Only pods of berth's profiles that have waited unscheduled longer than After are answered: not
// young ones, bound, terminating or finished ones, nor another scheduler's.
func TestSweepSelectsLongWaitingPods(t *testing.T) {
	old := epoch.Add(-5 * time.Minute)
	bound := waiting("bound", "1", old)
	bound.Spec.NodeName = "node"
	deleting := waiting("deleting", "4", old)
	deleting.DeletionTimestamp = &metav1.Time{Time: epoch}
	finished := waiting("finished", "4", old)
	finished.Status.Phase = v1.PodFailed
	other := waiting("other", "4", old)
	other.Spec.SchedulerName = "default-scheduler"
	created := waiting("never-tried", "4", old)
	created.Status.Conditions = nil
	f := newFixture(t, DefaultConfig(), waiting("old", "4", old), waiting("young", "4", epoch.Add(-30*time.Second)),
		bound, deleting, finished, other, created)
	f.p.sweep(context.Background())
	patched, events := f.writes(t)
	// never-tried was created a second before old's condition: it has waited longer.
	if strings.Join(patched, ",") != "never-tried,old" {
		t.Errorf("patched %v, want the pod the scheduler never tried (created first), then the old one", patched)
	}
	// The bound pod holds 1 of the node's 2 cpu.
	if len(events) != 2 || !strings.Contains(events[0], "Normal WaitingFor Resources: ") || !strings.Contains(events[0], "asks 4, 1 free") {
		t.Errorf("events %q, want one Normal WaitingFor per pod with the cause and its numbers", events)
	}
	got, err := f.client.CoreV1().Pods("ns").Get(context.Background(), "old", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := conditionOf(got)
	if c == nil || c.Status != v1.ConditionTrue || c.Reason != why.CauseResources || !strings.Contains(c.Message, "asks 4, 1 free") {
		t.Fatalf("condition %+v, want %s True, reason %s, the numbers in the message", c, ConditionType, why.CauseResources)
	}
	if len(got.Status.Conditions) != 2 {
		t.Errorf("conditions %+v: the scheduler's PodScheduled must be kept", got.Status.Conditions)
	}
}

// A backlog larger than MaxPods is answered oldest first, MaxPods a sweep, and in turn: the next
// sweep answers those not yet answered before it looks at the first again.
func TestSweepBoundedAndInTurn(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxPods = 2
	f := newFixture(t, cfg, waiting("c", "4", epoch.Add(-3*time.Minute)), waiting("a", "4", epoch.Add(-5*time.Minute)),
		waiting("b", "4", epoch.Add(-4*time.Minute)))
	f.p.sweep(context.Background())
	if patched, _ := f.writes(t); strings.Join(patched, ",") != "a,b" {
		t.Errorf("first sweep patched %v, want the two oldest, a,b", patched)
	}
	// The cache has not seen the writes yet: a is looked at again, but not written twice.
	f.p.sweep(context.Background())
	if patched, _ := f.writes(t); strings.Join(patched, ",") != "c" {
		t.Errorf("second sweep patched %v, want c only", patched)
	}
	if len(f.p.checked) != 3 {
		t.Errorf("checked %v, want all three", f.p.checked)
	}
}

// An answer is written once; with nothing changing, no further sweep writes, even after a restart
// (a new leader) once the cache holds the condition; when the numbers change, the condition and
// one more event follow. A pod that is bound is forgotten.
func TestSweepWritesOnlyWhenTheAnswerChanges(t *testing.T) {
	f := newFixture(t, DefaultConfig(), waiting("p", "4", epoch.Add(-5*time.Minute)))
	ctx := context.Background()
	f.p.sweep(ctx)
	if patched, events := f.writes(t); len(patched) != 1 || len(events) != 1 {
		t.Fatalf("first sweep: patches %v, events %q; want one of each", patched, events)
	}
	for range 3 {
		f.p.sweep(ctx)
	}
	if patched, events := f.writes(t); len(patched) != 0 || len(events) != 0 {
		t.Errorf("sweeps with nothing changed wrote: patches %v, events %q", patched, events)
	}
	// The cache sees the write; a new publisher (a restart, a new leader) has no memory of it.
	written, err := f.client.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.cache(written)
	f.p.last = map[types.UID]string{}
	f.p.sweep(ctx)
	if patched, events := f.writes(t); len(patched) != 0 || len(events) != 0 {
		t.Errorf("a publisher without memory rewrote the answer the pod has: patches %v, events %q", patched, events)
	}
	// The node grows: the pod still lacks room, by other numbers.
	f.node("node", "3")
	f.p.sweep(ctx)
	patched, events := f.writes(t)
	if len(patched) != 1 || len(events) != 1 || !strings.Contains(events[0], "asks 4, 3 free") {
		t.Errorf("after the change: patches %v, events %q; want one of each with the new numbers", patched, events)
	}
	// Bound: no longer waiting, forgotten.
	written.Spec.NodeName = "node"
	f.cache(written)
	f.p.sweep(ctx)
	if len(f.p.last) != 0 || len(f.p.checked) != 0 {
		t.Errorf("a bound pod is remembered: last %v, checked %v", f.p.last, f.p.checked)
	}
}

// Malformed annotations never stop a sweep: the pod gets an answer saying what cannot be read,
// and the next pod is answered too.
func TestSweepMalformedAnnotations(t *testing.T) {
	bad := waiting("bad", "1", epoch.Add(-5*time.Minute))
	bad.Annotations = map[string]string{"berth.dev/gpu-count": "many", "ALIYUN_COM_GPU_MEM_IDX": "x"}
	bad.Spec.Containers[0].Resources.Limits = v1.ResourceList{"aliyun.com/gpu-mem": resource.MustParse("8")}
	badGroup := waiting("bad-group", "1", epoch.Add(-4*time.Minute))
	badGroup.Labels = map[string]string{"scheduling.x-k8s.io/pod-group": "no-such-group"}
	// A bound pod whose device annotation cannot be read counts for its cpu, not its GPUs.
	boundBad := waiting("bound-bad", "100m", epoch.Add(-time.Hour))
	boundBad.Spec.NodeName = "node"
	boundBad.Annotations = map[string]string{"berth.dev/gpu-devices": "0:x,,9", "ALIYUN_COM_GPU_MEM_IDX": "-1"}
	f := newFixture(t, DefaultConfig(), bad, badGroup, waiting("good", "4", epoch.Add(-3*time.Minute)), boundBad)
	f.p.sweep(context.Background())
	patched, events := f.writes(t)
	if strings.Join(patched, ",") != "bad,bad-group,good" {
		t.Errorf("patched %v, want every pod answered", patched)
	}
	if len(events) != 3 || !strings.Contains(events[0], "its GPU request cannot be read") || !strings.Contains(events[2], "asks 4, 1900m free") {
		t.Errorf("events %q: want the unreadable request named, and the good pod answered with its numbers", events)
	}
}

// answer turns a panic into an error for the pod it was asked about.
func TestAnswerRecovers(t *testing.T) {
	if _, err := answer(why.Input{}, nil); err == nil {
		t.Error("an answer without a pod: no error")
	}
}

func TestShort(t *testing.T) {
	w := &why.Answer{Cause: why.CauseQuota, Summary: "ElasticQuota a/q is full in cpu: 2 used of max 2, and the pod asks 1; 1 over",
		Unblock: []string{"pods of quota a/q end, freeing 1: a/x (2)", "or raise max"}}
	if got, want := Short(w, 512), "Quota: ElasticQuota a/q is full in cpu: 2 used of max 2, and the pod asks 1; 1 over; would unblock: pods of quota a/q end, freeing 1: a/x (2)"; got != want {
		t.Errorf("Short:\n got %q\nwant %q", got, want)
	}
	long := &why.Answer{Cause: "X", Summary: strings.Repeat("é", 100)}
	got := Short(long, 64)
	if len(got) > 64 || !utf8.ValidString(got) || !strings.HasSuffix(got, "...") {
		t.Errorf("Short cut to 64: %q (%d bytes)", got, len(got))
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	bad := Config{Period: time.Millisecond, After: -time.Second, MaxPods: 0, MaxMessage: 4096}
	err := bad.Validate()
	for _, flag := range []string{"--wait-reason-period", "--wait-reason-after", "--wait-reason-max-pods", "--wait-reason-max-message"} {
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("Validate(%+v) = %v, want it to name %s", bad, err, flag)
		}
	}
}

// stubHandle is the little of a framework handle Start reads.
type stubHandle struct {
	fwk.Handle
	profile string
	factory informers.SharedInformerFactory
	client  *fake.Clientset
}

func (h stubHandle) ProfileName() string                                    { return h.profile }
func (h stubHandle) SharedInformerFactory() informers.SharedInformerFactory { return h.factory }
func (h stubHandle) ClientSet() kubernetes.Interface                        { return h.client }
func (h stubHandle) EventRecorder() events.EventRecorderLogger              { return events.NewFakeRecorder(1) }

// One publisher per scheduler (informer factory), however many profiles; each profile's scheduler
// name is answered for. Disabled starts none.
func TestStartOncePerScheduler(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	off := DefaultConfig()
	off.Disabled = true
	if err := Start(ctx, stubHandle{profile: "a", factory: factory, client: client}, off); err != nil {
		t.Fatal(err)
	}
	if _, ok := processState.Lookup(factory); ok {
		t.Fatal("a disabled publisher was started")
	}
	for _, name := range []string{"a", "b", "a"} {
		if err := Start(ctx, stubHandle{profile: name, factory: factory, client: client}, DefaultConfig()); err != nil {
			t.Fatal(err)
		}
	}
	p, ok := processState.Lookup(factory)
	if !ok {
		t.Fatal("no publisher")
	}
	// b's Gang places by its own levels: b's pods are answered by them, a's by the default.
	UseLevels(stubHandle{profile: "b", factory: factory, client: client}, topology.Levels{"example.com/rack"})
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.profiles) != 2 {
		t.Errorf("profiles %v, want a and b", p.profiles)
	}
	if got := p.profiles["b"].levels; len(got) != 1 || got[0] != "example.com/rack" || p.profiles["a"].levels != nil {
		t.Errorf("levels a %v b %v, want none and [example.com/rack]", p.profiles["a"].levels, got)
	}
	bad := DefaultConfig()
	bad.MaxPods = 0
	if err := Start(ctx, stubHandle{profile: "c", factory: informers.NewSharedInformerFactory(client, 0), client: client}, bad); err == nil {
		t.Error("an invalid configuration was accepted")
	}
}
