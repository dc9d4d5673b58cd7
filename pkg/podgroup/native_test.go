package podgroup

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"

	"github.com/berth-sched/berth/pkg/topology"
)

func nativePodGroup(name string, mutate ...func(*schedulingv1beta1.PodGroup)) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3},
		}},
	}
	for _, m := range mutate {
		m(pg)
	}
	return pg
}

func withTopology(key string) func(*schedulingv1beta1.PodGroup) {
	return func(pg *schedulingv1beta1.PodGroup) {
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
			Topology: []schedulingv1beta1.TopologyConstraint{{Key: key}},
		}
	}
}

func withAnnotations(a map[string]string) func(*schedulingv1beta1.PodGroup) {
	return func(pg *schedulingv1beta1.PodGroup) { pg.Annotations = a }
}

// FromNative gives Gang a native group's quorum, creation time and required topology level, under
// a key no scheduler-plugins PodGroup can have.
func TestFromNative(t *testing.T) {
	tests := []struct {
		name            string
		pg              *schedulingv1beta1.PodGroup
		wantMin         int32
		wantAnnotations map[string]string
	}{
		{
			name:    "gang policy: minCount is minMember",
			pg:      nativePodGroup("g"),
			wantMin: 3,
		},
		{
			name: "basic policy: members go one by one",
			pg: nativePodGroup("g", func(pg *schedulingv1beta1.PodGroup) {
				pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}
			}),
			wantMin: 1,
		},
		{
			name:            "a topology constraint is a required level",
			pg:              nativePodGroup("g", withTopology(topology.RackLabel)),
			wantMin:         3,
			wantAnnotations: map[string]string{topology.RequiredAnnotation: topology.RackLabel},
		},
		{
			name:            "berth's annotations apply without a constraint",
			pg:              nativePodGroup("g", withAnnotations(map[string]string{topology.PreferredAnnotation: topology.BlockLabel, "other": "kept"})),
			wantMin:         3,
			wantAnnotations: map[string]string{topology.PreferredAnnotation: topology.BlockLabel},
		},
		{
			name: "the constraint takes the place of berth's annotations",
			pg: nativePodGroup("g", withTopology(topology.RackLabel),
				withAnnotations(map[string]string{topology.PreferredAnnotation: topology.BlockLabel, topology.RequiredAnnotation: topology.ZoneLabel})),
			wantMin:         3,
			wantAnnotations: map[string]string{topology.RequiredAnnotation: topology.RackLabel},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pg.DeepCopy()
			got := FromNative(tt.pg)
			if diff := cmp.Diff(before, tt.pg); diff != "" {
				t.Errorf("FromNative changed the informer's object (-before +after):\n%s", diff)
			}
			if k := got.Key; k != NativeKey("ns", "g") || !got.Native() {
				t.Errorf("key %v (native %v), want %v", k, got.Native(), NativeKey("ns", "g"))
			}
			if name, native := NativeName(got.Key); !native || name != "g" {
				t.Errorf("NativeName(%v) = %q, %v; want g, true", got.Key, name, native)
			}
			if m := got.MinMember; m != tt.wantMin {
				t.Errorf("minMember %d, want %d", m, tt.wantMin)
			}
			if !got.Created.Equal(tt.pg.CreationTimestamp.Time) || got.UID != tt.pg.UID {
				t.Errorf("creation time %v and UID %s, want the native group's %v and %s", got.Created, got.UID, tt.pg.CreationTimestamp, tt.pg.UID)
			}
			if got.MinResources != nil || got.ScheduleTimeout != 0 {
				t.Errorf("minResources %v and timeout %v, want none: the API has neither", got.MinResources, got.ScheduleTimeout)
			}
			if diff := cmp.Diff(tt.wantAnnotations, got.Topology); diff != "" {
				t.Errorf("topology (-want +got):\n%s", diff)
			}
			if _, _, err := topology.Levels(topology.DefaultLevels()).ConstraintOf(got.Topology); err != nil {
				t.Errorf("Gang cannot read the group's topology: %v", err)
			}
			target := EventTarget(got)
			native, ok := target.(*schedulingv1beta1.PodGroup)
			if !ok || native.Name != "g" || native.Namespace != "ns" || native.UID != tt.pg.UID || native.Kind != "PodGroup" || native.APIVersion != "scheduling.k8s.io/v1beta1" {
				t.Errorf("events go to %#v, want the native PodGroup ns/g", target)
			}
		})
	}
}

// A pod joins a native group by spec.schedulingGroup only while GenericWorkload is on, as the
// scheduler reads it; the scheduler-plugins label, if both are set, wins.
func TestKeyOf(t *testing.T) {
	pod := func(label string, group *string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
		if label != "" {
			p.Labels = map[string]string{v1alpha1.PodGroupLabel: label}
		}
		if group != nil {
			p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: group}
		}
		return p
	}
	tests := []struct {
		name   string
		pod    *v1.Pod
		gate   bool
		want   types.NamespacedName
		wantOK bool
	}{
		{name: "no group", pod: pod("", nil), gate: true},
		{name: "label", pod: pod("a", nil), want: types.NamespacedName{Namespace: "ns", Name: "a"}, wantOK: true},
		{name: "native", pod: pod("", ptr.To("b")), gate: true, want: NativeKey("ns", "b"), wantOK: true},
		{name: "native, gate off", pod: pod("", ptr.To("b"))},
		{name: "native, empty name", pod: pod("", ptr.To("")), gate: true},
		{name: "both", pod: pod("a", ptr.To("b")), gate: true, want: types.NamespacedName{Namespace: "ns", Name: "a"}, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, tt.gate)
			got, ok := KeyOf(tt.pod)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("KeyOf = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
			// APIKeyOf answers as KeyOf does with the gate on, whatever the gate.
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
			wantAPI, wantAPIOK := KeyOf(tt.pod)
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, !tt.gate)
			if got, ok := APIKeyOf(tt.pod); got != wantAPI || ok != wantAPIOK {
				t.Errorf("APIKeyOf with the gate %v = %v, %v; want %v, %v", !tt.gate, got, ok, wantAPI, wantAPIOK)
			}
		})
	}
	if k := NativeKey("ns", "a"); k == (types.NamespacedName{Namespace: "ns", Name: "a"}) {
		t.Error("a native group's key equals that of the scheduler-plugins PodGroup of its name")
	}
	if _, native := NativeName(types.NamespacedName{Namespace: "ns", Name: "a"}); native {
		t.Error("a scheduler-plugins PodGroup's key reads as native")
	}
}

// Groups finds groups of both APIs under their keys, and tells one handler of both kinds' events.
func TestGroupsServeNativePodGroups(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	native := nativePodGroup("same", withTopology(topology.RackLabel))
	sp := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "same"}, Spec: v1alpha1.PodGroupSpec{MinMember: 5}}
	kube := kubefake.NewClientset(native)
	factory := informers.NewSharedInformerFactory(kube, 0)
	g, err := For(ctx, profile(t, ctx, factory), pgfake.NewSimpleClientset(sp))
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 10)
	err = g.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if g, ok := obj.(*Group); ok {
				events <- "add " + g.Key.String()
			}
		},
		UpdateFunc: func(_, obj any) {
			if g, ok := obj.(*Group); ok {
				events <- "update " + g.Key.String()
			}
		},
		DeleteFunc: func(obj any) {
			if g, ok := obj.(*Group); ok {
				events <- "delete " + g.Key.String()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	got, err := g.Of(NativeKey("ns", "same"))
	if err != nil {
		t.Fatalf("the native group: %v", err)
	}
	if got.MinMember != 3 || got.Topology[topology.RequiredAnnotation] != topology.RackLabel {
		t.Errorf("the native group reads as minMember %d, topology %v", got.MinMember, got.Topology)
	}
	got, err = g.Of(types.NamespacedName{Namespace: "ns", Name: "same"})
	if err != nil || got.MinMember != 5 || got.Native() {
		t.Errorf("the scheduler-plugins group of the same name: %+v, %v", got, err)
	}
	if _, err := g.Of(NativeKey("ns", "other")); !apierrors.IsNotFound(err) {
		t.Errorf("Of a native group that does not exist: %v, want NotFound", err)
	}

	want := func(event string) {
		t.Helper()
		for {
			select {
			case e := <-events:
				if e == event {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no event %q", event)
			}
		}
	}
	nk := NativeKey("ns", "same").String()
	want("add " + nk)
	native.Spec.SchedulingPolicy.Gang.MinCount = 2
	if _, err := kube.SchedulingV1beta1().PodGroups("ns").Update(ctx, native, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want("update " + nk)
	// Of reads the change, though FromNative's result is kept between calls.
	if got, err := g.Of(NativeKey("ns", "same")); err != nil || got.MinMember != 2 {
		t.Errorf("the native group after its minCount went to 2: %+v, %v", got, err)
	}
	if err := kube.SchedulingV1beta1().PodGroups("ns").Delete(ctx, "same", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want("delete " + nk)
}

// With GenericWorkload off, a native key finds nothing and says why.
func TestOfNativeWithTheGateOff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := For(ctx, profile(t, ctx, informers.NewSharedInformerFactory(kubefake.NewClientset(), 0)), pgfake.NewSimpleClientset())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Of(NativeKey("ns", "g")); err == nil {
		t.Error("a native group found with GenericWorkload off")
	}
}

// Of reads a group of either API through its adapter, whose result Groups keeps while the
// informer holds the same PodGroup. Gang calls Of a few times
// per member per scheduling attempt (PreEnqueue, PreFilter, Permit, Unreserve).
func BenchmarkOf(b *testing.B) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	native := nativePodGroup("same", withTopology(topology.RackLabel), withAnnotations(map[string]string{"a": "b"}))
	sp := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "same"}, Spec: v1alpha1.PodGroupSpec{MinMember: 5}}
	factory := informers.NewSharedInformerFactory(kubefake.NewClientset(native), 0)
	g, err := For(ctx, profile(b, ctx, factory), pgfake.NewSimpleClientset(sp))
	if err != nil {
		b.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	for _, bc := range []struct {
		name string
		key  types.NamespacedName
	}{
		{"scheduler-plugins", types.NamespacedName{Namespace: "ns", Name: "same"}},
		{"native", NativeKey("ns", "same")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Of(bc.key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FromPlugins reads a scheduler-plugins PodGroup's quorum, resources, timeout, topology and status.
func TestFromPlugins(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", UID: "uid-g", CreationTimestamp: created,
			Annotations: map[string]string{topology.PreferredAnnotation: topology.RackLabel, "other": "x"}},
		Spec: v1alpha1.PodGroupSpec{MinMember: 4, ScheduleTimeoutSeconds: ptr.To[int32](30),
			MinResources: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}},
		Status: v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning, ScheduleStartTime: created},
	}
	want := &Group{
		Key: types.NamespacedName{Namespace: "ns", Name: "g"}, UID: "uid-g", Created: created.Time, MinMember: 4,
		MinResources: pg.Spec.MinResources, ScheduleTimeout: 30 * time.Second,
		Topology: map[string]string{topology.PreferredAnnotation: topology.RackLabel}, Started: created.Time, Phase: PhaseRunning,
	}
	if diff := cmp.Diff(want, FromPlugins(pg)); diff != "" {
		t.Errorf("FromPlugins (-want +got):\n%s", diff)
	}
	// An unset minMember is 1, and an unset or zero timeout is Gang's default.
	pg.Spec.MinMember, pg.Spec.ScheduleTimeoutSeconds = 0, ptr.To[int32](0)
	if got := FromPlugins(pg); got.MinMember != 1 || got.ScheduleTimeout != 0 || got.Native() {
		t.Errorf("minMember %d, timeout %v, native %v; want 1, 0, false", got.MinMember, got.ScheduleTimeout, got.Native())
	}
	target, ok := EventTarget(FromPlugins(pg)).(*v1alpha1.PodGroup)
	if !ok || target.Name != "g" || target.UID != "uid-g" || target.Kind != "PodGroup" || target.APIVersion != v1alpha1.SchemeGroupVersion.String() {
		t.Errorf("events go to %#v, want the PodGroup ns/g", target)
	}
}
