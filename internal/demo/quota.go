package demo

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

const (
	quotaNode = "quota-node"
	// quotaLender is the namespace of the team that lends its idle min and takes it back; the
	// scenario's own namespace is the borrower's.
	quotaLender = "quota-lender"
)

// prepareQuota gives two teams an ElasticQuota each on one 4-cpu node: the lender is guaranteed
// 3 cpu, the borrower 1, and both may use up to 4.
func prepareQuota(ctx context.Context, d *demo) error {
	if err := d.namespace(ctx, quotaLender); err != nil {
		return err
	}
	if err := d.createNodes(ctx, newNode("quota", quotaNode, resources("cpu", "4", "memory", "16Gi", "pods", "20"))); err != nil {
		return err
	}
	for ns, min := range map[string]string{"quota": "1", quotaLender: "3"} {
		eq := &v1alpha1.ElasticQuota{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quota"},
			Spec:       v1alpha1.ElasticQuotaSpec{Min: resources("cpu", min), Max: resources("cpu", "4")},
		}
		if _, err := d.groups.SchedulingV1alpha1().ElasticQuotas(ns).Create(ctx, eq, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating ElasticQuota %s/quota: %w", ns, err)
		}
	}
	d.progress("quota: node %s (4 cpu); ElasticQuotas: %s min 3 cpu, quota min 1 cpu, both max 4", quotaNode, quotaLender)
	return nil
}

func quotaPod(ns, name string) *v1.Pod {
	p := newPod("quota", name, v1.ResourceRequirements{Requests: resources("cpu", "1")})
	p.Namespace = ns
	return p
}

// runQuota lends, then reclaims: the borrower fills the node while the lender is idle, then the
// lender's pods take back its min by preempting what was borrowed, and the borrower keeps its own.
func runQuota(ctx context.Context, d *demo, s *Section) error {
	for i := range 4 {
		if err := d.createPods(ctx, quotaPod("quota", fmt.Sprint("borrower-", i))); err != nil {
			return err
		}
	}
	lent, err := d.settle(ctx, "quota", "", 4, time.Minute)
	if err != nil {
		return err
	}
	lentBound, _ := split(lent)
	s.printf("Lend: the lender is idle, so the borrower (min 1 cpu) runs %d pods of 1 cpu on the 4-cpu node,\n", len(lentBound))
	s.printf("3 of them on the lender's unused min.\n\n")
	s.expect("idle min is lent: all 4 borrower pods bound", len(lentBound) == 4, fmt.Sprintf("%d bound", len(lentBound)))

	for i := range 3 {
		if err := d.createPods(ctx, quotaPod(quotaLender, fmt.Sprint("lender-", i))); err != nil {
			return err
		}
	}
	lender, err := d.settleUntil(ctx, quotaLender, "", 3, 2*time.Minute, func(p []v1.Pod) bool {
		b, _ := split(p)
		return len(b) == 3
	})
	if err != nil {
		return err
	}
	borrower, err := d.settleUntil(ctx, "quota", "", 1, time.Minute, nil)
	if err != nil {
		return err
	}
	s.Pods = append(lender, borrower...)
	rows := make([][]string, 0, len(s.Pods))
	for _, p := range s.Pods {
		rows = append(rows, []string{p.Namespace, p.Name, orNone(p.Spec.NodeName), string(p.Status.Phase)})
	}
	s.printf("Reclaim: the lender creates 3 pods of 1 cpu, within its min. The node is full; berth preempts\n")
	s.printf("borrowed pods, but never takes the borrower below its own min:\n\n")
	s.table([]string{"NAMESPACE", "POD", "NODE", "PHASE"}, rows)
	lenderBound, _ := split(lender)
	borrowerBound, _ := split(borrower)
	s.expect("the lender gets its min back: 3 lender pods bound", len(lenderBound) == 3, fmt.Sprintf("%d bound", len(lenderBound)))
	s.expect("the borrower keeps its min: 1 borrower pod left, bound", len(borrower) == 1 && len(borrowerBound) == 1,
		fmt.Sprintf("%d left, %d bound", len(borrower), len(borrowerBound)))
	return nil
}
