package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/test/harness"
)

// scoringConfig is berth's plugins as default-scheduler with score plugins added (a YAML list of
// {name, weight}; "" for none) and pluginConfig (a YAML list).
func scoringConfig(c *harness.Cluster, score, pluginConfig string) string {
	profile := registry.Plugins("default-scheduler")
	if score != "" {
		profile += "    score:\n      enabled: " + score + "\n"
	}
	if pluginConfig != "" {
		profile += "  pluginConfig:\n" + pluginConfig
	}
	return c.SchedulerConfig(profile, "")
}

// With NodeResourcesAllocatable in Least mode on GPU count, a stream of small GPU pods fills the
// 2- and 4-GPU nodes and leaves the 8-GPU node empty, so a pod that needs all 8 GPUs still fits.
// GPUShare runs its Spread strategy here, which on its own puts small pods on the emptiest node
// (the 8-GPU one); the same stream without NodeResourcesAllocatable shows it, so the test fails if
// the plugin does nothing. The plugin's weight (2) is what lets it overrule Spread: see
// docs/scoring.md.
func TestAllocatableLeastKeepsTheLargeGPUNodeWhole(t *testing.T) {
	c := harness.StartCluster(t)
	spread := "  - name: GPUShare\n    args: {scoringStrategy: Spread}\n"
	for _, phase := range []struct {
		name, score, pluginConfig string
		wantWhole                 bool
	}{
		{name: "without", pluginConfig: spread},
		{
			name:  "least",
			score: "[{name: NodeResourcesAllocatable, weight: 2}]",
			pluginConfig: spread + "  - name: NodeResourcesAllocatable\n" +
				"    args: {mode: Least, resources: [{name: aliyun.com/gpu-count, weight: 1}]}\n",
			wantWhole: true,
		},
	} {
		t.Run(phase.name, func(t *testing.T) {
			// Each phase has its own nodes; its pods may go only there.
			sizes := map[string]int{}
			for _, n := range []int{2, 4, 8} {
				node := harness.GPUNode(fmt.Sprintf("%s-gpu%d", phase.name, n), n, 16)
				node.Labels["phase"] = phase.name
				c.CreateNode(t, node)
				sizes[node.Name] = n
			}
			ns := c.Namespace(t, "scoring-"+phase.name)
			stop := c.StartScheduler(t, scoringConfig(c, phase.score, phase.pluginConfig))
			defer stop()

			// Ten pods of half a GPU: the 2- and 4-GPU nodes have room for twelve.
			for i := range 10 {
				p := harness.GPUPod(ns, fmt.Sprintf("small-%d", i), 8)
				p.Spec.NodeSelector = map[string]string{"phase": phase.name}
				c.CreatePod(t, p)
			}
			pods := c.Settled(t, ns, time.Minute)
			onLarge := 0
			for _, p := range pods {
				switch {
				case p.Spec.NodeName == "":
					t.Errorf("small pod %s not bound: %s", p.Name, harness.Unschedulable(&p))
				case sizes[p.Spec.NodeName] == 8:
					onLarge++
				}
			}
			whole := harness.GPUPod(ns, "whole", 8*16)
			whole.Annotations = map[string]string{"berth.dev/gpu-count": "8"}
			whole.Spec.NodeSelector = map[string]string{"phase": phase.name}
			c.CreatePod(t, whole)
			got := harness.Pod(c.Settled(t, ns, time.Minute), "whole")
			t.Logf("%s: %d of 10 small pods on the 8-GPU node; the 8-GPU pod on %q %s", phase.name, onLarge, got.Spec.NodeName, harness.Unschedulable(got))

			if phase.wantWhole {
				if onLarge != 0 {
					t.Errorf("%d small pods on the 8-GPU node, want none", onLarge)
				}
				if sizes[got.Spec.NodeName] != 8 {
					t.Errorf("the 8-GPU pod is on %q (%s), want the 8-GPU node", got.Spec.NodeName, harness.Unschedulable(got))
				}
			} else if onLarge == 0 || got.Spec.NodeName != "" {
				t.Errorf("without NodeResourcesAllocatable, Spread put %d small pods on the 8-GPU node and the 8-GPU pod on %q: "+
					"the control no longer shows what the plugin changes", onLarge, got.Spec.NodeName)
			}
		})
	}
}

// PodState sends pods to the node where a pod is terminating (its room is about to be free),
// where the stock scoring alone prefers the node with nothing on it. With no kubelet, a bound pod
// deleted gracefully stays terminating.
func TestPodStatePrefersTheNodeWithATerminatingPod(t *testing.T) {
	c := harness.StartCluster(t)
	c.CreateNode(t, harness.Node("freeing", "32", "128Gi", nil))
	c.CreateNode(t, harness.Node("idle", "32", "128Gi", nil))
	ns := c.Namespace(t, "podstate")
	leaving := pod(ns, "leaving", "", harness.Container("c", "8", "32Gi"))
	leaving.Spec.NodeName = "freeing"
	c.CreatePod(t, leaving)
	grace := int64(600)
	if err := c.Client.CoreV1().Pods(ns).Delete(context.Background(), "leaving", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	if p, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), "leaving", metav1.GetOptions{}); err != nil || p.DeletionTimestamp == nil {
		t.Fatalf("the deleted pod should stay terminating: %v, %v", p, err)
	}

	// Ten pods, each placed in its own cycle: every one goes where the room is being freed.
	for _, phase := range []struct {
		name, score string
		pods        int
		want        string
	}{
		{name: "without", pods: 1, want: "idle"},
		{name: "podstate", score: "[{name: PodState}]", pods: 10, want: "freeing"},
	} {
		t.Run(phase.name, func(t *testing.T) {
			stop := c.StartScheduler(t, scoringConfig(c, phase.score, ""))
			defer stop()
			for i := range phase.pods {
				name := fmt.Sprintf("%s-%d", phase.name, i)
				c.CreatePod(t, pod(ns, name, "", harness.Container("c", "100m", "64Mi")))
				pods := c.WaitForPods(t, ns, time.Minute, name+" bound", func(pods []v1.Pod) bool {
					return harness.Pod(pods, name).Spec.NodeName != ""
				})
				if got := harness.Pod(pods, name).Spec.NodeName; got != phase.want {
					t.Errorf("pod %s on %s, want %s", name, got, phase.want)
				}
			}
			// The next phase starts from the same nodes.
			for i := range phase.pods {
				zero := int64(0)
				_ = c.Client.CoreV1().Pods(ns).Delete(context.Background(), fmt.Sprintf("%s-%d", phase.name, i), metav1.DeleteOptions{GracePeriodSeconds: &zero})
			}
		})
	}
}

// Bad NodeResourcesAllocatable or PodState args stop berth-scheduler at start-up with a message
// naming the plugin and the field.
func TestBadScoringArgsFailStartUp(t *testing.T) {
	c := harness.StartCluster(t)
	tests := []struct {
		name, score, args string
		want              []string
	}{
		{
			name:  "unknown mode",
			score: "[{name: NodeResourcesAllocatable}]",
			args:  "  - name: NodeResourcesAllocatable\n    args: {mode: Fewest}\n",
			want:  []string{"NodeResourcesAllocatable", "mode", "Fewest", "supported values", "Least", "Most"},
		},
		{
			name:  "weight not positive",
			score: "[{name: NodeResourcesAllocatable}]",
			args:  "  - name: NodeResourcesAllocatable\n    args: {resources: [{name: aliyun.com/gpu-count, weight: 0}]}\n",
			want:  []string{"NodeResourcesAllocatable", "resources[0].weight", "must be positive"},
		},
		{
			name:  "a resource it cannot read",
			score: "[{name: NodeResourcesAllocatable}]",
			args:  "  - name: NodeResourcesAllocatable\n    args: {resources: [{name: gpu-count, weight: 1}]}\n",
			want:  []string{"NodeResourcesAllocatable", "resources[0].name", "gpu-count", "extended resource"},
		},
		{
			name:  "misspelt field",
			score: "[{name: NodeResourcesAllocatable}]",
			args:  "  - name: NodeResourcesAllocatable\n    args: {resorces: [{name: cpu, weight: 1}]}\n",
			want:  []string{"NodeResourcesAllocatable", "unknown field", "resorces"},
		},
		{
			name:  "args for PodState",
			score: "[{name: PodState}]",
			args:  "  - name: PodState\n    args: {weight: 2}\n",
			want:  []string{"PodState", "takes no args"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failsStartUp(t, c, scoringConfig(c, tt.score, tt.args), tt.want...)
		})
	}
}
