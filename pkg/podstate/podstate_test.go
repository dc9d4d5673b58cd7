package podstate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/berth-sched/berth/pkg/apis/config"
)

func init() { metrics.Register() }

// node describes a node of a test: how many of its pods are terminating, how many pods are
// nominated to it (by preemption), how many run there undisturbed.
type node struct {
	name                            string
	terminating, nominated, running int
}

// cluster builds the nodes' NodeInfos and a real scheduling queue, which the framework uses as
// its nominator. The queue holds the nodes' nominated pods and preemptors, pods nominated to a
// node as their own preemption left them; like the scheduler's, it nominates only pods that its
// informer has seen, pending.
func cluster(t *testing.T, nodes []node, preemptors ...*v1.Pod) ([]fwk.NodeInfo, *internalqueue.PriorityQueue) {
	logger, ctx := ktesting.NewTestContext(t)
	var infos []fwk.NodeInfo
	nominated := preemptors
	for _, n := range nodes {
		var pods []*v1.Pod
		for i := range n.terminating {
			pods = append(pods, st.MakePod().Name(fmt.Sprintf("%s-terminating-%d", n.name, i)).
				UID(fmt.Sprintf("%s-t%d", n.name, i)).Node(n.name).Terminating().Obj())
		}
		for i := range n.running {
			pods = append(pods, st.MakePod().Name(fmt.Sprintf("%s-running-%d", n.name, i)).
				UID(fmt.Sprintf("%s-r%d", n.name, i)).Node(n.name).Obj())
		}
		for i := range n.nominated {
			nominated = append(nominated, st.MakePod().Name(fmt.Sprintf("%s-nominated-%d", n.name, i)).
				UID(fmt.Sprintf("%s-n%d", n.name, i)).NominatedNodeName(n.name).Obj())
		}
		ni := framework.NewNodeInfo(pods...)
		ni.SetNode(st.MakeNode().Name(n.name).Obj())
		infos = append(infos, ni)
	}
	var objs []runtime.Object
	for _, p := range nominated {
		objs = append(objs, p)
	}
	q := internalqueue.NewTestQueueWithObjects(ctx, nil, objs)
	for _, p := range nominated {
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			t.Fatal(err)
		}
		q.AddNominatedPod(logger, pi, &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: p.Status.NominatedNodeName})
	}
	return infos, q
}

// newFramework is a scheduling framework with the plugin as its only Score plugin and nominator
// as the scheduler's queue.
func newFramework(t *testing.T, nominator fwk.PodNominator, args runtime.Object) (framework.Framework, error) {
	_, ctx := ktesting.NewTestContext(t)
	withArgs := func(_ *frameworkruntime.Registry, p *schedconfig.KubeSchedulerProfile) {
		if args != nil {
			p.PluginConfig = append(p.PluginConfig, schedconfig.PluginConfig{Name: Name, Args: args})
		}
	}
	return tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterScorePlugin(Name, New, 1),
		withArgs,
	}, "default-scheduler", frameworkruntime.WithPodNominator(nominator))
}

// scheduler-plugins' cases (pkg/podstate/pod_state_test.go) as a floor, then the pod's own
// nomination.
func TestScore(t *testing.T) {
	pending := st.MakePod().Name("pending").UID("pending").Obj()
	tests := []struct {
		name  string
		nodes []node
		pod   *v1.Pod
		// nominatedTo, if set, is where the pod being scheduled was nominated by its preemption.
		nominatedTo string
		want        map[string]int64
	}{
		{
			name:  "more terminating pods score higher; regular pods only, lowest",
			nodes: []node{{"node1", 6, 0, 10}, {"node2", 3, 0, 10}, {"node3", 0, 0, 10}},
			want:  map[string]int64{"node1": 100, "node2": 50, "node3": 0},
		},
		{
			name:  "more nominated pods score lower; regular pods only, highest",
			nodes: []node{{"node1", 0, 2, 10}, {"node2", 0, 1, 10}, {"node3", 0, 0, 10}},
			want:  map[string]int64{"node1": 0, "node2": 50, "node3": 100},
		},
		{
			name:  "more terminating less nominated scores higher",
			nodes: []node{{"node1", 5, 2, 10}, {"node2", 3, 1, 10}},
			want:  map[string]int64{"node1": 100, "node2": 0},
		},
		{
			name:  "less terminating less nominated scores lower",
			nodes: []node{{"node1", 5, 4, 10}, {"node2", 3, 1, 10}},
			want:  map[string]int64{"node1": 0, "node2": 100},
		},
		{
			name:  "four nodes",
			nodes: []node{{"node1", 5, 0, 10}, {"node2", 3, 1, 10}, {"node3", 2, 1, 10}, {"node4", 0, 1, 10}},
			want:  map[string]int64{"node1": 100, "node2": 50, "node3": 33, "node4": 0},
		},
		{
			name:  "nothing terminating or nominated anywhere: no preference",
			nodes: []node{{"node1", 0, 0, 3}, {"node2", 0, 0, 0}},
			want:  map[string]int64{"node1": 0, "node2": 0},
		},
		{
			// scheduler-plugins counts the preemptor's own nomination against the node whose
			// victims it is waiting for, and ties it here with a node that freed less room.
			name:        "the pod's own nomination does not count against the node it preempted on",
			nodes:       []node{{"node1", 2, 0, 1}, {"node2", 1, 0, 1}},
			nominatedTo: "node1",
			want:        map[string]int64{"node1": 100, "node2": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := pending
			var preemptors []*v1.Pod
			if tt.nominatedTo != "" {
				pod = st.MakePod().Name("preemptor").UID("preemptor").NominatedNodeName(tt.nominatedTo).Obj()
				preemptors = append(preemptors, pod)
			}
			nodes, q := cluster(t, tt.nodes, preemptors...)
			f, err := newFramework(t, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, ctx := ktesting.NewTestContext(t)
			out, status := f.RunScorePlugins(ctx, framework.NewCycleState(), pod, nodes)
			if !status.IsSuccess() {
				t.Fatal(status)
			}
			got := map[string]int64{}
			for _, n := range out {
				got[n.Name] = n.TotalScore
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("node scores (-want +got):\n%s", diff)
			}
		})
	}
}

// PodState has no args; a pluginConfig that gives it some is a mistake, reported at start-up.
func TestNewRefusesArgs(t *testing.T) {
	_, q := cluster(t, nil)
	_, err := newFramework(t, q, &config.GangArgs{})
	if err == nil || !strings.Contains(err.Error(), "PodState takes no args") {
		t.Errorf("building with args: %v, want an error saying PodState takes none", err)
	}
}

// The plugin signs every pod, so a profile with it keeps opportunistic batching.
func TestSignPodKeepsBatching(t *testing.T) {
	_, q := cluster(t, nil)
	f, err := newFramework(t, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	if sig := f.SignPod(ctx, st.MakePod().Name("p").Obj()); sig == nil {
		t.Error("no signature: batching would be off")
	}
}

// Score runs for every feasible node of every pod: with no pod nominated to the node it must not
// allocate (with some, the queue copies them, as it does for the framework's own Filter).
func TestScoreDoesNotAllocate(t *testing.T) {
	nodes, q := cluster(t, []node{{"node1", 3, 0, 20}})
	f, err := newFramework(t, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := New(t.Context(), nil, f)
	if err != nil {
		t.Fatal(err)
	}
	pod := st.MakePod().Name("p").UID("p").Obj()
	// AllocsPerRun counts every allocation of the process, and the test queue's informers and flush
	// loops run beside Score (once 4 a run, on a loaded machine, just after the informers started):
	// the least of five measures is Score's own, and an allocation of Score's is in each of them.
	allocs := math.Inf(1)
	for range 5 {
		allocs = min(allocs, testing.AllocsPerRun(100, func() {
			if score, status := pl.(fwk.ScorePlugin).Score(t.Context(), nil, pod, nodes[0]); score != 3 || !status.IsSuccess() {
				t.Fatalf("score %d, status %v; want 3", score, status)
			}
		}))
	}
	if allocs != 0 {
		t.Errorf("Score allocates %v times per node", allocs)
	}
}
