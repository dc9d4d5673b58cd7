package quota

import (
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Ledger is the scheduler's one account of quota use: every pod that holds resources (reserved by
// the scheduler, or bound to a node and not finished), by UID, and each namespace's quota. It is
// the truth that admission, reclaim and status.used all read. One Ledger serves every profile of
// a scheduler process; every method is safe for concurrent use.
type Ledger struct {
	mu         sync.Mutex
	pods       map[types.UID]*holding
	namespaces map[string]*account
}

// holding is what one pod holds.
type holding struct {
	namespace string
	group     string
	request   Vector
	// bound is set once the pod is seen bound; a reservation not yet bound can be undone.
	bound bool
	// terminating is set once the pod is being deleted: it still holds its resources, but they
	// are on their way back and cannot be lent again.
	terminating bool
}

// account is one namespace's use, its quota (nil when it has none), and the pods waiting for quota.
type account struct {
	used Vector
	// leaving is what terminating pods hold, and leavers those pods.
	leaving Vector
	leavers map[types.UID]bool
	spec    *Spec
	holds   int
	// groups counts, per pod group, the members that hold resources.
	groups map[string]int
	// generation changes whenever something that could admit a waiting pod happens: a pod of
	// the namespace gives back resources, or the quota changes.
	generation uint64
	waiting    map[types.UID]*v1.Pod
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{pods: map[types.UID]*holding{}, namespaces: map[string]*account{}}
}

func (l *Ledger) account(ns string) *account {
	a, ok := l.namespaces[ns]
	if !ok {
		a = &account{used: Vector{}, leaving: Vector{}, leavers: map[types.UID]bool{}, groups: map[string]int{}}
		l.namespaces[ns] = a
	}
	return a
}

// dropIfIdle forgets a namespace that holds nothing, has no quota and no waiters.
func (l *Ledger) dropIfIdle(ns string, a *account) {
	if a.holds == 0 && a.spec == nil && len(a.waiting) == 0 {
		delete(l.namespaces, ns)
	}
}

// SetQuota sets (or, with spec nil, removes) namespace ns's quota. It returns the pods that were
// waiting for quota in ns, for the caller to retry.
func (l *Ledger) SetQuota(ns string, spec *Spec) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.account(ns)
	a.spec = spec
	woken := l.wake(a)
	l.dropIfIdle(ns, a)
	return woken
}

// wake bumps a's generation and hands back its waiters. Callers hold mu.
func (l *Ledger) wake(a *account) []*v1.Pod {
	a.generation++
	if len(a.waiting) == 0 {
		return nil
	}
	pods := make([]*v1.Pod, 0, len(a.waiting))
	for _, p := range a.waiting {
		pods = append(pods, p)
	}
	a.waiting = nil
	return pods
}

// View is a copy of one namespace's quota and use, taken at one moment. Admission reads it
// without the ledger's lock; preemption's dry run adjusts Used as it removes and adds pods.
type View struct {
	Spec Spec
	Used Vector
	// GroupHeld is how many members of the group asked about hold resources.
	GroupHeld int
	// Generation is the namespace's generation when the view was taken (see Park).
	Generation uint64
}

// Clone returns a copy whose Used can be changed independently.
func (v *View) Clone() *View {
	c := *v
	c.Used = v.Used.Clone()
	return &c
}

// ViewOf returns namespace ns's quota and use, and how many members of group hold resources; ok
// is false when ns has no quota.
func (l *Ledger) ViewOf(ns, group string) (view *View, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, found := l.namespaces[ns]
	if !found || a.spec == nil {
		return nil, false
	}
	return &View{Spec: *a.spec, Used: a.used.Clone(), GroupHeld: a.groups[group], Generation: a.generation}, true
}

// Park records pod as waiting for quota in its namespace, to be handed back by the next SetQuota
// or release there. If something changed since view was taken (its generation is stale), it does
// not park the pod and returns false: the caller should retry it at once. Together with ViewOf,
// this makes checking and waiting atomic: no release can fall between them unnoticed.
func (l *Ledger) Park(pod *v1.Pod, view *View) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.account(pod.Namespace)
	if a.generation != view.Generation {
		return false
	}
	if a.waiting == nil {
		a.waiting = map[types.UID]*v1.Pod{}
	}
	a.waiting[pod.UID] = pod
	return true
}

// Exceeded says why a request does not fit a quota, in terms a person can act on.
type Exceeded struct {
	Quota     string
	Resource  v1.ResourceName
	Used      int64
	Requested int64
	Limit     int64
	// Group is set when the request is a whole pod group's.
	Group string
}

func (e *Exceeded) Error() string {
	what := "requested"
	if e.Group != "" {
		what = "requested for pod group " + e.Group
	}
	return fmt.Sprintf("quota %s: %s used %s, %s %s, max %s", e.Quota, e.Resource,
		format(e.Resource, e.Used), what, format(e.Resource, e.Requested), format(e.Resource, e.Limit))
}

// Fits returns nil if used + request stays within max for every resource max names, or the first
// resource (in name order) that it would exceed.
func (s *Spec) Fits(used, request Vector) *Exceeded {
	var worst *Exceeded
	for name, limit := range s.Max {
		r := request[name]
		if r == 0 {
			continue
		}
		if used[name]+r > limit && (worst == nil || name < worst.Resource) {
			worst = &Exceeded{Quota: s.Name, Resource: name, Used: used[name], Requested: r, Limit: limit}
		}
	}
	return worst
}

// WithinMin reports whether used + request stays within min for every resource the quota names
// that request asks for: the request is guaranteed, and may reclaim what others borrowed.
func (s *Spec) WithinMin(used, request Vector) bool {
	for name, r := range request {
		if r > 0 && s.names(name) && used[name]+r > s.Min[name] {
			return false
		}
	}
	return true
}

// Reserve makes pod hold request in its namespace, if its quota admits it: the check and the
// hold are one step under the lock. A pod that already holds resources keeps them unchanged.
func (l *Ledger) Reserve(pod *v1.Pod, group string, request Vector) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.pods[pod.UID]; ok {
		return nil
	}
	a := l.account(pod.Namespace)
	if a.spec != nil {
		if e := a.spec.Fits(a.used, request); e != nil {
			return e
		}
	}
	l.hold(pod.UID, &holding{namespace: pod.Namespace, group: group, request: request}, a)
	return nil
}

// Unreserve gives back what pod reserved, unless it is already bound. It returns the pods
// waiting for quota in its namespace, for the caller to retry.
func (l *Ledger) Unreserve(uid types.UID) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.pods[uid]
	if !ok || h.bound {
		return nil
	}
	return l.release(uid, h)
}

// Bound records that pod is bound and holds request (its current request: a resize changes it).
// It returns the waiters of its namespace when that gave resources back.
func (l *Ledger) Bound(pod *v1.Pod, group string, request Vector) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.pods[pod.UID]
	if !ok {
		h = &holding{namespace: pod.Namespace, group: group, request: request, bound: true}
		l.hold(pod.UID, h, l.account(pod.Namespace))
		l.markLeaving(h, pod)
		return nil
	}
	h.bound = true
	a := l.account(h.namespace)
	defer l.markLeaving(h, pod)
	if h.terminating {
		a.leaving.Add(h.request, -1)
		defer a.leaving.Add(request, 1)
	}
	shrank := false
	for name, x := range h.request {
		if request[name] < x {
			shrank = true
		}
	}
	a.used.Add(h.request, -1)
	a.used.Add(request, 1)
	h.request = request
	if shrank {
		return l.wake(a)
	}
	return nil
}

// Forget gives back everything pod holds: it finished or was deleted. It returns the waiters of
// its namespace.
func (l *Ledger) Forget(uid types.UID) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.pods[uid]
	if !ok {
		return nil
	}
	return l.release(uid, h)
}

// Leaving records that a pod is being evicted: it holds its resources until it is gone, but
// they are no longer lendable.
func (l *Ledger) Leaving(uid types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.pods[uid]; ok {
		l.leave(uid, h)
	}
}

// markLeaving records that a pod being deleted holds what it holds only until it is gone.
func (l *Ledger) markLeaving(h *holding, pod *v1.Pod) {
	if pod.DeletionTimestamp != nil {
		l.leave(pod.UID, h)
	}
}

func (l *Ledger) leave(uid types.UID, h *holding) {
	if h.terminating {
		return
	}
	h.terminating = true
	a := l.account(h.namespace)
	a.leaving.Add(h.request, 1)
	a.leavers[uid] = true
}

func (l *Ledger) hold(uid types.UID, h *holding, a *account) {
	l.pods[uid] = h
	a.used.Add(h.request, 1)
	a.holds++
	if h.group != "" {
		a.groups[h.group]++
	}
}

func (l *Ledger) release(uid types.UID, h *holding) []*v1.Pod {
	delete(l.pods, uid)
	a := l.account(h.namespace)
	a.used.Add(h.request, -1)
	if h.terminating {
		a.leaving.Add(h.request, -1)
		delete(a.leavers, uid)
	}
	for _, v := range []Vector{a.used, a.leaving} {
		for name, x := range v {
			if x == 0 {
				delete(v, name)
			}
		}
	}
	a.holds--
	if h.group != "" {
		if a.groups[h.group]--; a.groups[h.group] <= 0 {
			delete(a.groups, h.group)
		}
	}
	woken := l.wake(a)
	l.dropIfIdle(h.namespace, a)
	return woken
}

// Holds reports whether pod holds resources, and whether it is bound.
func (l *Ledger) Holds(uid types.UID) (held, bound bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.pods[uid]
	return ok, ok && h.bound
}

// Usage is one quota's use, for status.used.
type Usage struct {
	Namespace string
	Spec      Spec
	Used      Vector
}

// Quotas returns every quota and its use.
func (l *Ledger) Quotas() []Usage {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Usage
	for ns, a := range l.namespaces {
		if a.spec != nil {
			out = append(out, Usage{Namespace: ns, Spec: *a.spec, Used: a.used.Clone()})
		}
	}
	return out
}
