package elasticquota

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	eqfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/quota"
	"github.com/berth-sched/berth/pkg/victims"

	// Wires client-go's feature gates to utilfeature.DefaultFeatureGate, as in kube-scheduler.
	_ "k8s.io/kubernetes/pkg/features"
)

type env struct {
	ctx      context.Context
	pl       *ElasticQuota
	recorder *events.FakeRecorder
}

func newEnv(t testing.TB, pods []*v1.Pod, crs ...runtime.Object) *env {
	t.Helper()
	return newEnvWithGPU(t, "", pods, crs...)
}

// newEnvWithGPU is newEnv in a profile whose GPUShare counts GPU memory under gpuMemory (none if
// empty), recorded after ElasticQuota's New, as the framework may build them in either order.
func newEnvWithGPU(t testing.TB, gpuMemory v1.ResourceName, pods []*v1.Pod, crs ...runtime.Object) *env {
	t.Helper()
	// The generated ElasticQuota fake cannot stream a watch list: list, then watch.
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(clientfeatures.WatchListClient), false)
	schedmetrics.Register()
	logger, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	var objs []runtime.Object
	for _, p := range pods {
		objs = append(objs, p)
	}
	cs := fake.NewClientset(objs...)
	// The scheduler's own factory: its pod informer has no namespace index, as in kube-scheduler.
	factory := scheduler.NewInformerFactory(cs, 0, nil)
	recorder := events.NewFakeRecorder(100)
	var pl *ElasticQuota
	newPl := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := newPlugin(ctx, h, eqfake.NewSimpleClientset(crs...), time.Hour)
		pl = p
		if gpuMemory != "" {
			gpu.SetProfileResourceNames(ctx, h, gpu.ResourceNames{Memory: gpuMemory, Count: "example.com/gpu-count"})
		}
		return p, err
	}
	queue := internalqueue.NewSchedulingQueue(nil, factory)
	_, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterPluginAsExtensions(Name, newPl, "PreFilter", "Filter", "Reserve"),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
	}, "",
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithEventRecorder(recorder),
		frameworkruntime.WithPodNominator(queue),
		frameworkruntime.WithPodActivator(queue),
		frameworkruntime.WithLogger(logger),
	)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if err := pl.waitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	return &env{ctx: ctx, pl: pl, recorder: recorder}
}

func elasticQuota(ns, name string, min, max v1.ResourceList) *v1alpha1.ElasticQuota {
	return &v1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.Now()},
		Spec:       v1alpha1.ElasticQuotaSpec{Min: min, Max: max},
	}
}

func cpu(s string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: mustParse(s)} }

func podOf(ns, name, cpu string) *st.PodWrapper {
	return st.MakePod().Namespace(ns).Name(name).UID(ns + "-" + name).Req(map[v1.ResourceName]string{"cpu": cpu})
}

func (e *env) preFilter(t testing.TB, pod *v1.Pod) (fwk.CycleState, *fwk.Status) {
	t.Helper()
	state := framework.NewCycleState()
	_, status := e.pl.PreFilter(e.ctx, state, pod, nil)
	return state, status
}

func TestAdmission(t *testing.T) {
	bound := podOf("a", "bound", "1500m").Node("n1").Obj()
	e := newEnv(t, []*v1.Pod{bound}, elasticQuota("a", "q", nil, cpu("2")))

	_, status := e.preFilter(t, podOf("free", "p", "64").Obj())
	if !status.IsSkip() {
		t.Errorf("namespace without quota: %v, want Skip", status)
	}
	state, status := e.preFilter(t, podOf("a", "p", "1").Obj())
	if status.Code() != fwk.Unschedulable || status.Message() != "quota a/q: cpu used 1500m, requested 1, max 2" {
		t.Errorf("over max: %v, want Unschedulable naming quota, resource, used, requested and max", status)
	}
	if _, status := e.preFilter(t, podOf("a", "huge", "3").Obj()); status.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("more than max on its own: %v, want UnschedulableAndUnresolvable", status)
	}

	// Preemption's dry run removes the bound pod: its quota comes back, and Filter passes.
	pod := podOf("a", "p", "1").Obj()
	boundInfo, _ := framework.NewPodInfo(bound)
	if s := e.pl.RemovePod(e.ctx, state, pod, boundInfo, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := e.pl.Filter(e.ctx, state, pod, nil); !s.IsSuccess() {
		t.Errorf("Filter after the dry run removed the bound pod: %v", s)
	}
	clone := state.Clone()
	if s := e.pl.AddPod(e.ctx, clone, pod, boundInfo, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := e.pl.Filter(e.ctx, clone, pod, nil); s.IsSuccess() {
		t.Error("Filter after the bound pod was added back: want Unschedulable")
	}
	if s := e.pl.Filter(e.ctx, state, pod, nil); !s.IsSuccess() {
		t.Errorf("a clone's AddPod changed the original state: %v", s)
	}

	// Reserve checks again under the ledger's lock: the dry run's view is not the ledger.
	if s := e.pl.Reserve(e.ctx, state, pod, "n1"); s.IsSuccess() {
		t.Error("Reserve over max succeeded")
	}
	small := podOf("a", "small", "500m").Obj()
	sstate, status := e.preFilter(t, small)
	if !status.IsSuccess() {
		t.Fatalf("500m fits: %v", status)
	}
	if s := e.pl.Reserve(e.ctx, sstate, small, "n1"); !s.IsSuccess() {
		t.Fatal(s)
	}
	if _, status := e.preFilter(t, podOf("a", "more", "100m").Obj()); status.IsSuccess() {
		t.Error("the reservation does not count")
	}
	e.pl.Unreserve(e.ctx, sstate, small, "n1")
	if _, status := e.preFilter(t, podOf("a", "more", "100m").Obj()); !status.IsSuccess() {
		t.Errorf("after Unreserve: %v", status)
	}
}

func TestGroupAdmittedWhole(t *testing.T) {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "g"}, Spec: v1alpha1.PodGroupSpec{MinMember: 3}}
	e := newEnv(t, nil, elasticQuota("a", "q", nil, cpu("2")), pg)
	member := podOf("a", "g-0", "1").Label(v1alpha1.PodGroupLabel, "g").Obj()
	_, status := e.preFilter(t, member)
	want := "quota a/q: cpu used 0, requested for pod group g 3, max 2"
	if status.Code() != fwk.UnschedulableAndUnresolvable || status.Message() != want {
		t.Errorf("3 members of 1 cpu under max 2: %v, want %q", status, want)
	}
	// A plain pod of the same size is admitted: it is the group that does not fit.
	if _, status := e.preFilter(t, podOf("a", "plain", "1").Obj()); !status.IsSuccess() {
		t.Errorf("plain pod: %v", status)
	}
}

func TestInvalidQuotasAreReported(t *testing.T) {
	old := elasticQuota("a", "old", cpu("4"), cpu("2"))
	old.CreationTimestamp = metav1.NewTime(time.Unix(1000, 0))
	young := elasticQuota("a", "young", nil, cpu("1"))
	e := newEnv(t, nil, old, young)
	// The oldest is enforced, its min lowered to its max.
	if _, status := e.preFilter(t, podOf("a", "p", "2").Obj()); !status.IsSuccess() {
		t.Errorf("2 cpu under the oldest quota's max 2: %v", status)
	}
	var got []string
	for len(got) < 2 {
		select {
		case ev := <-e.recorder.Events:
			got = append(got, ev)
		case <-time.After(10 * time.Second):
			t.Fatalf("events %q, want two warnings", got)
		}
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{
		"Warning InvalidElasticQuota invalid quantities: min cpu 4 is above max 2, lowered to max",
		"Warning InvalidElasticQuota namespace a has 2 ElasticQuotas; berth enforces only the oldest, old, and ignores this one",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("events %q lack %q", got, want)
		}
	}
}

// TestQueueingHint: a pod waiting for quota is queued by a deletion in its own namespace, or in a
// namespace of its quota's tree (dept > a, b), not by one under another flat quota (c) or without a
// quota (d).
func TestQueueingHint(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	child := func(ns string) *v1alpha1.ElasticQuota {
		q := elasticQuota(ns, "q", cpu("1"), cpu("8"))
		q.Annotations = map[string]string{quota.ParentAnnotation: "org/dept"}
		return q
	}
	dept := elasticQuota("org", "dept", cpu("2"), cpu("8"))
	dept.Annotations = map[string]string{quota.NamespacesAnnotation: ""}
	tree, _, invalid := quota.TreeOf([]*v1alpha1.ElasticQuota{dept, child("a"), child("b"), elasticQuota("c", "q", cpu("1"), cpu("8"))})
	if invalid != nil {
		t.Fatalf("invalid tree: %v", invalid)
	}
	ledger := quota.NewLedger()
	ledger.SetTree(tree)
	pl := &ElasticQuota{shared: &shared{ledger: ledger}}
	pod := podOf("a", "p", "1").Obj()
	for _, tc := range []struct {
		other *v1.Pod
		want  fwk.QueueingHint
	}{
		{podOf("a", "same", "1").Node("n1").Obj(), fwk.Queue},
		{podOf("b", "sibling", "1").Node("n1").Obj(), fwk.Queue},
		{podOf("c", "other-tree", "1").Node("n1").Obj(), fwk.QueueSkip},
		{podOf("d", "no-quota", "1").Node("n1").Obj(), fwk.QueueSkip},
	} {
		if got, err := pl.isSchedulableAfterPodChange(logger, pod, tc.other, nil); err != nil || got != tc.want {
			t.Errorf("pod %s/%s deleted: %v (%v), want %v", tc.other.Namespace, tc.other.Name, got, err, tc.want)
		}
	}
}

// TestNodeHint: a node that joins, or grows in some resource, moves a pod waiting for fair sharing,
// and no other pod ElasticQuota turned away (one over its quota's max gains nothing from a node).
func TestNodeHint(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	tree, _, invalid := quota.TreeOf([]*v1alpha1.ElasticQuota{elasticQuota("a", "q", nil, cpu("8"))})
	if invalid != nil {
		t.Fatalf("invalid tree: %v", invalid)
	}
	ledger := quota.NewLedger()
	ledger.SetTree(tree)
	pl := &ElasticQuota{shared: &shared{ledger: ledger}}
	parked, overMax := podOf("a", "parked", "1").Obj(), podOf("a", "over-max", "1").Obj()
	_, clock := ledger.FairAdmits(parked, amount.Amount{v1.ResourceCPU: 1000}, amount.Amount{v1.ResourceCPU: 4000})
	if !ledger.ParkFair(parked, clock) {
		t.Fatal("ParkFair refused with nothing changed")
	}
	node := func(cpuCount string) *v1.Node {
		return st.MakeNode().Name("n").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: cpuCount, v1.ResourceMemory: "8Gi"}).Obj()
	}
	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		old, cur *v1.Node
		want     fwk.QueueingHint
	}{
		{"node added, pod waits for fair sharing", parked, nil, node("4"), fwk.Queue},
		{"node grew, pod waits for fair sharing", parked, node("4"), node("8"), fwk.Queue},
		{"node shrank, pod waits for fair sharing", parked, node("8"), node("4"), fwk.QueueSkip},
		{"node added, pod over its max", overMax, nil, node("4"), fwk.QueueSkip},
	} {
		if got, err := pl.isSchedulableAfterNodeChange(logger, tc.pod, tc.old, tc.cur); err != nil || got != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
	ledger.Forget(parked.UID)
	if got, _ := pl.isSchedulableAfterNodeChange(logger, parked, nil, node("4")); got != fwk.QueueSkip {
		t.Errorf("node added after the parked pod went: %v, want QueueSkip", got)
	}
}

func mustParse(s string) resource.Quantity { return resource.MustParse(s) }

// TestUnequalMembers: a group's missing members are counted as what its waiting pods ask (the
// least of them, resource by resource), not as copies of the member being admitted.
func TestUnequalMembers(t *testing.T) {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "g"}, Spec: v1alpha1.PodGroupSpec{MinMember: 3}}
	member := func(name, cpu string) *v1.Pod { return podOf("a", name, cpu).Label(v1alpha1.PodGroupLabel, "g").Obj() }
	small, other, big := member("small", "1"), member("other", "1"), member("big", "3")
	for _, tc := range []struct {
		name     string
		pods     []*v1.Pod
		max      string
		asking   *v1.Pod
		wantCode fwk.Code
		wantMsg  string
	}{
		{name: "a small member of 1+1+3 under max 4", pods: []*v1.Pod{small, other, big}, max: "4", asking: small,
			wantCode: fwk.UnschedulableAndUnresolvable, wantMsg: "quota a/q: cpu used 0, requested for pod group g 5, max 4"},
		{name: "the big member of 1+1+3 under max 5", pods: []*v1.Pod{small, other, big}, max: "5", asking: big,
			wantCode: fwk.Success},
		{name: "the least two of three others", pods: []*v1.Pod{small, other, big, member("third", "1")}, max: "3", asking: small,
			wantCode: fwk.Success},
		{name: "members not created yet ask what this one asks", pods: []*v1.Pod{big}, max: "8", asking: big,
			wantCode: fwk.UnschedulableAndUnresolvable, wantMsg: "quota a/q: cpu used 0, requested for pod group g 9, max 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.pods, elasticQuota("a", "q", nil, cpu(tc.max)), pg)
			_, status := e.preFilter(t, tc.asking)
			if status.Code() != tc.wantCode || status.Message() != tc.wantMsg {
				t.Errorf("got %v %q, want %v %q", status.Code(), status.Message(), tc.wantCode, tc.wantMsg)
			}
		})
	}
}

// BenchmarkFilter is Filter on every node of a scheduling cycle whose PreFilter admitted the pod,
// against a quota that names four resources.
func BenchmarkFilter(b *testing.B) {
	limits := v1.ResourceList{v1.ResourceCPU: mustParse("1000"), v1.ResourceMemory: mustParse("1Ti"),
		v1.ResourcePods: mustParse("1000"), "aliyun.com/gpu-mem": mustParse("1000")}
	e := newEnv(b, []*v1.Pod{podOf("a", "bound", "1").Node("n1").Obj()}, elasticQuota("a", "q", nil, limits))
	pod := podOf("a", "p", "1").Obj()
	state, status := e.preFilter(b, pod)
	if !status.IsSuccess() {
		b.Fatal(status)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := e.pl.Filter(e.ctx, state, pod, nil); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
}

// TestGroupReclaimsOnlyWithinMin: a member of a group short of minMember reclaims (takes what
// other quotas borrow) only if the whole group's need stays within its quota's min, as admission
// counts it; a plain pod of the member's size does.
func TestGroupReclaimsOnlyWithinMin(t *testing.T) {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "g"}, Spec: v1alpha1.PodGroupSpec{MinMember: 2}}
	borrowed := podOf("b", "b0", "2").Node("n1").Obj()
	e := newEnv(t, []*v1.Pod{borrowed}, elasticQuota("a", "q", cpu("2"), cpu("8")), elasticQuota("b", "q", nil, cpu("8")), pg)
	rule := &victimRule{e.pl.shared}
	tests := []struct {
		name string
		pod  *v1.Pod
		want victims.Verdict
	}{
		{"a plain pod within min", podOf("a", "plain", "2").Obj(), victims.Allowed},
		{"a member whose group needs twice the min", podOf("a", "g-0", "2").Label(v1alpha1.PodGroupLabel, "g").Obj(), victims.Never},
		{"a member whose group fits the min", podOf("a", "g-0", "1").Label(v1alpha1.PodGroupLabel, "g").Obj(), victims.Allowed},
	}
	for _, tc := range tests {
		j := rule.ForPreemptor(tc.pod, nil)
		if j == nil {
			t.Fatalf("%s: no quota rule", tc.name)
		}
		if got := j.Verdict([]*v1.Pod{borrowed}); got != tc.want {
			t.Errorf("%s: verdict on a borrowed pod %v, want %v", tc.name, got, tc.want)
		}
	}
}

func annotated(eq *v1alpha1.ElasticQuota, kv ...string) *v1alpha1.ElasticQuota {
	eq.Annotations = map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		eq.Annotations[kv[i]] = kv[i+1]
	}
	return eq
}

// TestQuotaTree: a pod is admitted only within every max on its path, and one that waits names
// the quota on its path that limits it; an invalid change leaves the last valid tree in force and
// says why on the ElasticQuota.
func TestQuotaTree(t *testing.T) {
	bound := podOf("team-a", "bound", "3").Node("n1").Obj()
	dept := annotated(elasticQuota("org", "dept", cpu("4"), cpu("4")), quota.NamespacesAnnotation, "")
	teamA := annotated(elasticQuota("team-a", "q", cpu("2"), cpu("8")), quota.ParentAnnotation, "org/dept")
	teamB := annotated(elasticQuota("team-b", "q", cpu("2"), cpu("8")), quota.ParentAnnotation, "org/dept")
	e := newEnv(t, []*v1.Pod{bound}, dept, teamA, teamB)

	state, status := e.preFilter(t, podOf("team-b", "p", "2").Obj())
	want := "quota org/dept, above team-b/q in its tree: cpu used 3, requested 2, max 4 (1 over)"
	if status.Code() != fwk.Unschedulable || status.Message() != want {
		t.Fatalf("team-b under the department: %v, want %q", status, want)
	}
	// Preemption's dry run removing team-a's pod gives the department room.
	pod := podOf("team-b", "p", "2").Obj()
	boundInfo, _ := framework.NewPodInfo(bound)
	if s := e.pl.RemovePod(e.ctx, state, pod, boundInfo, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := e.pl.Filter(e.ctx, state, pod, nil); !s.IsSuccess() {
		t.Errorf("Filter after the dry run removed team-a's pod: %v", s)
	}
	if _, status := e.preFilter(t, podOf("team-b", "huge", "5").Obj()); status.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("more than the department's max on its own: %v, want UnschedulableAndUnresolvable", status)
	}
	if _, status := e.preFilter(t, podOf("team-b", "small", "1").Obj()); !status.IsSuccess() {
		t.Errorf("1 cpu fits the department: %v", status)
	}

	// team-b's min raised above what the department can carve: invalid, the old tree stays.
	bad := teamB.DeepCopy()
	bad.Spec.Min = cpu("3")
	if _, err := e.pl.groups.Client.SchedulingV1alpha1().ElasticQuotas("team-b").Update(e.ctx, bad, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	wantEvent := "Warning InvalidElasticQuota this change is not in force: the quota tree is invalid (org/dept: its children's min cpu adds up to 5"
	deadline := time.After(10 * time.Second)
	for found := false; !found; {
		select {
		case ev := <-e.recorder.Events:
			found = strings.HasPrefix(ev, wantEvent)
		case <-deadline:
			t.Fatalf("no event %q", wantEvent)
		}
	}
	if tree := e.pl.ledger.Tree(); tree.Quota("team-b/q").Spec.Min[v1.ResourceCPU] != 2000 {
		t.Errorf("the last valid tree is not in force: team-b's min %v", tree.Quota("team-b/q").Spec.Min)
	}
	if _, status := e.preFilter(t, podOf("team-b", "p", "2").Obj()); status.Message() != want {
		t.Errorf("after the invalid change: %v, want %q", status, want)
	}
}
