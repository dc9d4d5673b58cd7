package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/test/harness"
)

// A waiting group takes the room a running pod gives back by shrinking in place (a resize), of
// either API, at the event that frees it: the kubelet's status saying the pod now holds less. The
// resize request alone frees nothing (the scheduler counts the larger of what the pod asks and what
// it holds until the kubelet has resized it), so the group must not bind then.
func TestGroupWaitsWholeAndBindsWhenARunningPodShrinks(t *testing.T) {
	const within = 10 * time.Second
	tries := harness.Tries(1, 10)
	for _, api := range groupAPIs {
		t.Run(api.name, func(t *testing.T) {
			e := startNativeGangEnv(t, "shrink")
			e.StartScheduler(t, berthConfig(e.Cluster, ""))
			ctx := context.Background()
			var took []time.Duration
			for try := range tries {
				node := fmt.Sprintf("t%d", try)
				e.CreateNode(t, harness.Node(node, "4", "16Gi", nil))
				// A pod the kubelet runs, holding 3 of the node's 4 cpu.
				filler := pod(e.ns, fmt.Sprintf("filler-%d", try), "some-other-scheduler", harness.Container("c", "3", "64Mi"))
				filler.Spec.NodeName = node
				e.CreatePod(t, filler)
				runningWith(t, e.Cluster, e.ns, filler.Name, "3")

				group := fmt.Sprintf("train-%d", try)
				e.groupWaitedAWhile(t, api, group, func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelHostname: node} })

				// The resize asked for: the pod still holds 3 cpu until the kubelet has resized it.
				p, err := e.Client.CoreV1().Pods(e.ns).Get(ctx, filler.Name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p.Spec.Containers[0].Resources = harness.Container("c", "1", "64Mi").Resources
				if _, err := e.Client.CoreV1().Pods(e.ns).UpdateResize(ctx, p.Name, p, metav1.UpdateOptions{}); err != nil {
					t.Fatalf("resize: %v", err)
				}
				if n := boundOf(e.canary(t, fmt.Sprintf("canary-%d", try)), group); n != 0 {
					t.Fatalf("try %d: %d of 3 members bound while the resized pod still held 3 cpu", try, n)
				}
				if try == 0 {
					// kubectl berth reads the node's room from the API as the scheduler counts it: the
					// group does not fit yet (before 2026-11-29 it said the group "fits now:", reading the spec).
					if out := kubectlBerthBinary(t, e.Cluster, "-n", e.ns, "why", group+"-0"); strings.Contains(out, " fits now:") {
						t.Errorf("kubectl berth why says the group fits while the resized pod still holds 3 cpu:\n%s", out)
					}
				}

				moved := incomingPods(t, "active", "AssignedPodUpdatePodScaleDown")
				start := time.Now()
				runningWith(t, e.Cluster, e.ns, filler.Name, "1")
				e.WaitForPods(t, e.ns, time.Minute, "all 3 members bound", func(pods []v1.Pod) bool { return boundOf(pods, group) == 3 })
				d := time.Since(start)
				took = append(took, d)
				boundByTheEvent(t, try, api.name, "the pod shrank", d, incomingPods(t, "active", "AssignedPodUpdatePodScaleDown")-moved, within)
				e.clearTry(t, node)
			}
			logSpread(t, api.name+": pod shrunk to the group bound whole", took)
		})
	}
}

// runningWith writes the status a kubelet writes for a pod whose one container runs with cpu: the
// resources it holds (allocated and in effect), which the scheduler counts over the pod's spec.
func runningWith(t *testing.T, c *harness.Cluster, ns, name, cpu string) {
	t.Helper()
	ctx := context.Background()
	p, err := c.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held := harness.Container("c", cpu, "64Mi").Resources
	p.Status.Phase = v1.PodRunning
	p.Status.ContainerStatuses = []v1.ContainerStatus{{
		Name:               p.Spec.Containers[0].Name,
		Image:              p.Spec.Containers[0].Image,
		ImageID:            p.Spec.Containers[0].Image,
		Ready:              true,
		State:              v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}},
		AllocatedResources: held.Requests,
		Resources:          &held,
	}}
	if _, err := c.Client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("status of %s: %v", name, err)
	}
}
