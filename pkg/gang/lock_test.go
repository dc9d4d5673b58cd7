package gang

import (
	"fmt"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
)

// lockProbe is a node that notes, each time it is read, whether the manager's lock is held: the
// lock every profile's Gang, the informer handlers and the queue's hints wait on.
type lockProbe struct {
	fwk.NodeInfo
	m         *manager
	reads     *atomic.Int32
	underLock *atomic.Int32
}

func (n lockProbe) Node() *v1.Node {
	n.reads.Add(1)
	if n.m.mu.TryLock() {
		n.m.mu.Unlock()
	} else {
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

// A Wake of the group while AdmitScanning's scan runs without the lock would miss the pod, which
// is not parked yet: the check runs again, and a pod the second scan refuses is parked, for the
// next Wake to find. A group woken on every scan is scanned under the lock the third time.
func TestAdmitScanningAgainAfterAWake(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		wakeEvery                  bool
		wantBefores, wantUnderLock int
	}{
		{name: "one wake", wantBefores: 2},
		{name: "a wake every scan", wakeEvery: true, wantBefores: maxScans, wantUnderLock: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := testManager()
			m.PodChanged(keyA, a1.UID, a1)
			befores, scans, underLock := 0, 0, 0
			reason, ok, _ := m.AdmitScanning(keyA, a1, func(groupView) (parkReason, bool, func() parkReason) {
				befores++
				return 0, true, func() parkReason {
					scans++
					if !m.mu.TryLock() {
						underLock++
						return parkedTopology
					}
					m.mu.Unlock()
					if scans == 1 || tc.wakeEvery {
						m.Wake(keyA, nil, parkedTopology)
					}
					return parkedTopology
				}
			}, func(groupView) (parkReason, bool) { return 0, true })
			if ok || reason != parkedTopology {
				t.Fatalf("AdmitScanning = %v, %v; want the scan's refusal", reason, ok)
			}
			if befores != tc.wantBefores || scans != tc.wantBefores || underLock != tc.wantUnderLock {
				t.Errorf("%d checks, %d scans, %d under the lock; want %d, %d, %d", befores, scans, underLock, tc.wantBefores, tc.wantBefores, tc.wantUnderLock)
			}
			if r, parked := m.ParkedReason(keyA, a1.UID); !parked || r != parkedTopology {
				t.Errorf("a1 parked: %v, %v; want for its topology", r, parked)
			}
			if woken := m.Wake(keyA, nil, parkedTopology); len(woken) != 1 {
				t.Errorf("the next Wake took %d pods, want a1", len(woken))
			}
		})
	}
}

// A native group's failed cycle checks the freeings Gang recorded against its snapshot outside the
// manager's lock: a minute's deletions can be many, and every group's PreEnqueue, Permit and
// hints wait on that lock. A freeing that comes while the check runs, which the check's copy of
// the record lacks, still makes the group's wait for room short.
func TestGroupCycleChecksFreeingsOutsideTheManagersLock(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	for _, tc := range []struct {
		name        string
		freeDuring  bool
		wantShortly bool
	}{
		{name: "every freeing shown"},
		{name: "a freeing during the check", freeDuring: true, wantShortly: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, clock, _ := testManager()
			if m.freed == nil {
				t.Fatal("the manager keeps no record of freeings with GenericWorkload on")
			}
			for i := range 100 {
				m.PodFreed(types.UID(fmt.Sprint("gone-", i)), "n1", "")
			}
			since := m.RoomFreedCount()
			reads, underLock := 0, 0
			view := snapshotView{
				podVersion: func(types.UID, string) (string, bool) {
					reads++
					if !m.mu.TryLock() {
						underLock++
						return "", false
					}
					m.mu.Unlock()
					if tc.freeDuring && reads == 1 {
						m.PodFreed("late", "n1", "")
					}
					return "", false
				},
				nodeVersion: func(string) (string, bool) { return "", false },
			}
			key := podgroup.NativeKey("ns", "a")
			m.GroupCycleFailed(key, nativeCPUMember("a", "a0"), 3, nil, "could not place member a0", since, view)
			if reads == 0 {
				t.Fatal("the check read no pod: the probe tests nothing")
			}
			if underLock > 0 {
				t.Errorf("%d of %d reads of the snapshot held the manager's lock", underLock, reads)
			}
			m.mu.Lock()
			left := m.groups[key].room.until.Sub(clock.Now())
			m.mu.Unlock()
			if shortly := left <= roomRecheck; shortly != tc.wantShortly {
				t.Errorf("the group waits %v for room; want within %v: %v", left, roomRecheck, tc.wantShortly)
			}
		})
	}
}
