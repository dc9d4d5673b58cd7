package quota

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Reclaim is one preemption attempt's quota rule, for a preemptor of a namespace with a quota:
//   - victims of its own namespace, and of namespaces without a quota, are left to priority;
//   - if its request is within its quota's min, it may take pods of other quotas that borrow
//     (use more than their min), whatever their priority, but never so many that a lender goes
//     below its own min;
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
	// lendable is, per namespace with a quota, what it uses above its min.
	lendable map[string]Vector
	// named is, per namespace with a quota, the resources its quota names.
	named map[string]*Spec
	// leaving are the lenders' pods already being evicted: taking them again costs nothing.
	leaving map[types.UID]bool
}

// ReclaimFor returns the quota rule for preemptor, asking request, or nil when preemptor's
// namespace has no quota (then no quota rule applies to it).
func (l *Ledger) ReclaimFor(preemptor *v1.Pod, request Vector, gpuMemory v1.ResourceName) *Reclaim {
	l.mu.Lock()
	defer l.mu.Unlock()
	own, ok := l.namespaces[preemptor.Namespace]
	if !ok || own.spec == nil {
		return nil
	}
	r := &Reclaim{
		namespace: preemptor.Namespace,
		quota:     own.spec.Name,
		reclaims:  own.spec.WithinMin(own.used, request),
		gpuMemory: gpuMemory,
		lendable:  map[string]Vector{},
		named:     map[string]*Spec{},
		leaving:   map[types.UID]bool{},
	}
	for ns, a := range l.namespaces {
		if a.spec != nil && ns != preemptor.Namespace {
			r.named[ns] = a.spec
			if r.reclaims {
				// What terminating pods hold is already on its way back: lending it again
				// would let two preemptors take the same borrowed share.
				staying := a.used.Clone()
				staying.Add(a.leaving, -1)
				r.lendable[ns] = a.spec.Lendable(staying)
				for uid := range a.leavers {
					r.leaving[uid] = true
				}
			}
		}
	}
	return r
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
	if !ok || !holdsNamed(spec, pods, r.gpuMemory) {
		// Outside every quota, or holding nothing its quota counts.
		return Priority
	}
	if r.reclaims {
		return Borrowed
	}
	return Forbidden
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

func holdsNamed(spec *Spec, pods []*v1.Pod, gpuMemory v1.ResourceName) bool {
	for _, p := range pods {
		req, err := RequestOf(p, gpuMemory)
		if err != nil {
			continue
		}
		for name, x := range req {
			if x > 0 && spec.names(name) {
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

// Take accepts pods (one victim, all in one namespace) if their quota can give all they hold
// without going below its min, and counts them; victims outside other quotas always pass.
func (t *Lenders) Take(pods []*v1.Pod) bool {
	if len(pods) == 0 {
		return true
	}
	ns := pods[0].Namespace
	spec, ok := t.r.named[ns]
	if !ok || ns == t.r.namespace {
		return true
	}
	left, ok := t.left[ns]
	if !ok {
		left = t.r.lendable[ns].Clone()
	}
	need := Vector{}
	for _, p := range pods {
		if t.r.leaving[p.UID] {
			continue
		}
		req, err := RequestOf(p, t.r.gpuMemory)
		if err != nil {
			return false
		}
		need.Add(req, 1)
	}
	for name, x := range need {
		if x > 0 && spec.names(name) && left[name] < x {
			return false
		}
	}
	for name, x := range need {
		if spec.names(name) {
			left[name] -= x
		}
	}
	t.left[ns] = left
	return true
}
