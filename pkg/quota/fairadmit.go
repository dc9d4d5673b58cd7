package quota

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/amount"
)

// Fair admission (docs/quota-fair-sharing.md): capacity that frees up is not handed to whichever
// pod the queue tries first when that would take its quota above its fair share while a peer below
// its own waits for the same resources. Without it the freed capacity went to the wrong quota
// about two times in three under churn, and fair-share preemption took it back: nine jobs in ten
// were evicted before they finished (TestFairShareChurn).

// pendingTimeout is how long a pod that waits counts as its quota's demand after its last
// attempt. The scheduling queue retries every waiting pod at least every five minutes (its flush
// of unschedulable pods), so a pod still waiting is seen again before it expires; one that is gone
// unseen (an informer miss) stops holding its peers back after that.
const pendingTimeout = 6 * time.Minute

// Waiting records that pod, asking request, waits to be scheduled: its quota's demand in fair
// sharing, until it holds resources, is forgotten, or is not tried again for pendingTimeout. A pod
// of a namespace whose quotas take no part in fair sharing is not recorded.
func (l *Ledger) Waiting(pod *v1.Pod, request amount.Amount) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fairShared(pod.Namespace) {
		l.record(l.pending, pod, request, nil)
	}
}

// FairShared reports whether a quota of namespace ns, or one above it, takes part in fair
// sharing: only then does a waiting pod of ns count as demand (Waiting). The queue's PreEnqueue
// asks it first, for every pod it moves, so that a pod without such a quota costs no request sum.
func (l *Ledger) FairShared(ns string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fairShared(ns)
}

func (l *Ledger) fairShared(ns string) bool {
	for n := l.nodeOf(ns); n != nil; n = n.parent {
		if n.spec.Fair {
			return true
		}
	}
	return false
}

// unpend forgets a waiting pod, and reports whether it was one: a peer's demand changed, which can
// let a pod refused for fairness in. Callers hold mu.
func (l *Ledger) unpend(uid types.UID) bool {
	if _, ok := l.pending[uid]; !ok {
		return false
	}
	delete(l.pending, uid)
	l.fairClock++
	return true
}

// demand is what the waiting pods of the namespaces n counts ask, except s's own and its group's,
// preemptors already counted as arriving, and the members of a group that a preemptor of the group
// on its way in asks for already. Callers hold mu.
func (l *Ledger) demand(n *node, s self) amount.Amount {
	var coming map[string]bool
	for _, a := range l.incoming {
		if a.group != "" {
			if coming == nil {
				coming = map[string]bool{}
			}
			coming[a.namespace+"/"+a.group] = true
		}
	}
	return l.pending.sum(pendingTimeout, func(uid types.UID, a arrival) bool {
		_, arriving := l.incoming[uid]
		return n.counts[a.namespace] && !s.is(uid, a) && !arriving && (a.group == "" || !coming[a.namespace+"/"+a.group])
	})
}

// fairLevel is one level of fair sharing, as the ledger has it now: the peers (the children of one
// quota, or the tops of every tree) that take part, the pool they divide, and each one's use and
// fair share.
type fairLevel struct {
	pool  amount.Amount
	peers []*node
	// keeps is what each peer's staying pods and its preemptors on their way in hold, borrowed
	// the part of it above min, and fair its fair share of pool.
	keeps    map[*node]amount.Amount
	borrowed map[*node]amount.Amount
	fair     map[string]amount.Amount
	// free is the capacity no pod holds, and reserved the part of it that preemptors on their way
	// in will take: what they ask beyond what their victims, still leaving, hold.
	free, reserved amount.Amount
}

func (lv *fairLevel) fairDS(p *node) float64 {
	return DominantShare(lv.fair[p.spec.Name], lv.pool, p.spec.weight())
}

// fairLevel computes the fair shares of level of path (see Reclaim): wants says what each peer,
// keeping keeps, claims. s is the pod weighed, whose own and whose group's arrivals are not
// counted. Callers hold mu.
func (l *Ledger) fairLevel(path []*node, level int, capacity amount.Amount, s self, wants func(p *node, keeps amount.Amount) amount.Amount) *fairLevel {
	// The quotas that share at this level: the children of the quota where the paths meet, or
	// the tops of every tree.
	var peers []*node
	if level < len(path) {
		for _, c := range l.tree.quotas[path[level].spec.Name].Children {
			peers = append(peers, l.quotas[c])
		}
	} else {
		for _, n := range l.quotas {
			if n.parent == nil {
				peers = append(peers, n)
			}
		}
	}
	// The pool is the capacity the peers may borrow: what no pod holds, and what they borrow,
	// their leaving pods included (what leaves is on its way to a preemptor counted below, or
	// free). What pods hold is the ledger's, read under the same lock as the rest: the
	// scheduler's snapshot and the ledger each see a deletion at their own moment.
	// The peers' shares are of what they keep: their staying pods and their preemptors already on
	// their way in (all peers alike: counted on one side only, what one peer's preemptor was given
	// would look free to the others).
	lv := &fairLevel{pool: capacity.Clone(), keeps: map[*node]amount.Amount{}, borrowed: map[*node]amount.Amount{}}
	if lv.pool == nil {
		lv.pool = amount.Amount{}
	}
	for _, a := range l.namespaces {
		lv.pool.Add(a.used, -1)
	}
	lv.free = amount.Amount{}
	for name, x := range lv.pool {
		lv.free[name] = max(x, 0)
	}
	lv.reserved = l.incoming.need(arrivalTimeout, func(uid types.UID, a arrival) bool { return !s.is(uid, a) })
	for _, a := range l.namespaces {
		lv.reserved.Add(a.leaving, -1)
	}
	for name, x := range lv.reserved {
		lv.reserved[name] = min(max(x, 0), lv.free[name])
	}
	// Quotas outside the level keep, as the peers do, their staying pods and their preemptors on
	// their way in: counted by what they held, a preemptor of best-effort whose victims were gone,
	// nominated for the last free cpu, left that cpu in research's pool, physics' fair share came
	// to 2.25 of 9 where 8 was research's, and llm, below its share, could not take physics from 3
	// to 2 (Kueue's hierarchical preemption replayed, one run in three under load).
	inside := func(ns string) bool {
		return slices.ContainsFunc(peers, func(p *node) bool { return p.counts[ns] })
	}
	for ns, a := range l.namespaces {
		if !inside(ns) {
			lv.pool.Add(a.leaving, 1)
		}
	}
	lv.pool.Add(l.incoming.need(arrivalTimeout, func(uid types.UID, a arrival) bool { return !s.is(uid, a) && !inside(a.namespace) }), -1)
	var claims []Claim
	for _, p := range peers {
		if !p.spec.Fair {
			continue
		}
		lv.peers = append(lv.peers, p)
		lv.pool.Add(borrowing(p, p.used, nil), 1)
		keeps := staying(p)
		keeps.Add(l.arriving(p, s), 1)
		lv.keeps[p] = keeps
		// A peer's min holds what it keeps, not what it holds: what leaves it goes back to the
		// pool, and its preemptors on their way in take their part of its min out of the pool.
		// Counted by what was held, the pods a peer's preemptors reclaimed within its min were
		// pool twice over, leaving and arriving (Kueue's fair sharing with preemption replayed,
		// 1 run in 10: b's three reclaimers arriving, the pool was 6 where 3 was idle, a's fair
		// share 4 of it, and b's fourth pod found a, which borrowed 3, not above its share).
		lv.pool.Add(withinMin(p, p.used), 1)
		lv.pool.Add(withinMin(p, keeps), -1)
		lv.borrowed[p] = borrowing(p, keeps, nil)
		claims = append(claims, Claim{Name: p.spec.Name, Weight: p.spec.Weight, Wants: wants(p, keeps)})
	}
	for name, x := range lv.pool {
		lv.pool[name] = max(x, 0)
	}
	lv.fair = FairShares(lv.pool, claims)
	return lv
}

// Unfair says why a pod waits for fair sharing.
type Unfair struct {
	Quota     string
	Share     float64
	FairShare float64
	// Peer is the quota below its fair share that Kept is kept for, "" when only Reserved is.
	Peer                 string
	Resource             v1.ResourceName
	Free, Kept, Reserved int64
}

func (u *Unfair) Error() string {
	msg := fmt.Sprintf("fair sharing: quota %s would be above its fair share with this pod (weighted dominant share %.3f, fair share %.3f) ",
		u.Quota, u.Share, u.FairShare)
	if u.Peer != "" {
		msg += fmt.Sprintf("while quota %s, below its own, waits for %s (%s free, %s of it kept for quotas below their fair share",
			u.Peer, u.Resource, amount.Text(u.Resource, u.Free), amount.Text(u.Resource, u.Kept))
	} else {
		msg += fmt.Sprintf("and the free %s is not its (%s free", u.Resource, amount.Text(u.Resource, u.Free))
	}
	if u.Reserved > 0 {
		msg += fmt.Sprintf(", %s of it freed for preemptors on their way in", amount.Text(u.Resource, u.Reserved))
	}
	return msg + ")"
}

// FairAdmits reports whether pod, asking request, may take free capacity as fair sharing has it,
// and the ledger's fair clock for ParkFair. At every level of its path where its side borrows
// with the request (above its min) and the side's weighted dominant share would rise above its
// fair share (shares counting every peer's waiting pods as demand), the pod is refused if it would
// take capacity that peers below their fair share wait for: what is free, less the request, must
// still hold, of each resource the request asks, what those peers are short of their fair share
// (at most what their waiting pods ask). So a quota always gets its fair share, and beyond it only
// what nobody below theirs can use; capacity is idle only as long as such a peer's pods wait.
// Where its side would rise above its fair share, the pod never takes the room that preemptors on
// their way in freed, its own excepted, whether or not their victims have left yet. capacity is the
// nodes' allocatable; nil admits (no pool to divide).
func (l *Ledger) FairAdmits(pod *v1.Pod, request amount.Amount, capacity amount.Amount) (*Unfair, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	own := l.nodeOf(pod.Namespace)
	if own == nil || capacity == nil {
		return nil, l.fairClock
	}
	l.capacity = capacity
	path := pathOf(own)
	me := l.selfOf(pod)
	for level := 1; level <= len(path); level++ {
		side := path[level-1]
		if !side.spec.Fair || side.spec.WithinMin(side.used, request) {
			continue
		}
		demands := map[*node]amount.Amount{}
		// A preemptor's own arrival is its request, added below: counted twice, a preemptor
		// whose victims are gone looked above its share with its own room. So is its group's.
		lv := l.fairLevel(path, level, capacity, me, func(p *node, keeps amount.Amount) amount.Amount {
			d := l.demand(p, me)
			demands[p] = d
			if p == side {
				d = d.Clone()
				d.Add(request, 1)
			}
			return borrowing(p, keeps, d)
		})
		share := DominantShare(borrowing(side, lv.keeps[side], request), lv.pool, side.spec.weight())
		fairShare := lv.fairDS(side)
		if share <= fairShare {
			// Within its fair share a pod may take room that a preemptor on its way in freed: it
			// could preempt for that room itself, and the preemptor then preempts a pod of a quota
			// above its share again, which it would have lost anyway. Refused here, it could not
			// preempt at all until the preemptor bound, and preemptions went one at a time (issue
			// 42's churn guard reached the split in 12 s instead of 3 to 7).
			continue
		}
		// What the peers below their fair share, with pods waiting, are short of it. A peer whose
		// share is already at least the side's is not kept for: when the last free unit is
		// smaller than the step between two quotas' fair shares (one cpu, two quotas each half a
		// cpu short), each would otherwise be refused for the other, and the unit stay idle. The
		// one admitted is then above the other, which by FairToTake cannot take it back.
		// The side's share before is without the pod's group's round in progress: its members
		// already placed are part of what this pod's need completes, and judged with them, the
		// group's first member took a room its second was then refused (issue 45).
		before := DominantShare(borrowing(side, l.withoutRound(lv.keeps[side], me), nil), lv.pool, side.spec.weight())
		kept, short := amount.Amount{}, ""
		for _, p := range lv.peers {
			if p == side || len(demands[p]) == 0 {
				continue
			}
			if ds := DominantShare(lv.borrowed[p], lv.pool, p.spec.weight()); ds >= lv.fairDS(p) || ds >= before {
				continue
			}
			for res, r := range request {
				if r <= 0 {
					continue
				}
				gap := min(lv.fair[p.spec.Name][res]-lv.borrowed[p][res], demands[p][res])
				if gap > 0 {
					kept[res] += gap
					if short == "" || p.spec.Name < short {
						short = p.spec.Name
					}
				}
			}
		}
		// The room preemptors on their way in freed is theirs: not counted free, whoever they
		// are. Counted free, it let pods of a team above its share into the room freed for the
		// other team's preemptors, which then evicted them again (issue 42: a pod preempted 40 ms
		// after it was bound, 8 evictions where the fair split needed 6). That holds while their
		// victims are still in the ledger too: the scheduler's snapshot may have seen them go
		// first, and NodeResourcesFit then finds their room free (issue 42 again, under churn
		// with three teams: team-a's recreated pod bound into the room of its own old pod, freed
		// for team-g's preemptor 2 ms before, and evicted 90 ms later).
		// Only other sides' preemptors count: the side's own are what its share is made of, and
		// at the top of a tree, where the side is everything, every waiting pod would be refused
		// while any preemptor is on its way, and could not preempt (fair shares reached one
		// preemption at a time).
		theirs := l.incoming.need(arrivalTimeout, func(uid types.UID, a arrival) bool { return !me.is(uid, a) && !side.counts[a.namespace] })
		for res, r := range request {
			if (kept[res] > 0 || theirs[res] > 0) && lv.free[res]-lv.reserved[res]-r < kept[res] {
				// Refused with its victims gone, a preemptor is no longer on its way in but waits
				// like any pod (its demand is pending): left counted as arriving, it kept its
				// quota's side looking at its fair share for up to a minute, and the quota's
				// other waiters found no victims (Kueue's hierarchical preemption replayed:
				// physics at 1 of a fair 2, its two refused preemptors counted, chemistry at 3).
				delete(l.incoming, pod.UID)
				return &Unfair{Quota: side.spec.Name, Share: share, FairShare: fairShare, Peer: short,
					Resource: res, Free: lv.free[res], Kept: kept[res], Reserved: lv.reserved[res]}, l.fairClock
			}
		}
	}
	return nil, l.fairClock
}

// withoutRound is keeps less what s's group's members not yet bound hold. Callers hold mu.
func (l *Ledger) withoutRound(keeps amount.Amount, s self) amount.Amount {
	a, ok := l.namespaces[s.namespace]
	if !ok || s.group == "" || a.placing[s.group] == nil {
		return keeps
	}
	k := keeps.Clone()
	k.Add(a.placing[s.group], -1)
	return k
}

// ParkFair records pod as waiting for fair sharing, to be handed back when a pod ends or binds, a
// waiting pod goes, or the tree changes. If one of those happened since FairAdmits returned clock,
// it does not park the pod and returns false: the caller should retry it at once. A node that
// joins or grows is not the ledger's to see: the scheduler's queue moves such a pod (FairParked).
func (l *Ledger) ParkFair(pod *v1.Pod, clock uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fairClock != clock {
		return false
	}
	l.fairParked[pod.UID] = pod
	return true
}

// FairParked reports whether the pod waits for fair sharing (or a lending limit): more capacity
// raises every fair share and frees what a lending limit keeps, so it may admit the pod.
func (l *Ledger) FairParked(uid types.UID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.fairParked[uid]
	return ok
}

// drainFair hands back the pods parked for fair sharing. Callers hold mu.
func (l *Ledger) drainFair() []*v1.Pod {
	l.fairClock++
	if len(l.fairParked) == 0 {
		return nil
	}
	pods := make([]*v1.Pod, 0, len(l.fairParked))
	for uid, p := range l.fairParked {
		pods = append(pods, p)
		delete(l.fairParked, uid)
	}
	return pods
}

// FairBorrows reports whether need, admitted, takes some fair-sharing quota on the view's path
// above its min: only then can fair sharing refuse it (FairAdmits).
func (v *View) FairBorrows(need amount.Amount) bool {
	if v.Spec.Fair && !v.Spec.WithinMin(v.Used, need) {
		return true
	}
	for _, lv := range v.Above {
		if lv.Spec.Fair && !lv.Spec.WithinMin(lv.Used, need) {
			return true
		}
	}
	return false
}

// InFairSharing reports whether some quota on the view's path takes part in fair sharing: then
// the pod's demand counts while it waits (Waiting).
func (v *View) InFairSharing() bool {
	if v.Spec.Fair {
		return true
	}
	for _, lv := range v.Above {
		if lv.Spec.Fair {
			return true
		}
	}
	return false
}

// fairWake hands back the waiting pods of the quotas below their fair share at a level of ns's
// path where ns's side, with a pod just bound, is above its own. Those pods were turned away for
// room (NodeResourcesFit), and preemption found no victims while the side was within its share;
// the bind makes fair-share preemption possible for them, yet no event of theirs follows it: a
// bound pod frees nothing, so the queue's hints skip it. Without this wake they waited for the
// queue's five-minute flush (Kueue's hierarchical preemption replayed: llm at 3 of a fair 4 and
// physics at 3 of 2, one run in four). Callers hold mu.
func (l *Ledger) fairWake(ns string) []*v1.Pod {
	own := l.nodeOf(ns)
	if own == nil || l.capacity == nil || len(l.pending) == 0 {
		return nil
	}
	path := pathOf(own)
	var woken []*v1.Pod
	seen := map[types.UID]bool{}
	for level := 1; level <= len(path); level++ {
		side := path[level-1]
		if !side.spec.Fair || len(borrowing(side, side.used, nil)) == 0 {
			continue
		}
		lv := l.fairLevel(path, level, l.capacity, self{}, func(p *node, keeps amount.Amount) amount.Amount {
			return borrowing(p, keeps, l.demand(p, self{}))
		})
		if DominantShare(lv.borrowed[side], lv.pool, side.spec.weight()) <= lv.fairDS(side) {
			continue
		}
		for _, p := range lv.peers {
			if p == side || DominantShare(lv.borrowed[p], lv.pool, p.spec.weight()) >= lv.fairDS(p) {
				continue
			}
			for uid, a := range l.pending {
				if p.counts[a.namespace] && a.pod != nil && !seen[uid] {
					seen[uid] = true
					woken = append(woken, a.pod)
				}
			}
		}
	}
	return woken
}

// withinMin is the part of v that quota n's min covers, in the resources n names.
func withinMin(n *node, v amount.Amount) amount.Amount {
	w := amount.Amount{}
	for res, x := range v {
		if n.spec.names(res) && x > 0 {
			w[res] = min(x, n.spec.Min[res])
		}
	}
	return w
}
