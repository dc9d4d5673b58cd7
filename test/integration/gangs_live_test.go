package integration

import (
	"context"
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/test/harness"
)

// kubectl berth gangs counts a group's members as Gang does (podgroup.Live): of a bound pod, a
// finished one, a bound one being deleted and a waiting one being deleted, one is a member, placed;
// the finished one is counted as succeeded, and nothing waits.
func TestKubectlBerthGangsCountsLiveMembers(t *testing.T) {
	c := harness.StartCluster(t)
	ctx := context.Background()
	groups, err := pgclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	c.CreateNode(t, harness.Node("node", "8", "16Gi", nil))
	ns := c.Namespace(t, "live")
	if _, err := groups.SchedulingV1alpha1().PodGroups(ns).Create(ctx, &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "job"}, Spec: v1alpha1.PodGroupSpec{MinMember: 2},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	member := func(name, node string, finalizer bool) *v1.Pod {
		p := pod(ns, name, "")
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "job"}
		p.Spec.NodeName = node
		if finalizer {
			p.Finalizers = []string{"example.com/hold"}
			t.Cleanup(func() {
				patch := []byte(`{"metadata":{"finalizers":null}}`)
				if _, err := c.Client.CoreV1().Pods(ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
					t.Logf("releasing %s: %v", name, err)
				}
			})
		}
		return c.CreatePod(t, p)
	}
	member("bound", "node", false)
	finished := member("finished", "node", false)
	finished.Status.Phase = v1.PodSucceeded
	if _, err := c.Client.CoreV1().Pods(ns).UpdateStatus(ctx, finished, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bound-deleting", "waiting-deleting"} {
		node := "node"
		if name == "waiting-deleting" {
			node = ""
		}
		member(name, node, true)
		if err := c.Client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	out := mustKubectlBerth(t, c, "gangs", "-n", ns, "-o", "json")
	var got inspect.Gangs
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(got.Groups) != 1 {
		t.Fatalf("%d groups, want 1:\n%s", len(got.Groups), out)
	}
	g := got.Groups[0]
	if g.Members != 1 || g.Placed != 1 || g.Succeeded != 1 || len(g.Waiting) != 0 {
		t.Errorf("members %d, placed %d, succeeded %d, waiting %v; want 1, 1, 1 and none", g.Members, g.Placed, g.Succeeded, g.Waiting)
	}
	// NAME PHASE MINMEMBER MEMBERS PLACED RUNNING SUCCEEDED WAITING
	if table := mustKubectlBerth(t, c, "gangs", "-n", ns); !hasRow(table, "job", "<none>", "2", "1", "1", "0", "1", "0") {
		t.Errorf("the table has no row for job with 1 member, 1 placed, 1 succeeded:\n%s", table)
	}
}
