package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/pkg/topology"
)

// The topology scenario's cluster: blocks of racks of nodes, labelled with the shipped profile's
// levels. Rack names repeat in each block: a rack is a domain only with its block.
var (
	topoBlocks       = []string{"b1", "b2"}
	topoRacks        = []string{"r1", "r2"}
	topoNodesPerRack = 2
	topoNodeCPU      = "4"
)

// topoGroup is a PodGroup asking for a rack, and its pods, all alike.
type topoGroup struct {
	name     string
	members  int32
	cpu      string
	required bool
}

// The groups come one after the other. Each rack holds 4 pods of 2 cpu; the scheduler's default
// scores would spread a group's pods over the emptiest nodes, whatever rack they are in.
var topoGroups = []topoGroup{
	// Fills a rack exactly.
	{name: "allreduce", members: 4, cpu: "2", required: true},
	// Fits any free rack; the least room left over is beside allreduce, keeping block b2 whole.
	{name: "finetune", members: 3, cpu: "2", required: true},
	// Fits a rack of b2, not the room finetune left.
	{name: "eval", members: 4, cpu: "1", required: false},
}

func (g topoGroup) annotation() string {
	if g.required {
		return topology.RequiredAnnotation
	}
	return topology.PreferredAnnotation
}

func topoNodeName(block, rack string, i int) string {
	return fmt.Sprintf("%s-%s-%d", block, rack, i)
}

func runTopology(ctx context.Context, d *demo, s *Section) error {
	for _, b := range topoBlocks {
		for _, r := range topoRacks {
			for i := 1; i <= topoNodesPerRack; i++ {
				n := newNode("topology", topoNodeName(b, r, i), resources("cpu", topoNodeCPU, "memory", "16Gi", "pods", "110"))
				n.Labels[topology.BlockLabel] = b
				n.Labels[topology.RackLabel] = r
				if err := d.createNodes(ctx, n); err != nil {
					return err
				}
			}
		}
	}
	d.progress("topology: created %d nodes of %s cpu: blocks %s x racks %s x %d nodes, labelled %s and %s",
		len(topoBlocks)*len(topoRacks)*topoNodesPerRack, topoNodeCPU, strings.Join(topoBlocks, ","), strings.Join(topoRacks, ","),
		topoNodesPerRack, topology.BlockLabel, topology.RackLabel)

	var pods []v1.Pod
	for _, g := range topoGroups {
		if err := d.createTopoGroup(ctx, g); err != nil {
			return err
		}
		got, err := d.settle(ctx, "topology", v1alpha1.PodGroupLabel+"="+g.name, int(g.members), time.Minute)
		if err != nil {
			return err
		}
		pods = append(pods, got...)
	}
	nodes, err := d.scenarioNodes(ctx, "topology")
	if err != nil {
		return err
	}
	groups, err := inspect.ListGangs(ctx, d.client, d.groups, "topology")
	if err != nil {
		return err
	}
	reportTopology(s, nodes, pods, groups)
	if d.opts.TopologySVG != "" {
		if err := writeTopologySVG(d.opts.TopologySVG, nodes, pods); err != nil {
			return fmt.Errorf("drawing the racks: %w", err)
		}
		d.res.TopologySVG = d.opts.TopologySVG
		d.progress("topology: drew the racks in %s", d.opts.TopologySVG)
	}
	return nil
}

// createTopoGroup creates the PodGroup, annotated with the rack level, and its pods.
func (d *demo) createTopoGroup(ctx context.Context, g topoGroup) error {
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: g.name, Namespace: "topology", Annotations: map[string]string{g.annotation(): topology.RackLabel}},
		Spec:       v1alpha1.PodGroupSpec{MinMember: g.members, ScheduleTimeoutSeconds: ptr.To[int32](gangTimeoutSeconds)},
	}
	if _, err := d.groups.SchedulingV1alpha1().PodGroups("topology").Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PodGroup %s: %w", g.name, err)
	}
	req := resources("cpu", g.cpu, "memory", "1Gi")
	for i := range g.members {
		p := newPod("topology", fmt.Sprintf("%s-%d", g.name, i), v1.ResourceRequirements{Requests: req, Limits: req})
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: g.name}
		if err := d.createPods(ctx, p); err != nil {
			return err
		}
	}
	d.progress("topology: created PodGroup %s (%s: %s) and %d pods of %s cpu each; waiting for the scheduler",
		g.name, g.annotation(), topology.RackLabel, g.members, g.cpu)
	return nil
}

// rackOf is a node's rack as a domain: block/rack, or "" for a node not in a rack.
func rackOf(n *v1.Node) string {
	if n == nil || n.Labels[topology.RackLabel] == "" {
		return ""
	}
	return n.Labels[topology.BlockLabel] + "/" + n.Labels[topology.RackLabel]
}

// reportTopology shows where each group's pods went, rack by rack, as `kubectl berth gangs` shows
// them, and judges that every group is whole inside one rack: the required ones must be, and the
// preferred one could be, since a rack had room for it when it came.
func reportTopology(s *Section, nodes []v1.Node, pods []v1.Pod, groups *inspect.Gangs) {
	s.Pods = pods
	byName := map[string]*v1.Node{}
	for i := range nodes {
		byName[nodes[i].Name] = &nodes[i]
	}
	s.printf("%d nodes of %s cpu in blocks %s, each of racks %s (labels %s, %s); three PodGroups, one after the other, "+
		"each asking for one %s.\n\n", len(nodes), topoNodeCPU, strings.Join(topoBlocks, ", "), strings.Join(topoRacks, ", "),
		topology.BlockLabel, topology.RackLabel, topology.RackLabel)
	rows := make([][]string, 0, len(pods))
	for i := range pods {
		p := &pods[i]
		cpu := p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU]
		n := byName[p.Spec.NodeName]
		rows = append(rows, []string{p.Name, p.Labels[v1alpha1.PodGroupLabel], cpu.String(), orNone(p.Spec.NodeName), orNone(rackOf(n))})
	}
	s.table([]string{"POD", "POD GROUP", "CPU", "NODE", "BLOCK/RACK"}, rows)
	if groups != nil {
		s.printf("\n$ kubectl berth gangs -n topology\n")
		s.report(func(w io.Writer) error { return groups.WriteTable(w, false) })
	}
	s.printf("\n")

	for _, g := range topoGroups {
		var racks []string
		bound := 0
		for i := range pods {
			p := &pods[i]
			if p.Labels[v1alpha1.PodGroupLabel] != g.name || p.Spec.NodeName == "" {
				continue
			}
			bound++
			r := orNone(rackOf(byName[p.Spec.NodeName]))
			if !slices.Contains(racks, r) {
				racks = append(racks, r)
			}
		}
		slices.Sort(racks)
		mode := "required"
		if !g.required {
			mode = "preferred, and a rack had room for it"
		}
		got := fmt.Sprintf("%d of %d pods bound, in rack(s) %s", bound, g.members, orNone(strings.Join(racks, ", ")))
		s.expect(fmt.Sprintf("group %s (%d x %s cpu, %s: %s, %s) is placed whole inside one rack", g.name, g.members, g.cpu,
			g.annotation(), topology.RackLabel, mode),
			bound == int(g.members) && len(racks) == 1 && racks[0] != "<none>", got)
	}
}
