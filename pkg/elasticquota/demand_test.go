package elasticquota

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	eqfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"

	"github.com/berth-sched/berth/pkg/quota"
)

// A pod counts as its quota's demand in fair sharing from the moment it enters the scheduling
// queue, not from its first attempt (issue 42, the churn guard at load 18). The queue tries pods by
// priority: team-b's pods (priority 0) waited 2 s for their first attempt behind team-a's and
// team-g's, and meanwhile team-g's third gang was admitted as though team-b wanted 1 cpu (team-g's
// fair share 7.33 of 12 where it is 4), and evicted by team-b's preemptor 0.5 s after it was bound.
// Here org divides 12 cpu among team-a (weight 1, holding 6), team-b (weight 3, 6 pods just
// created) and team-g (weight 2, holding 4); 2 cpu are free. With team-b's demand counted the split
// is 2, 6, 4, and team-g's fifth pod must leave the free cpu to team-b.
func TestDemandCountsFromTheQueue(t *testing.T) {
	for _, enqueued := range []bool{false, true} {
		t.Run(fmt.Sprintf("team-b's pods in the queue %v", enqueued), func(t *testing.T) {
			nodes := []*v1.Node{fairNode("n1"), fairNode("n2"), fairNode("n3")}
			var bound, waiting []*v1.Pod
			for i, n := range []string{"n1", "n1", "n1", "n2", "n2", "n2"} {
				bound = append(bound, podOf("team-a", fmt.Sprint("a", i), "1").Node(n).Obj())
			}
			for i, n := range []string{"n1", "n2", "n3", "n3"} {
				bound = append(bound, podOf("team-g", fmt.Sprint("g", i), "1").Node(n).Obj())
			}
			for i := range 6 {
				waiting = append(waiting, podOf("team-b", fmt.Sprint("b", i), "1").Obj())
			}
			e := newFairEnv(t, nodes, append(bound, waiting...), fairTeams()...)
			if enqueued {
				if len(e.fh.PreEnqueuePlugins()) == 0 {
					t.Fatal("no PreEnqueue plugin")
				}
				for _, p := range waiting {
					for _, pl := range e.fh.PreEnqueuePlugins() {
						if s := pl.PreEnqueue(e.ctx, p); !s.IsSuccess() {
							t.Fatalf("%s kept %s out of the queue: %v", pl.Name(), p.Name, s)
						}
					}
				}
			}
			_, status := e.preFilter(t, podOf("team-g", "g4", "1").Obj())
			if !enqueued {
				if !status.IsSuccess() {
					t.Errorf("nobody else wants the free cpu: team-g's pod refused: %v", status)
				}
				return
			}
			if status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(status.Message(), "quota team-g/quota would be above its fair share") ||
				!strings.Contains(status.Message(), "team-b/quota, below its own, waits for cpu") {
				t.Errorf("team-b's pods wait, never tried: team-g's pod %v, want it refused for team-b", status)
			}
		})
	}
}

func fairNode(name string) *v1.Node {
	return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{"cpu": "4", "pods": "20"}).Obj()
}

// fairTeams is org (covering no namespace) with team-a, team-b and team-g, weights 1, 3 and 2, no
// min, max 100 cpu each.
func fairTeams() []runtime.Object {
	q := func(ns string, kv ...string) *v1alpha1.ElasticQuota {
		eq := elasticQuota(ns, "quota", nil, cpu("100"))
		eq.Annotations = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			eq.Annotations[kv[i]] = kv[i+1]
		}
		return eq
	}
	return []runtime.Object{
		q("org", quota.NamespacesAnnotation, ""),
		q("team-a", quota.ParentAnnotation, "org/quota", quota.WeightAnnotation, "1"),
		q("team-b", quota.ParentAnnotation, "org/quota", quota.WeightAnnotation, "3"),
		q("team-g", quota.ParentAnnotation, "org/quota", quota.WeightAnnotation, "2"),
	}
}

// fairEnv is env with the scheduler's snapshot of nodes (fair sharing weighs their capacity) and
// the plugin at PreEnqueue too.
type fairEnv struct {
	*env
	fh framework.Framework
}

func newFairEnv(t *testing.T, nodes []*v1.Node, pods []*v1.Pod, crs ...runtime.Object) *fairEnv {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(clientfeatures.WatchListClient), false)
	schedmetrics.Register()
	logger, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	var objs []runtime.Object
	for _, p := range pods {
		objs = append(objs, p)
	}
	cs := fake.NewClientset(objs...)
	factory := scheduler.NewInformerFactory(cs, 0, nil)
	recorder := events.NewFakeRecorder(100)
	var pl *ElasticQuota
	newPl := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := newPlugin(ctx, h, eqfake.NewSimpleClientset(crs...), time.Hour)
		pl = p
		return p, err
	}
	var placed []*v1.Pod
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			placed = append(placed, p)
		}
	}
	snapshot := internalcache.NewSnapshot(placed, nodes)
	queue := internalqueue.NewSchedulingQueue(nil, factory)
	fh, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterPluginAsExtensions(Name, newPl, "PreFilter", "Filter", "Reserve"),
		// The testing helpers know no PreEnqueue extension point.
		func(_ *frameworkruntime.Registry, profile *schedconfig.KubeSchedulerProfile) {
			profile.Plugins.PreEnqueue.Enabled = append(profile.Plugins.PreEnqueue.Enabled, schedconfig.Plugin{Name: Name})
		},
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
	}, "",
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithEventRecorder(recorder),
		frameworkruntime.WithPodNominator(queue),
		frameworkruntime.WithPodActivator(queue),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithLogger(logger),
	)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if err := pl.waitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	// The tree is put in force once the ElasticQuota informer has synced, in the background.
	deadline := time.Now().Add(10 * time.Second)
	for pl.ledger.Tree().QuotaOf("team-g") == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return &fairEnv{env: &env{ctx: ctx, pl: pl, recorder: recorder}, fh: fh}
}
