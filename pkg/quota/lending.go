package quota

import (
	"fmt"
	"iter"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/amount"
)

// The lending limit (berth.dev/lending-limit, Kueue's lendingLimit): a quota lends at most that
// much of its idle min. berth's borrowers take whatever the nodes have free, so the limit is kept
// at admission: a pod whose quota (or one above it) borrows with it is admitted only if what
// stays free still holds, for every quota outside its path that has a lending limit, the part of
// its min it neither uses nor lends: min - used - lending limit.

// Unlendable says why a borrowing pod waits for a lending limit.
type Unlendable struct {
	// Quota is the pod's quota, Lender the quota whose unlent min would be taken.
	Quota, Lender      string
	Resource           v1.ResourceName
	Requested          int64
	Free, Kept         int64
	Min, Used, Lending int64
}

func (u *Unlendable) Error() string {
	f := func(x int64) string { return amount.Text(u.Resource, x) }
	return fmt.Sprintf("quota %s borrows: %s requested %s, free %s, of which %s is kept by lending limits "+
		"(%s: min %s, used %s, lending limit %s) (%s over)", u.Quota, u.Resource, f(u.Requested), f(u.Free), f(u.Kept),
		u.Lender, f(u.Min), f(u.Used), f(u.Lending), f(u.Requested-(u.Free-u.Kept)))
}

// LendingAdmits returns nil if pod, asking request, takes nothing that a lending limit keeps from
// it, or why it does, and the clock for ParkFair (a refused pod waits there like one refused for
// fair sharing: for a pod to end or bind, or the tree to change). A pod whose quotas stay within
// their min with it is never refused: it borrows nothing. capacity is the nodes' allocatable; nil
// admits.
//
// placed yields the pods on the nodes of the scheduling cycle (nil: the ledger alone). A lender's
// use is the least of what the ledger and the cycle's nodes show: the scheduler's cache and the
// ledger each see a pod end at their own moment, and a node that already had the room of a
// lender's pod that ended, next to a ledger that still counted the pod and so kept nothing for
// the limit, let a borrower past it (the lowered lending limit replayed, 1 run in 13). Free
// capacity stays the ledger's: the view that keeps more is the one that holds.
func (l *Ledger) LendingAdmits(pod *v1.Pod, request amount.Amount, capacity amount.Amount, placed iter.Seq[*v1.Pod]) (*Unlendable, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	own := l.nodeOf(pod.Namespace)
	if own == nil || capacity == nil || !l.lendingLimits {
		return nil, l.fairClock
	}
	onPath := map[*node]bool{}
	borrows := false
	for n := own; n != nil; n = n.parent {
		onPath[n] = true
		borrows = borrows || !n.spec.WithinMin(n.used, request)
	}
	if !borrows {
		return nil, l.fairClock
	}
	onNodes := l.heldOnNodes(placed)
	lenderUse := func(n *node) amount.Amount {
		if onNodes == nil {
			return n.used
		}
		return leastOf(n.used, onNodes.of(n))
	}
	kept := amount.Amount{}
	keeper := map[v1.ResourceName]*node{}
	// keeps is what the subtree of n keeps from pod: its own unlent min, or its children's
	// together, whichever is more (a child's min is carved out of its parent's). A quota on the
	// pod's path keeps nothing from it: the pod uses its own min there.
	var keeps func(n *node) amount.Amount
	keeps = func(n *node) amount.Amount {
		v := amount.Amount{}
		for _, c := range l.tree.quotas[n.spec.Name].Children {
			v.Add(keeps(l.quotas[c]), 1)
		}
		if onPath[n] {
			return v
		}
		used := lenderUse(n)
		for res, lend := range n.spec.LendingLimit {
			if k := n.spec.Min[res] - used[res] - lend; k > v[res] {
				v[res] = k
				if request[res] > 0 && (keeper[res] == nil || k > kept[res]) {
					keeper[res] = n
				}
			}
		}
		return v
	}
	for _, n := range l.quotas {
		if n.parent == nil {
			kept.Add(keeps(n), 1)
		}
	}
	free := capacity.Clone()
	for _, a := range l.namespaces {
		free.Add(a.used, -1)
	}
	names := make([]v1.ResourceName, 0, len(request))
	for res := range request {
		names = append(names, res)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	for _, res := range names {
		r, f := request[res], max(free[res], 0)
		if r <= 0 || kept[res] <= 0 || f-r >= kept[res] {
			continue
		}
		u := &Unlendable{Quota: own.spec.Name, Resource: res, Requested: r, Free: f, Kept: kept[res]}
		if k := keeper[res]; k != nil {
			u.Lender, u.Min, u.Used, u.Lending = k.spec.Name, k.spec.Min[res], lenderUse(k)[res], k.spec.LendingLimit[res]
		}
		return u, l.fairClock
	}
	return nil, l.fairClock
}

// LendingLimits reports whether a quota in force has a lending limit: only then does admission
// need the nodes' capacity for it.
func (l *Ledger) LendingLimits() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lendingLimits
}

// heldOnNodes is what the pods the ledger holds and placed shows on a node use, by namespace; nil
// without placed. A pod placed but not in the ledger counts nothing: the ledger takes a pod in at
// Reserve, before any node shows it. Callers hold mu.
func (l *Ledger) heldOnNodes(placed iter.Seq[*v1.Pod]) nsUse {
	if placed == nil {
		return nil
	}
	use := nsUse{}
	for p := range placed {
		if h, ok := l.pods[p.UID]; ok {
			if use[h.namespace] == nil {
				use[h.namespace] = amount.Amount{}
			}
			use[h.namespace].Add(h.request, 1)
		}
	}
	return use
}

// nsUse is a use by namespace.
type nsUse map[string]amount.Amount

// of is the use of the namespaces quota n counts.
func (u nsUse) of(n *node) amount.Amount {
	v := amount.Amount{}
	for ns := range n.counts {
		v.Add(u[ns], 1)
	}
	return v
}

// leastOf is, per resource of a, the lesser of a and b.
func leastOf(a, b amount.Amount) amount.Amount {
	v := amount.Amount{}
	for res, x := range a {
		v[res] = min(x, b[res])
	}
	return v
}
