package elasticquota

import (
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// countingIndexer counts how the pod informer's store is read: by an index, or by a scan of
// every pod (List, or Index, which a lister by namespace tries before it falls back to List).
type countingIndexer struct {
	cache.Indexer
	byIndex, scans atomic.Int32
}

func (c *countingIndexer) ByIndex(name, value string) ([]any, error) {
	c.byIndex.Add(1)
	return c.Indexer.ByIndex(name, value)
}

func (c *countingIndexer) List() []any {
	c.scans.Add(1)
	return c.Indexer.List()
}

func (c *countingIndexer) Index(name string, obj any) ([]any, error) {
	c.scans.Add(1)
	return c.Indexer.Index(name, obj)
}

// TestGroupNeedReadsTheGroupIndex: admitting a member of a group short of minMember reads the
// group's waiting pods through the group index, one lookup, never a scan of the scheduler's pods
// (whose informer has no namespace index: a lister by namespace lists every pod of the cluster).
func TestGroupNeedReadsTheGroupIndex(t *testing.T) {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "g"}, Spec: v1alpha1.PodGroupSpec{MinMember: 3}}
	member := func(ns, name, cpu string) *v1.Pod {
		return podOf(ns, name, cpu).Label(v1alpha1.PodGroupLabel, "g").Obj()
	}
	small := member("a", "small", "1")
	// A group of the same name in another namespace is another group.
	e := newEnv(t, []*v1.Pod{small, member("a", "big", "3"), member("b", "other", "1"), member("b", "other2", "1")},
		elasticQuota("a", "q", nil, cpu("4")), pg)
	pods := &countingIndexer{Indexer: e.pl.groups.Pods}
	e.pl.groups.Pods = pods

	_, status := e.preFilter(t, small)
	if want := "quota a/q: cpu used 0, requested for pod group g 5, max 4"; status.Code() != fwk.UnschedulableAndUnresolvable || status.Message() != want {
		t.Errorf("got %v %q, want UnschedulableAndUnresolvable %q", status.Code(), status.Message(), want)
	}
	if n := pods.byIndex.Load(); n != 1 {
		t.Errorf("%d index lookups, want 1", n)
	}
	if n := pods.scans.Load(); n != 0 {
		t.Errorf("%d scans of every pod, want none", n)
	}
}
