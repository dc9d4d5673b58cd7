package preemption

import (
	"context"
	"fmt"
	"iter"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	upstream "k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/berth-sched/berth/pkg/victims"
)

// env is a framework with NodeResourcesFit over a fixed snapshot, and both preemption plugins.
type env struct {
	ctx      context.Context
	fh       framework.Framework
	snapshot *internalcache.Snapshot
	dp       *defaultpreemption.DefaultPreemption
	pl       *Preemption
}

func newEnv(t *testing.T, nodes []*v1.Node, pods []*v1.Pod, rules ...victims.RuleFor) *env {
	t.Helper()
	schedmetrics.Register()
	logger, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	var objs []runtime.Object
	for _, p := range pods {
		objs = append(objs, p)
	}
	cs := fake.NewClientset(objs...)
	snapshot := internalcache.NewSnapshot(pods, nodes)
	factory := informers.NewSharedInformerFactory(cs, 0)
	fit := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return noderesources.NewFit(ctx, &schedconfig.NodeResourcesFitArgs{
			ScoringStrategy: &schedconfig.ScoringStrategy{Type: schedconfig.LeastAllocated, Resources: []schedconfig.ResourceSpec{{Name: "cpu", Weight: 1}}},
		}, h, feature.Features{})
	}
	fh, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterPluginAsExtensions(noderesources.Name, fit, "PreFilter", "Filter"),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
	}, "",
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(100)),
		frameworkruntime.WithPodNominator(internalqueue.NewSchedulingQueue(nil, factory)),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithLogger(logger),
	)
	if err != nil {
		t.Fatal(err)
	}
	args := &schedconfig.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}
	dp, err := defaultpreemption.New(ctx, args, fh, feature.Features{})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := New(args, fh, feature.Features{}, rules...)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &env{ctx: ctx, fh: fh, snapshot: snapshot, dp: dp, pl: pl}
}

// victims runs one plugin's SelectVictimsOnNode on node, as the evaluator's dry run does.
func (e *env) victims(t *testing.T, i upstream.Interface, preemptor *v1.Pod, node string, pdbs []*policy.PodDisruptionBudget) ([]string, int, fwk.Code) {
	t.Helper()
	state := framework.NewCycleState()
	if _, status, _ := e.fh.RunPreFilterPlugins(e.ctx, state, preemptor); !status.IsSuccess() {
		t.Fatalf("PreFilter: %v", status)
	}
	if p, ok := i.(*Preemption); ok {
		state.Write(attemptKey, p.newAttempt(preemptor))
	}
	ni, err := e.snapshot.NodeInfos().Get(node)
	if err != nil {
		t.Fatal(err)
	}
	all, err := e.dp.Evaluator.GetVictimsOnNode(e.ctx, ni)
	if err != nil {
		t.Fatal(err)
	}
	pods, n, status := i.SelectVictimsOnNode(e.ctx, state, preemptor, ni.Snapshot(), all, pdbs)
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return names, n, status.Code()
}

// TestSameChoicesAsDefaultPreemption: on random clusters of pods without quota or group, with
// PDBs, berth's preemption (with a rule in place that has no say) picks on every
// node exactly the victims DefaultPreemption picks, in the same order.
func TestSameChoicesAsDefaultPreemption(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases, compared := 150, 0
	for c := range cases {
		var nodes []*v1.Node
		var pods []*v1.Pod
		for n := range 3 {
			name := fmt.Sprintf("n%d", n)
			nodes = append(nodes, st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{"cpu": "4", "pods": "20"}).Obj())
			used := 0
			for i := 0; used < 4000; i++ {
				cpu := 250 * (1 + rng.Intn(6))
				if used+cpu > 4000 {
					break
				}
				used += cpu
				start := metav1.NewTime(time.Unix(int64(1000+rng.Intn(100)), 0))
				pods = append(pods, st.MakePod().Namespace("default").Name(fmt.Sprintf("%s-p%d", name, i)).UID(fmt.Sprintf("%s-p%d", name, i)).
					Node(name).Priority(int32(rng.Intn(4))).Labels(map[string]string{"app": fmt.Sprint("a", rng.Intn(3))}).
					Req(map[v1.ResourceName]string{"cpu": fmt.Sprintf("%dm", cpu)}).StartTime(start).Obj())
			}
		}
		pdbs := []*policy.PodDisruptionBudget{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pdb"},
			Spec:       policy.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a0"}}, MinAvailable: &intstr.IntOrString{IntVal: 1}},
			Status:     policy.PodDisruptionBudgetStatus{DisruptionsAllowed: int32(rng.Intn(2))},
		}}
		preemptor := st.MakePod().Namespace("default").Name("preemptor").UID("preemptor").Priority(int32(1 + rng.Intn(4))).
			Req(map[v1.ResourceName]string{"cpu": fmt.Sprintf("%dm", 500*(1+rng.Intn(6)))}).Obj()
		e := newEnv(t, nodes, append(slices.Clone(pods), preemptor), noSay)
		for _, n := range nodes {
			want, wantN, wantCode := e.victims(t, e.dp, preemptor, n.Name, pdbs)
			got, gotN, gotCode := e.victims(t, e.pl, preemptor, n.Name, pdbs)
			if diff := cmp.Diff(want, got); diff != "" || wantN != gotN || wantCode != gotCode {
				t.Fatalf("case %d node %s: DefaultPreemption %v (%d PDB violations, %v), berth %v (%d, %v); diff:\n%s",
					c, n.Name, want, wantN, wantCode, got, gotN, gotCode, diff)
			}
			if len(want) > 0 {
				compared++
			}
		}
	}
	if compared < cases {
		t.Errorf("only %d node choices had victims: the cases do not exercise preemption", compared)
	}
}

// noSay is a rule that has a victims.Rule for every preemptor, with no say about anything.
func noSay(*v1.Pod, iter.Seq[*v1.Pod]) *victims.Rule { return &victims.Rule{} }

// byLabel groups pods by their "group" label, vetoes the preemptor's own group, and lets
// "lent" pods go whatever their priority, at most budget of them per candidate.
// company pods like the preemptor must fit beside it.
func byLabel(budget, company int) victims.RuleFor {
	return func(preemptor *v1.Pod, placed iter.Seq[*v1.Pod]) *victims.Rule {
		all := slices.Collect(placed)
		r := &victims.Rule{
			Together: func(p *v1.Pod) []*v1.Pod {
				g := p.Labels["group"]
				if g == "" {
					return nil
				}
				var out []*v1.Pod
				for _, q := range all {
					if q.Labels["group"] == g {
						out = append(out, q)
					}
				}
				return out
			},
			Verdict: func(pods []*v1.Pod) victims.Verdict {
				if g := preemptor.Labels["group"]; g != "" && pods[0].Labels["group"] == g {
					return victims.Never
				}
				if pods[0].Labels["lent"] != "" {
					return victims.Allowed
				}
				return victims.NoSay
			},
			Companions: func() int { return company },
		}
		if budget > 0 {
			r.Tally = func() func([]*v1.Pod) bool { return lentAtMost(budget) }
		}
		return r
	}
}

// lentAtMost takes victims that are not "lent", and "lent" ones while their pods number at most
// left in all.
func lentAtMost(left int) func([]*v1.Pod) bool {
	return func(pods []*v1.Pod) bool {
		if pods[0].Labels["lent"] == "" {
			return true
		}
		if left < len(pods) {
			return false
		}
		left -= len(pods)
		return true
	}
}

// node is a node of 4 cpu.
func node(name string) *v1.Node {
	return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{"cpu": "4", "pods": "20"}).Obj()
}

// pod is a pod of the default namespace on nodeName ("" for a pending one).
func pod(name, nodeName string, prio int32, cpu string, labels map[string]string) *v1.Pod {
	return st.MakePod().Namespace("default").Name(name).UID(name).Node(nodeName).Priority(prio).Labels(labels).
		Req(map[v1.ResourceName]string{"cpu": cpu}).StartTime(metav1.NewTime(time.Unix(1000, 0))).Obj()
}

// TestRules: the core takes a group whole across nodes, never a sibling, waives priority for
// what a victims.Rule allows, and stops where a Tally says.
func TestRules(t *testing.T) {
	nodes := []*v1.Node{node("n1"), node("n2")}
	tests := []struct {
		name      string
		pods      []*v1.Pod
		preemptor *v1.Pod
		rule      victims.RuleFor
		want      []string
		wantCode  fwk.Code
	}{
		{
			name: "a group goes whole, members on other nodes included",
			pods: []*v1.Pod{
				pod("g-0", "n1", 0, "3", map[string]string{"group": "g"}),
				pod("g-1", "n2", 0, "3", map[string]string{"group": "g"}),
				pod("plain", "n1", 5, "1", nil),
			},
			preemptor: pod("p", "", 10, "2", nil),
			rule:      byLabel(0, 0),
			want:      []string{"g-0", "g-1"},
		},
		{
			name: "never a sibling",
			pods: []*v1.Pod{
				pod("g-0", "n1", 0, "4", map[string]string{"group": "g"}),
			},
			preemptor: pod("g-1", "", 10, "2", map[string]string{"group": "g"}),
			rule:      byLabel(0, 0),
			wantCode:  fwk.UnschedulableAndUnresolvable,
		},
		{
			name: "allowed whatever its priority, lowest first, within the tally",
			pods: []*v1.Pod{
				pod("lent-hi", "n1", 100, "1", map[string]string{"lent": "y"}),
				pod("lent-lo", "n1", 1, "1", map[string]string{"lent": "y"}),
				pod("kept", "n1", 100, "2", nil),
			},
			preemptor: pod("p", "", 10, "1", nil),
			rule:      byLabel(1, 0),
			want:      []string{"lent-lo"},
		},
		{
			name: "the tally stops short of what the preemptor needs",
			pods: []*v1.Pod{
				pod("lent-a", "n1", 100, "2", map[string]string{"lent": "y"}),
				pod("lent-b", "n1", 100, "2", map[string]string{"lent": "y"}),
			},
			preemptor: pod("p", "", 10, "4", nil),
			rule:      byLabel(1, 0),
			wantCode:  fwk.Unschedulable,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nodes, append(slices.Clone(tc.pods), tc.preemptor), tc.rule)
			got, _, code := e.victims(t, e.pl, tc.preemptor, "n1", nil)
			if diff := cmp.Diff(tc.want, got); diff != "" || code != tc.wantCode {
				t.Errorf("victims %v (%v), want %v (%v)", got, code, tc.want, tc.wantCode)
			}
		})
	}
}

// TestCompanions: a preemptor with companions gets, in one candidate, the victims every one of them
// needs on whichever nodes they go, or none at all when one of them fits nowhere.
func TestCompanions(t *testing.T) {
	full := func(nodes ...string) []*v1.Pod {
		var pods []*v1.Pod
		for _, n := range nodes {
			pods = append(pods, pod(n+"-a", n, 0, "2", nil), pod(n+"-b", n, 0, "2", nil))
		}
		return pods
	}
	member := pod("m-0", "", 10, "4", map[string]string{"group": "m"})
	nodes := []*v1.Node{node("n1"), node("n2"), node("n3")}
	tests := []struct {
		name     string
		pods     []*v1.Pod
		company  int
		budget   int
		want     []string
		wantCode fwk.Code
	}{
		{
			name:    "three members, three full nodes: every node's pods go",
			pods:    full("n1", "n2", "n3"),
			company: 2,
			want:    []string{"n1-a", "n1-b", "n2-a", "n2-b", "n3-a", "n3-b"},
		},
		{
			name:     "four members, three nodes: nothing goes",
			pods:     full("n1", "n2", "n3"),
			company:  3,
			wantCode: fwk.Unschedulable,
		},
		{
			name:    "a companion that fits as things are takes nothing",
			pods:    full("n1", "n2"),
			company: 1,
			want:    []string{"n1-a", "n1-b"},
		},
		{
			name:    "a companion goes where the victims matter least",
			pods:    append(full("n1", "n3"), pod("n2-hi", "n2", 5, "4", nil)),
			company: 1,
			want:    []string{"n1-a", "n1-b", "n3-a", "n3-b"},
		},
		{
			name:    "a companion never takes a sibling's place",
			pods:    append(full("n1", "n3"), pod("m-1", "n2", 10, "4", map[string]string{"group": "m"})),
			company: 1,
			want:    []string{"n1-a", "n1-b", "n3-a", "n3-b"},
		},
		{
			name: "a group that goes whole leaves room for a companion where its other members ran",
			pods: append(full("n3"), pod("v-0", "n1", 0, "4", map[string]string{"group": "v"}),
				pod("v-1", "n2", 0, "4", map[string]string{"group": "v"})),
			company: 1,
			want:    []string{"v-0", "v-1"},
		},
		{
			name: "a tally counts the victims of every node of the candidate together",
			pods: []*v1.Pod{pod("lent-1", "n1", 100, "4", map[string]string{"lent": "y"}),
				pod("lent-2", "n2", 100, "4", map[string]string{"lent": "y"}), pod("n3-hi", "n3", 20, "4", nil)},
			company:  1,
			budget:   1,
			wantCode: fwk.Unschedulable,
		},
		{
			name: "within the tally, victims on two nodes",
			pods: []*v1.Pod{pod("lent-1", "n1", 100, "4", map[string]string{"lent": "y"}),
				pod("lent-2", "n2", 100, "4", map[string]string{"lent": "y"}), pod("n3-hi", "n3", 20, "4", nil)},
			company: 1,
			budget:  2,
			want:    []string{"lent-1", "lent-2"},
		},
		{
			name:     "nor a higher priority pod's",
			pods:     append(full("n1"), pod("n2-hi", "n2", 20, "4", nil), pod("n3-hi", "n3", 20, "4", nil)),
			company:  1,
			wantCode: fwk.Unschedulable,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nodes, append(slices.Clone(tc.pods), member), byLabel(tc.budget, tc.company))
			got, _, code := e.victims(t, e.pl, member, "n1", nil)
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" || code != tc.wantCode {
				t.Errorf("victims %v (%v), want %v (%v)", got, code, tc.want, tc.wantCode)
			}
		})
	}
}
