package quota

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/amount"
)

// Ledger is the scheduler's one account of quota use: every pod that holds resources (reserved by
// the scheduler, or bound to a node and not finished), by UID, and each namespace's quota. It is
// the truth that admission, reclaim and status.used all read. One Ledger serves every profile of
// a scheduler process; every method is safe for concurrent use.
type Ledger struct {
	mu         sync.Mutex
	pods       map[types.UID]*holding
	namespaces map[string]*account
	// tree is the last valid quota tree (flat quotas are top-level quotas of one namespace each),
	// and quotas its quotas' use, by name.
	tree   *Tree
	quotas map[string]*node
	// parked are the quotas each waiting pod is parked at: every quota on its path.
	parked map[types.UID][]*node
	// clock counts changes that could admit a waiting pod; a quota's stamp is its last.
	clock uint64
	// incoming are preemptors whose victims are being evicted, until they hold resources
	// themselves: fair sharing counts them on their quota's side (see Incoming).
	incoming arrivals
	// pending are the pods waiting to be scheduled in fair-sharing quotas, their demand;
	// fairParked the pods refused for fair sharing, and fairClock counts the changes that can
	// admit them (see FairAdmits).
	pending    arrivals
	fairParked map[types.UID]*v1.Pod
	fairClock  uint64
	// lendingLimits is set when a quota in force has a lending limit (see LendingAdmits).
	lendingLimits bool
	// capacity is the nodes' allocatable as the last admission or preemption that weighed fair
	// shares saw it: the pool a bind is weighed against outside a scheduling cycle (fairWake).
	capacity amount.Amount
	// gone are the pods forgotten in the last goneFor, which Reserve refuses (see Forget), swept
	// of older ones when it reaches goneSweep.
	gone      map[types.UID]time.Time
	goneSweep int
	// groupOf names a pod's pod group, "" for none (see SetGroupOf).
	groupOf func(*v1.Pod) string
}

// goneFor is how long a forgotten pod's reservation is refused: longer than a scheduling cycle
// that started before its deletion can run.
const goneFor = time.Minute

// arrival is a pod on its way in, a preemptor (incoming) or a pod waiting to be admitted
// (pending): its namespace, what it asks, and since when (for pending, its last attempt). A
// preemptor's victims are the pods it evicts (see EndLostArrival).
type arrival struct {
	pod       *v1.Pod
	namespace string
	// group is the pod's pod group, "" for none.
	group   string
	request amount.Amount
	at      time.Time
	victims []types.UID
}

// arrivalTimeout is how long a preemptor counts as on its way in: one whose victims are gone
// binds within seconds, and one that never comes must not hold its quota's side up for ever.
const arrivalTimeout = time.Minute

// node is one quota in force and its use: what its own namespaces' pods hold and what its
// children's hold.
type node struct {
	spec   *Spec
	parent *node
	// counts are the namespaces whose pods its use counts: its own and its descendants'.
	counts  map[string]bool
	used    amount.Amount
	leaving amount.Amount
	// stamp is the ledger's clock when something below it last gave resources back or it
	// changed; a view of a namespace is stale once any quota on its path has a newer stamp.
	stamp   uint64
	waiting map[types.UID]*v1.Pod
}

// holding is what one pod holds.
type holding struct {
	namespace string
	group     string
	request   amount.Amount
	// bound is set once the pod is seen bound; a reservation not yet bound can be undone.
	bound bool
	// terminating is set once the pod is being deleted: it still holds its resources, but they
	// are on their way back and cannot be lent again.
	terminating bool
}

// account is one namespace's use. Its quota is the tree's (see nodeOf), and the pods waiting for
// quota are parked at the quotas on its path.
type account struct {
	used amount.Amount
	// leaving is what terminating pods hold, and leavers those pods.
	leaving amount.Amount
	leavers map[types.UID]bool
	holds   int
	// groups counts, per pod group, the members that hold resources, and placing is what the
	// members not yet bound hold: the group's round in progress, which fair admission judges as
	// one with the members still to come (FairAdmits).
	groups  map[string]int
	placing map[string]amount.Amount
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{pods: map[types.UID]*holding{}, namespaces: map[string]*account{},
		quotas: map[string]*node{}, parked: map[types.UID][]*node{}, incoming: arrivals{},
		pending: arrivals{}, fairParked: map[types.UID]*v1.Pod{}, gone: map[types.UID]time.Time{}}
}

// Incoming records that pod's preemption has started evicting victims for request: until it
// holds resources (or is forgotten, or loses the room: EndLostArrival), its quota's side of fair
// sharing counts it as holding them, so that the next preemptor of the same quota does not take
// for it again. Victims are counted as leaving (Leaving); this is the other side of the same
// exchange.
func (l *Ledger) Incoming(pod *v1.Pod, request amount.Amount, victims []types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.record(l.incoming, pod, request, victims)
}

// EndLostArrival ends preemptor's record as on its way in when every victim it evicted is gone,
// from the ledger and from the scheduling cycle's nodes (placed), and it has been turned away
// again: another pod took the room they left. The record would otherwise hold its quota's side up
// until arrivalTimeout, and its quota's other preemptors, counting it, would find their quota not
// below its share and no victims (Kueue's hierarchical preemption replayed: physics kept 1 of its
// fair 2 while chemistry held 3). A victim still terminating keeps the claim: the room is coming.
// It reports whether it ended one.
func (l *Ledger) EndLostArrival(preemptor types.UID, placed iter.Seq[*v1.Pod]) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, ok := l.incoming[preemptor]
	if !ok || len(a.victims) == 0 {
		return false
	}
	victims := make(map[types.UID]bool, len(a.victims))
	for _, uid := range a.victims {
		if _, held := l.pods[uid]; held {
			return false
		}
		victims[uid] = true
	}
	for p := range placed {
		if victims[p.UID] {
			return false
		}
	}
	delete(l.incoming, preemptor)
	return true
}

// record notes in m that pod, which holds nothing yet, asks request (a preemptor: evicting
// victims). A pod already forgotten is not recorded: a cycle that took it before its deletion
// records it after Forget, and nothing would remove the record but its timeout. Callers hold mu.
func (l *Ledger) record(m arrivals, pod *v1.Pod, request amount.Amount, victims []types.UID) {
	if _, held := l.pods[pod.UID]; held {
		return
	}
	if _, gone := l.gone[pod.UID]; gone {
		return
	}
	m[pod.UID] = arrival{pod: pod, namespace: pod.Namespace, group: l.groupNameOf(pod), request: request, at: time.Now(), victims: victims}
}

// SetGroupOf tells the ledger how to name a pod's pod group ("" for none). A member of a group
// that misses members asks for all of them (admission and preemption weigh the group's need, not
// the member's request), so the group's own arrivals and waiting members must not be counted
// beside it, nor its waiting members beside a preemptor of the group on its way in: counted so, a
// gang's two members on their way in held its quota's side at twice the gang (issue 42: team-g's
// own preemptor refused its own room as above its fair share, share 0.333 for 0.167).
func (l *Ledger) SetGroupOf(groupOf func(*v1.Pod) string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.groupOf = groupOf
}

func (l *Ledger) groupNameOf(pod *v1.Pod) string {
	if l.groupOf == nil {
		return ""
	}
	return l.groupOf(pod)
}

// self is the pod a judgment weighs, with its pod group: neither its own nor its group's arrivals
// and waiting pods count beside the need it asks (see SetGroupOf). The zero self is no pod.
type self struct {
	uid              types.UID
	namespace, group string
}

// selfOf is pod as a judgment's self. Callers hold mu.
func (l *Ledger) selfOf(pod *v1.Pod) self {
	return self{uid: pod.UID, namespace: pod.Namespace, group: l.groupNameOf(pod)}
}

// is reports whether arrival a (of pod uid) is s's own or its group's.
func (s self) is(uid types.UID, a arrival) bool {
	return (s.uid != "" && uid == s.uid) || (s.group != "" && a.group == s.group && a.namespace == s.namespace)
}

// arriving is what preemptors on their way in, other than s's, will hold in the namespaces n
// counts. Callers hold mu.
func (l *Ledger) arriving(n *node, s self) amount.Amount {
	return l.incoming.need(arrivalTimeout, func(uid types.UID, a arrival) bool { return n.counts[a.namespace] && !s.is(uid, a) })
}

// arrivals are pods, by UID, that ask for resources they do not hold yet.
type arrivals map[types.UID]arrival

// sum is what the arrivals that counts names ask; it forgets those recorded longer than timeout
// ago. Callers hold the ledger's mu.
func (m arrivals) sum(timeout time.Duration, counts func(uid types.UID, a arrival) bool) amount.Amount {
	v := amount.Amount{}
	for uid, a := range m {
		if time.Since(a.at) > timeout {
			delete(m, uid)
			continue
		}
		if counts(uid, a) {
			v.Add(a.request, 1)
		}
	}
	return v
}

// need is what the arrivals that counts names ask, a pod group's once: each member of a group
// that misses members asks for the group's need (see SetGroupOf), so a group counts the most any
// of its members asks, resource by resource. Callers hold the ledger's mu.
func (m arrivals) need(timeout time.Duration, counts func(uid types.UID, a arrival) bool) amount.Amount {
	groups := map[string]amount.Amount{}
	v := m.sum(timeout, func(uid types.UID, a arrival) bool {
		if !counts(uid, a) {
			return false
		}
		if a.group == "" {
			return true
		}
		g := groups[a.namespace+"/"+a.group]
		if g == nil {
			g = amount.Amount{}
			groups[a.namespace+"/"+a.group] = g
		}
		for name, x := range a.request {
			g[name] = max(g[name], x)
		}
		return false
	})
	for _, g := range groups {
		v.Add(g, 1)
	}
	return v
}

// nodeOf returns the quota that covers namespace ns, nil if none. Callers hold mu.
func (l *Ledger) nodeOf(ns string) *node { return l.quotas[l.tree.QuotaOf(ns)] }

// ShareATree reports whether namespaces a and b are covered by quotas of one tree (for flat
// quotas: by the same quota), so that what a pod of b gives back may let a pod of a in.
func (l *Ledger) ShareATree(a, b string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	top := func(n *node) *node {
		for n != nil && n.parent != nil {
			n = n.parent
		}
		return n
	}
	ta := top(l.nodeOf(a))
	return ta != nil && ta == top(l.nodeOf(b))
}

func (l *Ledger) account(ns string) *account {
	a, ok := l.namespaces[ns]
	if !ok {
		a = &account{used: amount.Amount{}, leaving: amount.Amount{}, leavers: map[types.UID]bool{}, groups: map[string]int{}}
		l.namespaces[ns] = a
	}
	return a
}

// dropIfIdle forgets a namespace that holds nothing.
func (l *Ledger) dropIfIdle(ns string, a *account) {
	if a.holds == 0 {
		delete(l.namespaces, ns)
	}
}

// SetQuota sets (or, with spec nil, removes) namespace ns's quota as a flat quota: a quota at the
// top of no tree, of ns alone, replacing the flat quota that covered ns. It returns the pods that
// were waiting for quota in ns, for the caller to retry. (The ElasticQuota plugin sets the whole
// tree with SetTree.)
func (l *Ledger) SetQuota(ns string, spec *Spec) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	woken := l.setTree(l.tree.withFlat(ns, spec))
	return append(woken, l.wake(l.nodeOf(ns))...)
}

// Tree returns the quota tree in force: the last valid one set.
func (l *Ledger) Tree() *Tree {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tree
}

// SetTree puts tree in force. Every quota whose definition, children or place changed is new to
// the ledger: the pods waiting at it are returned, for the caller to retry; the others keep
// theirs. Use is recounted from the namespaces' for every quota.
func (l *Ledger) SetTree(tree *Tree) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.setTree(tree)
}

func (l *Ledger) setTree(tree *Tree) []*v1.Pod {
	l.clock++
	nodes := make(map[string]*node, len(tree.quotas))
	var changed func(name string) bool
	memo := map[string]bool{}
	changed = func(name string) bool {
		if c, ok := memo[name]; ok {
			return c
		}
		q, prev := tree.quotas[name], l.tree.Quota(name)
		c := prev == nil || !equality.Semantic.DeepEqual(q.Spec, prev.Spec) || !slices.Equal(q.Namespaces, prev.Namespaces) ||
			!slices.Equal(q.Children, prev.Children) || l.quotas[name] == nil
		for _, child := range q.Children {
			c = changed(child) || c
		}
		memo[name] = c
		return c
	}
	for name, q := range tree.quotas {
		if n := l.quotas[name]; n != nil && !changed(name) {
			nodes[name] = n
		} else {
			spec := q.Spec
			nodes[name] = &node{spec: &spec, stamp: l.clock}
		}
	}
	var woken []*v1.Pod
	for name, n := range l.quotas {
		if nodes[name] != n {
			woken = append(woken, l.drain(n)...)
		}
	}
	for name, n := range nodes {
		q := tree.quotas[name]
		n.parent = nodes[q.Spec.Parent]
		n.used, n.leaving = amount.Amount{}, amount.Amount{}
		n.counts = map[string]bool{}
		for _, ns := range tree.Subtree(name) {
			n.counts[ns] = true
		}
	}
	l.tree, l.quotas = tree, nodes
	l.lendingLimits = false
	for _, n := range nodes {
		l.lendingLimits = l.lendingLimits || len(n.spec.LendingLimit) > 0
	}
	for ns, a := range l.namespaces {
		for n := l.nodeOf(ns); n != nil; n = n.parent {
			n.used.Add(a.used, 1)
			n.leaving.Add(a.leaving, 1)
		}
	}
	return append(woken, l.drainFair()...)
}

// drain hands back the pods parked at n, and unparks them everywhere. Callers hold mu.
func (l *Ledger) drain(n *node) []*v1.Pod {
	if n == nil || len(n.waiting) == 0 {
		return nil
	}
	pods := make([]*v1.Pod, 0, len(n.waiting))
	for uid, p := range n.waiting {
		pods = append(pods, p)
		for _, at := range l.parked[uid] {
			delete(at.waiting, uid)
		}
		delete(l.parked, uid)
	}
	return pods
}

// wake stamps every quota from n up to the top of its tree and hands back the pods parked at
// them: something below them gave resources back, or they changed. Callers hold mu.
func (l *Ledger) wake(n *node) []*v1.Pod {
	l.clock++
	var pods []*v1.Pod
	for ; n != nil; n = n.parent {
		n.stamp = l.clock
		pods = append(pods, l.drain(n)...)
	}
	return pods
}

// pathOf is n and the quotas above it, n first: the levels of fair sharing on n's side.
func pathOf(n *node) []*node {
	var path []*node
	for ; n != nil; n = n.parent {
		path = append(path, n)
	}
	return path
}

// stampOf is the newest stamp on the path from n up. Callers hold mu.
func stampOf(n *node) uint64 {
	var s uint64
	for ; n != nil; n = n.parent {
		s = max(s, n.stamp)
	}
	return s
}

// View is a copy of one namespace's quota and use, and of the quotas above it in its tree, taken
// at one moment. Admission reads it without the ledger's lock; preemption's dry run adjusts the use
// as it removes and adds pods (Count).
type View struct {
	// Spec is the quota that covers the namespace, and Used what it counts: its namespaces' pods
	// and, for a quota with children, theirs.
	Spec Spec
	Used amount.Amount
	// Above are the quotas above it, nearest first, each with its whole subtree's use; empty for
	// a quota at the top (every flat quota).
	Above []Level
	// counts is, for Spec's quota, the namespaces whose pods Used counts.
	counts map[string]bool
	// GroupHeld is how many members of the group asked about hold resources.
	GroupHeld int
	// Generation is the newest change on the namespace's path when the view was taken (see Park).
	Generation uint64
}

// Level is one quota above a namespace's, and its subtree's use.
type Level struct {
	Spec   Spec
	Used   amount.Amount
	counts map[string]bool
}

// Clone returns a copy whose use can be changed independently.
func (v *View) Clone() *View {
	c := *v
	c.Used = v.Used.Clone()
	c.Above = make([]Level, len(v.Above))
	for i, lv := range v.Above {
		c.Above[i] = Level{Spec: lv.Spec, Used: lv.Used.Clone(), counts: lv.counts}
	}
	return &c
}

// Counts reports whether the view's use counts pods of namespace ns: whether a pod of ns that
// the dry run removes gives any quota on the path something back.
func (v *View) Counts(ns string) bool {
	if v.counts[ns] {
		return true
	}
	for _, lv := range v.Above {
		if lv.counts[ns] {
			return true
		}
	}
	return false
}

// Count adds request, scaled by sign, to the use of every quota of the view that counts pods of
// namespace ns.
func (v *View) Count(ns string, request amount.Amount, sign int64) {
	if v.counts[ns] {
		v.Used.Add(request, sign)
	}
	for _, lv := range v.Above {
		if lv.counts[ns] {
			lv.Used.Add(request, sign)
		}
	}
}

// Fits returns nil if need fits every quota on the path (see Spec.admits), or why not: the
// nearest quota it does not fit.
func (v *View) Fits(need amount.Amount) *Exceeded {
	if e := v.Spec.admits(v.Used, need); e != nil {
		return e
	}
	for _, lv := range v.Above {
		if e := lv.Spec.admits(lv.Used, need); e != nil {
			e.Below = v.Spec.Name
			return e
		}
	}
	return nil
}

// FitsAlone is Fits with nothing used anywhere: nil unless need is more than some quota on the
// path admits on its own, which preemption cannot help.
func (v *View) FitsAlone(need amount.Amount) *Exceeded {
	empty := &View{Spec: v.Spec, Used: amount.Amount{}, Above: make([]Level, len(v.Above))}
	for i, lv := range v.Above {
		empty.Above[i] = Level{Spec: lv.Spec, Used: amount.Amount{}}
	}
	return empty.Fits(need)
}

// ViewOf returns namespace ns's quota and use, the quotas above it, and how many members of group
// hold resources; ok is false when ns has no quota.
func (l *Ledger) ViewOf(ns, group string) (view *View, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.nodeOf(ns)
	if n == nil {
		return nil, false
	}
	view = &View{Spec: *n.spec, Used: n.used.Clone(), counts: n.counts, Generation: stampOf(n)}
	for up := n.parent; up != nil; up = up.parent {
		view.Above = append(view.Above, Level{Spec: *up.spec, Used: up.used.Clone(), counts: up.counts})
	}
	if a, found := l.namespaces[ns]; found {
		view.GroupHeld = a.groups[group]
	}
	return view, true
}

// Park records pod as waiting for quota at every quota on its namespace's path, to be handed back
// by the next change of one of them or release below one of them. If something changed there
// since view was taken (its generation is stale), it does not park the pod and returns false: the
// caller should retry it at once. Together with ViewOf, this makes checking and waiting atomic: no
// release can fall between them unnoticed.
func (l *Ledger) Park(pod *v1.Pod, view *View) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.nodeOf(pod.Namespace)
	if n == nil || stampOf(n) != view.Generation {
		return false
	}
	if _, ok := l.parked[pod.UID]; ok {
		return true
	}
	for ; n != nil; n = n.parent {
		if n.waiting == nil {
			n.waiting = map[types.UID]*v1.Pod{}
		}
		n.waiting[pod.UID] = pod
		l.parked[pod.UID] = append(l.parked[pod.UID], n)
	}
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
	// Below is set when Quota is above the pod's own quota in its tree: the pod's quota.
	Below string
	// Borrowing is set when Limit is Quota's min plus its borrowing limit, not its max.
	Borrowing bool
	// Min is Quota's min of Resource, when Borrowing.
	Min int64
}

func (e *Exceeded) Error() string {
	what := "requested"
	if e.Group != "" {
		what = "requested for pod group " + e.Group
	}
	quota := e.Quota
	if e.Below != "" {
		quota += ", above " + e.Below + " in its tree"
	}
	limit := "max " + amount.Text(e.Resource, e.Limit)
	if e.Borrowing {
		limit = fmt.Sprintf("min %s + borrowing limit %s", amount.Text(e.Resource, e.Min), amount.Text(e.Resource, e.Limit-e.Min))
	}
	msg := fmt.Sprintf("quota %s: %s used %s, %s %s, %s", quota, e.Resource,
		amount.Text(e.Resource, e.Used), what, amount.Text(e.Resource, e.Requested), limit)
	if e.Below != "" || e.Borrowing {
		msg += fmt.Sprintf(" (%s over)", amount.Text(e.Resource, e.Used+e.Requested-e.Limit))
	}
	return msg
}

// admits returns nil if used + request stays within max (Fits) and within min plus the borrowing
// limit for every resource the borrowing limit names, or why not.
func (s *Spec) admits(used, request amount.Amount) *Exceeded {
	if e := s.Fits(used, request); e != nil {
		return e
	}
	var worst *Exceeded
	for name, borrow := range s.BorrowingLimit {
		r := request[name]
		if r == 0 {
			continue
		}
		limit := s.Min[name] + borrow
		if used[name]+r > limit && (worst == nil || name < worst.Resource) {
			worst = &Exceeded{Quota: s.Name, Resource: name, Used: used[name], Requested: r, Limit: limit, Borrowing: true, Min: s.Min[name]}
		}
	}
	return worst
}

// Fits returns nil if used + request stays within max for every resource max names, or the first
// resource (in name order) that it would exceed.
func (s *Spec) Fits(used, request amount.Amount) *Exceeded {
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
func (s *Spec) WithinMin(used, request amount.Amount) bool {
	for name, r := range request {
		if r > 0 && s.names(name) && used[name]+r > s.Min[name] {
			return false
		}
	}
	return true
}

// Reserve makes pod hold request in its namespace, if its quota admits it: the check and the
// hold are one step under the lock. A pod that already holds resources keeps them unchanged.
func (l *Ledger) Reserve(pod *v1.Pod, group string, request amount.Amount) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.pods[pod.UID]; ok {
		return nil
	}
	if _, ok := l.gone[pod.UID]; ok {
		return fmt.Errorf("pod %s/%s was deleted or finished while it was being scheduled", pod.Namespace, pod.Name)
	}
	own := l.nodeOf(pod.Namespace)
	for n := own; n != nil; n = n.parent {
		if e := n.spec.admits(n.used, request); e != nil {
			if n != own {
				e.Below = own.spec.Name
			}
			return e
		}
	}
	l.hold(pod.UID, &holding{namespace: pod.Namespace, group: group, request: request}, l.account(pod.Namespace))
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
func (l *Ledger) Bound(pod *v1.Pod, group string, request amount.Amount) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bound(pod, group, request)
}

// Recount is Bound for a pod the ledger holds bound, and does nothing for one it does not: a
// recount (another pod's claim changed) that races the pod's departure must not bring back a
// pod already forgotten, whose quota would then stay held for good.
func (l *Ledger) Recount(pod *v1.Pod, group string, request amount.Amount) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.pods[pod.UID]; !ok || !h.bound {
		return nil
	}
	return l.bound(pod, group, request)
}

func (l *Ledger) bound(pod *v1.Pod, group string, request amount.Amount) []*v1.Pod {
	h, ok := l.pods[pod.UID]
	if !ok {
		h = &holding{namespace: pod.Namespace, group: group, request: request, bound: true}
		l.hold(pod.UID, h, l.account(pod.Namespace))
		l.markLeaving(h, pod)
		return append(l.drainFair(), l.fairWake(pod.Namespace)...)
	}
	var woken []*v1.Pod
	if !h.bound {
		// A pod that took capacity refused to others for fairness is in: they may be next.
		woken = append(l.drainFair(), l.fairWake(h.namespace)...)
	}
	a := l.account(h.namespace)
	if !h.bound && h.group != "" {
		a.place(h.group, h.request, -1)
	}
	h.bound = true
	defer l.markLeaving(h, pod)
	if h.terminating {
		l.count(h.namespace, a, h.request, -1, true)
		defer l.count(h.namespace, a, request, 1, true)
	}
	shrank := false
	for name, x := range h.request {
		if request[name] < x {
			shrank = true
		}
	}
	l.count(h.namespace, a, h.request, -1, false)
	l.count(h.namespace, a, request, 1, false)
	h.request = request
	if shrank {
		return append(woken, l.wake(l.nodeOf(h.namespace))...)
	}
	return woken
}

// Forget gives back everything pod holds: it finished or was deleted. It returns the waiters of
// its namespace. A scheduling cycle that took the pod before it went may still reserve for it: the
// pod is remembered for goneFor, and its reservation refused, since nothing would give it back
// until its Bind failed.
func (l *Ledger) Forget(uid types.UID) []*v1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if len(l.gone) >= l.goneSweep {
		// Swept when it has doubled since the last sweep: amortised constant time per pod.
		for u, at := range l.gone {
			if now.Sub(at) > goneFor {
				delete(l.gone, u)
			}
		}
		l.goneSweep = max(1024, 2*len(l.gone))
	}
	l.gone[uid] = now
	delete(l.incoming, uid)
	h, ok := l.pods[uid]
	delete(l.fairParked, uid)
	if !ok {
		if l.unpend(uid) {
			return l.drainFair()
		}
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
	l.count(h.namespace, a, h.request, 1, true)
	a.leavers[uid] = true
}

// count adds request, scaled by sign, to what namespace ns (account a) uses, or, leaving set, to
// what its leaving pods hold, and likewise to every quota on its path. Callers hold mu.
func (l *Ledger) count(ns string, a *account, request amount.Amount, sign int64, leaving bool) {
	pick := func(used, left amount.Amount) amount.Amount {
		if leaving {
			return left
		}
		return used
	}
	pick(a.used, a.leaving).Add(request, sign)
	for n := l.nodeOf(ns); n != nil; n = n.parent {
		v := pick(n.used, n.leaving)
		v.Add(request, sign)
		if sign < 0 {
			dropZeros(v)
		}
	}
}

func dropZeros(v amount.Amount) {
	for name, x := range v {
		if x == 0 {
			delete(v, name)
		}
	}
}

func (l *Ledger) hold(uid types.UID, h *holding, a *account) {
	delete(l.incoming, uid)
	l.unpend(uid)
	l.pods[uid] = h
	l.count(h.namespace, a, h.request, 1, false)
	a.holds++
	if h.group != "" {
		a.groups[h.group]++
		if !h.bound {
			a.place(h.group, h.request, 1)
		}
	}
}

// place adds request, scaled by sign, to what group's members not yet bound hold.
func (a *account) place(group string, request amount.Amount, sign int64) {
	if a.placing == nil {
		a.placing = map[string]amount.Amount{}
	}
	p := a.placing[group]
	if p == nil {
		p = amount.Amount{}
		a.placing[group] = p
	}
	p.Add(request, sign)
	if dropZeros(p); len(p) == 0 {
		delete(a.placing, group)
	}
}

func (l *Ledger) release(uid types.UID, h *holding) []*v1.Pod {
	delete(l.pods, uid)
	a := l.account(h.namespace)
	l.count(h.namespace, a, h.request, -1, false)
	if h.terminating {
		l.count(h.namespace, a, h.request, -1, true)
		delete(a.leavers, uid)
	}
	dropZeros(a.used)
	dropZeros(a.leaving)
	a.holds--
	if h.group != "" {
		if a.groups[h.group]--; a.groups[h.group] <= 0 {
			delete(a.groups, h.group)
		}
		if !h.bound {
			a.place(h.group, h.request, -1)
		}
	}
	woken := append(l.wake(l.nodeOf(h.namespace)), l.drainFair()...)
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

// Usage is one quota's use, for status.used and for people.
type Usage struct {
	// Namespace is the ElasticQuota's own namespace.
	Namespace string
	Spec      Spec
	// Used is what the quota counts: its namespaces' pods and its children's.
	Used amount.Amount
	// Namespaces are the namespaces it covers itself, and Children the quotas below it.
	Namespaces []string
	Children   []string
}

// Quotas returns every quota in force and its use.
func (l *Ledger) Quotas() []Usage {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Usage
	for name, n := range l.quotas {
		q := l.tree.Quota(name)
		ns, _, _ := strings.Cut(n.spec.Name, "/")
		out = append(out, Usage{Namespace: ns, Spec: *n.spec, Used: n.used.Clone(), Namespaces: q.Namespaces, Children: q.Children})
	}
	return out
}
