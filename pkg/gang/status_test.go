package gang

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/kubernetes/test/utils/ktesting"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions"

	"github.com/berth-sched/berth/pkg/leader"
	"github.com/berth-sched/berth/pkg/podgroup"
)

func podGroup(name string, minMember int32) *v1alpha1.PodGroup {
	return &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: k8stypes.UID("uid-pg-" + name)},
		Spec:       v1alpha1.PodGroupSpec{MinMember: minMember},
	}
}

// phased returns a member of group a in the given phase, bound to node unless node is "".
func phased(name, node string, phase v1.PodPhase) *v1.Pod {
	return st.MakePod().Namespace("ns").Name(name).UID("uid-"+name).Label(v1alpha1.PodGroupLabel, "a").Node(node).Phase(phase).Obj()
}

func TestComputeStatus(t *testing.T) {
	tests := []struct {
		name    string
		pg      *v1alpha1.PodGroup
		pods    []*v1.Pod
		started time.Time
		want    groupStatus
	}{
		{
			name: "no pods: Pending",
			pg:   podGroup("a", 2),
			want: groupStatus{Phase: podgroup.PhasePending, Scheduled: 0},
		},
		{
			name:    "fewer than minMember bound: Pending, with the first attempt's time",
			pg:      podGroup("a", 2),
			pods:    []*v1.Pod{phased("p1", "n1", v1.PodPending), phased("p2", "", v1.PodPending)},
			started: t0,
			want:    groupStatus{Phase: podgroup.PhasePending, Started: t0, Scheduled: 1},
		},
		{
			name: "minMember bound, not yet running: Scheduling",
			pg:   podGroup("a", 2),
			pods: []*v1.Pod{phased("p1", "n1", v1.PodPending), phased("p2", "n2", v1.PodRunning)},
			want: groupStatus{Phase: podgroup.PhaseScheduling, Running: 1, Scheduled: 2},
		},
		{
			name: "minMember running or succeeded: Running",
			pg:   podGroup("a", 2),
			pods: []*v1.Pod{phased("p1", "n1", v1.PodSucceeded), phased("p2", "n2", v1.PodRunning), phased("p3", "", v1.PodPending)},
			want: groupStatus{Phase: podgroup.PhaseRunning, Running: 1, Succeeded: 1, Scheduled: 2},
		},
		{
			name: "a member failed after the group got going: Failed",
			pg:   podGroup("a", 2),
			pods: []*v1.Pod{phased("p1", "n1", v1.PodFailed), phased("p2", "n2", v1.PodRunning)},
			want: groupStatus{Phase: podgroup.PhaseFailed, Running: 1, Failed: 1, Scheduled: 2},
		},
		{
			name: "minMember succeeded: Finished",
			pg:   podGroup("a", 2),
			pods: []*v1.Pod{phased("p1", "n1", v1.PodSucceeded), phased("p2", "n2", v1.PodSucceeded), phased("p3", "n2", v1.PodFailed)},
			want: groupStatus{Phase: podgroup.PhaseFinished, Succeeded: 2, Failed: 1, Scheduled: 3},
		},
		{
			name:    "a scheduleStartTime already set is kept",
			pg:      &v1alpha1.PodGroup{Spec: v1alpha1.PodGroupSpec{MinMember: 1}, Status: v1alpha1.PodGroupStatus{ScheduleStartTime: metav1.NewTime(t0)}},
			started: t0.Add(time.Hour),
			want:    groupStatus{Phase: podgroup.PhasePending, Started: t0, Scheduled: 0},
		},
		{
			name: "unset minMember reads as 1",
			pg:   podGroup("a", 0),
			pods: []*v1.Pod{phased("p1", "n1", v1.PodPending)},
			want: groupStatus{Phase: podgroup.PhaseScheduling, Scheduled: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, computeStatus(podgroup.FromPlugins(tc.pg), tc.pods, tc.started)); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusPatchWritesZeroCounts(t *testing.T) {
	patch, err := statusPatch(groupStatus{Phase: podgroup.PhasePending})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(patch, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{"status": {"phase": "Pending", "scheduled": 0.0, "running": 0.0, "succeeded": 0.0, "failed": 0.0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("patch (-want +got):\n%s", diff)
	}
}

func TestStatusWriterSync(t *testing.T) {
	written := func(s v1alpha1.PodGroupStatus) *v1alpha1.PodGroupStatus { return &s }
	tests := []struct {
		name    string
		pg      *v1alpha1.PodGroup
		pods    []runtime.Object
		started time.Time
		// want is the status the PodGroup shows afterwards; nil means no write was made.
		want *v1alpha1.PodGroupStatus
	}{
		{
			name: "a new PodGroup is marked Pending",
			pg:   podGroup("a", 2),
			want: written(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupPending}),
		},
		{
			name:    "counts, phase and start time are written, finished pods included",
			pg:      podGroup("a", 2),
			pods:    []runtime.Object{phased("p1", "n1", v1.PodRunning), phased("p2", "n1", v1.PodSucceeded), phased("p3", "", v1.PodPending)},
			started: t0,
			want:    written(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning, Running: 1, Succeeded: 1, ScheduleStartTime: metav1.NewTime(t0)}),
		},
		{
			name: "a status this writer wrote and that still reads right is not written again",
			pg: func() *v1alpha1.PodGroup {
				pg := podGroup("a", 1)
				pg.Status = v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning, Running: 1}
				return pg
			}(),
			pods: []runtime.Object{phased("p1", "n1", v1.PodRunning)},
		},
		{
			name: "a counter that drops to zero is written",
			pg: func() *v1alpha1.PodGroup {
				pg := podGroup("a", 1)
				pg.Status = v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning, Running: 1}
				return pg
			}(),
			pods: []runtime.Object{phased("p1", "n1", v1.PodSucceeded)},
			want: written(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupFinished, Succeeded: 1}),
		},
		{
			name: "a phase is never written backwards from a cache that lags behind it",
			pg: func() *v1alpha1.PodGroup {
				pg := podGroup("a", 2)
				pg.Status = v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning, Running: 2}
				return pg
			}(),
			// The writer's cache still shows the members bound but not yet running.
			pods: []runtime.Object{phased("p1", "n1", v1.PodPending), phased("p2", "n1", v1.PodPending)},
			want: written(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning}),
		},
		{
			name: "a finished group stays Finished when its pods go away",
			pg: func() *v1alpha1.PodGroup {
				pg := podGroup("a", 1)
				pg.Status = v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupFinished, Succeeded: 1}
				return pg
			}(),
			want: written(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupFinished}),
		},
		{
			name: "a running group whose pods are gone, as after a job restart, is Pending again",
			pg: func() *v1alpha1.PodGroup {
				pg := podGroup("a", 2)
				pg.Status = v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupRunning, Running: 2}
				return pg
			}(),
			pods: []runtime.Object{phased("p1", "", v1.PodPending)},
			want: written(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupPending}),
		},
		{
			name: "pods of other groups do not count",
			pg:   podGroup("a", 1),
			pods: []runtime.Object{
				st.MakePod().Namespace("ns").Name("x").UID("x").Label(v1alpha1.PodGroupLabel, "b").Node("n1").Phase(v1.PodRunning).Obj(),
				st.MakePod().Namespace("other").Name("y").UID("y").Label(v1alpha1.PodGroupLabel, "a").Node("n1").Phase(v1.PodRunning).Obj(),
			},
			want: written(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupPending}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			disableWatchList(t)
			_, ctx := ktesting.NewTestContext(t)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			pgClient := pgfake.NewSimpleClientset(tc.pg)
			pgInformers := externalversions.NewSharedInformerFactory(pgClient, 0)
			lister := pgInformers.Scheduling().V1alpha1().PodGroups().Lister()
			// As in New: the writer's cache holds pods trimmed by statusFields.
			podInformer := informers.NewSharedInformerFactoryWithOptions(kubefake.NewClientset(tc.pods...), 0,
				informers.WithTransform(statusFields)).Core().V1().Pods().Informer()
			w, err := newStatusWriter(pgClient, lister, podInformer, time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			defer w.queue.ShutDown()
			pgInformers.Start(ctx.Done())
			go podInformer.Run(ctx.Done())
			pgInformers.WaitForCacheSync(ctx.Done())
			cache.WaitForCacheSync(ctx.Done(), podInformer.HasSynced)
			if !tc.started.IsZero() {
				w.noteStarted(keyA, tc.started)
			}
			if tc.want == nil {
				// What the writer wrote before, as it shows in the PodGroup.
				w.wrote(keyA, computeStatus(podgroup.FromPlugins(tc.pg), w.pods.of(keyA), w.startedAt(keyA)))
			}
			pgClient.ClearActions()

			if err := w.sync(ctx, keyA); err != nil {
				t.Fatalf("sync: %v", err)
			}
			var patches []clienttesting.PatchAction
			for _, a := range pgClient.Actions() {
				if p, ok := a.(clienttesting.PatchAction); ok {
					patches = append(patches, p)
				}
			}
			if tc.want == nil {
				if len(patches) != 0 {
					t.Fatalf("wrote a status that already read right: %s", patches[0].GetPatch())
				}
				return
			}
			if len(patches) != 1 || patches[0].GetSubresource() != "status" {
				t.Fatalf("want one patch of the status subresource, got %v", patches)
			}
			got, err := pgClient.SchedulingV1alpha1().PodGroups("ns").Get(ctx, "a", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*tc.want, got.Status, cmp.Comparer(func(a, b metav1.Time) bool { return a.Unix() == b.Unix() })); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusWriterIgnoresDeletedPodGroups(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	pgClient := pgfake.NewSimpleClientset()
	pgInformers := externalversions.NewSharedInformerFactory(pgClient, 0)
	lister := pgInformers.Scheduling().V1alpha1().PodGroups().Lister()
	podInformer := informers.NewSharedInformerFactory(kubefake.NewClientset(), 0).Core().V1().Pods().Informer()
	w, err := newStatusWriter(pgClient, lister, podInformer, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.queue.ShutDown()
	w.noteStarted(keyA, t0)
	if err := w.sync(ctx, keyA); err != nil {
		t.Fatalf("sync of a missing PodGroup: %v", err)
	}
	if len(pgClient.Actions()) != 0 {
		t.Errorf("wrote to a PodGroup that does not exist: %v", pgClient.Actions())
	}
	if !w.startedAt(keyA).IsZero() {
		t.Errorf("kept the start time of a deleted PodGroup")
	}
}

// A standby replica writes nothing; the leader writes as soon as it holds its lease, and, where no
// leader election runs, once it schedules.
func TestStatusWriterWritesOnlyWhenLeading(t *testing.T) {
	for _, tc := range []struct {
		name string
		// lease is what the leader-election gauge says: held, and whether there is one.
		held, known bool
		// schedules: the process then runs its first scheduling cycle.
		schedules bool
		wantWrite bool
	}{
		{name: "leader, before any scheduling cycle", held: true, known: true, wantWrite: true},
		{name: "standby", held: false, known: true},
		{name: "no leader election, before any scheduling cycle"},
		{name: "no leader election, scheduling", schedules: true, wantWrite: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disableWatchList(t)
			_, ctx := ktesting.NewTestContext(t)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			pgClient := pgfake.NewSimpleClientset(podGroup("a", 1))
			pgInformers := externalversions.NewSharedInformerFactory(pgClient, 0)
			lister := pgInformers.Scheduling().V1alpha1().PodGroups().Lister()
			podInformer := informers.NewSharedInformerFactory(kubefake.NewClientset(), 0).Core().V1().Pods().Informer()
			w, err := newStatusWriter(pgClient, lister, podInformer, time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			w.leading = leader.NewGate(func() (bool, bool) { return tc.held, tc.known })
			pgInformers.Start(ctx.Done())
			go podInformer.Run(ctx.Done())
			pgInformers.WaitForCacheSync(ctx.Done())
			cache.WaitForCacheSync(ctx.Done(), podInformer.HasSynced)
			pgClient.ClearActions()
			go w.run(ctx)
			w.enqueue(keyA)
			if tc.schedules {
				w.leading.Lead()
			}
			wrote := func(context.Context) (bool, error) {
				for _, a := range pgClient.Actions() {
					if _, ok := a.(clienttesting.PatchAction); ok {
						return true, nil
					}
				}
				return false, nil
			}
			if tc.wantWrite {
				if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, wrote); err != nil {
					t.Errorf("the leader wrote no status: %v", err)
				}
				return
			}
			time.Sleep(200 * time.Millisecond)
			if done, _ := wrote(ctx); done {
				t.Fatalf("a process that does not lead wrote status: %v", pgClient.Actions())
			}
		})
	}
}

// A native PodGroup's condition is True from the phase in which minCount members are bound on, and
// carries the phase and the counts the API has no fields for.
func TestPlacementCondition(t *testing.T) {
	for _, tt := range []struct {
		phase podgroup.Phase
		want  metav1.ConditionStatus
	}{
		{podgroup.PhasePending, metav1.ConditionFalse},
		{podgroup.PhaseScheduling, metav1.ConditionTrue},
		{podgroup.PhaseRunning, metav1.ConditionTrue},
		{podgroup.PhaseFinished, metav1.ConditionTrue},
		{podgroup.PhaseFailed, metav1.ConditionTrue},
	} {
		s := groupStatus{Phase: tt.phase, Running: 2, Succeeded: 1, Failed: 0, Scheduled: 3}
		c := placementCondition(s, 4, 7)
		want := metav1.Condition{Type: "berth.dev/Placement", Status: tt.want, ObservedGeneration: 7, Reason: string(tt.phase),
			Message: "3 of 4 (minCount) bound, 2 running, 1 succeeded, 0 failed"}
		if diff := cmp.Diff(want, c); diff != "" {
			t.Errorf("phase %s (-want +got):\n%s", tt.phase, diff)
		}
	}
}
