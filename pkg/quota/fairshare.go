package quota

import (
	"math"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/amount"
)

// Fair sharing of borrowed capacity (docs/quota-fair-sharing.md): pure functions, not yet asked
// by admission or reclaim.

// Claim is one quota's claim on a pool of borrowable capacity.
type Claim struct {
	Name string
	// Weight is in thousandths, as Spec.Weight; 0 stands for 1.
	Weight int64
	// Wants is what the quota would borrow if it could: its demand above its min.
	Wants amount.Amount
}

// DominantShare is a borrowing's dominant resource share of pool: the largest, over the
// resources of the pool, of borrowed / pool, divided by weight (thousandths; 0 stands for 1).
// Borrowing a resource the pool does not hold counts as a share of +Inf: the pool cannot give it.
// GPU memory is a resource like any other.
func DominantShare(borrowed, pool amount.Amount, weight int64) float64 {
	if weight <= 0 {
		weight = 1000
	}
	share := 0.0
	for name, x := range borrowed {
		if x <= 0 {
			continue
		}
		p := pool[name]
		if p <= 0 {
			return math.Inf(1)
		}
		share = max(share, float64(x)/float64(p))
	}
	return share * 1000 / float64(weight)
}

// FairShares divides pool among claims by weighted dominant resource share, by progressive
// filling: every claim grows along its own demand (each resource in the proportion it wants
// them), its dominant share rising in proportion to its weight, until it has all it wants or a
// resource it wants runs out; the others go on growing. So two claims that both want more than
// the pool holds end with dominant shares in the ratio of their weights, and what one does not
// want goes to the others. A claim that wants a resource the pool does not hold gets nothing
// (its demand cannot grow along its own direction). The result is per claim name, in the
// pool's units, rounded down.
func FairShares(pool amount.Amount, claims []Claim) map[string]amount.Amount {
	type claimant struct {
		name   string
		weight float64
		wants  amount.Amount
		// dominant is the dominant share of the whole demand: max over r of wants[r] / pool[r].
		dominant float64
		t        float64 // fraction of its demand granted
		active   bool
	}
	cs := make([]*claimant, 0, len(claims))
	for _, c := range claims {
		w := float64(c.Weight)
		if c.Weight <= 0 {
			w = 1000
		}
		cl := &claimant{name: c.Name, weight: w / 1000, wants: amount.Amount{}}
		for name, x := range c.Wants {
			if x > 0 {
				cl.wants[name] = x
			}
		}
		cl.dominant = DominantShare(cl.wants, pool, 1000)
		cl.active = cl.dominant > 0 && !math.IsInf(cl.dominant, 1)
		cs = append(cs, cl)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	used := map[v1.ResourceName]float64{}
	// level is the weighted dominant share every active claim has reached.
	level := 0.0
	for {
		var active []*claimant
		for _, c := range cs {
			if c.active {
				active = append(active, c)
			}
		}
		if len(active) == 0 {
			break
		}
		// Next event: a claim is satisfied (t = 1 at level dominant/weight) or a resource runs out.
		next := math.Inf(1)
		for _, c := range active {
			next = min(next, c.dominant/c.weight)
		}
		rate := map[v1.ResourceName]float64{}
		for _, c := range active {
			for name, x := range c.wants {
				// d(x granted)/d(level) = weight * wants / dominant.
				rate[name] += c.weight * float64(x) / c.dominant
			}
		}
		for name, r := range rate {
			left := float64(pool[name]) - used[name]
			next = min(next, level+max(left, 0)/r)
		}
		step := next - level
		for _, c := range active {
			dt := step * c.weight / c.dominant
			c.t += dt
			for name, x := range c.wants {
				used[name] += dt * float64(x)
			}
		}
		level = next
		const eps = 1e-9
		for _, c := range active {
			if c.t >= 1-eps {
				c.t, c.active = 1, false
				continue
			}
			for name := range c.wants {
				if float64(pool[name])-used[name] <= eps*float64(pool[name]) {
					c.active = false
				}
			}
		}
	}
	out := make(map[string]amount.Amount, len(cs))
	for _, c := range cs {
		got := amount.Amount{}
		for name, x := range c.wants {
			if g := int64(math.Floor(c.t*float64(x) + 1e-6)); g > 0 {
				got[name] = min(g, x)
			}
		}
		out[c.name] = got
	}
	return out
}

// FairToTake is the rule that keeps preemption for fairness from going back and forth: a quota may
// take a victim from another quota only if, with the victim gone and its own pod admitted, its
// weighted dominant share (preemptorAfter) is still at most the victim quota's (victimAfter), and
// the victim quota still borrows at least its fair share (its share after at or above
// victimFair). Then the victim quota, now at or below the preemptor's share, can never take back
// by the same rule what it lost: that would need its share below the preemptor's.
func FairToTake(preemptorAfter, victimAfter, victimFair float64) bool {
	return preemptorAfter <= victimAfter && victimAfter >= victimFair
}
