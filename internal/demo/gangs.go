package demo

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/internal/kwok"
	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/why"
)

// gangTimeoutSeconds bounds how long the scheduler holds a gang's first members waiting for the
// rest, so that the gang that cannot fit is given up on within the demo's minute.
const gangTimeoutSeconds = 10

// gang is a PodGroup and its pods, all alike, running for runsFor once placed.
type gang struct {
	name      string
	minMember int32
	cpu       string
	runsFor   time.Duration
}

var (
	// fitting fits whole on the gang nodes, and runs long enough for the second gang to be
	// seen held back.
	fitting = gang{name: "trainers", minMember: 3, cpu: "1", runsFor: 10 * time.Second}
	// tooBig needs more than the nodes have left while fitting runs, though some of its pods
	// would fit on their own; it fits exactly once fitting has finished.
	tooBig = gang{name: "too-big", minMember: 4, cpu: "2", runsFor: 3 * time.Second}
)

var gangNodes = []string{"gang-1", "gang-2"}

// native is a group of Kubernetes' own API (scheduling.k8s.io/v1beta1 PodGroup, minCount), placed
// by the same Gang on a node of its own, so that the room the two gangs above meet is the same
// with it or without it.
var native = gang{name: "pair", minMember: 2, cpu: "1", runsFor: 10 * time.Second}

const (
	nativeNode = "gang-native"
	// nativeScenario is the scenario label of nativeNode, which the native group's pods select.
	nativeScenario = "gangs-native"
	// demoGroupLabel names a native group's pods, which carry no group label, for settle's selector.
	demoGroupLabel = "berth.dev/demo-group"
)

func runGangs(ctx context.Context, d *demo, s *Section) error {
	for _, name := range gangNodes {
		if err := d.createNodes(ctx, newNode("gangs", name, resources("cpu", "4", "memory", "16Gi", "pods", "110"))); err != nil {
			return err
		}
	}
	d.progress("gangs: created nodes %s (4 cpu each)", strings.Join(gangNodes, ", "))
	phases := phaseHistory{}

	if err := d.createNodes(ctx, newNode(nativeScenario, nativeNode, resources("cpu", "2", "memory", "16Gi", "pods", "110"))); err != nil {
		return err
	}
	if err := d.createNativeGang(ctx, native); err != nil {
		return err
	}
	nativePods, err := d.settle(ctx, "gangs", demoGroupLabel+"="+native.name, int(native.minMember), time.Minute)
	if err != nil {
		return err
	}
	if err := d.createGang(ctx, fitting); err != nil {
		return err
	}
	fitPods, err := d.settle(ctx, "gangs", v1alpha1.PodGroupLabel+"="+fitting.name, int(fitting.minMember), time.Minute)
	if err != nil {
		return err
	}
	// Bounded: a gang that never runs is reported by the expectation below, not by a timeout.
	_ = d.watchPhases(ctx, "gangs", phases, 20*time.Second, func() bool {
		return phases.last(fitting.name) == podgroup.PhaseRunning && phases.last(nativeName) == podgroup.PhaseRunning
	})
	// What the second gang faces: the room left while the first runs.
	free, err := d.freeOn(ctx, gangNodes)
	if err != nil {
		return err
	}
	if err := d.createGang(ctx, tooBig); err != nil {
		return err
	}
	bigPods, err := d.settle(ctx, "gangs", v1alpha1.PodGroupLabel+"="+tooBig.name, int(tooBig.minMember), time.Duration(gangTimeoutSeconds)*time.Second+time.Minute)
	if err != nil {
		return err
	}
	held, err := inspect.ListGangs(ctx, d.client, d.groups, "gangs")
	if err != nil {
		return err
	}
	reportGangs(s, held, fitPods, bigPods, nativePods, free)
	if len(bigPods) > 0 {
		answer, err := inspect.ExplainPod(ctx, d.client, d.groups, gpuResources, "gangs", bigPods[0].Name)
		if err != nil {
			return err
		}
		reportWhy(s, answer)
	}

	d.progress("gangs: waiting for %s to finish (it runs for %v) and %s to be placed, run and finish", fitting.name, fitting.runsFor, tooBig.name)
	_ = d.watchPhases(ctx, "gangs", phases, fitting.runsFor+tooBig.runsFor+time.Minute, func() bool {
		return phases.last(fitting.name) == podgroup.PhaseFinished && phases.last(tooBig.name) == podgroup.PhaseFinished &&
			phases.last(nativeName) == podgroup.PhaseFinished
	})
	end, err := inspect.ListGangs(ctx, d.client, d.groups, "gangs")
	if err != nil {
		return err
	}
	reportGangsEnd(s, end, phases)
	return nil
}

// reportGangs shows the PodGroups while the first gang runs, as `kubectl berth gangs` does, and
// where their pods went, and judges whether each gang was placed or held back whole; free is what
// the nodes had left when the second gang came.
func reportGangs(s *Section, groups *inspect.Gangs, fitPods, bigPods, nativePods []v1.Pod, free map[string]amount.Amount) {
	s.Pods = append(append(append([]v1.Pod{}, fitPods...), bigPods...), nativePods...)
	s.printf("Two gangs on nodes %s: PodGroups (%s), pods joined by label %s.\n", strings.Join(gangNodes, ", "), v1alpha1.SchemeGroupVersion, v1alpha1.PodGroupLabel)
	s.printf("Beside them, on node %s, a group of Kubernetes' own API (%s PodGroup %s, minCount %d), pods joined by spec.schedulingGroup, placed by the same Gang.\n\n",
		nativeNode, schedulingv1beta1.SchemeGroupVersion, native.name, native.minMember)
	rows := make([][]string, 0, len(s.Pods))
	for i := range s.Pods {
		p := &s.Pods[i]
		cpu := p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU]
		group, _ := podgroup.APIKeyOf(p)
		rows = append(rows, []string{p.Name, group.Name, cpu.String(), orNone(p.Spec.NodeName), string(p.Status.Phase)})
	}
	s.table([]string{"POD", "POD GROUP", "CPU", "NODE", "PHASE"}, rows)
	s.printf("\n$ kubectl berth gangs -n gangs\n")
	s.report(func(w io.Writer) error { return groups.WriteTable(w, false) })
	s.printf("\n")

	fitBound, _ := split(fitPods)
	s.expect(fmt.Sprintf("gang %s (minMember %d, %d x %s cpu) is placed whole", fitting.name, fitting.minMember, fitting.minMember, fitting.cpu),
		len(fitBound) == len(fitPods),
		fmt.Sprintf("%d of %d pods bound", len(fitBound), len(fitPods)))

	bigBound, _ := split(bigPods)
	need, _ := amount.Of(podRequests(tooBig))
	alone, left := 0, make([]string, 0, len(gangNodes))
	for _, n := range gangNodes {
		alone += amount.Fits(free[n], need)
		left = append(left, fmt.Sprintf("%s %s", n, amount.Text(v1.ResourceCPU, free[n][v1.ResourceCPU])))
	}
	s.expect(fmt.Sprintf("gang %s (minMember %d, %d x %s cpu) cannot fit whole in the cpu left (%s), so it is held back whole, "+
		"though %d of its pods would fit on their own", tooBig.name, tooBig.minMember, tooBig.minMember, tooBig.cpu, strings.Join(left, ", "), alone),
		alone < int(tooBig.minMember) && len(bigBound) == 0,
		fmt.Sprintf("%d of %d pods bound", len(bigBound), len(bigPods)))

	nativeBound, _ := split(nativePods)
	s.expect(fmt.Sprintf("native group %s (%s, minCount %d, %d x %s cpu) is placed whole by berth's Gang", native.name, schedulingv1beta1.SchemeGroupVersion, native.minMember, native.minMember, native.cpu),
		len(nativeBound) == len(nativePods) && len(nativePods) == int(native.minMember),
		fmt.Sprintf("%d of %d pods bound", len(nativeBound), len(nativePods)))
}

// reportWhy shows `kubectl berth why` for a member of the gang held back, and judges that it
// names the gang, with its numbers, as the cause.
func reportWhy(s *Section, answer *inspect.Why) {
	s.printf("$ kubectl berth why -n gangs %s\n", answer.Name)
	s.report(func(w io.Writer) error { return answer.WriteTable(w, false) })
	s.expect(fmt.Sprintf("kubectl berth why names the gang %s, its members placeable now and those that lack room, as what keeps %s pending", tooBig.name, answer.Name),
		answer.Cause == why.CauseGang && strings.Contains(answer.Summary, "lack room"),
		fmt.Sprintf("cause %s: %s", answer.Cause, answer.Summary))
}

// reportGangsEnd shows the PodGroups once both gangs have run, and judges their lives: the first
// ran and finished, the second was placed whole in the room the first gave back, and finished.
func reportGangsEnd(s *Section, groups *inspect.Gangs, phases phaseHistory) {
	s.printf("\nOnce %s's pods succeeded (kwok ended them after %v), the cpu they held came back and %s was placed whole in it:\n\n$ kubectl berth gangs -n gangs\n",
		fitting.name, fitting.runsFor, tooBig.name)
	s.report(func(w io.Writer) error { return groups.WriteTable(w, false) })
	s.printf("\nPhases each PodGroup showed, in order: %s\n\n", phases)

	s.expect(fmt.Sprintf("gang %s goes Running while its pods run, then Finished when they have succeeded", fitting.name),
		phases.went(fitting.name, podgroup.PhaseRunning, podgroup.PhaseFinished), phases.of(fitting.name))
	s.expect(fmt.Sprintf("native group %s's PodGroup shows the same in its %s condition: Running, then Finished", native.name, podgroup.PlacementCondition),
		phases.went(nativeName, podgroup.PhaseRunning, podgroup.PhaseFinished), phases.of(nativeName))
	var big *inspect.Gang
	for i := range groups.Groups {
		if groups.Groups[i].Name == tooBig.name {
			big = &groups.Groups[i]
		}
	}
	// Judged after both gangs have run: a finished member is no longer a member (podgroup.Live), so
	// the group was placed whole if its members still placed and those that succeeded make it up.
	placed := big != nil && big.Placed+big.Succeeded == int(tooBig.minMember) && len(big.Waiting) == 0
	got := "no PodGroup " + tooBig.name
	if big != nil {
		got = fmt.Sprintf("%d of %d pods placed, %d succeeded; phases %s", big.Placed, big.Members, big.Succeeded, phases.of(tooBig.name))
	}
	s.expect(fmt.Sprintf("gang %s is placed whole once %s has finished, and runs to Finished", tooBig.name, fitting.name),
		placed && phases.went(tooBig.name, podgroup.PhaseFinished), got)
}

// phaseHistory is the phases each PodGroup was seen in, in order; a native PodGroup's under its
// name as kubectl berth gangs shows it (nativeName).
type phaseHistory map[string][]podgroup.Phase

// nativeName is the native group's name in phaseHistory.
var nativeName = podgroup.NativeKey("gangs", native.name).Name

// see records that group name shows phase, if it shows one and it is new.
func (h phaseHistory) see(name string, phase podgroup.Phase) {
	if phase != "" && h.last(name) != phase {
		h[name] = append(h[name], phase)
	}
}

func (h phaseHistory) last(name string) podgroup.Phase {
	if p := h[name]; len(p) > 0 {
		return p[len(p)-1]
	}
	return ""
}

// went reports whether the group was seen in the phases, in this order.
func (h phaseHistory) went(name string, phases ...podgroup.Phase) bool {
	i := 0
	for _, p := range h[name] {
		if i < len(phases) && p == phases[i] {
			i++
		}
	}
	return i == len(phases)
}

func (h phaseHistory) of(name string) string {
	parts := make([]string, len(h[name]))
	for i, p := range h[name] {
		parts[i] = orNone(string(p))
	}
	return strings.Join(parts, " -> ")
}

func (h phaseHistory) String() string {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + " " + h.of(name)
	}
	return strings.Join(parts, "; ")
}

// watchPhases records the phases of ns's PodGroups until done, or timeout.
func (d *demo) watchPhases(ctx context.Context, ns string, h phaseHistory, timeout time.Duration, done func() bool) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := d.exited(); err != nil {
			return false, err
		}
		list, err := d.groups.SchedulingV1alpha1().PodGroups(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, pg := range list.Items {
			h.see(pg.Name, podgroup.Phase(pg.Status.Phase))
		}
		natives, err := d.client.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for i := range natives.Items {
			pg := &natives.Items[i]
			h.see(podgroup.NativeKey(pg.Namespace, pg.Name).Name, podgroup.NativePhase(pg))
		}
		return done(), nil
	})
}

// createGang creates the PodGroup and its minMember pods.
func (d *demo) createGang(ctx context.Context, g gang) error {
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: g.name, Namespace: "gangs"},
		Spec:       v1alpha1.PodGroupSpec{MinMember: g.minMember, ScheduleTimeoutSeconds: ptr.To[int32](gangTimeoutSeconds)},
	}
	if _, err := d.groups.SchedulingV1alpha1().PodGroups("gangs").Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PodGroup %s: %w", g.name, err)
	}
	req := podRequests(g)
	for i := range g.minMember {
		p := newPod("gangs", fmt.Sprintf("%s-%d", g.name, i), v1.ResourceRequirements{Requests: req, Limits: req})
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: g.name}
		p.Annotations = kwok.RunsFor(nil, g.runsFor)
		if err := d.createPods(ctx, p); err != nil {
			return err
		}
	}
	d.progress("gangs: created PodGroup %s (minMember %d) and %d pods of %s cpu each; waiting for the scheduler", g.name, g.minMember, g.minMember, g.cpu)
	return nil
}

// createNativeGang creates a native PodGroup (scheduling.k8s.io/v1beta1) of minCount g.minMember and
// its pods, on nativeNode. A native PodGroup has no timeout of its own: Gang's default applies.
func (d *demo) createNativeGang(ctx context.Context, g gang) error {
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: g.name, Namespace: "gangs"},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: g.minMember},
		}},
	}
	if _, err := d.client.SchedulingV1beta1().PodGroups("gangs").Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PodGroup %s (%s): %w", g.name, schedulingv1beta1.SchemeGroupVersion, err)
	}
	req := podRequests(g)
	for i := range g.minMember {
		p := newPod("gangs", fmt.Sprintf("%s-%d", g.name, i), v1.ResourceRequirements{Requests: req, Limits: req})
		p.Spec.NodeSelector = map[string]string{scenarioLabel: nativeScenario}
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(g.name)}
		p.Labels = map[string]string{demoGroupLabel: g.name}
		p.Annotations = kwok.RunsFor(nil, g.runsFor)
		if err := d.createPods(ctx, p); err != nil {
			return err
		}
	}
	d.progress("gangs: created PodGroup %s (%s, minCount %d) and %d pods of %s cpu each on node %s; waiting for the scheduler",
		g.name, schedulingv1beta1.SchemeGroupVersion, g.minMember, g.minMember, g.cpu, nativeNode)
	return nil
}

func podRequests(g gang) v1.ResourceList {
	return resources("cpu", g.cpu, "memory", "1Gi")
}

// freeOn is what each node has left, after the requests of the pods bound to it that still hold
// room, as noderoom counts it.
func (d *demo) freeOn(ctx context.Context, nodes []string) (map[string]amount.Amount, error) {
	ns := make([]v1.Node, 0, len(nodes))
	for _, name := range nodes {
		n, err := d.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		ns = append(ns, *n)
	}
	pods, err := d.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	free := make(map[string]amount.Amount, len(nodes))
	for _, r := range noderoom.Of(ns, pods.Items, gpuResources) {
		free[r.Node.Name] = r.Free
	}
	return free, nil
}
