package elasticquota

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/activate"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/leader"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/podroom"
	"github.com/berth-sched/berth/pkg/process"
	"github.com/berth-sched/berth/pkg/quota"
	"github.com/berth-sched/berth/pkg/tombstone"
)

// syncTimeout bounds how long PreFilter waits, once, for the ledger to take in every existing
// pod and ElasticQuota.
const syncTimeout = 30 * time.Second

// shared is the quota state of one scheduler process, whatever its number of profiles: the ledger,
// kept current from the scheduler's pod informer and an ElasticQuota informer, and the status
// writer. Profiles of one scheduler share its informer factory, which tells schedulers apart.
type shared struct {
	ledger *quota.Ledger
	// gpuMemory is the resource GPU memory is counted under: the memoryResource of the GPUShare
	// plugin in the profile of handle (aliyun.com/gpu-mem without GPUShare). Read at first use,
	// when the informers run: the framework builds a profile's plugins in no fixed order, and
	// GPUShare may come after this one.
	gpuMemory func() v1.ResourceName
	quotas    schedlisters.ElasticQuotaLister
	groups    *podgroup.Groups
	handle    fwk.Handle
	logger    klog.Logger
	hasSynced []cache.InformerSynced
	ready     atomic.Bool
	// leading keeps a standby replica from writing status.
	leading *leader.Gate
	status  *statusWriter
	// treeMu orders rebuilds of the quota tree; eqSynced reports whether the ElasticQuota
	// informer has handed every ElasticQuota that existed at start-up to quotaHandler.
	treeMu   sync.Mutex
	eqSynced cache.InformerSynced
	// dra is how DRA claims count, pods finds a pod for their recounts (dra.go).
	dra  draState
	pods func(ns, name string) (*v1.Pod, error)
}

var processState process.Shared[informers.SharedInformerFactory, *shared]

// sharedFor returns the scheduler's quota state, building it with the first profile's handle and
// client (nil: the scheduler's, see podgroup.For).
func sharedFor(ctx context.Context, h fwk.Handle, client versioned.Interface, statusPeriod time.Duration) (*shared, error) {
	factory := h.SharedInformerFactory()
	if factory == nil {
		return nil, fmt.Errorf("%s needs the scheduler's informer factory", Name)
	}
	return processState.Get(ctx, factory, func() (*shared, error) { return newShared(ctx, h, client, statusPeriod) })
}

func newShared(ctx context.Context, h fwk.Handle, client versioned.Interface, statusPeriod time.Duration) (*shared, error) {
	// groupNeed reads a group's pods through the group index: the scheduler's pod informer has no
	// namespace index, and a lister by namespace would scan every pod of the cluster.
	groups, err := podgroup.For(ctx, h, client)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	// Without the CRD the informer would never sync and the scheduler would hang at start.
	if _, err := groups.Client.SchedulingV1alpha1().ElasticQuotas("").List(ctx, metav1ListOne); err != nil {
		return nil, fmt.Errorf("listing ElasticQuotas (is the CRD elasticquotas.scheduling.x-k8s.io installed, and may the scheduler list it?): %w", err)
	}
	podInformer := h.SharedInformerFactory().Core().V1().Pods().Informer()
	eqInformer := groups.Informers.Scheduling().V1alpha1().ElasticQuotas()
	ledger := quota.NewLedger()
	ledger.SetGroupOf(groupOf)
	s := &shared{
		ledger:    ledger,
		gpuMemory: sync.OnceValue(func() v1.ResourceName { return gpu.ProfileResourceNames(h).Memory }),
		quotas:    eqInformer.Lister(),
		groups:    groups,
		handle:    h,
		leading:   leader.NewGate(leader.Leads),
		logger:    klog.LoggerWithName(klog.FromContext(ctx), Name),
	}
	s.status = newStatusWriter(groups.Client, s, statusPeriod)
	podReg, err := podInformer.AddEventHandler(s.podHandler())
	if err != nil {
		return nil, err
	}
	eqReg, err := eqInformer.Informer().AddEventHandler(s.quotaHandler())
	if err != nil {
		return nil, err
	}
	if h.SharedDRAManager() != nil {
		pods := h.SharedInformerFactory().Core().V1().Pods().Lister()
		s.pods = func(ns, name string) (*v1.Pod, error) { return pods.Pods(ns).Get(name) }
		claims := h.SharedInformerFactory().Resource().V1().ResourceClaims().Informer()
		if _, err := claims.AddEventHandler(s.claimHandler()); err != nil {
			return nil, err
		}
	}
	s.hasSynced = []cache.InformerSynced{podReg.HasSynced, eqReg.HasSynced}
	// Under treeMu: the informer may already be running (another plugin started the factory), and
	// the handler's first retree reads it (a race -race reported in Kueue's replay).
	s.treeMu.Lock()
	s.eqSynced = eqReg.HasSynced
	s.treeMu.Unlock()
	groups.Informers.Start(ctx.Done())
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), eqReg.HasSynced) {
			s.retree(nil)
		}
	}()
	go s.status.run(ctx)
	return s, nil
}

// waitForSync returns once the ledger holds every pod bound and every ElasticQuota that existed
// at start-up: a restarted scheduler admits nothing before it knows what is in use.
func (s *shared) waitForSync(ctx context.Context) error {
	if s.ready.Load() {
		return nil
	}
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, syncTimeout, true, func(context.Context) (bool, error) {
		return s.synced(), nil
	})
	if err != nil {
		return fmt.Errorf("the quota ledger has not taken in the existing pods and ElasticQuotas: %w", err)
	}
	return nil
}

// synced reports whether the ledger has taken in every pod and ElasticQuota that existed at
// start-up, and remembers it.
func (s *shared) synced() bool {
	if s.ready.Load() {
		return true
	}
	for _, synced := range s.hasSynced {
		if !synced() {
			return false
		}
	}
	s.ready.Store(true)
	return true
}

// podHandler keeps the ledger's bound pods current. A reservation is the plugin's own business;
// the informer tells when it became a binding, and when a pod finishes or goes.
func (s *shared) podHandler() cache.ResourceEventHandler {
	observe := func(pod *v1.Pod) {
		if pod.Spec.NodeName == "" {
			return
		}
		if !podroom.Holds(pod) {
			s.recountSharers(pod, pod.UID)
			s.wake(s.ledger.Forget(pod.UID))
			return
		}
		req, err := s.requestOf(pod)
		if err != nil {
			// GPUShare reports the malformed request; the pod holds what else it asks for.
			req, _ = s.requestOf(withoutGPU(pod, s.gpuMemory()))
		}
		s.wake(s.ledger.Bound(pod, groupOf(pod), req))
		s.recountSharers(pod, "")
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*v1.Pod); ok {
				observe(pod)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			pod, ok := obj.(*v1.Pod)
			if !ok {
				return
			}
			if old, ok := oldObj.(*v1.Pod); ok && sameCount(old, pod) {
				return
			}
			observe(pod)
		},
		DeleteFunc: func(obj any) {
			if pod, ok := tombstone.As[*v1.Pod](obj); ok {
				s.recountSharers(pod, pod.UID)
				s.wake(s.ledger.Forget(pod.UID))
			}
		},
	}
}

// sameCount reports whether an update leaves alone everything the ledger reads of a pod: its
// node, whether it has finished or is being deleted, its group, its GPU count and its spec's
// resources. Most updates of a bound pod are its kubelet's status reports, which change none of
// these; they are spared computing the pod's request and taking the ledger's lock. The API server
// bumps metadata.generation on every change of a pod's spec (a resize included) except its
// binding, which sets spec.nodeName.
func sameCount(old, cur *v1.Pod) bool {
	return old.UID == cur.UID && old.Generation == cur.Generation && old.Spec.NodeName == cur.Spec.NodeName &&
		podroom.Holds(old) == podroom.Holds(cur) && (old.DeletionTimestamp == nil) == (cur.DeletionTimestamp == nil) &&
		groupOf(old) == groupOf(cur) && old.Annotations[gpu.PodGPUCountAnnotation] == cur.Annotations[gpu.PodGPUCountAnnotation]
}

// withoutGPU is pod without its GPU memory limits, for a pod whose GPU request is malformed.
func withoutGPU(pod *v1.Pod, gpuMemory v1.ResourceName) *v1.Pod {
	p := pod.DeepCopy()
	for i := range p.Spec.Containers {
		delete(p.Spec.Containers[i].Resources.Limits, gpuMemory)
	}
	for i := range p.Spec.InitContainers {
		delete(p.Spec.InitContainers[i].Resources.Limits, gpuMemory)
	}
	delete(p.Annotations, gpu.PodGPUCountAnnotation)
	return p
}

// quotaHandler puts the quota tree of every ElasticQuota in force whenever one of them changes
// (an update of status alone changes nothing), and reports what is wrong with them: see retree.
func (s *shared) quotaHandler() cache.ResourceEventHandler {
	update := func(obj any) {
		if eq, ok := tombstone.As[*v1alpha1.ElasticQuota](obj); ok {
			s.retree(eq)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: update,
		UpdateFunc: func(oldObj, obj any) {
			old, ok1 := oldObj.(*v1alpha1.ElasticQuota)
			cur, ok2 := obj.(*v1alpha1.ElasticQuota)
			if ok1 && ok2 && apiequality.Semantic.DeepEqual(old.Spec, cur.Spec) && maps.Equal(old.Annotations, cur.Annotations) &&
				old.CreationTimestamp.Equal(&cur.CreationTimestamp) {
				return
			}
			update(obj)
		},
		DeleteFunc: update,
	}
}

// retree builds the quota tree from every ElasticQuota and puts it in force, retrying the pods
// that waited at a quota it changed. When the tree is invalid (quota.TreeOf), the last valid
// tree stays in force. Problems are reported on the ElasticQuota changed (changed nil: after the
// informer's first sync, on every ElasticQuota): each problem of its own, and, when the tree is
// invalid for another quota's sake, that its change is not in force yet.
func (s *shared) retree(changed *v1alpha1.ElasticQuota) {
	s.treeMu.Lock()
	defer s.treeMu.Unlock()
	all, err := s.quotas.List(labels.Everything())
	if err != nil {
		s.logger.Error(err, "Listing ElasticQuotas")
		return
	}
	tree, repairs, invalid := quota.TreeOf(all)
	reportAll := changed == nil
	if !reportAll && s.eqSynced != nil && !s.eqSynced() {
		// Still taking in the ElasticQuotas that existed at start-up: a child may come before its
		// parent. Everything is reported once they are all in (see newShared).
		changed = nil
	}
	about := func(p quota.Problem) bool {
		return reportAll || (changed != nil && p.Quota.Namespace == changed.Namespace && p.Quota.Name == changed.Name)
	}
	for _, p := range repairs {
		if about(p) {
			s.report(p)
		}
	}
	blamed := false
	for _, p := range invalid {
		if about(p) {
			blamed = true
			s.report(quota.Problem{Quota: p.Quota, Message: "invalid quota tree, the last valid tree stays in force: " + p.Message})
		}
	}
	if tree == nil {
		if changed != nil && !blamed && !reportAll {
			s.report(quota.Problem{Quota: changed, Message: fmt.Sprintf(
				"this change is not in force: the quota tree is invalid (%s: %s), and the last valid tree stays in force",
				invalid[0].Quota.Namespace+"/"+invalid[0].Quota.Name, invalid[0].Message)})
		}
		return
	}
	s.wake(s.ledger.SetTree(tree))
}

// report puts a problem with an ElasticQuota where its owner looks: a Warning event on it.
func (s *shared) report(p quota.Problem) {
	s.logger.Info("ElasticQuota is invalid", "elasticQuota", klog.KObj(p.Quota), "problem", p.Message)
	recorder := s.handle.EventRecorder()
	if recorder == nil {
		return
	}
	eq := p.Quota.DeepCopy()
	// The recorder finds the object's kind in its TypeMeta: the scheduler's scheme does not know it.
	eq.APIVersion, eq.Kind = v1alpha1.SchemeGroupVersion.String(), "ElasticQuota"
	recorder.Eventf(eq, nil, v1.EventTypeWarning, "InvalidElasticQuota", "Scheduling", "%s", p.Message)
}

// wake moves pods that waited for quota back to the active queue. This, rather than a queue
// event, is how a release reaches them: it runs after the ledger took the release in, so the
// retried pod cannot meet a ledger that does not show it yet.
func (s *shared) wake(pods []*v1.Pod) { activate.Pods(s.handle, s.logger, pods) }

// groupOf is the name of the pod group a pod belongs to, or "": the ledger counts a namespace's
// groups by name.
func groupOf(pod *v1.Pod) string {
	key, _ := podgroup.KeyOf(pod)
	return key.Name
}
