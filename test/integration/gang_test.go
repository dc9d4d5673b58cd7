package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/test/harness"
)

type gangEnv struct {
	*harness.Cluster
	pg pgclient.Interface
	ns string
}

func startGangEnv(t *testing.T, ns string) *gangEnv {
	t.Helper()
	c := harness.StartCluster(t)
	pg, err := pgclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return &gangEnv{Cluster: c, pg: pg, ns: c.Namespace(t, ns)}
}

func (e *gangEnv) podGroup(t *testing.T, name string, minMember int32, mutate ...func(*v1alpha1.PodGroup)) {
	t.Helper()
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name},
		Spec:       v1alpha1.PodGroupSpec{MinMember: minMember},
	}
	for _, m := range mutate {
		m(pg)
	}
	if _, err := e.pg.SchedulingV1alpha1().PodGroups(e.ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// members creates n pods of group, each asking cpu.
func (e *gangEnv) members(t *testing.T, group string, n int, cpu string) {
	t.Helper()
	for i := range n {
		e.member(t, group, fmt.Sprintf("%s-%d", group, i), cpu)
	}
}

func (e *gangEnv) member(t *testing.T, group, name, cpu string, mutate ...func(*v1.Pod)) {
	t.Helper()
	p := pod(e.ns, name, "", harness.Container("c", cpu, "64Mi"))
	p.Labels = map[string]string{v1alpha1.PodGroupLabel: group}
	for _, m := range mutate {
		m(p)
	}
	e.CreatePod(t, p)
}

// boundIn counts the bound pods of group.
func boundIn(pods []v1.Pod, group string) int {
	n := 0
	for _, p := range pods {
		if p.Labels[v1alpha1.PodGroupLabel] == group && p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// canary proves the scheduler has worked through what was queued before it: it is created after
// the pods under test and asks for nothing they could be waiting on.
func (e *gangEnv) canary(t *testing.T, name string) []v1.Pod {
	t.Helper()
	e.CreatePod(t, pod(e.ns, name, "", v1.Container{Name: "c", Image: "pause"}))
	return e.WaitForPods(t, e.ns, time.Minute, name+" bound", func(p []v1.Pod) bool { return nodeOf(p, name) != "" })
}

// A group that cannot fit stays whole and pending, with the reason on its pods; it binds entirely
// once capacity appears.
func TestGangHeldWholeUntilCapacityAppears(t *testing.T) {
	e := startGangEnv(t, "whole")
	e.CreateNode(t, harness.Node("node-a", "2", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "train", 3)
	e.members(t, "train", 3, "1")

	pods := e.Settled(t, e.ns, time.Minute)
	if n := boundIn(pods, "train"); n != 0 {
		t.Fatalf("%d of 3 members bound on a node with room for 2", n)
	}
	everyPodSays(t, e.Cluster, e.ns, "Insufficient cpu")
	e.CreateNode(t, harness.Node("node-b", "2", "16Gi", nil))
	e.WaitForPods(t, e.ns, time.Minute, "all 3 members bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 3 })
}

// everyPodSays checks that every pod in ns names want in its PodScheduled condition,
// and still does after the group has stood aside and retried twice (Gang's backoff is 2 s), as a
// user reading `kubectl describe pod` on any member would see it.
func everyPodSays(t *testing.T, c *harness.Cluster, ns, want string) {
	t.Helper()
	all := func(pods []v1.Pod) bool {
		for i := range pods {
			if !strings.Contains(harness.Unschedulable(&pods[i]), want) {
				return false
			}
		}
		return len(pods) > 0
	}
	c.WaitForPods(t, ns, 30*time.Second, "every member's condition naming "+want, all)
	// A window in which no condition may change: 5 s holds two of Gang's 2 s backoffs, so each
	// member has been retried and has rewritten its condition at least once more.
	time.Sleep(5 * time.Second)
	pods, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		if msg := harness.Unschedulable(&pods.Items[i]); !strings.Contains(msg, want) {
			t.Errorf("after retries %s says %q, want it to name %q", pods.Items[i].Name, msg, want)
		}
	}
}

// A group short of members waits, and binds when the last member is created.
func TestGangWaitsForItsLastMember(t *testing.T) {
	e := startGangEnv(t, "short")
	e.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "train", 3)
	e.members(t, "train", 2, "1")
	pods := e.canary(t, "canary")
	if n := boundIn(pods, "train"); n != 0 {
		t.Fatalf("%d members of a group of 3 bound with only 2 created", n)
	}
	e.member(t, "train", "train-2", "1")
	e.WaitForPods(t, e.ns, time.Minute, "all 3 members bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 3 })
}

// Pods that arrive before their PodGroup bind promptly once it appears.
func TestGangPodsBeforeTheirPodGroup(t *testing.T) {
	e := startGangEnv(t, "early")
	e.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.members(t, "train", 3, "1")
	pods := e.canary(t, "canary")
	if n := boundIn(pods, "train"); n != 0 {
		t.Fatalf("%d members bound before their PodGroup exists", n)
	}
	e.podGroup(t, "train", 3)
	// Far below the scheduler's 5-minute flush of unschedulable pods: the PodGroup's arrival wakes them.
	e.WaitForPods(t, e.ns, 30*time.Second, "all 3 members bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 3 })
}

// minResources that the cluster cannot hold keeps the group out, with a message that says so.
func TestGangMinResources(t *testing.T) {
	e := startGangEnv(t, "minres")
	e.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "train", 2, func(pg *v1alpha1.PodGroup) {
		pg.Spec.MinResources = v1.ResourceList{v1.ResourceCPU: resource.MustParse("12")}
	})
	e.members(t, "train", 2, "1")
	pods := e.Settled(t, e.ns, time.Minute)
	if n := boundIn(pods, "train"); n != 0 {
		t.Fatalf("%d members bound although minResources cannot fit", n)
	}
	if msg := harness.Unschedulable(harness.Pod(pods, "train-0")); !strings.Contains(msg, "minResources") {
		t.Errorf("message %q does not say minResources is what does not fit", msg)
	}
	e.CreateNode(t, harness.Node("node-b", "8", "16Gi", nil))
	e.WaitForPods(t, e.ns, time.Minute, "both members bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 2 })
}

// Two groups that each fit alone but not together: one is placed whole and the other waits whole.
func TestCompetingGangsDoNotDeadlock(t *testing.T) {
	e := startGangEnv(t, "compete")
	e.CreateNode(t, harness.Node("node-a", "4", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "a", 3)
	e.podGroup(t, "b", 3)
	// Interleaved, so neither group is queued ahead of the other.
	for i := range 3 {
		e.member(t, "a", fmt.Sprintf("a-%d", i), "1")
		e.member(t, "b", fmt.Sprintf("b-%d", i), "1")
	}
	pods := e.WaitForPods(t, e.ns, 2*time.Minute, "one group placed whole", func(p []v1.Pod) bool {
		a, b := boundIn(p, "a"), boundIn(p, "b")
		return (a == 3 && b == 0) || (a == 0 && b == 3)
	})
	loser := "b"
	if boundIn(pods, "b") == 3 {
		loser = "a"
	}
	// The loser stays whole: nothing of it is bound while the winner holds the node.
	pods = e.Settled(t, e.ns, time.Minute)
	if n := boundIn(pods, loser); n != 0 {
		t.Errorf("%d members of the waiting group %s were bound", n, loser)
	}
}

// A group of GPU pods gets all its devices or gives them all back.
func TestGangOfGPUPods(t *testing.T) {
	e := startGangEnv(t, "gpu-gang")
	e.CreateNode(t, harness.GPUNode("gpu-a", 1, 16))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	gpuMember := func(group, name string, mem int64) {
		p := harness.GPUPod(e.ns, name, mem)
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: group}
		e.CreatePod(t, p)
	}
	e.podGroup(t, "fits", 2)
	gpuMember("fits", "fits-0", 6)
	gpuMember("fits", "fits-1", 6)
	e.WaitForPods(t, e.ns, time.Minute, "group fits bound", func(p []v1.Pod) bool { return boundIn(p, "fits") == 2 })

	// 4 units are left: the second group's first member could reserve them, its second cannot.
	e.podGroup(t, "too-big", 2)
	gpuMember("too-big", "too-big-0", 4)
	gpuMember("too-big", "too-big-1", 4)
	pods := e.Settled(t, e.ns, time.Minute)
	if n := boundIn(pods, "too-big"); n != 0 {
		t.Fatalf("%d members of a GPU group that cannot fit were bound", n)
	}
	// Nothing of too-big is held: a lone pod takes the 4 units.
	e.CreatePod(t, harness.GPUPod(e.ns, "lone", 4))
	pods = e.WaitForPods(t, e.ns, time.Minute, "lone bound", func(p []v1.Pod) bool { return nodeOf(p, "lone") != "" })
	harness.CheckNoOvercommit(t, pods, map[string][]int64{"gpu-a": {16}})
}

// Permit holds members at most the group's scheduleTimeoutSeconds, then lets everything go. Here
// the missing member names another scheduler, which never runs: it counts as a member, so the
// others pass PreEnqueue and wait at Permit for a member that never comes.
func TestGangPermitTimeoutReleasesEverything(t *testing.T) {
	e := startGangEnv(t, "timeout")
	e.CreateNode(t, harness.GPUNode("gpu-a", 1, 16))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	timeout := int32(2)
	e.podGroup(t, "train", 3, func(pg *v1alpha1.PodGroup) { pg.Spec.ScheduleTimeoutSeconds = &timeout })
	gpuMember := func(name, scheduler string) {
		p := harness.GPUPod(e.ns, name, 8)
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: "train"}
		p.Spec.SchedulerName = scheduler
		e.CreatePod(t, p)
	}
	gpuMember("train-0", "")
	gpuMember("train-1", "")
	gpuMember("train-elsewhere", "a-scheduler-that-never-runs")

	var msg string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		events, err := e.Client.CoreV1().Events(e.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ev := range events.Items {
			if ev.Reason == "FailedScheduling" && strings.HasPrefix(ev.InvolvedObject.Name, "train-") &&
				strings.Contains(ev.Message, "timeout") {
				msg = ev.Message
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no FailedScheduling event says the group's Permit wait ran into its timeout: %v", err)
	}
	t.Logf("timeout event: %s", msg)
	// Whatever the members held at Permit was given back: a lone pod gets the whole GPU.
	e.CreatePod(t, harness.GPUPod(e.ns, "lone", 16))
	pods := e.WaitForPods(t, e.ns, time.Minute, "lone bound", func(p []v1.Pod) bool { return nodeOf(p, "lone") != "" })
	if n := boundIn(pods, "train"); n != 0 {
		t.Errorf("%d members bound with a member missing", n)
	}
}

// The PodGroup's status tells the user what is happening.
func TestPodGroupStatus(t *testing.T) {
	e := startGangEnv(t, "status")
	e.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "train", 3)
	e.members(t, "train", 2, "1")
	e.canary(t, "canary")
	e.waitPodGroup(t, "train", "Pending with 2 of 3 members", func(s v1alpha1.PodGroupStatus) bool {
		return s.Phase == v1alpha1.PodGroupPending
	})
	e.member(t, "train", "train-2", "1")
	pods := e.WaitForPods(t, e.ns, time.Minute, "all 3 members bound", func(p []v1.Pod) bool { return boundIn(p, "train") == 3 })
	e.waitPodGroup(t, "train", "Scheduling once bound", func(s v1alpha1.PodGroupStatus) bool {
		return s.Phase == v1alpha1.PodGroupScheduling && !s.ScheduleStartTime.IsZero()
	})
	// v1alpha1's Go type has no status.scheduled; berth's CRD does, and `kubectl get podgroups`
	// shows it in the Scheduled column.
	raw, err := e.pg.SchedulingV1alpha1().RESTClient().Get().Namespace(e.ns).Resource("podgroups").Name("train").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Status struct{ Scheduled *int32 }
	}
	if err := json.Unmarshal(raw, &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Status.Scheduled == nil || *shown.Status.Scheduled != 3 {
		t.Errorf("status.scheduled = %v, want 3 members bound:\n%s", shown.Status.Scheduled, raw)
	}
	// The kubelet's part: the members start running.
	for _, p := range pods {
		if p.Labels[v1alpha1.PodGroupLabel] != "train" {
			continue
		}
		p.Status.Phase = v1.PodRunning
		if _, err := e.Client.CoreV1().Pods(e.ns).UpdateStatus(context.Background(), &p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.waitPodGroup(t, "train", "Running with 3 running", func(s v1alpha1.PodGroupStatus) bool {
		return s.Phase == v1alpha1.PodGroupRunning && s.Running == 3
	})
}

// A new leader writes PodGroup status as soon as it holds its lease, with no pod to schedule:
// a group whose members were bound before it started shows Running without waiting for a
// scheduling cycle. The real berth-scheduler runs, with leader election on.
func TestPodGroupStatusFromANewLeaderAtOnce(t *testing.T) {
	e := startGangEnv(t, "leader")
	e.CreateNode(t, harness.Node("node-a", "8", "16Gi", nil))
	e.podGroup(t, "train", 2)
	for _, name := range []string{"train-0", "train-1"} {
		e.member(t, "train", name, "1", func(p *v1.Pod) { p.Spec.NodeName = "node-a" })
		p, err := e.Client.CoreV1().Pods(e.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status.Phase = v1.PodRunning
		if _, err := e.Client.CoreV1().Pods(e.ns).UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := strings.Replace(berthConfig(e.Cluster, ""), "leaderElect: false",
		"leaderElect: true\n  resourceNamespace: kube-system\n  resourceName: berth-gang-status", 1)
	start := time.Now()
	e.StartSchedulerBinary(t, cfg)
	e.waitPodGroup(t, "train", "Running, written by the new leader before any scheduling cycle", func(s v1alpha1.PodGroupStatus) bool {
		return s.Phase == v1alpha1.PodGroupRunning && s.Running == 2
	})
	t.Logf("status written %v after the scheduler started, with no scheduling cycle", time.Since(start).Round(time.Millisecond))
}

func (e *gangEnv) waitPodGroup(t *testing.T, name, what string, cond func(v1alpha1.PodGroupStatus) bool) {
	t.Helper()
	var last v1alpha1.PodGroupStatus
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pg, err := e.pg.SchedulingV1alpha1().PodGroups(e.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = pg.Status
		return cond(pg.Status), nil
	})
	if err != nil {
		t.Fatalf("PodGroup %s never reached %s; last status %+v", name, what, last)
	}
}

// Many groups competing for room for a few, created interleaved so that every group holds part of
// the room at some point: the room fills with whole groups long before any round's timeout, no
// group is left partly bound, and deleting a bound group lets a waiting one in. Ten tries on one
// control plane, each in a namespace of its own, to catch what a single run would miss.
//
// On a loaded machine this once left freed room empty for over a minute: the waiting groups' members
// interleaved in the queue, each group took part of the room, and every round failed (issue 9).
// QOSSort now keeps a group's members together and a group that holds nothing gives way to a round
// in progress.
func TestManyGangsCompeteForRoomForAFew(t *testing.T) {
	tries := harness.Tries(1, 10)
	const (
		groups    = 12
		size      = 4
		roomFor   = 3
		perMember = "1"
		// Rounds time out only after this; the waits below are far shorter, so whatever fills the
		// room is a round ending for a reason, not a clock.
		timeoutSeconds = int32(300)
		within         = time.Minute
	)
	e := startGangEnv(t, "contend-0")
	for i := range roomFor {
		e.CreateNode(t, harness.Node(fmt.Sprintf("node-%d", i), fmt.Sprint(size), "16Gi", nil))
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	for try := range tries {
		ns := e.ns
		if try > 0 {
			ns = e.Namespace(t, fmt.Sprintf("contend-%d", try))
		}
		tryEnv := &gangEnv{Cluster: e.Cluster, pg: e.pg, ns: ns}
		name := func(g int) string { return fmt.Sprintf("g%02d", g) }
		for g := range groups {
			tryEnv.podGroup(t, name(g), size, func(pg *v1alpha1.PodGroup) { pg.Spec.ScheduleTimeoutSeconds = ptr.To(timeoutSeconds) })
		}
		start := time.Now()
		for i := range size {
			for g := range groups {
				tryEnv.member(t, name(g), fmt.Sprintf("%s-%d", name(g), i), perMember)
			}
		}
		whole := func(want int) func([]v1.Pod) bool {
			return func(p []v1.Pod) bool {
				full := 0
				for g := range groups {
					switch boundIn(p, name(g)) {
					case size:
						full++
					case 0:
					default:
						return false
					}
				}
				return full == want
			}
		}
		pods := e.WaitForPods(t, ns, within, fmt.Sprintf("try %d: %d whole groups bound", try, roomFor), whole(roomFor))
		filled := time.Since(start)

		var gone string
		for g := range groups {
			if boundIn(pods, name(g)) == size {
				gone = name(g)
				break
			}
		}
		zero := int64(0)
		deleted := time.Now()
		for _, p := range pods {
			if p.Labels[v1alpha1.PodGroupLabel] == gone {
				if err := e.Client.CoreV1().Pods(ns).Delete(context.Background(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
					t.Fatal(err)
				}
			}
		}
		var last []v1.Pod
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, within, true, func(ctx context.Context) (bool, error) {
			list, err := e.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			last = list.Items
			return boundIn(last, gone) == 0 && whole(roomFor)(last), nil
		})
		if err != nil {
			events, _ := e.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
			var b strings.Builder
			for _, ev := range events.Items {
				if ev.Type == v1.EventTypeWarning || ev.Reason == "Preempted" {
					fmt.Fprintf(&b, "\n  %s %s: %s", ev.InvolvedObject.Name, ev.Reason, ev.Message)
				}
			}
			for g := range groups {
				fmt.Fprintf(&b, "\n  %s: %d bound", name(g), boundIn(last, name(g)))
			}
			t.Fatalf("try %d: no waiting group in place of %s: %v; %d pods:%s", try, gone, err, len(last), b.String())
		}
		t.Logf("try %d: room full of whole groups %v after the first pod was created; a waiting group bound %v after %s was deleted",
			try, filled.Round(time.Millisecond), time.Since(deleted).Round(time.Millisecond), gone)

		// Clear the room for the next try.
		if err := e.Client.CoreV1().Pods(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := e.pg.SchedulingV1alpha1().PodGroups(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		e.WaitForPods(t, ns, within, "the try's pods gone", func(p []v1.Pod) bool { return len(p) == 0 })
	}
}

// A group that waits for room retries after every backoff, for as long as the room is taken. Each
// retry must not cost the API server a write: the scheduler writes a pod's status, and records an
// event, whenever the pod's failure message changes, so a message that counted the backoff down
// wrote every waiting member on every retry (with a thousand groups waiting, the API server fell
// behind and bindings took seconds). Watched over eight backoffs, each waiting member's status is
// written at most twice, and it gets a few events, not one per retry.
func TestAGroupWaitingForRoomWritesLittle(t *testing.T) {
	const (
		watchFor   = 16 * time.Second // eight of Gang's 2 s backoffs
		mostWrites = 2
		mostEvents = 4
	)
	e := startGangEnv(t, "quiet")
	e.CreateNode(t, harness.Node("node-a", "2", "16Gi", nil))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.podGroup(t, "held", 2)
	e.members(t, "held", 2, "1")
	e.WaitForPods(t, e.ns, time.Minute, "held bound", func(p []v1.Pod) bool { return boundIn(p, "held") == 2 })

	ctx := context.Background()
	list, err := e.Client.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.Client.CoreV1().Pods(e.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e.podGroup(t, "waits", 2)
	e.members(t, "waits", 2, "1")
	writes := map[string]int{}
	deadline := time.After(watchFor)
watch:
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the pod watch ended early")
			}
			if p, isPod := ev.Object.(*v1.Pod); isPod && p.Labels[v1alpha1.PodGroupLabel] == "waits" && ev.Type == "MODIFIED" {
				writes[p.Name]++
			}
		case <-deadline:
			break watch
		}
	}
	pods := e.Settled(t, e.ns, time.Minute)
	if n := boundIn(pods, "waits"); n != 0 {
		t.Fatalf("%d members of waits bound on a node that has no room", n)
	}
	for _, name := range []string{"waits-0", "waits-1"} {
		if msg := harness.Unschedulable(harness.Pod(pods, name)); msg == "" {
			t.Errorf("%s has no Unschedulable condition saying why it waits", name)
		}
		if writes[name] > mostWrites {
			t.Errorf("%s was written %d times in %v of waiting; want at most %d", name, writes[name], watchFor, mostWrites)
		}
		evs, err := e.Client.EventsV1().Events(e.ns).List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=" + name})
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		for _, ev := range evs.Items {
			notes = append(notes, ev.Reason+": "+ev.Note)
		}
		if len(notes) > mostEvents {
			t.Errorf("%s got %d events in %v of waiting; want at most %d:\n%s", name, len(notes), watchFor, mostEvents, strings.Join(notes, "\n"))
		}
		t.Logf("%s: %d events", name, len(notes))
	}
	t.Logf("status writes while waiting %v: %v", watchFor, writes)

	// The room it waited for lets it in.
	for _, p := range pods {
		if p.Labels[v1alpha1.PodGroupLabel] == "held" {
			if err := e.Client.CoreV1().Pods(e.ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.WaitForPods(t, e.ns, time.Minute, "waits bound", func(p []v1.Pod) bool { return boundIn(p, "waits") == 2 })
}
