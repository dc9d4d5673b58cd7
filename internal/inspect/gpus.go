// Package inspect reads what berth (or the gpushare scheduler extender, or scheduler-plugins)
// recorded in a cluster and turns it into reports for people: which pods share each GPU, how far
// each gang has got and why its members wait, how much of each ElasticQuota is used and borrowed.
// It reads only the API objects, never a scheduler's memory, so what it shows is what any client
// of the cluster can check. kubectl-berth and the demo print these reports.
package inspect

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podroom"
)

// GPUs is every GPU of the nodes looked at and the pods holding its memory. Memory is in the unit
// the nodes report their GPU memory resource in (GiB with the gpushare device plugin's default).
type GPUs struct {
	Nodes []NodeGPUs `json:"nodes"`
	Total Usage      `json:"total"`
	// Problems are what could not be read (malformed annotations, a bound GPU pod that names no
	// devices, a device the node does not have), one sentence each. A GPU whose pods hold more
	// than it has is not a problem of reading: it shows as Used above Capacity.
	Problems []string `json:"problems,omitempty"`
	// DRA is the GPUs DRA drivers publish as ResourceSlices, with the claims holding them.
	DRA []DRANode `json:"dra,omitempty"`
}

// Usage sums memory over GPUs.
type Usage struct {
	GPUs     int   `json:"gpus"`
	Capacity int64 `json:"capacity"`
	Used     int64 `json:"used"`
	Free     int64 `json:"free"`
}

func (u *Usage) add(o Usage) {
	u.GPUs += o.GPUs
	u.Capacity += o.Capacity
	u.Used += o.Used
	u.Free += o.Free
}

// NodeGPUs is one node's GPUs.
type NodeGPUs struct {
	Name string `json:"name"`
	// SizesFrom says where the GPUs' sizes come from: the node's capacity split evenly, or the
	// berth.dev/gpu-memory annotation.
	SizesFrom string `json:"sizesFrom"`
	GPUs      []GPU  `json:"gpus"`
	Total     Usage  `json:"total"`
	// FreeWhole lists the GPUs nothing holds, and FreeWholeLink the worst link among them (from
	// the berth.dev/gpu-topology annotation; empty without it, or with fewer than two): what a pod
	// asking for that many whole GPUs would get here at best.
	FreeWhole     []int  `json:"freeWhole,omitempty"`
	FreeWholeLink string `json:"freeWholeLink,omitempty"`
}

// GPU is one device and the pods sharing it.
type GPU struct {
	Index    int     `json:"index"`
	Capacity int64   `json:"capacity"`
	Used     int64   `json:"used"`
	Free     int64   `json:"free"`
	Pods     []Share `json:"pods"`
	// Links are the GPU's links to the node's other GPUs, best first, and NUMA its NUMA node, as
	// the berth.dev/gpu-topology annotation states them; empty without it.
	Links []LinkGroup `json:"links,omitempty"`
	NUMA  *int        `json:"numa,omitempty"`
}

// LinkGroup is the GPUs one GPU reaches by one kind of link (NV#, PIX, PXB, PHB, NODE, SYS).
type LinkGroup struct {
	Link string `json:"link"`
	GPUs []int  `json:"gpus"`
}

// Share is the memory one pod holds on one GPU.
type Share struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Memory    int64  `json:"memory"`
}

// GPUsOf builds the report from Node objects and the pods bound to them. A pod's devices come from
// its annotations, berth's (berth.dev/gpu-devices) or the gpushare extender's
// (ALIYUN_COM_GPU_MEM_IDX and _POD); pods that have finished hold nothing. Nodes without GPUs are
// left out.
func GPUsOf(nodes []v1.Node, pods []v1.Pod, res gpu.ResourceNames) *GPUs {
	r := &GPUs{Nodes: []NodeGPUs{}}
	links := make(map[string]*gpu.Links, len(nodes))
	gpus := make(map[string]int, len(nodes))
	// What each GPU holds is the node's room as the scheduler and kubectl berth why count it
	// (noderoom.Of); what follows adds where the sizes come from, the links, and what could not be
	// counted.
	for _, room := range noderoom.Of(nodes, pods, res) {
		n := room.Node
		_, sizesErr := gpu.DevicesOf(n, res)
		if sizesErr != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("node %s: %v", n.Name, sizesErr))
		}
		gpus[n.Name] = len(room.GPUs)
		if len(room.GPUs) == 0 {
			continue
		}
		v := NodeGPUs{Name: n.Name, SizesFrom: fmt.Sprintf("%s / %s", res.Memory, res.Count)}
		if a, ok := n.Annotations[gpu.NodeGPUMemoryAnnotation]; ok && sizesErr == nil {
			v.SizesFrom = fmt.Sprintf("annotation %s=%q", gpu.NodeGPUMemoryAnnotation, a)
		}
		t, terr := gpu.LinksOf(n, len(room.GPUs))
		if terr != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("node %s: %v", n.Name, terr))
		}
		for i, g := range room.GPUs {
			d := GPU{Index: i, Capacity: g.Capacity, Used: g.Capacity - g.Free, Pods: []Share{}, Links: linksOf(t, i), NUMA: numaOf(t, i)}
			for _, s := range g.Shares {
				d.Pods = append(d.Pods, Share{Namespace: s.Pod.Namespace, Name: s.Pod.Name, Memory: s.Memory})
			}
			v.GPUs = append(v.GPUs, d)
		}
		links[n.Name] = t
		r.Nodes = append(r.Nodes, v)
	}

	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || !podroom.Holds(p) {
			continue
		}
		a, ok, err := gpu.AssignmentOf(p)
		if err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("pod %s/%s: %v; not counted", p.Namespace, p.Name, err))
			continue
		}
		if !ok {
			if req, err := gpu.RequestOf(p, res.Memory); err == nil && req.Total > 0 {
				r.Problems = append(r.Problems, fmt.Sprintf("pod %s/%s on %s asks for %d %s but names no devices (annotation %s); not counted",
					p.Namespace, p.Name, p.Spec.NodeName, req.Total, res.Memory, gpu.PodGPUDevicesAnnotation))
			}
			continue
		}
		count, asked := gpus[p.Spec.NodeName]
		switch {
		case !asked:
			// A node that was not asked about.
		case count == 0:
			r.Problems = append(r.Problems, fmt.Sprintf("pod %s/%s holds GPUs %s on %s, which reports no GPUs", p.Namespace, p.Name, a, p.Spec.NodeName))
		default:
			for _, s := range a {
				if s.Index >= count {
					r.Problems = append(r.Problems, fmt.Sprintf("pod %s/%s holds GPU %d of %s, which has %d GPUs", p.Namespace, p.Name, s.Index, p.Spec.NodeName, count))
				}
			}
		}
	}

	for i := range r.Nodes {
		n := &r.Nodes[i]
		for j := range n.GPUs {
			g := &n.GPUs[j]
			// Largest share first: the pods that matter most for what is left.
			sort.SliceStable(g.Pods, func(a, b int) bool {
				if g.Pods[a].Memory != g.Pods[b].Memory {
					return g.Pods[a].Memory > g.Pods[b].Memory
				}
				return g.Pods[a].Namespace+"/"+g.Pods[a].Name < g.Pods[b].Namespace+"/"+g.Pods[b].Name
			})
			g.Free = max(g.Capacity-g.Used, 0)
			n.Total.add(Usage{GPUs: 1, Capacity: g.Capacity, Used: g.Used, Free: g.Free})
			if g.Used == 0 {
				n.FreeWhole = append(n.FreeWhole, g.Index)
			}
		}
		if t := links[n.Name]; t != nil && len(n.FreeWhole) > 1 {
			n.FreeWholeLink = t.WorstLink(n.FreeWhole).String()
		}
		r.Total.add(n.Total)
	}
	return r
}

// linksOf groups GPU i's links to the others by kind, best first; nil without links.
func linksOf(t *gpu.Links, i int) []LinkGroup {
	if t == nil {
		return nil
	}
	byLink := map[gpu.Link][]int{}
	for j := 0; j < t.Len(); j++ {
		if j != i {
			byLink[t.Link(i, j)] = append(byLink[t.Link(i, j)], j)
		}
	}
	kinds := make([]gpu.Link, 0, len(byLink))
	for l := range byLink {
		kinds = append(kinds, l)
	}
	sort.Slice(kinds, func(a, b int) bool { return kinds[a] > kinds[b] })
	groups := make([]LinkGroup, len(kinds))
	for k, l := range kinds {
		groups[k] = LinkGroup{Link: l.String(), GPUs: byLink[l]}
	}
	return groups
}

// numaOf is GPU i's NUMA node, nil when unknown.
func numaOf(t *gpu.Links, i int) *int {
	if t == nil || t.NUMA(i) < 0 {
		return nil
	}
	n := t.NUMA(i)
	return &n
}

// linksText is a GPU's links as "NV12 1-3, SYS 4-7, NUMA 0".
func linksText(g GPU) string {
	parts := make([]string, 0, len(g.Links)+1)
	for _, l := range g.Links {
		parts = append(parts, l.Link+" "+indexRanges(l.GPUs))
	}
	if g.NUMA != nil {
		parts = append(parts, fmt.Sprintf("NUMA %d", *g.NUMA))
	}
	return strings.Join(parts, ", ")
}

// indexRanges writes sorted indices as ranges: 0-3,6.
func indexRanges(ix []int) string {
	var b strings.Builder
	for k := 0; k < len(ix); {
		j := k
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ix[k]))
		if j > k {
			b.WriteString("-" + strconv.Itoa(ix[j]))
		}
		k = j + 1
	}
	return b.String()
}

// ListGPUs reads the report from the cluster: every node's GPUs, or only node's if it is not
// empty. A named node that does not exist or has no GPUs is an error.
func ListGPUs(ctx context.Context, client kubernetes.Interface, res gpu.ResourceNames, node string) (*GPUs, error) {
	// Finished pods hold no GPU memory: leave them on the server.
	selectors := []fields.Selector{
		fields.OneTermNotEqualSelector("status.phase", string(v1.PodSucceeded)),
		fields.OneTermNotEqualSelector("status.phase", string(v1.PodFailed)),
	}
	var nodes []v1.Node
	if node == "" {
		list, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing nodes: %w", err)
		}
		nodes = list.Items
	} else {
		n, err := client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("getting node: %w", err)
		}
		nodes = []v1.Node{*n}
		selectors = append(selectors, fields.OneTermEqualSelector("spec.nodeName", node))
	}
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(selectors...).String()})
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	r := GPUsOf(nodes, pods.Items, res)
	draNodes, problems, err := listDRA(ctx, client, node)
	if err != nil {
		return nil, err
	}
	gpushare := map[string]bool{}
	for _, n := range r.Nodes {
		gpushare[n.Name] = true
	}
	r.DRA = DRAGPUsOf(draNodes, gpushare)
	r.Problems = append(r.Problems, problems...)
	if node != "" && len(r.Nodes) == 0 && len(r.DRA) == 0 {
		why := fmt.Sprintf("its capacity has no %s and %s", res.Count, res.Memory)
		if len(r.Problems) > 0 {
			why = strings.Join(r.Problems, "; ")
		}
		return nil, fmt.Errorf("node %s has no GPUs: %s", node, why)
	}
	return r, nil
}

// WriteTable prints one row per GPU, a total per node and one for all nodes. Wide adds a bar of
// each GPU's use, its links (with the berth.dev/gpu-topology annotation), which GPUs are free whole
// and the worst link among them, and where each node's GPU sizes come from.
func (r *GPUs) WriteTable(w io.Writer, wide bool) error {
	if len(r.Nodes) == 0 && len(r.DRA) > 0 {
		// A cluster (or node) with DRA GPUs only: no empty gpushare table above them.
		if err := writeDRATable(w, r.DRA); err != nil {
			return err
		}
		return writeProblems(w, r.Problems)
	}
	header := []string{"NODE", "GPU", "USED/TOTAL", "FREE", "PODS"}
	if wide {
		header = []string{"NODE", "GPU", "USED/TOTAL", "FREE", "USE", "LINKS", "PODS"}
	}
	t := newTable(w, header...)
	row := func(node, gpuCol string, used, capacity, free int64, links, pods string) {
		cells := []string{node, gpuCol, fmt.Sprintf("%d/%d", used, capacity), strconv.FormatInt(free, 10)}
		if wide {
			cells = append(cells, Bar(used, capacity, 20), links)
		}
		t.row(append(cells, pods)...)
	}
	for _, n := range r.Nodes {
		for i, g := range n.GPUs {
			name := ""
			if i == 0 {
				name = n.Name
			}
			row(name, strconv.Itoa(g.Index), g.Used, g.Capacity, g.Free, linksText(g), sharesText(g.Pods))
		}
		sizes, free := "", ""
		if wide {
			sizes = "sizes from " + n.SizesFrom
			free = freeWholeText(n)
		}
		row("", "total", n.Total.Used, n.Total.Capacity, n.Total.Free, free, sizes)
	}
	row("TOTAL", plural(r.Total.GPUs, "GPU"), r.Total.Used, r.Total.Capacity, r.Total.Free, "", percent(r.Total.Used, r.Total.Capacity))
	if err := t.flush(); err != nil {
		return err
	}
	if len(r.DRA) > 0 {
		fmt.Fprintln(w)
	}
	if err := writeDRATable(w, r.DRA); err != nil {
		return err
	}
	return writeProblems(w, r.Problems)
}

// freeWholeText says, for a node whose links are known, which GPUs nothing holds and the worst
// link among them.
func freeWholeText(n NodeGPUs) string {
	switch {
	case len(n.GPUs) == 0 || n.GPUs[0].Links == nil:
		// Without links every free GPU is as good as another: the rows above say which are free.
		return ""
	case len(n.FreeWhole) == 0:
		return "no GPU free whole"
	case n.FreeWholeLink != "":
		return fmt.Sprintf("free whole %s, worst link %s", indexRanges(n.FreeWhole), n.FreeWholeLink)
	default:
		return "free whole " + indexRanges(n.FreeWhole)
	}
}

// sharesText is a GPU's pods as "ns/name (memory)".
func sharesText(shares []Share) string {
	parts := make([]string, len(shares))
	for i, s := range shares {
		parts[i] = fmt.Sprintf("%s/%s (%d)", s.Namespace, s.Name, s.Memory)
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func percent(used, total int64) string {
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%d%% used", used*100/total)
}

// Bar draws used out of total as a text bar of width characters.
func Bar(used, total int64, width int) string {
	filled := 0
	if total > 0 {
		filled = int(min(used, total) * int64(width) / total)
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "]"
}
