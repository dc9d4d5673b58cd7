package noderoom

import (
	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
)

// unschedulableTaint is how the scheduler's NodeUnschedulable filter reads a cordoned node: a pod
// goes there only if it tolerates this taint.
var unschedulableTaint = v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}

// ComparisonOperators reports whether tolerations may compare numbers (Gt, Lt), as the
// scheduler's TaintTolerationComparisonOperators gate says: alpha in Kubernetes 1.37, off unless
// enabled. It reads this process's gate: the scheduler's --feature-gates, and in kubectl berth its
// own --feature-gates, which takes the scheduler's value so that the two judge a node alike. Read
// it once per pass over the nodes: the gate costs more than judging a node.
func ComparisonOperators() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.TaintTolerationComparisonOperators)
}

// Excluded says what keeps a pod with tolerations off node whatever its room, as the scheduler's
// NodeUnschedulable and TaintToleration filters judge it: cordoned when node is (spec.unschedulable)
// and the pod does not tolerate node.kubernetes.io/unschedulable; else taint, the first NoSchedule
// or NoExecute taint it does not tolerate, nil if none. comparisonOperators is ComparisonOperators.
// Gang and kubectl berth (why and gangs) all judge a node by it, so they cannot disagree.
func Excluded(node *v1.Node, tolerations []v1.Toleration, comparisonOperators bool) (cordoned bool, taint *v1.Taint) {
	logger := klog.Background()
	if node.Spec.Unschedulable && !corev1helpers.TolerationsTolerateTaint(logger, tolerations, &unschedulableTaint, comparisonOperators) {
		return true, nil
	}
	if len(node.Spec.Taints) == 0 {
		return false, nil
	}
	t, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, comparisonOperators)
	if !untolerated {
		return false, nil
	}
	return false, &t
}

// Usable reports whether a pod with tolerations may go to node at all: nothing Excluded names. A
// domain's room counts usable nodes only: a rack whose free room sits on a cordoned node cannot
// take the group, and choosing it would hold the group there for nothing.
func Usable(node *v1.Node, tolerations []v1.Toleration, comparisonOperators bool) bool {
	cordoned, taint := Excluded(node, tolerations, comparisonOperators)
	return !cordoned && taint == nil
}
