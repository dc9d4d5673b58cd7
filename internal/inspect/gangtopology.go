package inspect

import (
	"context"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/pkg/why"
)

// GangTopology is what a PodGroup asks of the topology and where it stands.
type GangTopology struct {
	// Level is the node label key the PodGroup's berth.dev/topology-required or -preferred names.
	Level string `json:"level"`
	// Mode is "required" or "preferred"; Invalid says why the annotations cannot be honoured.
	Mode    string `json:"mode,omitempty"`
	Invalid string `json:"invalid,omitempty"`
	// Domains are the domains of Level its placed members are in: one, unless they were spread
	// (preferred, or placed before the annotation).
	Domains []topology.Domain `json:"domains,omitempty"`
	// LargestRoom, for a group with waiting members, is the most members like its largest waiting
	// one that any single domain of Level has room for.
	LargestRoom *int `json:"largestRoom,omitempty"`
	// ToPlace, with LargestRoom, is how many members the group still needs placed, as Gang counts
	// them (why.TopologyNeedOf).
	ToPlace int `json:"toPlace,omitempty"`
}

// hasTopology reports whether a group asks for a level: the table then gets a column for it.
func (r *Gangs) hasTopology() bool {
	return slices.ContainsFunc(r.Groups, func(g Gang) bool { return g.Topology != nil })
}

// topologyCell is the table's TOPOLOGY cell: where the group is, or what it waits for.
func (g *Gang) topologyCell() string {
	t := g.Topology
	switch {
	case t == nil:
		return "<none>"
	case t.Invalid != "":
		return "invalid: " + t.Invalid
	case len(t.Domains) > 0:
		var ds []string
		for _, d := range t.Domains {
			ds = append(ds, string(d))
		}
		return fmt.Sprintf("%s=%s", t.Level, strings.Join(ds, ","))
	case t.LargestRoom != nil:
		return fmt.Sprintf("needs one %s (%s); largest room %d of %d", t.Level, t.Mode, *t.LargestRoom, t.ToPlace)
	}
	return fmt.Sprintf("%s (%s)", t.Level, t.Mode)
}

// addTopology fills in each group's topology from its PodGroup's annotations, levels (the
// scheduler's topologyLevels, outermost first), the nodes and every pod bound to them.
func (r *Gangs) addTopology(groups []*podgroup.Group, members, all []v1.Pod, nodes []v1.Node, levels topology.Levels) {
	asks := map[types.NamespacedName]topology.Constraint{}
	minMembers := map[types.NamespacedName]int32{}
	byKey := map[types.NamespacedName]*Gang{}
	for i := range r.Groups {
		byKey[types.NamespacedName{Namespace: r.Groups[i].Namespace, Name: r.Groups[i].Name}] = &r.Groups[i]
	}
	for _, pg := range groups {
		key := pg.Key
		g := byKey[key]
		c, ok, err := levels.ConstraintOf(pg.Topology)
		switch {
		case g == nil:
		case err != nil:
			g.Topology = &GangTopology{Level: pg.Topology[topology.RequiredAnnotation] + pg.Topology[topology.PreferredAnnotation], Invalid: err.Error()}
		case ok:
			g.Topology = &GangTopology{Level: c.Key, Mode: c.Mode()}
			asks[key], minMembers[key] = c, pg.MinMember
		}
	}
	if len(asks) == 0 {
		return
	}
	labels := map[string]map[string]string{}
	for _, n := range nodes {
		labels[n.Name] = n.Labels
	}
	// The members as Gang counts them (podgroup.Live): a finished or deleting pod holds no place.
	bound := map[types.NamespacedName][]*v1.Pod{}
	waiting := map[types.NamespacedName][]*v1.Pod{}
	for i := range members {
		p := &members[i]
		key, _ := podgroup.APIKeyOf(p)
		if _, ok := asks[key]; !ok || !podgroup.Live(p) {
			continue
		}
		if p.Spec.NodeName != "" {
			bound[key] = append(bound[key], p)
		} else {
			waiting[key] = append(waiting[key], p)
		}
	}
	var rooms []*noderoom.Node
	for key, c := range asks {
		t := byKey[key].Topology
		n := why.TopologyNeedOf(bound[key], waiting[key], minMembers[key], labels, levels, c.Level)
		if t.Domains = n.Fixed; len(n.Fixed) > 0 || n.Count == 0 {
			slices.Sort(t.Domains)
			continue
		}
		if rooms == nil {
			rooms = noderoom.Of(nodes, all, gpu.DefaultResourceNames())
		}
		largest := 0
		// The group's members share their tolerations, which the scheduler's choice reads.
		for _, r := range why.DomainRooms(rooms, levels, c.Level, n.Largest.Spec.Tolerations, n.Member) {
			largest = max(largest, r)
		}
		t.LargestRoom, t.ToPlace = &largest, n.Count
	}
}

// listTopology reads what addTopology needs, only when a group asks for a level; levels are the
// scheduler's topologyLevels.
func (r *Gangs) listTopology(ctx context.Context, client kubernetes.Interface, groups []*podgroup.Group, members []v1.Pod, levels topology.Levels) error {
	asks := slices.ContainsFunc(groups, func(pg *podgroup.Group) bool { return len(pg.Topology) > 0 })
	if !asks {
		return nil
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	all, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
	if err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	r.addTopology(groups, members, all.Items, nodes.Items, levels)
	return nil
}
