package demo

import (
	"fmt"
	"html"
	"os"
	"strings"

	"github.com/berth-sched/berth/internal/inspect"
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
