package quota

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/amount"
)

// Reclaim is one preemption attempt's quota rule, for a preemptor of a namespace with a quota:
//   - victims of its own quota, of quotas above or below it in its tree, and of namespaces without
//     a quota, are left to priority;
//   - the quotas of other namespaces lend along the tree: a victim's quota and every quota above
//     it up to the one just below where its path meets the preemptor's (its chain) must use above
//     their min in a resource the preemptor asks for, and each of them stops at its min in every
//     resource it borrows. What a victim holds of a resource its quota uses within its min is
//     released, not lent;
//   - the lenders nearest in the tree are asked first (siblings, then further up): at the first
//     level of the preemptor's path where some lender lends it something, either the preemptor's
//     side of that level (the quota of its path just below the meeting point) is within its min
//     with the request admitted, and it reclaims from every lender of that level whatever their
//     priority, or that side borrows, and it takes for fairness from one quota of that level, the
//     one furthest above its fair share, never below that share (FairToTake). Fair sharing is
//     between quotas that take part in it (Spec.Fair); flat quotas without berth's annotations
//     take part in reclaim only, as before;
//   - otherwise it takes nothing from other quotas.
//
// It reads a copy of the ledger taken when the attempt starts, so dry runs on many nodes can
// ask it at once.
type Reclaim struct {
	namespace string
	// quota is the preemptor's ElasticQuota, as messages name it.
	quota     string
	gpuMemory v1.ResourceName
	// requestOf reads a victim's request; nil: RequestOf (see UseRequests).
	requestOf func(*v1.Pod) (amount.Amount, error)
	// asks is what the preemptor asks for.
	asks amount.Amount
	// named is, per namespace of a quota that may lend, that quota, and quotaOf its name in the tree.
	named   map[string]*Spec
	quotaOf map[string]string
	// chains is, per quota that may lend, the quotas that lend with it (see above), itself first;
	// lending is what each quota of a chain borrows.
	chains  map[string][]string
	lending map[string]*lender
	// allowed are the quotas this attempt takes from; fair is set when it takes for fairness.
	allowed map[string]bool
	fair    *fairBound
	// leaving are the lenders' pods already being evicted: taking them again costs nothing.
	leaving map[types.UID]bool
}

// fairBound is how far a preemption for fairness may take from its target quota (the top of the
// chains it takes from): while, with the victims gone, the preemptor's side's weighted dominant
// share stays at most the target's, and the target's at least its fair share.
type fairBound struct {
	target         string
	pool           amount.Amount
	weight         int64
	borrowed       amount.Amount
	fair           float64
	preemptorAfter float64
}

// lender is one quota's borrowing, as one attempt sees it.
type lender struct {
	// over names the resources the quota uses above its min, its leaving pods included, so that
	// a reclaim under way is still told apart from a pod the rule forbids (see InProgress).
	over map[v1.ResourceName]bool
	// left is, for each resource in over, what the quota may still give before it is at its min:
	// what its staying pods use above min. What leaving pods hold is on its way back already, and
	// lending it again would let two preemptors take the same borrowed share.
	left amount.Amount
}

// ReclaimFor is PreemptionFor without the nodes' capacity: reclaim only, no fair sharing.
func (l *Ledger) ReclaimFor(preemptor *v1.Pod, request amount.Amount, gpuMemory v1.ResourceName) *Reclaim {
	return l.PreemptionFor(preemptor, request, gpuMemory, nil)
}

// PreemptionFor returns the quota rule for preemptor, asking request, or nil when preemptor's
// namespace has no quota (then no quota rule applies to it). capacity is the nodes' allocatable:
// less what the ledger's pods hold, plus what quotas borrow, it is the pool fair shares divide.
func (l *Ledger) PreemptionFor(preemptor *v1.Pod, request amount.Amount, gpuMemory v1.ResourceName, capacity amount.Amount) *Reclaim {
	l.mu.Lock()
	defer l.mu.Unlock()
	own := l.nodeOf(preemptor.Namespace)
	if own == nil {
		return nil
	}
	if capacity != nil {
		l.capacity = capacity
	}
	r := &Reclaim{
		namespace: preemptor.Namespace,
		quota:     own.spec.Name,
		gpuMemory: gpuMemory,
		asks:      request,
		named:     map[string]*Spec{},
		quotaOf:   map[string]string{},
		chains:    map[string][]string{},
		lending:   map[string]*lender{},
		allowed:   map[string]bool{},
		leaving:   map[types.UID]bool{},
	}
	me := l.selfOf(preemptor)
	var path []*node
	onPath := map[*node]int{}
	for n := own; n != nil; n = n.parent {
		onPath[n] = len(path)
		path = append(path, n)
	}
	// Every other quota with namespaces, by the level of the preemptor's path where its own path
	// meets it: 1 for a sibling, len(path) for a quota of another tree.
	byLevel := make([][]string, len(path)+1)
	for name, n := range l.quotas {
		q := l.tree.quotas[name]
		if _, mine := onPath[n]; mine || len(q.Namespaces) == 0 {
			continue
		}
		chain := []string{name}
		top := n
		for top.parent != nil {
			if _, mine := onPath[top.parent]; mine {
				break
			}
			top = top.parent
			chain = append(chain, top.spec.Name)
		}
		level := len(path)
		if top.parent != nil {
			level = onPath[top.parent]
		}
		if level == 0 {
			// Below the preemptor's own quota: its own subtree, left to priority.
			continue
		}
		for _, ns := range q.Namespaces {
			r.named[ns] = n.spec
			r.quotaOf[ns] = name
		}
		r.chains[name] = chain
		for _, c := range chain {
			if _, ok := r.lending[c]; !ok {
				r.lending[c] = lenderOf(l.quotas[c])
			}
		}
		byLevel[level] = append(byLevel[level], name)
	}
	for level := 1; level <= len(path); level++ {
		var lends []string
		for _, name := range byLevel[level] {
			if r.lendsAny(name) {
				lends = append(lends, name)
			}
		}
		if len(lends) == 0 {
			continue
		}
		side := path[level-1]
		// The side's preemptors already on their way in count as its use: five preemptors of a
		// quota with a min of 3, each seeing only what its quota held, reclaimed five pods
		// between them before any was bound (Kueue's fair sharing with preemption replayed).
		used := side.used.Clone()
		used.Add(l.arriving(side, me), 1)
		if side.spec.WithinMin(used, request) {
			for _, name := range l.furthestAbove(r, lends, capacity) {
				r.allowed[name] = true
			}
		} else if !l.fairTarget(r, me, side, path, level, lends, capacity) {
			continue
		}
		break
	}
	if len(r.allowed) > 0 {
		for name := range r.allowed {
			for _, ns := range l.tree.quotas[name].Namespaces {
				if a, ok := l.namespaces[ns]; ok {
					for uid := range a.leavers {
						r.leaving[uid] = true
					}
				}
			}
		}
	}
	return r
}

// furthestAbove narrows the lenders a reclaim may take from to those whose level's quota borrows
// the largest weighted dominant share, when they alone have what the preemptor asks above their
// mins: reclaim within a min then takes from the quota furthest above its own, as fair sharing
// does (Kueue's "Admits workloads respecting fair share": c's pod takes from a, which borrows 2,
// not from b, which borrows 1, whichever's pods are the youngest). Otherwise, or without the
// nodes' capacity to weigh shares by, every lender may give. Callers hold the ledger's lock.
func (l *Ledger) furthestAbove(r *Reclaim, lends []string, capacity amount.Amount) []string {
	if len(lends) < 2 || capacity == nil {
		return lends
	}
	shares := make([]float64, len(lends))
	top := 0.0
	for i, name := range lends {
		chain := r.chains[name]
		q := r.lending[chain[len(chain)-1]]
		shares[i] = DominantShare(q.left, capacity, l.quotas[chain[len(chain)-1]].spec.weight())
		top = max(top, shares[i])
	}
	var first []string
	left := amount.Amount{}
	for i, name := range lends {
		if shares[i] == top {
			first = append(first, name)
			left.Add(r.lending[name].left, 1)
		}
	}
	for res, x := range r.asks {
		if x > 0 && left[res] < x && slices.ContainsFunc(lends, func(name string) bool { return r.lending[name].over[res] }) {
			return lends
		}
	}
	return first
}

// lendsAny reports whether lender quota name's chain lends something the preemptor asks for.
func (r *Reclaim) lendsAny(name string) bool {
	for res, x := range r.asks {
		if x > 0 && r.chainOver(name, res) {
			return true
		}
	}
	return false
}

// chainOver reports whether every quota of lender name's chain uses above its min in res.
func (r *Reclaim) chainOver(name string, res v1.ResourceName) bool {
	for _, c := range r.chains[name] {
		if !r.lending[c].over[res] {
			return false
		}
	}
	return true
}

// fairTarget chooses, among the lenders of one level (lends), the quota of that level furthest
// above its fair share, when side (the preemptor's side of that level, which borrows) is below
// its own, and allows r to take from it for fairness. It reports whether it chose one. Callers
// hold the ledger's lock.
func (l *Ledger) fairTarget(r *Reclaim, preemptor self, side *node, path []*node, level int, lends []string, capacity amount.Amount) bool {
	if !side.spec.Fair {
		return false
	}
	// Every peer claims what it keeps and what its waiting pods ask (Waiting), as fair admission
	// counts them: claims of what is held alone would put each peer's fair share next to what it
	// holds, and a quota far below its share of what everyone wants could take next to nothing.
	lv := l.fairLevel(path, level, capacity, preemptor, func(p *node, keeps amount.Amount) amount.Amount {
		d := l.demand(p, preemptor)
		if p == side {
			d.Add(r.asks, 1)
		}
		return borrowing(p, keeps, d)
	})
	pool, borrowed, sideKeeps := lv.pool, lv.borrowed, lv.keeps[side]
	fairDS := lv.fairDS
	if DominantShare(borrowed[side], pool, side.spec.weight()) >= fairDS(side) {
		return false
	}
	after := DominantShare(borrowing(side, sideKeeps, r.asks), pool, side.spec.weight())
	var best *node
	bestExcess := 0.0
	for _, name := range lends {
		chain := r.chains[name]
		top := l.quotas[chain[len(chain)-1]]
		if !top.spec.Fair {
			continue
		}
		ds := DominantShare(borrowed[top], pool, top.spec.weight())
		excess := ds - fairDS(top)
		if excess <= 0 || after > ds {
			continue
		}
		if best == nil || excess > bestExcess || (excess == bestExcess && top.spec.Name < best.spec.Name) {
			best, bestExcess = top, excess
		}
	}
	if best == nil {
		return false
	}
	for _, name := range lends {
		if chain := r.chains[name]; chain[len(chain)-1] == best.spec.Name {
			r.allowed[name] = true
		}
	}
	r.fair = &fairBound{target: best.spec.Name, pool: pool, weight: best.spec.weight(),
		borrowed: borrowed[best], fair: fairDS(best), preemptorAfter: after}
	return true
}

// staying is what quota n's pods that are not being evicted use.
func staying(n *node) amount.Amount {
	s := n.used.Clone()
	s.Add(n.leaving, -1)
	return s
}

// borrowing is what quota n, using used and with more admitted, uses above its min in the
// resources it names.
func borrowing(n *node, used, more amount.Amount) amount.Amount {
	b := amount.Amount{}
	for res, u := range used {
		if x := u + more[res] - n.spec.Min[res]; x > 0 && n.spec.names(res) {
			b[res] = x
		}
	}
	for res, m := range more {
		if _, ok := used[res]; !ok && m > n.spec.Min[res] && n.spec.names(res) {
			b[res] = m - n.spec.Min[res]
		}
	}
	return b
}

// lenderOf reads what quota n borrows: what it counts above its min. (For a quota with children
// that is its whole subtree's use.) Callers hold the ledger's lock.
func lenderOf(n *node) *lender {
	stay := staying(n)
	ld := &lender{over: map[v1.ResourceName]bool{}, left: amount.Amount{}}
	for name, u := range n.used {
		if n.spec.names(name) && u > n.spec.Min[name] {
			ld.over[name] = true
			ld.left[name] = max(stay[name]-n.spec.Min[name], 0)
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
	reqs := r.victimRequests(pods)
	if !holdsAny(reqs, spec.names) {
		// Holding nothing its quota counts.
		return Priority
	}
	if r.allowed[r.quotaOf[pods[0].Namespace]] && r.lendsTo(pods[0].Namespace, reqs) {
		return Borrowed
	}
	return Forbidden
}

// lendsTo reports whether a victim of ns, whose pods ask reqs, holds some of a resource ns's quota
// lends the preemptor: one the preemptor asks for and every quota of its chain uses above its min.
func (r *Reclaim) lendsTo(ns string, reqs []amount.Amount) bool {
	name := r.quotaOf[ns]
	return holdsAny(reqs, func(res v1.ResourceName) bool { return r.asks[res] > 0 && r.chainOver(name, res) })
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
	if r.fair != nil {
		return fmt.Sprintf("fair sharing for quota %s in progress: %d pods of %s, above its fair share, are being evicted", r.quota, n, r.fair.target)
	}
	return fmt.Sprintf("reclaim for quota %s in progress: %d pods of quotas above their min are being evicted", r.quota, n)
}

// requestsOf is RequestOf of each pod, nil for a pod whose request cannot be read.
func requestsOf(pods []*v1.Pod, gpuMemory v1.ResourceName) []amount.Amount {
	reqs := make([]amount.Amount, len(pods))
	for i, p := range pods {
		if req, err := RequestOf(p, gpuMemory); err == nil {
			reqs[i] = req
		}
	}
	return reqs
}

// holdsAny reports whether some request holds some of a resource that which accepts.
func holdsAny(reqs []amount.Amount, which func(v1.ResourceName) bool) bool {
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
	left map[string]amount.Amount
	// borrowed is what the fair-sharing target still borrows.
	borrowed amount.Amount
}

// Lenders starts a count for one candidate.
func (r *Reclaim) Lenders() *Lenders {
	t := &Lenders{r: r, left: map[string]amount.Amount{}}
	if r.fair != nil {
		t.borrowed = r.fair.borrowed.Clone()
	}
	return t
}

// Take accepts pods (one victim, all in one namespace) of another quota if this attempt takes from
// that quota, it lends the preemptor something they hold (see Reclaim), and every quota of its
// chain can give what they hold of each resource it borrows without going below its min there
// (and, for fairness, the target without going below its fair share), and counts them; victims
// outside other quotas always pass. What they hold of a resource a quota uses within its min is
// not counted there: it is released, not lent.
func (t *Lenders) Take(pods []*v1.Pod) bool {
	if len(pods) == 0 {
		return true
	}
	ns := pods[0].Namespace
	if _, ok := t.r.named[ns]; !ok || ns == t.r.namespace {
		return true
	}
	quota := t.r.quotaOf[ns]
	reqs := t.r.victimRequests(pods)
	if !t.r.allowed[quota] || !t.r.lendsTo(ns, reqs) {
		return false
	}
	need := amount.Amount{}
	for i, p := range pods {
		if t.r.leaving[p.UID] {
			continue
		}
		if reqs[i] == nil {
			return false
		}
		need.Add(reqs[i], 1)
	}
	chain := t.r.chains[quota]
	lefts := make([]amount.Amount, len(chain))
	for i, c := range chain {
		left, ok := t.left[c]
		if !ok {
			left = t.r.lending[c].left.Clone()
		}
		lefts[i] = left
		for name, x := range need {
			if have, borrowed := left[name]; borrowed && x > have {
				return false
			}
		}
	}
	var borrowed amount.Amount
	if f := t.r.fair; f != nil {
		borrowed = t.borrowed.Clone()
		for name, x := range need {
			if _, ok := borrowed[name]; ok {
				borrowed[name] = max(borrowed[name]-x, 0)
			}
		}
		if !FairToTake(f.preemptorAfter, DominantShare(borrowed, f.pool, f.weight), f.fair) {
			return false
		}
	}
	for i, c := range chain {
		for name, x := range need {
			if _, borrowed := lefts[i][name]; borrowed {
				lefts[i][name] -= x
			}
		}
		t.left[c] = lefts[i]
	}
	if borrowed != nil {
		t.borrowed = borrowed
	}
	return true
}
