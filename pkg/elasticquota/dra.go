package elasticquota

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/apis/config"
	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
	"github.com/berth-sched/berth/pkg/apis/config/validation"
	"github.com/berth-sched/berth/pkg/dra"
	"github.com/berth-sched/berth/pkg/podroom"
	"github.com/berth-sched/berth/pkg/quota"
	"github.com/berth-sched/berth/pkg/tombstone"
)

// One ledger for GPUs served both ways: a pod's DRA ResourceClaims count against its quota under
// the same names as gpushare pods' GPU memory (ElasticQuotaArgs.DRAResources), so "64 GiB of GPU
// memory" for a team spans gpushare nodes and DRA nodes.
//
// A claim shared by several pods is counted once, against the first pod in its status.reservedFor
// that the ledger holds (the pod it was allocated for, while it runs: the scheduler reserves a
// claim for the pod it allocates it for, and appends later pods), or against the pod being
// scheduled while no pod holding quota has reserved it. Counting it against one pod keeps the
// ledger a ledger of pods, and the first reserver is a choice every replica and every restart
// agrees on. The claim moves to the next pod when the first goes: recountSharers counts it there
// before the leaving pod is forgotten, so that for a moment it counts twice, never zero times (a
// pod waiting for quota must not slip in on a claim that is still held).

// elasticQuotaArgs returns obj as validated ElasticQuotaArgs, or the defaults when obj is nil.
func elasticQuotaArgs(obj runtime.Object) (*config.ElasticQuotaArgs, error) {
	return config.ArgsOf(obj, configv1.DefaultElasticQuotaArgs, validation.ValidateElasticQuotaArgs)
}

// draCounting is what claims count under: DRAResources by DeviceClass (for requests not yet
// allocated) and by driver (for allocated devices).
type draCounting struct {
	byClass, byDriver map[string]*config.DRAResource

	mu sync.Mutex
	// matchers evaluate requests' selectors, by driver and capacity, their compiled CEL cached.
	matchers map[dra.Config]*dra.Matcher
}

func newDRACounting(args *config.ElasticQuotaArgs) *draCounting {
	c := &draCounting{byClass: map[string]*config.DRAResource{}, byDriver: map[string]*config.DRAResource{}, matchers: map[dra.Config]*dra.Matcher{}}
	for i := range args.DRAResources {
		r := &args.DRAResources[i]
		c.byClass[r.DeviceClassName], c.byDriver[r.Driver] = r, r
	}
	return c
}

// draState holds the counting of the first profile's args: the ledger is one per process.
type draState struct {
	counting atomic.Pointer[draCounting]
}

// useDRAArgs sets how claims are counted, unless a profile built earlier has.
func (s *shared) useDRAArgs(args *config.ElasticQuotaArgs) {
	s.dra.counting.CompareAndSwap(nil, newDRACounting(args))
}

func (s *shared) draCounting() *draCounting {
	if c := s.dra.counting.Load(); c != nil {
		return c
	}
	// Only BerthPreemption in the profile, no ElasticQuota plugin: the defaults.
	args, err := configv1.DefaultElasticQuotaArgs()
	if err != nil {
		return &draCounting{}
	}
	s.dra.counting.CompareAndSwap(nil, newDRACounting(args))
	return s.dra.counting.Load()
}

// requestOf is what pod holds against its quota: quota.RequestOf plus what its DRA claims count.
func (s *shared) requestOf(pod *v1.Pod) (amount.Amount, error) {
	return s.requestWith(pod, nil, "")
}

// claimSeen is a claim as an event shows it; claim nil: deleted.
type claimSeen struct {
	namespace, name string
	claim           *resourceapi.ResourceClaim
}

// requestWith is requestOf with seen standing for its claim as the DRA manager shows it (a claim
// handler runs before or after the manager's own: see claimHandler), and departing, a pod on its
// way out, not counted as holding the claims it shares.
func (s *shared) requestWith(pod *v1.Pod, seen *claimSeen, departing types.UID) (amount.Amount, error) {
	v, err := quota.RequestOf(pod, s.gpuMemory())
	if err != nil || len(pod.Spec.ResourceClaims) == 0 {
		return v, err
	}
	c := s.draCounting()
	if len(c.byDriver) == 0 {
		return v, nil
	}
	manager := s.handle.SharedDRAManager()
	if manager == nil {
		return v, nil
	}
	objs := &draObjects{slices: manager.ResourceSlices(), classes: manager.DeviceClasses()}
	for i := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			// A claim from a template not created yet: DynamicResources keeps the pod waiting
			// until it is, and the pod is counted with it then.
			continue
		}
		var claim *resourceapi.ResourceClaim
		if seen != nil && seen.namespace == pod.Namespace && seen.name == *name {
			claim = seen.claim
		} else if claim, err = manager.ResourceClaims().Get(pod.Namespace, *name); err != nil {
			continue
		}
		if claim == nil || !chargedTo(claim, pod, func(uid types.UID) bool {
			held, _ := s.ledger.Holds(uid)
			return held && uid != departing
		}) {
			continue
		}
		v.Add(c.claimCharge(claim, objs), 1)
	}
	return v, nil
}

// chargedTo reports whether claim counts against pod: it does while no other pod that holds
// quota (holds) comes first in its reservedFor (see the comment at the top).
func chargedTo(claim *resourceapi.ResourceClaim, pod *v1.Pod, holds func(types.UID) bool) bool {
	for _, r := range claim.Status.ReservedFor {
		if r.APIGroup != "" || r.Resource != "pods" {
			continue
		}
		if r.UID == pod.UID {
			return true
		}
		if holds(r.UID) {
			return false
		}
	}
	return true
}

// recountSharers recounts the bound pods that share a claim with pod, which was just bound (a
// restarted scheduler may have counted a later sharer first) or is departing (its claims move to
// the next sharer). The caller forgets a departing pod after this, so its claims never count zero
// times.
func (s *shared) recountSharers(pod *v1.Pod, departing types.UID) {
	if len(pod.Spec.ResourceClaims) == 0 || s.handle.SharedDRAManager() == nil {
		return
	}
	for i := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			continue
		}
		claim, err := s.handle.SharedDRAManager().ResourceClaims().Get(pod.Namespace, *name)
		if err != nil {
			continue
		}
		s.recountReservers(claim, nil, pod.UID, departing)
	}
}

// recountReservers recounts the bound pods that claim is reserved for, except skip; seen, if not
// nil, is the claim as an event shows it.
func (s *shared) recountReservers(claim *resourceapi.ResourceClaim, seen *claimSeen, skip, departing types.UID) {
	for _, r := range claim.Status.ReservedFor {
		if r.APIGroup != "" || r.Resource != "pods" || r.UID == skip || r.UID == departing {
			continue
		}
		pod, err := s.pods(claim.Namespace, r.Name)
		if err != nil || pod.UID != r.UID || !podroom.Holds(pod) {
			continue
		}
		if _, bound := s.ledger.Holds(pod.UID); !bound {
			continue
		}
		req, err := s.requestWith(pod, seen, departing)
		if err != nil {
			continue
		}
		s.logger.V(5).Info("Recounting a pod that shares a claim", "pod", klog.KObj(pod), "claim", klog.KObj(claim), "request", req.Listed())
		s.wake(s.ledger.Recount(pod, groupOf(pod), req))
	}
}

// claimCharge is what claim counts: for an allocated claim, per device it holds, the capacity it
// consumes (or, holding the device whole, the device's own capacity from its ResourceSlice); for
// one not yet allocated, what its requests ask for: the share named, or, for a device whole (or
// the default share of a shareable one), the least that any device the request matches takes.
// Requests for monitoring (adminAccess) consume nothing and count nothing. What a claim asks and
// what a device holds are read by package dra, as GPUShare's scores read them.
func (c *draCounting) claimCharge(claim *resourceapi.ResourceClaim, objs *draObjects) amount.Amount {
	v := amount.Amount{}
	if a := claim.Status.Allocation; a != nil {
		for _, r := range a.Devices.Results {
			m := c.byDriver[r.Driver]
			if m == nil || (r.AdminAccess != nil && *r.AdminAccess) {
				continue
			}
			if m.CountResource != "" {
				v[v1.ResourceName(m.CountResource)] += 1000
			}
			for _, cp := range m.Capacities {
				if q, ok := dra.CapacityOf(r.ConsumedCapacity, r.Driver, resourceapi.QualifiedName(cp.Name)); ok {
					v[v1.ResourceName(cp.Resource)] += units(q, cp.Unit)
				} else if x, ok := dra.DeviceMemory(objs.devices(m.Driver, cp.Name), dra.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}); ok {
					v[v1.ResourceName(cp.Resource)] += units(*resource.NewQuantity(x, resource.BinarySI), cp.Unit)
				}
			}
		}
		return v
	}
	for i := range claim.Spec.Devices.Requests {
		choices, err := dra.RequestChoices(claim, i, objs.class)
		if err != nil {
			continue
		}
		// A list of alternatives counts the least that any of them asks, resource by resource:
		// admission must not refuse a claim that one of its choices would let in.
		var least amount.Amount
		for j := range choices {
			w := c.requestCharge(&choices[j], objs)
			if j == 0 {
				least = w
				continue
			}
			for name, x := range least {
				least[name] = min(x, w[name])
			}
		}
		v.Add(least, 1)
	}
	return v
}

// requestCharge is what one request (or choice of a prioritized list) of a claim not yet
// allocated asks for.
func (c *draCounting) requestCharge(r *dra.DeviceRequest, objs *draObjects) amount.Amount {
	v := amount.Amount{}
	m := c.byClass[r.Class]
	if m == nil || r.AdminAccess {
		return v
	}
	// "All" devices of a class is as many as the node has: at least one.
	count := r.Count
	if r.All {
		count = 1
	}
	if m.CountResource != "" {
		v[v1.ResourceName(m.CountResource)] = count * 1000
	}
	for _, cp := range m.Capacities {
		if q, ok := dra.CapacityOf(r.Capacity, m.Driver, resourceapi.QualifiedName(cp.Name)); ok {
			v[v1.ResourceName(cp.Resource)] = units(q, cp.Unit) * count
			continue
		}
		// No share named: the device whole, or a shareable device's default share. Which device
		// is the allocator's choice; the least any matching device takes is what admission can
		// count without refusing a claim that the smallest device would let in.
		cfg := dra.Config{Driver: m.Driver, Memory: resourceapi.QualifiedName(cp.Name)}
		if x, ok := c.matcher(cfg).LeastTake(context.TODO(), r, objs.devices(m.Driver, cp.Name)); ok {
			v[v1.ResourceName(cp.Resource)] = units(*resource.NewQuantity(x, resource.BinarySI), cp.Unit) * count
		}
	}
	return v
}

// matcher is the CEL matcher for devices of cfg's driver, measured by cfg's capacity.
func (c *draCounting) matcher(cfg dra.Config) *dra.Matcher {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.matchers[cfg]
	if m == nil {
		if c.matchers == nil {
			c.matchers = map[dra.Config]*dra.Matcher{}
		}
		m = dra.NewMatcher(cfg)
		c.matchers[cfg] = m
	}
	return m
}

// draObjects are the DRA objects one count reads, with the devices of each driver and capacity
// built once per count, when first needed.
type draObjects struct {
	slices  fwk.ResourceSliceLister
	classes fwk.DeviceClassLister
	built   map[dra.Config]map[string]*dra.NodeGPUs
}

// devices are the devices of driver with capacity (or, partitions, a counter) name, by node.
func (o *draObjects) devices(driver, name string) map[string]*dra.NodeGPUs {
	cfg := dra.Config{Driver: driver, Memory: resourceapi.QualifiedName(name)}
	if nodes, ok := o.built[cfg]; ok {
		return nodes
	}
	var nodes map[string]*dra.NodeGPUs
	if o.slices != nil {
		if all, err := o.slices.ListWithDeviceTaintRules(); err == nil {
			// Devices without the capacity are reported by GPUShare; here they count nothing.
			nodes, _ = dra.Inventory(cfg, all, nil)
		}
	}
	if o.built == nil {
		o.built = map[dra.Config]map[string]*dra.NodeGPUs{}
	}
	o.built[cfg] = nodes
	return nodes
}

// class is a DeviceClass for its selectors; one not found has none: the claim counts by its
// class's name all the same, and DynamicResources keeps it waiting until the class exists.
func (o *draObjects) class(name string) (*resourceapi.DeviceClass, error) {
	if o.classes != nil {
		if c, err := o.classes.Get(name); err == nil {
			return c, nil
		}
	}
	return &resourceapi.DeviceClass{}, nil
}

// units is q in units of unit, in the ledger's thousandths, rounded up: a share of a GiB still
// takes from a quota counted in GiB.
func units(q, unit resource.Quantity) int64 {
	x := math.Ceil(q.AsApproximateFloat64() / unit.AsApproximateFloat64() * 1000)
	if x <= 0 || math.IsNaN(x) {
		return 0
	}
	return int64(min(x, 1<<52))
}

// claimHandler recounts the bound pods a claim is or was reserved for when its reservation or
// allocation changes: the claim moves to another pod (the first reserver left), its consumed
// capacity becomes known, or it is freed. A recount that gives quota back retries the pods waiting
// for it (Ledger.Bound returns them). It counts the claim as the event shows it, not as the DRA
// manager does: two handlers on one informer run in no fixed order.
func (s *shared) claimHandler() cache.ResourceEventHandler {
	recount := func(old, cur *resourceapi.ResourceClaim) {
		seen := &claimSeen{namespace: old.Namespace, name: old.Name, claim: cur}
		s.recountReservers(old, seen, "", "")
		if cur != nil {
			s.recountReservers(cur, seen, "", "")
		}
	}
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, obj any) {
			old, ok1 := oldObj.(*resourceapi.ResourceClaim)
			cur, ok2 := obj.(*resourceapi.ResourceClaim)
			if !ok1 || !ok2 || claimCountSame(old, cur) {
				return
			}
			recount(old, cur)
		},
		DeleteFunc: func(obj any) {
			if claim, ok := tombstone.As[*resourceapi.ResourceClaim](obj); ok {
				recount(claim, nil)
			}
		},
	}
}

// claimCountSame reports whether an update leaves alone what a claim counts and against whom.
func claimCountSame(old, cur *resourceapi.ResourceClaim) bool {
	return apiequality.Semantic.DeepEqual(old.Status.ReservedFor, cur.Status.ReservedFor) &&
		apiequality.Semantic.DeepEqual(old.Status.Allocation, cur.Status.Allocation)
}

// isSchedulableAfterClaimChange queues a pod waiting for quota when a claim of its namespace was
// freed, deleted or released by a pod: what it counted may have gone back to the quota.
func isSchedulableAfterClaimChange(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	old, cur, err := schedutil.As[*resourceapi.ResourceClaim](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if old == nil || old.Namespace != pod.Namespace {
		return fwk.QueueSkip, nil
	}
	if cur != nil && (old.Status.Allocation == nil || cur.Status.Allocation != nil) && len(cur.Status.ReservedFor) >= len(old.Status.ReservedFor) {
		return fwk.QueueSkip, nil
	}
	if v := logger.V(5); v.Enabled() {
		// Not built when off: the queue asks every waiting pod on every event.
		v.Info("A claim of the same quota was freed", "pod", klog.KObj(pod), "claim", klog.KObj(old))
	}
	return fwk.Queue, nil
}
