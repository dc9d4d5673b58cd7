package gang

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/leader"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/podroom"
	"github.com/berth-sched/berth/pkg/tombstone"
)

// computeStatus is the status a PodGroup should show, given all its pods (finished ones
// included) and when the scheduler first tried one of them. The phases are v1alpha1's:
//
//   - Pending: fewer than minMember members are bound.
//   - Scheduling: minMember members are bound, fewer than minMember run or have succeeded.
//   - Running: minMember members run or have succeeded.
//   - Failed: a member failed after the group got going (failed+running+succeeded >= minMember).
//   - Finished: minMember members succeeded.
//
// Failed and Finished follow scheduler-plugins' own PodGroup controller, so a PodGroup reads the
// same under either. A scheduleStartTime already set is kept.
//
// The phase never moves backwards (see forward): the writer's cache may lag behind what a
// previous leader, or this one, already wrote.
func computeStatus(pg *podgroup.Group, pods []*v1.Pod, started time.Time) groupStatus {
	s := groupStatus{Started: pg.Started}
	if s.Started.IsZero() {
		s.Started = started
	}
	var live int32
	for _, pod := range pods {
		if podroom.Holds(pod) {
			live++
		}
		if pod.Spec.NodeName != "" {
			s.Scheduled++
		}
		switch pod.Status.Phase {
		case v1.PodRunning:
			s.Running++
		case v1.PodSucceeded:
			s.Succeeded++
		case v1.PodFailed:
			s.Failed++
		}
	}
	minMember := pg.MinMember
	switch {
	case s.Succeeded >= minMember:
		s.Phase = podgroup.PhaseFinished
	case s.Failed > 0 && s.Failed+s.Running+s.Succeeded >= minMember:
		s.Phase = podgroup.PhaseFailed
	case s.Running+s.Succeeded >= minMember:
		s.Phase = podgroup.PhaseRunning
	case s.Scheduled >= minMember:
		s.Phase = podgroup.PhaseScheduling
	default:
		s.Phase = podgroup.PhasePending
	}
	s.Phase = forward(pg.Phase, s.Phase, live+s.Succeeded+s.Failed >= minMember)
	return s
}

// phaseRank orders the phases a group goes through; Finished and Failed are final.
var phaseRank = map[podgroup.Phase]int{
	podgroup.PhasePending:    1,
	podgroup.PhaseScheduling: 2,
	podgroup.PhaseRunning:    3,
	podgroup.PhaseFailed:     4,
	podgroup.PhaseFinished:   4,
}

// forward returns the phase to write when the PodGroup shows cur and the pods say computed: never
// an earlier one, and nothing after a final phase. A group that no longer has minMember pods (whole)
// was torn down, as when its job restarts: like scheduler-plugins' controller, it is Pending again,
// unless it had finished.
func forward(cur, computed podgroup.Phase, whole bool) podgroup.Phase {
	switch {
	case phaseRank[cur] == 4:
		return cur
	case !whole:
		return computed
	case phaseRank[computed] < phaseRank[cur]:
		return cur
	}
	return computed
}

// groupStatus is what Gang shows of a group: v1alpha1's status (phase, scheduleStartTime as
// Started, counts), plus Scheduled, the number of members bound to a node. v1alpha1 has no field
// for it; berth's copy of the CRD carries it as status.scheduled with a printer column, and a
// cluster with scheduler-plugins' CRD drops it. A native PodGroup shows it as a condition
// (placementCondition).
type groupStatus struct {
	Phase                                 podgroup.Phase
	Started                               time.Time
	Scheduled, Running, Succeeded, Failed int32
}

// statusPatch is the merge patch that sets a PodGroup's status to s. It names every counter, so
// one that dropped to zero is written too (the API type would omit it).
func statusPatch(s groupStatus) ([]byte, error) {
	status := map[string]any{
		"phase":     s.Phase,
		"scheduled": s.Scheduled,
		"running":   s.Running,
		"succeeded": s.Succeeded,
		"failed":    s.Failed,
	}
	if !s.Started.IsZero() {
		status["scheduleStartTime"] = metav1.NewTime(s.Started)
	}
	return json.Marshal(map[string]any{"status": status})
}

// statusWriter keeps PodGroup status true from a loop of its own: nothing on the scheduling path
// waits for it or calls the API. Changes to a group's pods or PodGroup queue the group's key; a
// burst of changes within batchDelay is written once, failed writes retry with the queue's rate
// limiting, and a status that already reads right is not written.
//
// Its pod informer watches only pods that carry the pod-group label, finished ones included: the
// scheduler's own pod informer drops pods that have finished, which the counts need. Where native
// groups are served (serveNative) it watches every pod: no selector finds their members.
//
// A native PodGroup's status has conditions and no phase or counts: the writer sets its
// podgroup.PlacementCondition instead (placementCondition).
//
// Only the leader writes (leading); until then changes are only queued.
type statusWriter struct {
	client     versioned.Interface
	podGroups  schedlisters.PodGroupLister
	pods       members
	queue      workqueue.TypedRateLimitingInterface[types.NamespacedName]
	batchDelay time.Duration
	leading    *leader.Gate
	// native, set by serveNative, reads and writes native PodGroups; nil while they are not served.
	native *nativeStatus

	mu sync.Mutex
	// started holds, for groups whose PodGroup shows no scheduleStartTime yet, when the
	// scheduler first tried one of their members.
	started map[types.NamespacedName]time.Time
	// scheduled is the status.scheduled this writer last wrote per group. The PodGroup lister's
	// type cannot show the field, so each group's status is written once after a start-up even
	// if it already reads right.
	scheduled map[types.NamespacedName]int32
}

func newStatusWriter(client versioned.Interface, podGroups schedlisters.PodGroupLister, pods cache.SharedIndexInformer, batchDelay time.Duration) (*statusWriter, error) {
	if err := podgroup.AddIndex(pods); err != nil {
		return nil, err
	}
	w := &statusWriter{
		client:     client,
		podGroups:  podGroups,
		pods:       members{indexer: pods.GetIndexer()},
		batchDelay: batchDelay,
		leading:    leader.NewGate(leader.Leads),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "berth_gang_podgroup_status"}),
		started:   map[types.NamespacedName]time.Time{},
		scheduled: map[types.NamespacedName]int32{},
	}
	enqueuePod := func(obj any) {
		if pod, ok := tombstone.As[*v1.Pod](obj); ok {
			if key, ok := podgroup.KeyOf(pod); ok {
				w.enqueue(key)
			}
		}
	}
	_, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueuePod,
		UpdateFunc: func(old, cur any) { enqueuePod(old); enqueuePod(cur) },
		DeleteFunc: enqueuePod,
	})
	return w, err
}

// nativeStatus is what the status writer needs for native PodGroups: the scheduler's client and
// the informer of native PodGroups.
type nativeStatus struct {
	client kubernetes.Interface
	groups *podgroup.Groups
}

// serveNative has w write berth's condition on native PodGroups, read from groups' informer and
// patched with client; its pod informer must then watch every pod.
func (w *statusWriter) serveNative(client kubernetes.Interface, groups *podgroup.Groups) {
	w.native = &nativeStatus{client: client, groups: groups}
}

// statusPodInformer is the status writer's pod informer and the factory that starts it. No
// selector finds a native group's members (spec.schedulingGroup): with native groups served, it
// watches every pod, each cut to a few fields (statusFields).
func statusPodInformer(client kubernetes.Interface) (informers.SharedInformerFactory, cache.SharedIndexInformer) {
	opts := []informers.SharedInformerOption{informers.WithTransform(statusFields)}
	if !podgroup.NativeEnabled() {
		opts = append(opts, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = v1alpha1.PodGroupLabel }))
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, opts...)
	return factory, factory.Core().V1().Pods().Informer()
}

// statusFields keeps of a pod only what computeStatus and the group index read, so the status
// writer's cache of gang pods stays small.
func statusFields(obj any) (any, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return obj, nil
	}
	var labels map[string]string
	if name, ok := pod.Labels[v1alpha1.PodGroupLabel]; ok {
		labels = map[string]string{v1alpha1.PodGroupLabel: name}
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       pod.Namespace,
			Name:            pod.Name,
			UID:             pod.UID,
			ResourceVersion: pod.ResourceVersion,
			Labels:          labels,
		},
		Spec:   v1.PodSpec{NodeName: pod.Spec.NodeName, SchedulingGroup: pod.Spec.SchedulingGroup},
		Status: v1.PodStatus{Phase: pod.Status.Phase},
	}, nil
}

// enqueue has the status of key's PodGroup brought up to date.
func (w *statusWriter) enqueue(key types.NamespacedName) {
	if _, native := podgroup.NativeName(key); native && w.native == nil {
		return
	}
	w.queue.AddAfter(key, w.batchDelay)
}

// noteStarted records the first scheduling attempt of a group whose PodGroup shows none; a native
// PodGroup has no field for it.
func (w *statusWriter) noteStarted(key types.NamespacedName, now time.Time) {
	if _, native := podgroup.NativeName(key); native {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.started[key]; !ok {
		w.started[key] = now
		w.enqueue(key)
	}
}

func (w *statusWriter) startedAt(key types.NamespacedName) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started[key]
}

func (w *statusWriter) forgetStarted(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.started, key)
}

// forget drops what the writer keeps of a deleted PodGroup.
func (w *statusWriter) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.started, key)
	delete(w.scheduled, key)
}

// upToDate reports whether pg already shows want, as far as this writer can tell.
func (w *statusWriter) upToDate(key types.NamespacedName, pg *v1alpha1.PodGroup, want groupStatus) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	scheduled, written := w.scheduled[key]
	return written && scheduled == want.Scheduled && statusEqual(pg.Status, want)
}

func (w *statusWriter) wrote(key types.NamespacedName, s groupStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.scheduled[key] = s.Scheduled
}

// run writes statuses, once this process leads, until ctx ends.
func (w *statusWriter) run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		w.queue.ShutDown()
	}()
	if !w.leading.Wait(ctx, time.Second) {
		return
	}
	for w.next(ctx) {
	}
}

func (w *statusWriter) next(ctx context.Context) bool {
	key, quit := w.queue.Get()
	if quit {
		return false
	}
	defer w.queue.Done(key)
	if err := w.sync(ctx, key); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Writing PodGroup status", "podGroup", key)
		w.queue.AddRateLimited(key)
		return true
	}
	w.queue.Forget(key)
	return true
}

func (w *statusWriter) sync(ctx context.Context, key types.NamespacedName) error {
	if _, native := podgroup.NativeName(key); native {
		return w.syncNative(ctx, key)
	}
	pg, err := w.podGroups.PodGroups(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		w.forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	want := computeStatus(podgroup.FromPlugins(pg), w.pods.of(key), w.startedAt(key))
	if !pg.Status.ScheduleStartTime.IsZero() {
		w.forgetStarted(key)
	}
	if w.upToDate(key, pg, want) {
		return nil
	}
	patch, err := statusPatch(want)
	if err != nil {
		return err
	}
	_, err = w.client.SchedulingV1alpha1().PodGroups(key.Namespace).Patch(ctx, key.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if ok, err := patched(ctx, key, want, err); !ok {
		return err
	}
	w.wrote(key, want)
	return nil
}

// patched counts and logs the outcome of a status patch of the PodGroup key: ok when it was
// written; a PodGroup gone meanwhile is no error.
func patched(ctx context.Context, key types.NamespacedName, want groupStatus, err error) (ok bool, _ error) {
	switch {
	case apierrors.IsNotFound(err):
		statusWrites.WithLabelValues("NotFound").Inc()
		return false, nil
	case err != nil:
		statusWrites.WithLabelValues("Error").Inc()
		return false, fmt.Errorf("patching status of PodGroup %s: %w", key, err)
	}
	statusWrites.WithLabelValues("Success").Inc()
	klog.FromContext(ctx).V(4).Info("Wrote PodGroup status", "podGroup", key, "phase", want.Phase,
		"scheduled", want.Scheduled, "running", want.Running, "succeeded", want.Succeeded, "failed", want.Failed)
	return true, nil
}

// syncNative sets podgroup.PlacementCondition on the native PodGroup key, if it does not read
// right already. It patches that condition alone (a strategic merge by type), so the scheduler's
// own conditions, written beside it, are left as they are.
func (w *statusWriter) syncNative(ctx context.Context, key types.NamespacedName) error {
	pg, err := w.native.groups.Native(key)
	if apierrors.IsNotFound(err) {
		w.forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	group := podgroup.FromNative(pg)
	want := computeStatus(group, w.pods.of(key), time.Time{})
	cond := placementCondition(want, group.MinMember, pg.Generation)
	old := apimeta.FindStatusCondition(pg.Status.Conditions, cond.Type)
	if old != nil && old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message && old.ObservedGeneration == cond.ObservedGeneration {
		return nil
	}
	cond.LastTransitionTime = metav1.Now()
	if old != nil && old.Status == cond.Status {
		cond.LastTransitionTime = old.LastTransitionTime
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []metav1.Condition{cond}}})
	if err != nil {
		return err
	}
	_, err = w.native.client.SchedulingV1beta1().PodGroups(pg.Namespace).Patch(ctx, pg.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	_, err = patched(ctx, key, want, err)
	return err
}

// placementCondition is podgroup.PlacementCondition for a native group that shows s: True once
// minCount members are bound (phase Scheduling or later), its reason the phase, its message the
// counts, which the API has no fields for. LastTransitionTime is left to the caller.
func placementCondition(s groupStatus, minCount int32, generation int64) metav1.Condition {
	status := metav1.ConditionFalse
	if phaseRank[s.Phase] >= phaseRank[podgroup.PhaseScheduling] {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{
		Type:               podgroup.PlacementCondition,
		Status:             status,
		ObservedGeneration: generation,
		Reason:             string(s.Phase),
		Message: fmt.Sprintf("%d of %d (minCount) bound, %d running, %d succeeded, %d failed",
			s.Scheduled, minCount, s.Running, s.Succeeded, s.Failed),
	}
}

// statusEqual reports whether a PodGroup's status a shows the fields computeStatus sets in b.
// Times compare at the second the API keeps.
func statusEqual(a v1alpha1.PodGroupStatus, b groupStatus) bool {
	return podgroup.Phase(a.Phase) == b.Phase && a.Running == b.Running && a.Succeeded == b.Succeeded && a.Failed == b.Failed &&
		a.ScheduleStartTime.Unix() == metav1.NewTime(b.Started).Unix()
}
