package integration

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/test/harness"
)

// `kubectl berth why` names, for pods the real scheduler (berth in-process, the shipped profile)
// has failed, the one cause with its numbers and what would unblock it: a full quota, a gang
// without room for all its members, fragmented GPUs, node constraints, room that preemption cannot
// make; a bound pod is not pending, and a pod that does not exist fails the command.
func TestKubectlBerthWhy(t *testing.T) {
	c := harness.StartCluster(t)
	ctx := context.Background()
	sp, err := pgclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	scenario := func(n *v1.Node, name string) *v1.Node {
		n.Labels["scenario"] = name
		return n
	}
	c.CreateNode(t, scenario(harness.Node("quota-node", "8", "16Gi", nil), "quota"))
	c.CreateNode(t, scenario(harness.Node("gang-node", "4", "16Gi", nil), "gang"))
	c.CreateNode(t, scenario(harness.Node("prio-node", "2", "16Gi", nil), "prio"))
	c.CreateNode(t, scenario(harness.GPUNode("gpu-a", 2, 16), "gpu"))
	for _, pc := range []schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 100}, {ObjectMeta: metav1.ObjectMeta{Name: "mid"}, Value: 10}} {
		if _, err := c.Client.SchedulingV1().PriorityClasses().Create(ctx, &pc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.StartScheduler(t, berthConfig(c, ""))
	ns := c.Namespace(t, "why")
	in := func(p *v1.Pod, where string) *v1.Pod {
		p.Spec.NodeSelector = map[string]string{"scenario": where}
		return p
	}

	// Quota, in a namespace of its own: 2 cpu at most; a pod of 1500m holds it, one of 1 cpu waits.
	qns := c.Namespace(t, "why-quota")
	if _, err := sp.SchedulingV1alpha1().ElasticQuotas(qns).Create(ctx, &v1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: qns, Name: "quota"},
		Spec:       v1alpha1.ElasticQuotaSpec{Max: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.CreatePod(t, in(pod(qns, "holder", "", harness.Container("c", "1500m", "64Mi")), "quota"))
	waitBound(t, c, qns, "holder", time.Minute)
	c.CreatePod(t, in(pod(qns, "over-quota", "", harness.Container("c", "1", "64Mi")), "quota"))

	// A gang of 3 that needs 2 cpu each on a node of 4.
	if _, err := sp.SchedulingV1alpha1().PodGroups(ns).Create(ctx, &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train"}, Spec: v1alpha1.PodGroupSpec{MinMember: 3},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"train-0", "train-1", "train-2"} {
		p := in(pod(ns, name, "", harness.Container("c", "1800m", "64Mi")), "gang")
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "train"}
		c.CreatePod(t, p)
	}

	// GPUs of 16: 10 held on GPU 0, 4 and 4 on GPU 1; 14 free in all, 8 at most on one.
	c.CreatePod(t, harness.BoundByGPUShare(ns, "gpu-x", "gpu-a", 10, 16))
	for _, name := range []string{"gpu-y", "gpu-z"} {
		p := harness.BoundByGPUShare(ns, name, "gpu-a", 4, 16)
		p.Annotations["ALIYUN_COM_GPU_MEM_IDX"] = "1"
		c.CreatePod(t, p)
	}
	c.CreatePod(t, in(harness.GPUPod(ns, "gpu-12", 12), "gpu"))

	// Node constraints: no node is labelled so.
	c.CreatePod(t, in(pod(ns, "nowhere", ""), "nowhere"))

	// Room preemption cannot make: the node is full with a pod of higher priority.
	high := in(pod(ns, "high", "", harness.Container("c", "2", "64Mi")), "prio")
	high.Spec.PriorityClassName = "high"
	c.CreatePod(t, high)
	waitBound(t, c, ns, "high", time.Minute)
	mid := in(pod(ns, "mid", "", harness.Container("c", "1", "64Mi")), "prio")
	mid.Spec.PriorityClassName = "mid"
	c.CreatePod(t, mid)

	for _, tc := range []struct {
		ns, pod string
		says    []string
	}{
		{qns, "over-quota", []string{
			"pending: Quota (berth)",
			"ElasticQuota why-quota/quota is full in cpu: 1500m used of max 2, and the pod asks 1; 500m over",
			"pods of quota why-quota/quota end, freeing 500m: why-quota/holder (1500m)",
		}},
		{ns, "train-1", []string{
			"pending: Gang (berth)",
			"pod group why/train needs 3 (minMember) placed together: 0 bound, 2 more placeable now, 1 lack room",
			"lacks cpu (asks 1800m, 400m free)",
		}},
		{ns, "gpu-12", []string{
			"pending: GPUFragmentation (berth)",
			"it fits in total on node gpu-a (14 free over 2 GPUs), but no GPU has 12 free; the most on one GPU is 8",
			"it fits if pod why/gpu-y (4 on GPU 1 of node gpu-a) ends",
		}},
		{ns, "nowhere", []string{
			"pending: NodeConstraints (outside berth)",
			"no node passes its constraints: of 4 nodes, 4 nodes by nodeSelector scenario=nowhere",
		}},
		{ns, "mid", []string{
			"pending: Resources (berth)",
			"the nearest, node prio-node, lacks cpu (asks 1, 0 free)",
			"Preemption: would not help: no pod of lower priority than 10 runs on the nodes it may use",
		}},
	} {
		t.Run(tc.pod, func(t *testing.T) {
			waitFailed(t, c, tc.ns, tc.pod)
			out := mustKubectlBerth(t, c, "-n", tc.ns, "why", tc.pod)
			t.Logf("kubectl berth why %s:\n%s", tc.pod, out)
			for _, s := range tc.says {
				if !strings.Contains(out, s) {
					t.Errorf("kubectl berth why %s does not say %q:\n%s", tc.pod, s, out)
				}
			}
			if !strings.Contains(out, "Scheduler's last word") {
				t.Errorf("kubectl berth why %s does not give the scheduler's word:\n%s", tc.pod, out)
			}
		})
	}

	t.Run("bound", func(t *testing.T) {
		out := mustKubectlBerth(t, c, "-n", qns, "why", "holder")
		if !strings.Contains(out, "is not pending: bound to node quota-node") {
			t.Errorf("kubectl berth why holder:\n%s", out)
		}
	})
	t.Run("not found", func(t *testing.T) {
		bin := filepath.Join(harness.BinDir(t, "kubectl-berth"), "kubectl-berth")
		out, err := exec.Command(bin, "--kubeconfig", c.KubeconfigPath(), "-n", ns, "why", "no-such-pod").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "pod why/no-such-pod not found") {
			t.Errorf("kubectl-berth why no-such-pod: %v, %q; want a failure saying it is not found", err, out)
		}
	})
}

// waitFailed waits until the scheduler has reported on the pod: its PodScheduled condition, or an
// event (Gang holds a group before scheduling with an event only).
func waitFailed(t *testing.T, c *harness.Cluster, ns, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := c.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if harness.Unschedulable(p) != "" {
			return true, nil
		}
		events, err := c.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, e := range events.Items {
			if e.Regarding.Name == name && (e.Reason == "FailedScheduling" || e.Reason == "GangWaiting") {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the scheduler did not fail %s: %v", name, err)
	}
}

// `kubectl berth why` names topology for a member of a group that requires one rack when no rack
// holds it, though the racks together would: the level, the members to place, the largest room any
// rack has and which, and what would unblock it; room added where it says binds the group there.
// Each try: racks z1/b1/r1 (two nodes of 2 cpu, one holding a pod of 1) and z1/b2/r1 (one node of
// 2 cpu), a group of four 1-cpu members, the real scheduler (berth in-process, the shipped
// profile) failing it.
func TestKubectlBerthWhyTopology(t *testing.T) {
	const tries = 10
	e := startGangEnv(t, "why-topology")
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	ctx := context.Background()
	zero := int64(0)
	for try := range tries {
		ns := e.Namespace(t, fmt.Sprintf("why-topology-%d", try))
		g := &gangEnv{Cluster: e.Cluster, pg: e.pg, ns: ns}
		var nodes []string
		rack := func(name, block, cpu string) string {
			name = fmt.Sprintf("t%d-%s", try, name)
			e.CreateNode(t, rackedNode(name, block, "r1", cpu))
			nodes = append(nodes, name)
			return name
		}
		a := rack("a", "b1", "2")
		rack("b", "b1", "2")
		rack("c", "b2", "2")
		filler := pod(ns, "filler", "", harness.Container("c", "1", "64Mi"))
		filler.Spec.NodeName = a
		e.CreatePod(t, filler)
		g.podGroup(t, "train", 4, topologyAnnotation(topology.RequiredAnnotation, topology.RackLabel))
		g.members(t, "train", 4, "1")
		waitFailed(t, e.Cluster, ns, "train-0")

		out := mustKubectlBerth(t, e.Cluster, "-n", ns, "why", "train-0")
		for _, s := range []string{
			"pending: Topology (berth)",
			"requires one berth.dev/rack (berth.dev/topology-required) for its 4 members still to place; the largest room any berth.dev/rack has is 3, at berth.dev/rack=z1/b1/r1",
			"room in members per berth.dev/rack (usable nodes only): z1/b1/r1 3, z1/b2/r1 2",
			"room for 1 more member like train-0 (cpu 1, memory 64Mi) in berth.dev/rack=z1/b1/r1",
		} {
			if !strings.Contains(out, s) {
				t.Fatalf("try %d: kubectl berth why train-0 does not say %q:\n%s", try, s, out)
			}
		}

		// The room it asks for, where it asks for it.
		rack("d", "b1", "1")
		pods := e.WaitForPods(t, ns, time.Minute, "the group bound once its rack has room", func(p []v1.Pod) bool { return boundIn(p, "train") == 4 })
		if got := domainsOf(t, e.Cluster, pods, "train", topology.RackLabel); !slices.Equal(got, []topology.Domain{"z1/b1/r1"}) {
			t.Fatalf("try %d: the group bound in %v, want z1/b1/r1", try, got)
		}
		if try == 0 {
			t.Logf("kubectl berth why train-0:\n%s", out)
		}
		for _, p := range pods {
			if err := e.Client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				t.Fatal(err)
			}
		}
		e.WaitForPods(t, ns, time.Minute, "the try's pods gone", func(p []v1.Pod) bool { return len(p) == 0 })
		for _, n := range nodes {
			if err := e.Client.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
