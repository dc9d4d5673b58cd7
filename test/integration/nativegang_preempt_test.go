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
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/test/harness"
)

// highPriority creates the PriorityClass "high" (1000).
func highPriority(t *testing.T, c *harness.Cluster) {
	t.Helper()
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	if _, err := c.Client.SchedulingV1().PriorityClasses().Create(context.Background(), high, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// withPriorityClass gives a native PodGroup a priority class: the scheduler refuses a group whose
// members' priority is not the group's.
func withPriorityClass(name string) func(*schedulingv1beta1.PodGroup) {
	return func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = name }
}

// A native group of higher priority that fits only once lower-priority pods go makes room for
// itself and binds whole: the scheduler tries a native group's members in one cycle and runs
// none of their PostFilters, so the group's preemption is BerthPreemption's PodGroupPostFilter
// (its first member preempting for the group). Each round: a node of 4 cpu full of four 1-cpu pods of
// no priority, and a high-priority group of three 1-cpu members.
func TestNativeGroupPreemptsForItsMembers(t *testing.T) {
	e := startNativeGangEnv(t, "native-preemptor")
	e.ActAsKubelet(t)
	highPriority(t, e.Cluster)
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	for round := range harness.Tries(1, 10) {
		node := fmt.Sprintf("r%d", round)
		e.CreateNode(t, harness.Node(node, "4", "16Gi", nil))
		onNode := func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelHostname: node} }
		low := make([]string, 4)
		for i := range low {
			low[i] = fmt.Sprintf("r%d-low-%d", round, i)
			e.member(t, "", low[i], "1", onNode, func(p *v1.Pod) { p.Labels = nil })
		}
		e.WaitForPods(t, e.ns, time.Minute, "the node full of low-priority pods", func(p []v1.Pod) bool {
			n := 0
			for i := range p {
				if slices.Contains(low, p[i].Name) && p[i].Spec.NodeName != "" {
					n++
				}
			}
			return n == 4
		})
		evicted := watchEvictions(t, e.Cluster, e.ns)
		group := fmt.Sprintf("r%d-high", round)
		e.nativeGroup(t, group, 3, withPriorityClass("high"))
		start := time.Now()
		for i := range 3 {
			e.member(t, "", fmt.Sprintf("%s-%d", group, i), "1", inNativeGroup(group), onNode, func(p *v1.Pod) {
				p.Spec.PriorityClassName = "high"
			})
		}
		e.WaitForPods(t, e.ns, time.Minute, "the high-priority group bound whole", func(p []v1.Pod) bool { return boundOf(p, group) == 3 })
		gone := 0
		for _, name := range evicted() {
			if !slices.Contains(low, name) {
				t.Errorf("round %d: %s evicted, not a low-priority pod", round, name)
			}
			gone++
		}
		t.Logf("round %d: the group bound whole %v after its members were created; %d low-priority pods evicted", round, time.Since(start).Round(time.Millisecond), gone)
		if gone < 3 {
			t.Errorf("round %d: %d low-priority pods evicted, want at least the 3 the group needs", round, gone)
		}
	}
}

// A running native group of disruptionMode all is a victim whole or not at all: a higher-priority
// pod that needs one member's room takes the whole group; of a group of disruptionMode single (the
// API's default) it takes one member. Two nodes of 4 cpu, a low-priority group of four 2-cpu
// members on them, and a high-priority pod of 2 cpu. Both modes are tried once in make test and ten
// times in the soak run, each try with a group and a pod of its own.
func TestRunningNativeGroupIsPreemptedAsItsDisruptionModeSays(t *testing.T) {
	e := startNativeGangEnv(t, "native-victim")
	e.ActAsKubelet(t)
	highPriority(t, e.Cluster)
	for _, n := range []string{"n1", "n2"} {
		e.CreateNode(t, harness.Node(n, "4", "16Gi", nil))
	}
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	modes := []struct {
		mode     string
		disrupt  *schedulingv1beta1.DisruptionMode
		wantGone int
	}{
		{"all", &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}, 4},
		{"single", nil, 1},
	}
	for try := range harness.Tries(1, 10) {
		for _, tc := range modes {
			group := fmt.Sprintf("low-%s-%d", tc.mode, try)
			e.nativeGroup(t, group, 4, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.DisruptionMode = tc.disrupt })
			for i := range 4 {
				e.member(t, "", fmt.Sprintf("%s-%d", group, i), "2", inNativeGroup(group))
			}
			e.WaitForPods(t, e.ns, time.Minute, group+" bound whole", func(p []v1.Pod) bool { return boundOf(p, group) == 4 })
			evicted := watchEvictions(t, e.Cluster, e.ns)
			important := fmt.Sprintf("important-%s-%d", tc.mode, try)
			e.member(t, "", important, "2", func(p *v1.Pod) { p.Labels = nil; p.Spec.PriorityClassName = "high" })
			e.WaitForPods(t, e.ns, time.Minute, important+" bound", func(p []v1.Pod) bool { return nodeOf(p, important) != "" })
			// Evictions are asynchronous: a second look after the bind catches a member that goes late.
			_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Second, true, func(context.Context) (bool, error) {
				return len(evicted()) > tc.wantGone, nil
			})
			got := evicted()
			slices.Sort(got)
			t.Logf("disruptionMode %s: %s bound, %v evicted", tc.mode, important, got)
			if len(got) != tc.wantGone {
				t.Errorf("disruptionMode %s: %d pods evicted (%v), want %d", tc.mode, len(got), got, tc.wantGone)
			}
			for _, name := range got {
				if !strings.HasPrefix(name, group+"-") {
					t.Errorf("disruptionMode %s: %s evicted, not a member of %s", tc.mode, name, group)
				}
			}
			// Clear the nodes for the next mode or try.
			pods, err := e.Client.CoreV1().Pods(e.ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			zero := int64(0)
			for i := range pods.Items {
				if err := e.Client.CoreV1().Pods(e.ns).Delete(context.Background(), pods.Items[i].Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
					t.Fatal(err)
				}
			}
			e.WaitForPods(t, e.ns, time.Minute, "every pod gone", func(p []v1.Pod) bool { return len(p) == 0 })
		}
	}
}

// A native group is admitted against its namespace's ElasticQuota whole, as a scheduler-plugins
// group is: a group of three 1-cpu members under a max of 2 cpu binds nothing, though two members
// would fit, and every member's condition names the group's request against the max; raising the
// max lets the group in whole.
func TestQuotaAdmitsANativeGroupWhole(t *testing.T) {
	e := startNativeGangEnv(t, "native-quota")
	e.CreateNode(t, harness.Node("n1", "32", "64Gi", nil))
	e.quota(t, e.ns, nil, cpuList("2"))
	e.StartScheduler(t, berthConfig(e.Cluster, ""))
	e.nativeGroup(t, "g", 3)
	for i := range 3 {
		e.member(t, "", fmt.Sprint("g-", i), "1", inNativeGroup("g"))
	}
	pods := e.Settled(t, e.ns, time.Minute)
	if n := boundOf(pods, "g"); n != 0 {
		t.Fatalf("%d members bound of a native group that does not fit its quota", n)
	}
	// The member tried says so in its condition; the others, whose condition carries the
	// scheduler's word for the group ("minCount (3) cannot be satisfied"), in Gang's event.
	const want = "requested for pod group scheduling.k8s.io/g 3, max 2"
	for i := range 3 {
		memberSays(t, e.Cluster, e.ns, fmt.Sprint("g-", i), want)
	}
	// Gang's status on the PodGroup, and kubectl berth, a process of its own whose feature gates
	// are all off, reading the group as Gang places it.
	placementSays(t, e, "g", metav1.ConditionFalse, "Pending", "0 of 3 (minCount) bound, 0 running, 0 succeeded, 0 failed")
	out := kubectlBerthBinary(t, e.Cluster, "-n", e.ns, "why", "g-0")
	for _, s := range []string{"pending: Quota (berth)", "its group's 3 waiting members ask 3; 1 over"} {
		if !strings.Contains(out, s) {
			t.Errorf("kubectl berth why g-0 does not say %q:\n%s", s, out)
		}
	}
	out = kubectlBerthBinary(t, e.Cluster, "-n", e.ns, "gangs")
	if !hasRow(out, "scheduling.k8s.io/g", "Pending", "3", "3", "0", "0", "0", "3") {
		t.Errorf("kubectl berth gangs has no row for the native group with 3 members waiting:\n%s", out)
	}
	qe := &quotaEnv{Cluster: e.Cluster, eq: e.pg}
	qe.setMax(t, e.ns, cpuList("3"))
	e.WaitForPods(t, e.ns, time.Minute, "the group bound whole", func(p []v1.Pod) bool { return boundOf(p, "g") == 3 })
	pg := placementSays(t, e, "g", metav1.ConditionTrue, "Scheduling", "3 of 3 (minCount) bound, 0 running, 0 succeeded, 0 failed")
	// The scheduler's own condition stays beside Gang's.
	if c := apimeta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled); c == nil {
		t.Errorf("the PodGroup lost the scheduler's %s condition: %+v", schedulingv1beta1.PodGroupInitiallyScheduled, pg.Status.Conditions)
	}
	out = kubectlBerthBinary(t, e.Cluster, "-n", e.ns, "gangs")
	if !hasRow(out, "scheduling.k8s.io/g", "Scheduling", "3", "3", "3", "0", "0", "0") {
		t.Errorf("kubectl berth gangs does not show the native group placed:\n%s", out)
	}
}

// A user who may list scheduler-plugins' PodGroups but not the native ones gets the groups they may
// read from kubectl berth gangs, and a warning that names what was left out, where it failed before.
func TestKubectlBerthGangsWithoutNativeAccess(t *testing.T) {
	e := startNativeGangEnv(t, "native-rbac")
	e.podGroup(t, "sp", 2)
	e.nativeGroup(t, "g", 2)
	ctx := context.Background()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "gangs-reader"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"list"}},
			{APIGroups: []string{v1alpha1.SchemeGroupVersion.Group}, Resources: []string{"podgroups"}, Verbs: []string{"list"}},
		},
	}
	if _, err := e.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "gangs-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}},
	}
	if _, err := e.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := e.Kubeconfig("alice")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(harness.BinDir(t, "kubectl-berth"), "kubectl-berth")
	var stdout, stderr strings.Builder
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "-n", e.ns, "gangs")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl berth gangs as alice: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	t.Logf("kubectl berth gangs as alice:\n%s%s", stdout.String(), stderr.String())
	if !hasRow(stdout.String(), "sp") {
		t.Errorf("alice's table has no row for the scheduler-plugins group sp:\n%s", stdout.String())
	}
	if strings.Contains(stdout.String(), "scheduling.k8s.io/g") {
		t.Errorf("alice's table shows the native group she may not list:\n%s", stdout.String())
	}
	for _, s := range []string{"Warning: native PodGroups (scheduling.k8s.io/v1beta1) not shown", `User "alice" cannot list resource "podgroups" in API group "scheduling.k8s.io"`} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("standard error does not say %q:\n%s", s, stderr.String())
		}
	}
	// The admin, who may list both, sees both and no warning.
	if out := kubectlBerthBinary(t, e.Cluster, "-n", e.ns, "gangs"); !hasRow(out, "sp") || !hasRow(out, "scheduling.k8s.io/g") || strings.Contains(out, "Warning") {
		t.Errorf("the admin's table lacks a group or warns:\n%s", out)
	}
}

// placementSays waits for Gang's condition on the native PodGroup name to read status, reason
// and message, and returns the PodGroup.
func placementSays(t *testing.T, e *gangEnv, name string, status metav1.ConditionStatus, reason, message string) *schedulingv1beta1.PodGroup {
	t.Helper()
	var pg *schedulingv1beta1.PodGroup
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		if pg, err = e.Client.SchedulingV1beta1().PodGroups(e.ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		c := apimeta.FindStatusCondition(pg.Status.Conditions, podgroup.PlacementCondition)
		return c != nil && c.Status == status && c.Reason == reason && c.Message == message, nil
	})
	if err != nil {
		var conds []metav1.Condition
		if pg != nil {
			conds = pg.Status.Conditions
		}
		t.Fatalf("PodGroup %s never had %s %s, %s, %q; its conditions: %+v", name, podgroup.PlacementCondition, status, reason, message, conds)
	}
	return pg
}

// kubectlBerthBinary runs the kubectl-berth binary against the cluster: a process of its own,
// with its own feature gates, as a user runs it.
func kubectlBerthBinary(t *testing.T, c *harness.Cluster, args ...string) string {
	t.Helper()
	bin := filepath.Join(harness.BinDir(t, "kubectl-berth"), "kubectl-berth")
	out, err := exec.Command(bin, append([]string{"--kubeconfig", c.KubeconfigPath()}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl-berth %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("kubectl berth %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}

// memberSays waits for pod's condition or one of the events about it to name want.
func memberSays(t *testing.T, c *harness.Cluster, ns, pod, want string) {
	t.Helper()
	var said []string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		said = nil
		p, err := c.Client.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		said = append(said, harness.Unschedulable(p))
		events, err := c.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ev := range events.Items {
			if ev.Regarding.Name == pod {
				said = append(said, ev.Note)
			}
		}
		return slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, want) }), nil
	})
	if err != nil {
		t.Errorf("%s never said %q; it says %q", pod, want, said)
	}
}
