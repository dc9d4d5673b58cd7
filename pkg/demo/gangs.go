package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// gangTimeoutSeconds bounds how long the scheduler holds a gang's first members waiting for the
// rest, so that the gang that cannot fit is given up on within the demo's minute.
const gangTimeoutSeconds = 10

// gang is a PodGroup and its pods, all alike.
type gang struct {
	name      string
	minMember int32
	cpu       string
}

var (
	// fitting fits whole on the gang nodes.
	fitting = gang{name: "trainers", minMember: 3, cpu: "1"}
	// tooBig needs more than the nodes have left once fitting is placed, though some of its pods
	// would fit on their own.
	tooBig = gang{name: "too-big", minMember: 4, cpu: "2"}
)

var gangNodes = []string{"gang-1", "gang-2"}

func runGangs(ctx context.Context, d *demo, s *Section) error {
	for _, name := range gangNodes {
		if err := d.createNodes(ctx, newNode("gangs", name, resources("cpu", "4", "memory", "16Gi", "pods", "110"))); err != nil {
			return err
		}
	}
	d.progress("gangs: created nodes %s (4 cpu each)", strings.Join(gangNodes, ", "))

	if err := d.createGang(ctx, fitting); err != nil {
		return err
	}
	fitPods, err := d.settle(ctx, "gangs", v1alpha1.PodGroupLabel+"="+fitting.name, int(fitting.minMember), time.Minute)
	if err != nil {
		return err
	}
	// What the second gang faces: the room left once the first is placed.
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
	table, err := d.podGroupTable(ctx, "gangs")
	if err != nil {
		return err
	}
	reportGangs(s, table, fitPods, bigPods, free)
	return nil
}

// reportGangs shows the PodGroups and where their pods went, and judges whether each gang was
// placed or held back whole; free is what the nodes had left when the second gang came.
func reportGangs(s *Section, podGroups string, fitPods, bigPods []v1.Pod, free map[string]v1.ResourceList) {
	s.Pods = append(append([]v1.Pod{}, fitPods...), bigPods...)
	s.printf("Two gangs on nodes %s: PodGroups (%s), pods joined by label %s.\n\n", strings.Join(gangNodes, ", "), v1alpha1.SchemeGroupVersion, v1alpha1.PodGroupLabel)
	s.printf("$ kubectl get podgroups -n gangs\n%s\n", podGroups)
	rows := make([][]string, 0, len(s.Pods))
	for i := range s.Pods {
		p := &s.Pods[i]
		cpu := p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU]
		rows = append(rows, []string{p.Name, p.Labels[v1alpha1.PodGroupLabel], cpu.String(), orNone(p.Spec.NodeName), string(p.Status.Phase)})
	}
	s.table([]string{"POD", "POD GROUP", "CPU", "NODE", "PHASE"}, rows)
	_, waiting := split(s.Pods)
	s.whyWaiting(waiting)
	s.printf("\n")

	fitBound, _ := split(fitPods)
	s.expect(fmt.Sprintf("gang %s (minMember %d, %d x %s cpu) is placed whole", fitting.name, fitting.minMember, fitting.minMember, fitting.cpu),
		len(fitBound) == len(fitPods),
		fmt.Sprintf("%d of %d pods bound", len(fitBound), len(fitPods)))

	bigBound, _ := split(bigPods)
	need := podRequests(tooBig)
	alone, left := 0, make([]string, 0, len(gangNodes))
	for _, n := range gangNodes {
		alone += fits(free[n], need)
		cpu := free[n][v1.ResourceCPU]
		left = append(left, fmt.Sprintf("%s %s", n, cpu.String()))
	}
	s.expect(fmt.Sprintf("gang %s (minMember %d, %d x %s cpu) cannot fit whole in the cpu left (%s), so it is held back whole, "+
		"though %d of its pods would fit on their own", tooBig.name, tooBig.minMember, tooBig.minMember, tooBig.cpu, strings.Join(left, ", "), alone),
		alone < int(tooBig.minMember) && len(bigBound) == 0,
		fmt.Sprintf("%d of %d pods bound", len(bigBound), len(bigPods)))
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
		if err := d.createPods(ctx, p); err != nil {
			return err
		}
	}
	d.progress("gangs: created PodGroup %s (minMember %d) and %d pods of %s cpu each; waiting for the scheduler", g.name, g.minMember, g.minMember, g.cpu)
	return nil
}

func podRequests(g gang) v1.ResourceList {
	return resources("cpu", g.cpu, "memory", "1Gi")
}

// freeOn is what each node has left of its allocatable cpu and memory, after the requests of
// the pods bound to it.
func (d *demo) freeOn(ctx context.Context, nodes []string) (map[string]v1.ResourceList, error) {
	free := make(map[string]v1.ResourceList, len(nodes))
	for _, name := range nodes {
		n, err := d.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		free[name] = v1.ResourceList{v1.ResourceCPU: n.Status.Allocatable.Cpu().DeepCopy(), v1.ResourceMemory: n.Status.Allocatable.Memory().DeepCopy()}
	}
	pods, err := d.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		left, ok := free[p.Spec.NodeName]
		if !ok {
			continue
		}
		for name, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
			if l, ok := left[name]; ok {
				l.Sub(q)
				left[name] = l
			}
		}
	}
	return free, nil
}

// fits counts how many pods requesting req fit into free.
func fits(free, req v1.ResourceList) int {
	n := -1
	for name, q := range req {
		if q.IsZero() {
			continue
		}
		f := free[name]
		k := int(max(f.MilliValue(), 0) / q.MilliValue())
		if n < 0 || k < n {
			n = k
		}
	}
	return max(n, 0)
}

// podGroupTable is the PodGroups of ns as the apiserver prints them for kubectl: the columns of
// the CRD's additionalPrinterColumns.
func (d *demo) podGroupTable(ctx context.Context, ns string) (string, error) {
	raw, err := d.groups.SchedulingV1alpha1().RESTClient().Get().Namespace(ns).Resource("podgroups").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("listing PodGroups: %w", err)
	}
	var t metav1.Table
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", fmt.Errorf("reading the PodGroup table: %w", err)
	}
	var header []string
	var shown []int
	for i, c := range t.ColumnDefinitions {
		if c.Priority == 0 { // kubectl shows the others only with -o wide
			header = append(header, strings.ToUpper(c.Name))
			shown = append(shown, i)
		}
	}
	rows := make([][]string, 0, len(t.Rows))
	for _, r := range t.Rows {
		row := make([]string, 0, len(shown))
		for _, i := range shown {
			if i >= len(r.Cells) || r.Cells[i] == nil {
				row = append(row, "<none>")
				continue
			}
			row = append(row, fmt.Sprint(r.Cells[i]))
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	writeTable(&b, header, rows)
	return b.String(), nil
}
