package gang

import (
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/topology"
)

// lockProbe is a node that notes, each time it is read, whether another user of the manager
// (here the queue's hint asking why a pod is parked) is held up meanwhile: the manager's lock,
// which every profile's Gang, the informer handlers and the queue's hints wait on, is held.
type lockProbe struct {
	fwk.NodeInfo
	m         *gangcore.Manager
	reads     *atomic.Int32
	underLock *atomic.Int32
}

// heldUp is how long the probe waits for the other user: far longer than an unheld lock takes
// even on a loaded machine. A read under the lock costs the test this much each.
const heldUp = 2 * time.Second

func (n lockProbe) Node() *v1.Node {
	n.reads.Add(1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.m.ParkedReason(keyA, "uid-other")
	}()
	select {
	case <-done:
	case <-time.After(heldUp):
		n.underLock.Add(1)
	}
	return n.NodeInfo.Node()
}

// PreFilter reads every node for a group's minResources and its topology domain outside the
// manager's process-wide lock: a scan of a large cluster there held up every other group's
// PreEnqueue, Permit and event handler for its length.
func TestPreFilterScansNodesOutsideTheManagersLock(t *testing.T) {
	m1, m2 := oneCPU(member("a", "a1", "uid-a1")), oneCPU(member("a", "a2", "uid-a2"))
	pg := annotated(podGroup("a", 2), topology.RequiredAnnotation, topology.RackLabel)
	pg.Spec.MinResources = v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}
	h := newHarness(t, []*v1alpha1.PodGroup{pg}, m1, m2)
	var reads, underLock atomic.Int32
	var nodes []fwk.NodeInfo
	for _, n := range []*v1.Node{rackNode("n1", "r1", "4"), rackNode("n2", "r1", "4"), rackNode("n3", "r2", "2")} {
		nodes = append(nodes, lockProbe{NodeInfo: nodeInfo(n), m: h.pl.groups, reads: &reads, underLock: &underLock})
	}
	res, st := h.pl.PreFilter(h.ctx, framework.NewCycleState(), m1, nodes)
	if !st.IsSuccess() || res == nil {
		t.Fatalf("PreFilter: %v, %v; want a domain", res, st)
	}
	if reads.Load() == 0 {
		t.Fatal("PreFilter read no node: the probe tests nothing")
	}
	if n := underLock.Load(); n > 0 {
		t.Errorf("%d of %d node reads in PreFilter held the manager's lock", n, reads.Load())
	}
}
