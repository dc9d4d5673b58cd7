package elasticquota

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/quota"
)

// BenchmarkPreEnqueue is ElasticQuota's PreEnqueue for one pod, which the queue runs for every pod
// it moves towards the active queue: an event that wakes a backlog runs it once per waiting pod.
// 100 quotas, 10 departments of 9 teams in fair sharing, and a namespace without quota; the ledger already counts 4,000 waiting
// pods, as in BenchmarkBacklog's short backlog scaled up.
func BenchmarkPreEnqueue(b *testing.B) {
	var crs []runtime.Object
	for d := range 10 {
		dept := elasticQuota("org", fmt.Sprintf("dept-%d", d), cpu("9"), cpu("80"))
		dept.Annotations = map[string]string{quota.NamespacesAnnotation: ""}
		crs = append(crs, dept)
		for t := range 9 {
			q := elasticQuota(fmt.Sprintf("team-%d-%d", d, t), "q", cpu("1"), cpu("8"))
			q.Annotations = map[string]string{quota.ParentAnnotation: "org/" + dept.Name}
			crs = append(crs, q)
		}
	}
	e := newEnv(b, nil, crs...)
	for i := range 4000 {
		p := podOf(fmt.Sprintf("team-%d-%d", i%10, i%9), fmt.Sprint("backlog-", i), "1").Obj()
		if st := e.pl.PreEnqueue(e.ctx, p); st != nil {
			b.Fatalf("PreEnqueue kept a backlog pod out: %v", st)
		}
	}
	member := podOf("team-0-0", "member", "1").Obj()
	member.Labels = map[string]string{v1alpha1.PodGroupLabel: "g"}
	for _, tc := range []struct {
		name string
		pod  func(i int) *v1.Pod
	}{
		{"pod in fair sharing, moved again", func(int) *v1.Pod { return podOf("team-0-0", "again", "1").Obj() }},
		{"1,024 pods in fair sharing in turn", func(i int) *v1.Pod {
			p := podOf("team-0-0", "new", "1").Obj()
			p.UID = types.UID(fmt.Sprint("new-", i))
			return p
		}},
		{"member of a pod group", func(int) *v1.Pod { return member }},
		{"pod without quota", func(int) *v1.Pod { return podOf("default", "free", "1").Obj() }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			pods := make([]*v1.Pod, 0, 1024)
			for i := range cap(pods) {
				pods = append(pods, tc.pod(i))
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if st := e.pl.PreEnqueue(e.ctx, pods[i%len(pods)]); st != nil {
					b.Fatalf("PreEnqueue kept the pod out: %v", st)
				}
				i++
			}
		})
	}
}
