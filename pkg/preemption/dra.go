package preemption

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/berth-sched/berth/pkg/activate"
	"github.com/berth-sched/berth/pkg/dra"
	"github.com/berth-sched/berth/pkg/podroom"
)

// Preemption for DRA GPUs. Upstream's DynamicResources plugin has no PreFilterExtensions: when the
// dry run removes victims from a node, it still sees their claims' devices as taken, so a pod
// that needs a victim's GPU would never find one. The dry run therefore judges the DRA part
// itself: when DynamicResources is the filter that fails, the other filters run again without it,
// and if they pass, package dra's view of the node, without the claims only victims (or pods
// already leaving) hold, says whether the pod's claims fit. A claim still reserved for a pod that
// stays is not freed. The victims' claims are freed for real by the resourceclaim controller once
// they are gone; DynamicResources then requeues the pod and allocates.

// draFits is the dry run's Filter verdict for a node where DynamicResources failed (status): nil
// when every other filter passes and the pod's GPU claims fit once the claims of removed pods are
// freed; status otherwise.
func (d *dryRun) draFits(ni fwk.NodeInfo, status *fwk.Status) *fwk.Status {
	m := d.pl.fh.SharedDRAManager()
	if status.Plugin() != names.DynamicResources || m == nil || ni.Node() == nil || len(d.preemptor.Spec.ResourceClaims) == 0 {
		return status
	}
	req, err := dra.PodRequestFrom(m, d.preemptor, d.pl.draMatcher.Config())
	if err != nil || len(req.Allocated) > 0 {
		// A claim allocated already (shared with a pod placed earlier) ties the pod to that
		// claim's node; DynamicResources alone knows where.
		return status
	}
	skip := d.state.GetSkipFilterPlugins()
	without := skip.Clone().Insert(names.DynamicResources)
	d.state.SetSkipFilterPlugins(without)
	others := d.pl.fh.RunFilterPluginsWithNominatedPods(d.ctx, d.state, d.preemptor, ni)
	d.state.SetSkipFilterPlugins(skip)
	if !others.IsSuccess() {
		return others
	}
	slices, err := m.ResourceSlices().ListWithDeviceTaintRules()
	if err != nil {
		return status
	}
	claims, err := m.ResourceClaims().List()
	if err != nil {
		return status
	}
	if !d.pl.draMatcher.FitsAfterFreeing(d.ctx, slices, claims, ni.Node().Name, req.Requests, d.freesClaim) {
		return status
	}
	d.logger.V(4).Info("DRA claims fit once the victims' claims are freed", "pod", klog.KObj(d.preemptor), "node", ni.Node().Name)
	return nil
}

// freesClaim reports whether every pod claim is reserved for is gone: removed by this dry run, or
// deleted or being deleted already (an earlier preemption's victims, whose claims the resourceclaim
// controller has yet to free). A claim reserved for nobody, or for something other than pods, is
// not counted as freed.
func (d *dryRun) freesClaim(c *resourceapi.ResourceClaim) bool {
	if len(c.Status.ReservedFor) == 0 {
		return false
	}
	for _, r := range c.Status.ReservedFor {
		if r.APIGroup != "" || r.Resource != "pods" {
			return false
		}
		if !d.removed[r.UID] && !d.pl.podGone(c.Namespace, r.Name, r.UID) {
			return false
		}
	}
	return true
}

// podGone reports whether the pod is deleted or being deleted, as the scheduler's informer shows it:
// a pod being deleted counts as gone here, though it holds its node's room until it is, because
// its claims are released when it goes and preemption need not evict anything more for them.
func (pl *Preemption) podGone(ns, name string, uid types.UID) bool {
	p, err := pl.fh.SharedInformerFactory().Core().V1().Pods().Lister().Pods(ns).Get(name)
	return err != nil || p.UID != uid || p.DeletionTimestamp != nil || !podroom.Holds(p)
}

// draResolvable is the scheduling cycle's node statuses as preemption should read them for a pod
// with DRA GPU claims: DynamicResources calls a node where it cannot allocate the claims
// unresolvable, which would keep upstream's evaluator from trying that node at all. On a node
// that publishes GPUs of berth's driver, that verdict is for the dry run to revisit (draFits), so
// it is shown as Unschedulable.
type draResolvable struct {
	fwk.NodeToStatusReader
	gpuNodes map[string]bool
}

// withDRAResolvable wraps m for pod, or returns m when pod has no claims or no node has GPUs.
func (pl *Preemption) withDRAResolvable(pod *v1.Pod, m fwk.NodeToStatusReader) fwk.NodeToStatusReader {
	mgr := pl.fh.SharedDRAManager()
	if len(pod.Spec.ResourceClaims) == 0 || mgr == nil {
		return m
	}
	nodes, _, err := dra.Listed(mgr, pl.draMatcher.Config())
	if err != nil || len(nodes) == 0 {
		return m
	}
	gpuNodes := make(map[string]bool, len(nodes))
	for name := range nodes {
		gpuNodes[name] = true
	}
	return &draResolvable{NodeToStatusReader: m, gpuNodes: gpuNodes}
}

func (r *draResolvable) lifts(name string, s *fwk.Status) bool {
	return s.Code() == fwk.UnschedulableAndUnresolvable && s.Plugin() == names.DynamicResources && r.gpuNodes[name]
}

// Get is the node's status, DynamicResources' unresolvable shown as Unschedulable.
func (r *draResolvable) Get(name string) *fwk.Status {
	s := r.NodeToStatusReader.Get(name)
	if r.lifts(name, s) {
		return fwk.NewStatus(fwk.Unschedulable, s.Reasons()...).WithPlugin(s.Plugin())
	}
	return s
}

// NodesForStatusCode moves the lifted nodes from UnschedulableAndUnresolvable to Unschedulable.
func (r *draResolvable) NodesForStatusCode(lister fwk.NodeInfoLister, code fwk.Code) ([]fwk.NodeInfo, error) {
	nodes, err := r.NodeToStatusReader.NodesForStatusCode(lister, code)
	if err != nil {
		return nil, err
	}
	switch code {
	case fwk.UnschedulableAndUnresolvable:
		kept := nodes[:0:0]
		for _, ni := range nodes {
			if ni.Node() == nil || !r.lifts(ni.Node().Name, r.NodeToStatusReader.Get(ni.Node().Name)) {
				kept = append(kept, ni)
			}
		}
		return kept, nil
	case fwk.Unschedulable:
		unresolvable, err := r.NodeToStatusReader.NodesForStatusCode(lister, fwk.UnschedulableAndUnresolvable)
		if err != nil {
			return nil, err
		}
		for _, ni := range unresolvable {
			if ni.Node() != nil && r.lifts(ni.Node().Name, r.NodeToStatusReader.Get(ni.Node().Name)) {
				nodes = append(nodes, ni)
			}
		}
	}
	return nodes, nil
}

// retryOnClaimRelease retries pending pods with claims when a pod leaves a claim of berth's GPU
// driver that stays allocated for others: DynamicResources sees nothing freed and does not requeue
// its pods, but the holders left may now be a victim set that frees the device. Pods outside the
// queue's unschedulable pods are not moved (Activate ignores them).
func (pl *Preemption) retryOnClaimRelease(logger klog.Logger) error {
	factory := pl.fh.SharedInformerFactory()
	if factory == nil || pl.fh.SharedDRAManager() == nil {
		return nil
	}
	pods := factory.Core().V1().Pods().Lister()
	driver := pl.draMatcher.Config().Driver
	_, err := factory.Resource().V1().ResourceClaims().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, obj any) {
			old, ok1 := oldObj.(*resourceapi.ResourceClaim)
			cur, ok2 := obj.(*resourceapi.ResourceClaim)
			if !ok1 || !ok2 || cur.Status.Allocation == nil || len(cur.Status.ReservedFor) == 0 ||
				len(cur.Status.ReservedFor) >= len(old.Status.ReservedFor) || !holdsDriver(cur, driver) {
				return
			}
			all, err := pods.List(labels.Everything())
			if err != nil {
				return
			}
			var waiting []*v1.Pod
			for _, p := range all {
				if p.Spec.NodeName == "" && len(p.Spec.ResourceClaims) > 0 && p.DeletionTimestamp == nil {
					waiting = append(waiting, p)
				}
			}
			logger.V(5).Info("A pod left a GPU claim that stays held: retrying pods with claims", "claim", klog.KObj(cur), "pods", len(waiting))
			activate.Pods(pl.fh, logger, waiting)
		},
	})
	return err
}

func holdsDriver(c *resourceapi.ResourceClaim, driver string) bool {
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.Driver == driver {
			return true
		}
	}
	return false
}
