// Package victims is how a concern (a quota's borrowers, a group that goes whole, a topology
// domain, a device) has its say in berth's preemption: which pods go together, which may or may
// not be taken, what bounds a candidate's victims as a whole. The concerns' plugins write Rules;
// the preemption plugin (pkg/preemption) asks them; neither imports the other.
package victims

import (
	"iter"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// RuleFor is one concern's victim rule in a scheduler profile. The core asks it once per
// preemption attempt, before the dry runs, for its Rule about preemptor, and it returns nil when
// the concern has no say about that attempt. placed yields every pod on a node in this cycle's
// snapshot.
type RuleFor func(preemptor *v1.Pod, placed iter.Seq[*v1.Pod]) *Rule

// Rule is what one concern (a quota's borrowers, a group that goes whole, a rack a group must stay
// in) says about the victims of one preemption attempt, as upstream's DefaultPreemption is extended
// through function fields. Every field may be nil, which has no say: a concern sets only the
// questions it has an answer to, and with none the core chooses what DefaultPreemption chooses.
// The fields are in the order the core asks them. The dry runs of many nodes ask a Rule at once:
// its functions must be safe to call concurrently, and their answers must not change once RuleFor
// returned it.
type Rule struct {
	// Together returns the pods that must be evicted together with pod, pod included, or nil when
	// pod goes alone. Some pods are of no use without others (a group's members): evicting one
	// alone frees its room but wrecks the rest, so the core offers them as one victim, with those
	// on other nodes, weighed as a whole by the evaluator.
	Together func(pod *v1.Pod) []*v1.Pod

	// Verdict judges a victim: pods that go together, all in one namespace. Priority alone decides
	// which pods may go (those of lower priority than the preemptor); Verdict is where a concern
	// protects what priority would give up (Never) or gives up what priority would protect
	// (Allowed).
	Verdict func(victim []*v1.Pod) Verdict

	// Tally starts a count for one candidate, for a concern whose limit holds over a candidate's
	// victims as a whole rather than each alone (a lender gives down to its min, counting every
	// node the candidate takes victims on). On each node of the candidate, a new count first takes
	// the victims chosen on the nodes before, then is offered that node's victims least important
	// first; one that take refuses is kept.
	Tally func() (take func(victim []*v1.Pod) bool)

	// Companions is how many more pods like the preemptor must fit beside it, when it does not go
	// alone: a member of a group that still misses others is not let in until they all are, so
	// making room for it alone would evict for nothing. Every candidate's dry run then also
	// places that many pods like the preemptor, on any node, evicting what they need; the
	// candidate's victims are all of those, and a candidate that cannot place them all has none.
	// The evaluator carries out one decision for the whole group, or nothing. The core takes the
	// most any Rule asks for.
	Companions func() int

	// CompanionPods are the pods the Companions stand for that exist and wait, as many as there
	// are (members not created yet have none). The core nominates each to the node where the dry
	// run placed a companion, with the victims there, as upstream's pod-group preemption nominates
	// every member: the room is theirs against other pods, and each waits for its victims rather
	// than preempting again for room its group's preemption already made.
	CompanionPods func() []*v1.Pod

	// Evicting is told the victims the attempt chose, once the evaluator has started evicting
	// them. Their deletion is asynchronous: until the informers show it, a concern's own account
	// (a lender's use) would count them twice.
	Evicting func(victims []*v1.Pod)

	// InProgress describes to a person, in the preemptor's event and condition, the preemption
	// whose victims (chosen now, or still terminating from an earlier attempt) are given, or
	// returns "" when the concern has nothing to say about them. Upstream's text ("not eligible due
	// to a terminating pod ...") reads like a failure while the preemptor only waits for its
	// victims to go. The first Rule with something to say is used.
	InProgress func(victims []*v1.Pod) string
}

// Verdict is a Rule's answer about one victim.
type Verdict int

const (
	// NoSay leaves the victim to the other rules and, failing those, to priority: a victim must
	// have lower priority than the preemptor.
	NoSay Verdict = iota
	// Never forbids taking the victim, whatever its priority.
	Never
	// Allowed lets the victim be taken even when its priority is not lower (a quota reclaiming what
	// was lent), unless another Rule says Never.
	Allowed
)

// PodsOn yields every pod on nodes: a cycle's snapshot as RuleFor's placed, or PreFilter's nodes.
func PodsOn(nodes []fwk.NodeInfo) iter.Seq[*v1.Pod] {
	return func(yield func(*v1.Pod) bool) {
		for _, n := range nodes {
			for _, pi := range n.GetPods() {
				if !yield(pi.GetPod()) {
					return
				}
			}
		}
	}
}
