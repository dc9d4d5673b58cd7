package qossort

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/podgroup"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// queued wraps a pod as the scheduling queue does.
func queued(t testing.TB, pod *v1.Pod, ts time.Time) *framework.QueuedPodInfo {
	t.Helper()
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		t.Fatal(err)
	}
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: ts}}
}

func group(prio int32, ts time.Time) *framework.QueuedPodGroupInfo {
	return &framework.QueuedPodGroupInfo{
		PodGroupInfo: &framework.PodGroupInfo{
			Namespace: "ns", Name: "g", Type: fwk.PodGroupKeyType,
			PodGroup: &schedulingv1beta1.PodGroup{Spec: schedulingv1beta1.PodGroupSpec{Priority: &prio}},
		},
		QueueingParams: framework.QueueingParams{Timestamp: ts},
		QueuedPodInfos: map[fwk.EntityKey][]*framework.QueuedPodInfo{},
	}
}

// Pods of each class; the apiserver stores status.qosClass, these leave it empty so the class is
// computed from the container as Kubernetes does.
func withContainer(name string, req, lim v1.ResourceList) *st.PodWrapper {
	return st.MakePod().Name(name).Containers([]v1.Container{{
		Name: "c", Image: "i", Resources: v1.ResourceRequirements{Requests: req, Limits: lim},
	}})
}

var oneCPU = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")}

func guaranteed(name string) *st.PodWrapper { return withContainer(name, oneCPU, oneCPU) }
func burstable(name string) *st.PodWrapper  { return withContainer(name, oneCPU, nil) }
func bestEffort(name string) *st.PodWrapper { return withContainer(name, nil, nil) }

func TestClasses(t *testing.T) {
	for want, pod := range map[v1.PodQOSClass]*v1.Pod{
		v1.PodQOSGuaranteed: guaranteed("g").Obj(),
		v1.PodQOSBurstable:  burstable("b").Obj(),
		v1.PodQOSBestEffort: bestEffort("be").Obj(),
	} {
		if got := qos.GetPodQOS(pod); got != want {
			t.Errorf("test pod %s has QoS %s, want %s", pod.Name, got, want)
		}
	}
}

func TestLess(t *testing.T) {
	tests := []struct {
		name   string
		e1, e2 func(t *testing.T) fwk.QueuedEntityInfo
		want   bool
	}{
		{
			name: "higher priority first, whatever the QoS",
			e1: func(t *testing.T) fwk.QueuedEntityInfo {
				return queued(t, bestEffort("a").Priority(10).Obj(), t0.Add(time.Hour))
			},
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Priority(5).Obj(), t0) },
			want: true,
		},
		{
			name: "lower priority last",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("a").Priority(5).Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Priority(10).Obj(), t0) },
			want: false,
		},
		{
			name: "Guaranteed before Burstable at equal priority, even if later",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("a").Obj(), t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: true,
		},
		{
			name: "Burstable before BestEffort",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Obj(), t0) },
			want: true,
		},
		{
			name: "Guaranteed before BestEffort",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("a").Obj(), t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Obj(), t0) },
			want: true,
		},
		{
			name: "BestEffort after Guaranteed",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("a").Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Obj(), t0.Add(time.Hour)) },
			want: false,
		},
		{
			name: "stored status.qosClass is what counts",
			e1: func(t *testing.T) fwk.QueuedEntityInfo {
				p := bestEffort("a").Obj()
				p.Status.QOSClass = v1.PodQOSGuaranteed
				return queued(t, p, t0.Add(time.Hour))
			},
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: true,
		},
		{
			name: "same priority and class: earlier first",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0.Add(time.Second)) },
			want: true,
		},
		{
			name: "same priority and class: later last",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0.Add(time.Second)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: false,
		},
		{
			name: "identical keys are not less",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: false,
		},
		{
			name: "pod group by priority against a pod",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(10, t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Priority(5).Obj(), t0) },
			want: true,
		},
		{
			name: "pod group ranks as Burstable: after Guaranteed",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Obj(), t0.Add(time.Hour)) },
			want: false,
		},
		{
			name: "pod group ranks as Burstable: before BestEffort",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Obj(), t0) },
			want: true,
		},
		{
			name: "two pod groups by timestamp",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0.Add(time.Second)) },
			want: true,
		},
	}
	pl := &QOSSort{groups: &podgroup.Order{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pl.Less(tt.e1(t), tt.e2(t)); got != tt.want {
				t.Errorf("Less() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOrder sorts a mixed queue with Less and checks the whole order, which also exercises that
// Less is a consistent ordering over pods and groups together.
func TestOrder(t *testing.T) {
	entities := []fwk.QueuedEntityInfo{
		queued(t, bestEffort("be-early").Obj(), t0),
		queued(t, guaranteed("g-late").Obj(), t0.Add(3*time.Second)),
		queued(t, burstable("b-mid").Obj(), t0.Add(time.Second)),
		queued(t, bestEffort("be-high").Priority(100).Obj(), t0.Add(9*time.Second)),
		queued(t, guaranteed("g-early").Obj(), t0.Add(2*time.Second)),
		group(0, t0.Add(500*time.Millisecond)),
		queued(t, burstable("b-low").Priority(-5).Obj(), t0),
	}
	pl := &QOSSort{groups: &podgroup.Order{}}
	sort.SliceStable(entities, func(i, j int) bool { return pl.Less(entities[i], entities[j]) })
	var got []string
	for _, e := range entities {
		if pe, ok := e.(podEntity); ok {
			got = append(got, pe.GetPodInfo().GetPod().Name)
		} else {
			got = append(got, "group")
		}
	}
	want := []string{"be-high", "g-early", "g-late", "group", "b-mid", "be-early", "b-low"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// member is a pod of scheduler-plugins' pod group group, queued at ts.
func member(t *testing.T, group, name string, ts time.Time) *framework.QueuedPodInfo {
	t.Helper()
	return queued(t, burstable(name).Namespace("ns").Label(v1alpha1.PodGroupLabel, group).Obj(), ts)
}

// The members of a pod group whose creation time is known leave the queue one after another, in
// the order of their groups' creation (then names), among other pods at the groups' creation
// times; a member of a group with no recorded time sorts as a plain pod.
func TestGroupMembersAreContiguous(t *testing.T) {
	a, b, c := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}, types.NamespacedName{Namespace: "ns", Name: "c"}
	var order podgroup.Order
	order.Note(b, t0) // b before a: creation time first, then name
	order.Note(a, t0.Add(time.Second))
	order.Note(c, t0.Add(time.Second))

	// Queued interleaved, as members of competing groups are when their backoffs end together.
	entities := []fwk.QueuedEntityInfo{
		member(t, "a", "a-0", t0.Add(10*time.Second)),
		member(t, "c", "c-0", t0.Add(11*time.Second)),
		member(t, "b", "b-0", t0.Add(12*time.Second)),
		queued(t, burstable("plain-early").Obj(), t0.Add(500*time.Millisecond)),
		member(t, "a", "a-1", t0.Add(13*time.Second)),
		member(t, "c", "c-1", t0.Add(14*time.Second)),
		member(t, "b", "b-1", t0.Add(15*time.Second)),
		queued(t, burstable("plain-late").Obj(), t0.Add(16*time.Second)),
		member(t, "unknown", "u-0", t0.Add(9*time.Second)),
		member(t, "a", "a-2", t0.Add(17*time.Second)),
	}
	pl := &QOSSort{groups: &order}
	sort.SliceStable(entities, func(i, j int) bool { return pl.Less(entities[i], entities[j]) })
	var got []string
	for _, e := range entities {
		got = append(got, e.(podEntity).GetPodInfo().GetPod().Name)
	}
	want := []string{"b-0", "b-1", "plain-early", "a-0", "a-1", "a-2", "c-0", "c-1", "u-0", "plain-late"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// QOSSort reads the group order of its own scheduler, which it is handed when built, whichever
// profile's Gang wrote it; another scheduler's order does not reach it.
func TestNewReadsItsSchedulersOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := informers.NewSharedInformerFactory(kubefake.NewClientset(), 0)
	handle := func(factory informers.SharedInformerFactory) fwk.Handle {
		h, err := frameworkruntime.NewFramework(ctx, nil, nil, frameworkruntime.WithInformerFactory(factory))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	pl, err := New(ctx, nil, handle(factory))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := podgroup.OrderOf(ctx, handle(factory)) // another profile of the same scheduler
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := podgroup.OrderOf(ctx, handle(informers.NewSharedInformerFactory(kubefake.NewClientset(), 0)))
	if err != nil {
		t.Fatal(err)
	}
	early, late := member(t, "a", "a-0", t0), member(t, "b", "b-0", t0.Add(time.Minute))
	theirs.Note(types.NamespacedName{Namespace: "ns", Name: "b"}, t0.Add(-time.Hour))
	if pl.(*QOSSort).Less(late, early) {
		t.Error("another scheduler's group order reached this scheduler's queue")
	}
	ours.Note(types.NamespacedName{Namespace: "ns", Name: "b"}, t0.Add(-time.Hour))
	if !pl.(*QOSSort).Less(late, early) {
		t.Error("a group created earlier in this scheduler's order does not sort first")
	}
}

// created is a Burstable pod created at at and queued at ts.
func created(t *testing.T, name string, at, ts time.Time) *framework.QueuedPodInfo {
	t.Helper()
	return queued(t, burstable(name).CreationTimestamp(metav1.NewTime(at)).Obj(), ts)
}

// A scheduler that starts stamps a backlog within a second in the order of its first list (the
// pods' names); QOSSort takes it in the order the pods were created. A pod that failed and was
// queued again keeps its place; pods created in the same second go in the order they were queued.
func TestFirstComeFirstServed(t *testing.T) {
	start := t0.Add(time.Hour) // the scheduler's start, long after the pods were created
	entities := []fwk.QueuedEntityInfo{
		created(t, "a", t0.Add(4*time.Second), start),
		created(t, "b", t0.Add(3*time.Second), start.Add(time.Millisecond)),
		created(t, "c-requeued", t0.Add(1*time.Second), start.Add(time.Minute)), // failed, queued again
		created(t, "d", t0.Add(2*time.Second), start.Add(3*time.Millisecond)),
		created(t, "e-same-second-later", t0.Add(2*time.Second), start.Add(5*time.Millisecond)),
		created(t, "f-same-second-earlier", t0.Add(2*time.Second), start.Add(4*time.Millisecond)),
		queued(t, guaranteed("g-young-guaranteed").CreationTimestamp(metav1.NewTime(t0.Add(time.Hour))).Obj(), start),
	}
	pl := &QOSSort{groups: &podgroup.Order{}}
	sort.SliceStable(entities, func(i, j int) bool { return pl.Less(entities[i], entities[j]) })
	var got []string
	for _, e := range entities {
		got = append(got, e.(podEntity).GetPodInfo().GetPod().Name)
	}
	// e and f were created in one second as the API stores it (whole seconds): by queue time.
	want := []string{"g-young-guaranteed", "c-requeued", "d", "f-same-second-earlier", "e-same-second-later", "b", "a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// A group's members sit among plain pods at the group's creation time, plain pods at theirs.
func TestGroupsAmongPodsByCreation(t *testing.T) {
	var order podgroup.Order
	order.Note(types.NamespacedName{Namespace: "ns", Name: "g"}, t0.Add(2*time.Second))
	start := t0.Add(time.Hour)
	entities := []fwk.QueuedEntityInfo{
		created(t, "late", t0.Add(3*time.Second), start),
		member(t, "g", "g-1", start.Add(time.Millisecond)),
		created(t, "early", t0.Add(time.Second), start.Add(2*time.Millisecond)),
		member(t, "g", "g-0", start.Add(3*time.Millisecond)),
	}
	pl := &QOSSort{groups: &order}
	sort.SliceStable(entities, func(i, j int) bool { return pl.Less(entities[i], entities[j]) })
	var got []string
	for _, e := range entities {
		got = append(got, e.(podEntity).GetPodInfo().GetPod().Name)
	}
	want := []string{"early", "g-1", "g-0", "late"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// native is a native PodGroup entity for ns/name, the PodGroup created at created, the entity
// queued at ts.
func native(name string, created, ts time.Time) *framework.QueuedPodGroupInfo {
	g := group(0, ts)
	g.Name = name
	g.PodGroup.Namespace, g.PodGroup.Name = "ns", name
	g.PodGroup.CreationTimestamp = metav1.NewTime(created)
	return g
}

func names(entities []fwk.QueuedEntityInfo) []string {
	var got []string
	for _, e := range entities {
		switch e := e.(type) {
		case podEntity:
			got = append(got, e.GetPodInfo().GetPod().Name)
		case *framework.QueuedPodGroupInfo:
			got = append(got, e.GetName())
		}
	}
	return got
}

// A scheduler that starts queues a backlog of native groups within a second, in the order of its
// informer's list: their queue timestamps say nothing of which group came first.
func TestNativeGroupsByCreation(t *testing.T) {
	start := t0.Add(time.Hour)
	entities := []fwk.QueuedEntityInfo{
		native("c", t0.Add(3*time.Second), start),
		native("a", t0.Add(time.Second), start.Add(time.Millisecond)),
		native("b2", t0.Add(2*time.Second), start.Add(2*time.Millisecond)),
		native("b1", t0.Add(2*time.Second), start.Add(3*time.Millisecond)),
	}
	pl := &QOSSort{groups: &podgroup.Order{}}
	sort.SliceStable(entities, func(i, j int) bool { return pl.Less(entities[i], entities[j]) })
	want := []string{"a", "b1", "b2", "c"}
	if diff := cmp.Diff(want, names(entities)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// Native groups sit among plain pods and scheduler-plugins groups by creation time.
func TestNativeGroupsAmongPodsByCreation(t *testing.T) {
	var order podgroup.Order
	order.Note(types.NamespacedName{Namespace: "ns", Name: "g"}, t0.Add(4*time.Second))
	start := t0.Add(time.Hour)
	entities := []fwk.QueuedEntityInfo{
		created(t, "late", t0.Add(5*time.Second), start),
		native("n2", t0.Add(3*time.Second), start.Add(time.Millisecond)),
		member(t, "g", "g-0", start.Add(2*time.Millisecond)),
		created(t, "early", t0.Add(time.Second), start.Add(3*time.Millisecond)),
		native("n1", t0.Add(2*time.Second), start.Add(4*time.Millisecond)),
	}
	pl := &QOSSort{groups: &order}
	sort.SliceStable(entities, func(i, j int) bool { return pl.Less(entities[i], entities[j]) })
	want := []string{"early", "n1", "n2", "g-0", "late"}
	if diff := cmp.Diff(want, names(entities)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// The queue swaps a queued group's PodGroup object in place on every update; one of the same name
// created again arrives that way after a relist. The entity's key must stay what it was.
func TestNativeGroupKeyStaysWhileQueued(t *testing.T) {
	pl := &QOSSort{groups: &podgroup.Order{}}
	old := native("old", t0.Add(time.Second), t0.Add(time.Hour))
	young := native("young", t0.Add(2*time.Second), t0.Add(time.Hour))
	if !pl.Less(old, young) {
		t.Fatal("the older group does not sort first")
	}
	recreated := old.PodGroup.DeepCopy()
	recreated.CreationTimestamp = metav1.NewTime(t0.Add(3 * time.Second))
	recreated.UID = "other"
	old.UpdatePodGroup(recreated)
	if !pl.Less(old, young) || pl.Less(young, old) {
		t.Error("the queued group's key moved when its PodGroup object was replaced")
	}
	// A group queued anew (a new entity) takes its PodGroup's time as it is then.
	again := native("old", t0.Add(3*time.Second), t0.Add(2*time.Hour))
	if !pl.Less(young, again) {
		t.Error("a new entity of the recreated group does not sort by the new PodGroup's creation time")
	}
}

// A composite group sorts by its CompositePodGroup's creation time.
func TestCompositeGroupByCreation(t *testing.T) {
	pl := &QOSSort{groups: &podgroup.Order{}}
	comp := &framework.QueuedPodGroupInfo{
		PodGroupInfo: &framework.PodGroupInfo{
			Namespace: "ns", Name: "comp", Type: fwk.CompositePodGroupKeyType,
			CompositePodGroup: &schedulingv1alpha3.CompositePodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "comp", CreationTimestamp: metav1.NewTime(t0)},
			},
		},
		QueueingParams: framework.QueueingParams{Timestamp: t0.Add(time.Hour)},
	}
	leaf := native("leaf", t0.Add(time.Second), t0)
	if !pl.Less(comp, leaf) || pl.Less(leaf, comp) {
		t.Error("the composite group created first does not sort first")
	}
}

// A group's key goes when the queue lets go of its entity: a scheduler that sees groups come and
// go for months keeps no key per group it ever queued.
func TestNativeGroupKeyGoesWithItsEntity(t *testing.T) {
	pl := &QOSSort{groups: &podgroup.Order{}}
	stays := native("stays", t0, t0)
	for i := range 100 {
		pl.Less(native(fmt.Sprintf("g-%d", i), t0, t0), stays)
	}
	count := func() int {
		n := 0
		pl.native.Range(func(_, _ any) bool { n++; return true })
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for count() > 1 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := count(); n != 1 {
		t.Errorf("%d keys kept after the entities went, want 1 (the one still held)", n)
	}
	runtime.KeepAlive(stays)
}
