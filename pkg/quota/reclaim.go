package quota

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Reclaim is one preemption attempt's quota rule, for a preemptor of a namespace with a quota:
//   - victims of its own namespace, and of namespaces without a quota, are left to priority;
//   - if its request is within its quota's min, it may take, whatever their priority, pods of
//     other quotas that lend it something it asks for: a quota lends in each resource it uses
//     above its min, and its pods that hold some of a resource it lends to this preemptor are
//     victims. Reclaim stops at the lender's min in every resource the lender borrows; what a
//     victim holds of a resource its quota uses within its min is released, not lent;
//   - otherwise it takes nothing from other quotas.
//
// It reads a copy of the ledger taken when the attempt starts, so dry runs on many nodes can
// ask it at once.
type Reclaim struct {
	namespace string
	// quota is the preemptor's ElasticQuota, as messages name it.
	quota     string
	reclaims  bool
	gpuMemory v1.ResourceName
	// asks is what the preemptor asks for.
	asks Vector
	// lenders is, per other quota, what it borrows, when the preemptor reclaims.
	lenders map[string]*lender
	// named is, per namespace of another quota, that quota, and quotaOf its name in the tree.
	named   map[string]*Spec
	quotaOf map[string]string
	// leaving are the lenders' pods already being evicted: taking them again costs nothing.
	leaving map[types.UID]bool
}

// lender is one quota's borrowing, as one attempt sees it.
type lender struct {
	// over names the resources the quota uses above its min, its leaving pods included, so that
	// a reclaim under way is still told apart from a pod the rule forbids (see InProgress).
	over map[v1.ResourceName]bool
	// left is, for each resource in over, what the quota may still give before it is at its min:
	// what its staying pods use above min. What leaving pods hold is on its way back already, and
	// lending it again would let two preemptors take the same borrowed share.
	left Vector
}

// ReclaimFor returns the quota rule for preemptor, asking request, or nil when preemptor's
// namespace has no quota (then no quota rule applies to it).
func (l *Ledger) ReclaimFor(preemptor *v1.Pod, request Vector, gpuMemory v1.ResourceName) *Reclaim {
	l.mu.Lock()
	defer l.mu.Unlock()
	own := l.nodeOf(preemptor.Namespace)
	if own == nil {
		return nil
	}
	r := &Reclaim{
		namespace: preemptor.Namespace,
		quota:     own.spec.Name,
		reclaims:  own.spec.WithinMin(own.used, request),
		gpuMemory: gpuMemory,
		asks:      request,
		lenders:   map[string]*lender{},
		named:     map[string]*Spec{},
		quotaOf:   map[string]string{},
		leaving:   map[types.UID]bool{},
	}
	for name, n := range l.quotas {
		if n == own {
			continue
		}
		for _, ns := range l.tree.quotas[name].Namespaces {
			r.named[ns] = n.spec
			r.quotaOf[ns] = name
			if a, ok := l.namespaces[ns]; ok && r.reclaims {
				for uid := range a.leavers {
					r.leaving[uid] = true
				}
			}
		}
		if r.reclaims {
			r.lenders[name] = lenderOf(n)
		}
	}
	return r
}

// lenderOf reads what quota n borrows: what it counts above its min. (For a quota with children
// that is its whole subtree's use: its own pods lend what the subtree borrows.) Callers hold the
// ledger's lock.
func lenderOf(n *node) *lender {
	staying := n.used.Clone()
	staying.Add(n.leaving, -1)
	ld := &lender{over: map[v1.ResourceName]bool{}, left: Vector{}}
	for name, u := range n.used {
		if n.spec.names(name) && u > n.spec.Min[name] {
			ld.over[name] = true
			ld.left[name] = max(staying[name]-n.spec.Min[name], 0)
		}
	}
	return ld
}

// Decision is the rule's answer about one victim.
type Decision int

const (
	// Priority leaves the victim to priority.
	Priority Decision = iota
	// Forbidden keeps the victim.
	Forbidden
	// Borrowed lets the victim go whatever its priority: it holds what its quota borrowed.
	Borrowed
)

// Judge decides about a victim: pods that go together, all in one namespace.
func (r *Reclaim) Judge(pods []*v1.Pod) Decision {
	if len(pods) == 0 || pods[0].Namespace == r.namespace {
		return Priority
	}
	spec, ok := r.named[pods[0].Namespace]
	if !ok {
		return Priority
	}
	reqs := requestsOf(pods, r.gpuMemory)
	if !holdsAny(reqs, spec.names) {
		// Holding nothing its quota counts.
		return Priority
	}
	if r.reclaims && r.lendsTo(pods[0].Namespace, reqs) {
		return Borrowed
	}
	return Forbidden
}

// lendsTo reports whether a victim of ns, whose pods ask reqs, holds some of a resource ns's quota
// lends the preemptor: one the preemptor asks for and the quota uses above its min.
func (r *Reclaim) lendsTo(ns string, reqs []Vector) bool {
	ld := r.lenders[r.quotaOf[ns]]
	return ld != nil && holdsAny(reqs, func(name v1.ResourceName) bool { return ld.over[name] && r.asks[name] > 0 })
}

// InProgress tells a person that the preemptor's reclaim is under way, when some of victims (pods
// a preemption chose, or pods it waits for) hold what their quota borrowed; "" otherwise.
func (r *Reclaim) InProgress(victims []*v1.Pod) string {
	n := 0
	for _, p := range victims {
		if r.Judge([]*v1.Pod{p}) == Borrowed {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("reclaim for quota %s in progress: %d pods of quotas above their min are being evicted", r.quota, n)
}

// requestsOf is RequestOf of each pod, nil for a pod whose request cannot be read.
func requestsOf(pods []*v1.Pod, gpuMemory v1.ResourceName) []Vector {
	reqs := make([]Vector, len(pods))
	for i, p := range pods {
		if req, err := RequestOf(p, gpuMemory); err == nil {
			reqs[i] = req
		}
	}
	return reqs
}

// holdsAny reports whether some request holds some of a resource that which accepts.
func holdsAny(reqs []Vector, which func(v1.ResourceName) bool) bool {
	for _, req := range reqs {
		for name, x := range req {
			if x > 0 && which(name) {
				return true
			}
		}
	}
	return false
}

// Lenders counts, for one preemption candidate (its victims on every node together), what each
// lender still has to give.
type Lenders struct {
	r    *Reclaim
	left map[string]Vector
}

// Lenders starts a count for one candidate.
func (r *Reclaim) Lenders() *Lenders {
	return &Lenders{r: r, left: map[string]Vector{}}
}

// Take accepts pods (one victim, all in one namespace) of another quota if that quota lends the
// preemptor something they hold (see Reclaim) and can give what they hold of each resource it
// borrows without going below its min there, and counts them; victims outside other quotas
// always pass. What they hold of a resource their quota uses within its min is not counted: it
// is released, not lent.
func (t *Lenders) Take(pods []*v1.Pod) bool {
	if len(pods) == 0 {
		return true
	}
	ns := pods[0].Namespace
	if _, ok := t.r.named[ns]; !ok || ns == t.r.namespace {
		return true
	}
	reqs := requestsOf(pods, t.r.gpuMemory)
	if !t.r.lendsTo(ns, reqs) {
		return false
	}
	quota := t.r.quotaOf[ns]
	left, ok := t.left[quota]
	if !ok {
		left = t.r.lenders[quota].left.Clone()
	}
	need := Vector{}
	for i, p := range pods {
		if t.r.leaving[p.UID] {
			continue
		}
		if reqs[i] == nil {
			return false
		}
		need.Add(reqs[i], 1)
	}
	for name, x := range need {
		if have, borrowed := left[name]; borrowed && x > have {
			return false
		}
	}
	for name, x := range need {
		if _, borrowed := left[name]; borrowed {
			left[name] -= x
		}
	}
	t.left[quota] = left
	return true
}
