package elasticquota

import (
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/quota"
)

// BenchmarkQueueingHints is one answer of ElasticQuota's hints for a pod waiting for quota in
// team-0-0, among 100 quotas: 10 departments of 9 teams, one namespace each. The queue asks the
// pod hint for every pod ElasticQuota turned away on every pod deletion in the cluster.
func BenchmarkQueueingHints(b *testing.B) {
	var quotas []*v1alpha1.ElasticQuota
	for d := range 10 {
		dept := elasticQuota("org", fmt.Sprintf("dept-%d", d), cpu("9"), cpu("80"))
		dept.Annotations = map[string]string{quota.NamespacesAnnotation: ""}
		quotas = append(quotas, dept)
		for t := range 9 {
			q := elasticQuota(fmt.Sprintf("team-%d-%d", d, t), "q", cpu("1"), cpu("8"))
			q.Annotations = map[string]string{quota.ParentAnnotation: "org/" + dept.Name}
			quotas = append(quotas, q)
		}
	}
	tree, _, invalid := quota.TreeOf(quotas)
	if invalid != nil {
		b.Fatalf("invalid tree: %v", invalid)
	}
	ledger := quota.NewLedger()
	ledger.SetTree(tree)
	pl := &ElasticQuota{shared: &shared{ledger: ledger}}
	waiter := podOf("team-0-0", "waiter", "2").Obj()
	claim := func(ns string, reservedFor int, allocated bool) *resourceapi.ResourceClaim {
		c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c"}}
		if allocated {
			c.Status.Allocation = &resourceapi.AllocationResult{}
		}
		for i := range reservedFor {
			c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: fmt.Sprint(i)})
		}
		return c
	}
	for _, tc := range []struct {
		name     string
		hint     fwk.QueueingHintFn
		old, cur any
		want     fwk.QueueingHint
	}{
		{"pod deleted in own namespace", pl.isSchedulableAfterPodChange, podOf("team-0-0", "gone", "1").Node("n").Obj(), nil, fwk.Queue},
		{"pod deleted in own tree", pl.isSchedulableAfterPodChange, podOf("team-0-5", "gone", "1").Node("n").Obj(), nil, fwk.Queue},
		{"pod deleted in another tree", pl.isSchedulableAfterPodChange, podOf("team-7-5", "gone", "1").Node("n").Obj(), nil, fwk.QueueSkip},
		{"pod deleted without quota", pl.isSchedulableAfterPodChange, podOf("default", "gone", "1").Node("n").Obj(), nil, fwk.QueueSkip},
		{"claim released in own namespace", isSchedulableAfterClaimChange, claim("team-0-0", 1, true), claim("team-0-0", 0, true), fwk.Queue},
		{"claim reserved in own namespace", isSchedulableAfterClaimChange, claim("team-0-0", 0, true), claim("team-0-0", 1, true), fwk.QueueSkip},
		{"claim released in another namespace", isSchedulableAfterClaimChange, claim("team-7-5", 1, true), claim("team-7-5", 0, true), fwk.QueueSkip},
		{"node added, pod not waiting for fair sharing", pl.isSchedulableAfterNodeChange, nil, st.MakeNode().Name("n").Obj(), fwk.QueueSkip},
	} {
		b.Run(tc.name, func(b *testing.B) {
			logger := klog.Background()
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := tc.hint(logger, waiter, tc.old, tc.cur); got != tc.want {
					b.Fatalf("%v, want %v", got, tc.want)
				}
			}
		})
	}
}
