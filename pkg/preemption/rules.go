package preemption

import (
	"context"
	"iter"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// Rule is a victim rule of another concern (a quota's borrowers, a group that goes whole). The
// core asks it once per preemption attempt for a Judge of that preemptor.
type Rule interface {
	// ForPreemptor returns the rule's Judge for one attempt of preemptor, or nil when the rule
	// has no say about it. placed yields every pod on a node in this cycle's snapshot.
	ForPreemptor(preemptor *v1.Pod, placed iter.Seq[*v1.Pod]) Judge
}

// RuleFactory builds a Rule for one scheduler profile.
type RuleFactory func(ctx context.Context, h fwk.Handle) (Rule, error)

// Verdict is a Judge's answer about one victim.
type Verdict int

const (
	// NoSay leaves the victim to the other rules and, failing those, to priority: a victim must
	// have lower priority than the preemptor.
	NoSay Verdict = iota
	// Never forbids taking the victim, whatever its priority.
	Never
	// Allowed lets the victim be taken even when its priority is not lower (a quota reclaiming what
	// was lent), unless another Judge says Never.
	Allowed
)

// Judge answers one preemption attempt's questions about victims. It is asked from the dry runs
// of many nodes at once and must not change after ForPreemptor returned it.
type Judge interface {
	// Together returns the pods that must be evicted together with pod, pod included, or nil
	// when pod goes alone.
	Together(pod *v1.Pod) []*v1.Pod
	// Verdict judges a victim: pods that go together, all in one namespace.
	Verdict(victim []*v1.Pod) Verdict
	// Tally returns a fresh count, or nil if the Judge keeps none.
	Tally() Tally
}

// Tally bounds a set of victims as a whole, for one candidate: on each node of it (a group's
// companions may need several) a fresh Tally first takes the victims chosen on the nodes before,
// then is offered that node's victims least important first, and one that Take refuses is kept.
type Tally interface {
	Take(victim []*v1.Pod) bool
}

// Evictor is a Judge that wants to know the victims an attempt chose, once the evaluator has
// started evicting them: their deletion is asynchronous, and until the informers show it, a
// Judge's own account (a lender's use) would count them twice.
type Evictor interface {
	Evicting(victims []*v1.Pod)
}

// Company is a Judge whose preemptor does not go alone: a member of a group that still misses
// others. Evicting helps only if they all fit too, so every candidate's dry run also places that
// many more pods like the preemptor, on any node, evicting what they need; the candidate's victims
// are all of those, and a candidate that cannot place them all has none. The evaluator then
// carries out one decision for the whole group, or nothing.
type Company interface {
	// Companions is how many pods like the preemptor must fit beside it.
	Companions() int
}

// Narrator is a Judge that tells a person, in the preemptor's event and condition, what a
// preemption under way is for: upstream's text ("not eligible due to a terminating pod ...")
// reads like a failure while it is only waiting for the victims to go.
type Narrator interface {
	// InProgress describes the preemption whose victims (chosen now, or still terminating from
	// an earlier attempt) are given, or returns "" when it has nothing to say about them.
	InProgress(victims []*v1.Pod) string
}
