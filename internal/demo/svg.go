package demo

import (
	"fmt"
	"html"
	"os"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/pkg/topology"
)

// The picture's layout, in pixels.
const (
	svgMargin   = 20
	svgLabelW   = 150 // the "GPU i (size)" column
	svgBarW     = 480 // the largest GPU's bar
	svgRowH     = 30
	svgBarH     = 20
	svgNodeGap  = 36 // a node's heading and the space above it
	svgTextW    = 360
	svgCharW    = 7 // roughly, at font-size 12, to decide whether a name fits in its segment
	svgFontSize = 12
)

// svgColors tell pods apart; a pod on several GPUs keeps its color.
// They are dark enough for white labels.
var svgColors = []string{"#4e79a7", "#d95f02", "#59a14f", "#e15759", "#7570b3", "#a6761d", "#b07aa1", "#1b9e77", "#9c755f", "#e7298a"}

// writeSVG draws each node's GPUs as bars as long as their memory, filled by the pods that share
// them.
func writeSVG(path string, report *inspect.GPUs) error {
	nodes := report.Nodes
	var largest int64 = 1
	rows := 0
	for _, n := range nodes {
		rows += len(n.GPUs)
		for _, g := range n.GPUs {
			largest = max(largest, g.Capacity)
		}
	}
	width := svgMargin*2 + svgLabelW + svgBarW + svgTextW
	height := svgMargin*2 + 30 + len(nodes)*svgNodeGap + rows*svgRowH

	color := map[string]string{}
	colorOf := func(pod string) string {
		c, ok := color[pod]
		if !ok {
			c = svgColors[len(color)%len(svgColors)]
			color[pod] = c
		}
		return c
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="%d">`+"\n",
		width, height, width, height, svgFontSize)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="16" font-weight="bold">berth demo: GPU memory per device (GiB), as berth shared it</text>`+"\n", svgMargin, svgMargin+14)
	y := svgMargin + 30
	for _, n := range nodes {
		y += svgNodeGap
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", svgMargin, y-10, html.EscapeString(n.Name))
		for _, g := range n.GPUs {
			x := svgMargin + svgLabelW
			w := int(g.Capacity * svgBarW / largest)
			fmt.Fprintf(&b, `<text x="%d" y="%d">GPU %d (%d GiB)</text>`+"\n", svgMargin+10, y+15, g.Index, g.Capacity)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#eeeeee" stroke="#555555"/>`+"\n", x, y, w, svgBarH)
			names := make([]string, len(g.Pods))
			for i, sh := range g.Pods {
				names[i] = fmt.Sprintf("%s (%d)", sh.Name, sh.Memory)
				sw := int(sh.Memory * svgBarW / largest)
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="white"><title>%s: %d GiB</title></rect>`+"\n",
					x, y, sw, svgBarH, colorOf(sh.Name), html.EscapeString(sh.Name), sh.Memory)
				if len(sh.Name)*svgCharW < sw-4 {
					fmt.Fprintf(&b, `<text x="%d" y="%d" fill="white">%s</text>`+"\n", x+4, y+15, html.EscapeString(sh.Name))
				}
				x += sw
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d">%d/%d used  %s</text>`+"\n",
				svgMargin+svgLabelW+svgBarW+12, y+15, g.Used, g.Capacity, html.EscapeString(strings.Join(names, ", ")))
			y += svgRowH
		}
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeTopologySVG draws the topology scenario's nodes grouped by block and rack, each node's cpu
// as a bar filled by the pods bound to it, colored by pod group.
func writeTopologySVG(path string, nodes []v1.Node, pods []v1.Pod) error {
	type rack struct {
		block, rack string
		nodes       []*v1.Node
	}
	var racks []*rack
	var largest int64 = 1
	for i := range nodes {
		n := &nodes[i]
		largest = max(largest, n.Status.Allocatable.Cpu().MilliValue())
		b, r := n.Labels[topology.BlockLabel], n.Labels[topology.RackLabel]
		j := slices.IndexFunc(racks, func(x *rack) bool { return x.block == b && x.rack == r })
		if j < 0 {
			racks = append(racks, &rack{block: b, rack: r})
			j = len(racks) - 1
		}
		racks[j].nodes = append(racks[j].nodes, n)
	}
	slices.SortStableFunc(racks, func(a, b *rack) int { return strings.Compare(a.block+"/"+a.rack, b.block+"/"+b.rack) })
	onNode := map[string][]*v1.Pod{}
	var groups []string
	for i := range pods {
		p := &pods[i]
		g := p.Labels[v1alpha1.PodGroupLabel]
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if p.Spec.NodeName != "" {
			onNode[p.Spec.NodeName] = append(onNode[p.Spec.NodeName], p)
		}
	}
	colorOf := func(group string) string { return svgColors[slices.Index(groups, group)%len(svgColors)] }

	const (
		blockGap = 34 // a block's heading and the space above it
		rackGap  = 28 // a rack's heading
		rackPad  = 10
	)
	height := svgMargin*2 + 30 + svgRowH*(len(groups)+1)
	for i, r := range racks {
		if i == 0 || racks[i-1].block != r.block {
			height += blockGap
		}
		height += rackGap + rackPad + len(r.nodes)*svgRowH
	}
	width := svgMargin*2 + svgLabelW + svgBarW + svgTextW

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="%d">`+"\n",
		width, height, width, height, svgFontSize)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="16" font-weight="bold">berth demo: pod groups placed by topology (cpu per node, by block and rack)</text>`+"\n", svgMargin, svgMargin+14)
	y := svgMargin + 30
	for i, r := range racks {
		if i == 0 || racks[i-1].block != r.block {
			y += blockGap
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="15" font-weight="bold">block %s (%s=%s)</text>`+"\n",
				svgMargin, y-10, html.EscapeString(r.block), topology.BlockLabel, html.EscapeString(r.block))
		}
		boxH := rackGap + len(r.nodes)*svgRowH
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#f7f7f7" stroke="#999999" rx="6"/>`+"\n",
			svgMargin, y, svgLabelW+svgBarW+svgTextW/2, boxH)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">rack %s/%s</text>`+"\n", svgMargin+8, y+18, html.EscapeString(r.block), html.EscapeString(r.rack))
		y += rackGap
		for _, n := range r.nodes {
			x := svgMargin + svgLabelW
			capacity := n.Status.Allocatable.Cpu().MilliValue()
			fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", svgMargin+18, y+15, html.EscapeString(n.Name))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#eeeeee" stroke="#555555"/>`+"\n", x, y, int(capacity*svgBarW/largest), svgBarH)
			var used int64
			for _, p := range onNode[n.Name] {
				cpu := p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
				used += cpu
				w := int(cpu * svgBarW / largest)
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="white"><title>%s: %dm cpu</title></rect>`+"\n",
					x, y, w, svgBarH, colorOf(p.Labels[v1alpha1.PodGroupLabel]), html.EscapeString(p.Name), cpu)
				if len(p.Name)*svgCharW < w-4 {
					fmt.Fprintf(&b, `<text x="%d" y="%d" fill="white">%s</text>`+"\n", x+4, y+15, html.EscapeString(p.Name))
				}
				x += w
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d">%g/%g cpu</text>`+"\n", svgMargin+svgLabelW+svgBarW+12, y+15, float64(used)/1000, float64(capacity)/1000)
			y += svgRowH
		}
		y += rackPad
	}
	y += svgRowH
	for _, g := range groups {
		asks := ""
		if i := slices.IndexFunc(topoGroups, func(t topoGroup) bool { return t.name == g }); i >= 0 {
			t := topoGroups[i]
			asks = fmt.Sprintf(": %d x %s cpu, %s: %s", t.members, t.cpu, t.annotation(), topology.RackLabel)
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="14" height="14" fill="%s"/><text x="%d" y="%d">pod group %s%s</text>`+"\n",
			svgMargin, y, colorOf(g), svgMargin+20, y+12, html.EscapeString(g), html.EscapeString(asks))
		y += svgRowH
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
