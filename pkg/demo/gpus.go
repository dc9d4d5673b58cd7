package demo

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	configv1 "github.com/berth-sched/berth/pkg/apis/config/v1"
	"github.com/berth-sched/berth/pkg/gpu"
)

// gpuResources are the gpushare resources, as GPUShare reads them by default. Nodes report memory
// in GiB, the gpushare device plugin's default unit.
var gpuResources = gpu.Resources{
	Memory: v1.ResourceName(configv1.DefaultMemoryResource),
	Count:  v1.ResourceName(configv1.DefaultCountResource),
}

// gpuNodes: two nodes of two equal GPUs, and one with GPUs of two sizes stated per GPU.
var gpuNodes = []struct {
	name      string
	count     string
	memory    string
	perDevice string // the berth.dev/gpu-memory annotation, if any
}{
	{name: "gpu-a", count: "2", memory: "32"},
	{name: "gpu-b", count: "2", memory: "32"},
	{name: "gpu-mixed", count: "4", memory: "80", perDevice: "16,16,24,24"},
}

// gpuPods ask for more than the GPUs hold, in sizes that share GPUs; one asks for two GPUs, one
// for more than any GPU holds.
var gpuPods = []struct {
	name   string
	memory string // the container's limit: the pod's total
	count  string // the berth.dev/gpu-count annotation, if any
}{
	{name: "train-2x8", memory: "16", count: "2"},
	{name: "infer-4a", memory: "4"},
	{name: "infer-4b", memory: "4"},
	{name: "infer-8a", memory: "8"},
	{name: "infer-8b", memory: "8"},
	{name: "infer-12a", memory: "12"},
	{name: "infer-12b", memory: "12"},
	{name: "infer-12c", memory: "12"},
	{name: "render-20a", memory: "20"},
	{name: "render-20b", memory: "20"},
	{name: "render-24", memory: "24"},
	{name: "giant-32", memory: "32"},
}

// gpuNodeView is one node's GPUs as the pods' annotations fill them.
type gpuNodeView struct {
	name    string
	devices []gpuView
	source  string // where the per-GPU sizes come from
}

type gpuView struct {
	capacity int64
	shares   []podShare
}

type podShare struct {
	pod    string
	memory int64
}

func (g gpuView) used() int64 {
	var u int64
	for _, s := range g.shares {
		u += s.memory
	}
	return u
}

func (g gpuView) pods() string {
	parts := make([]string, len(g.shares))
	for i, s := range g.shares {
		parts[i] = fmt.Sprintf("%s (%d)", s.pod, s.memory)
	}
	return strings.Join(parts, ", ")
}

func runGPUs(ctx context.Context, d *demo, s *Section) error {
	for _, n := range gpuNodes {
		node := newNode("gpus", n.name, resources("cpu", "32", "memory", "128Gi", "pods", "110",
			string(gpuResources.Count), n.count, string(gpuResources.Memory), n.memory))
		if n.perDevice != "" {
			node.Annotations = map[string]string{gpu.NodeGPUMemoryAnnotation: n.perDevice}
		}
		if err := d.createNodes(ctx, node); err != nil {
			return err
		}
	}
	for _, p := range gpuPods {
		pod := newPod("gpus", p.name, v1.ResourceRequirements{Limits: resources(string(gpuResources.Memory), p.memory)})
		if p.count != "" {
			pod.Annotations = map[string]string{gpu.PodGPUCountAnnotation: p.count}
		}
		if err := d.createPods(ctx, pod); err != nil {
			return err
		}
	}
	d.progress("gpus: created %d GPU nodes and %d GPU pods; waiting for the scheduler", len(gpuNodes), len(gpuPods))
	pods, err := d.settle(ctx, "gpus", "", len(gpuPods), time.Minute)
	if err != nil {
		return err
	}
	nodes, err := d.scenarioNodes(ctx, "gpus")
	if err != nil {
		return err
	}
	views := reportGPUs(s, nodes, pods)
	if d.opts.SVG != "" {
		if err := writeSVG(d.opts.SVG, views); err != nil {
			return fmt.Errorf("writing the picture: %w", err)
		}
		d.res.SVG = d.opts.SVG
		d.progress("gpus: drew the GPUs in %s", d.opts.SVG)
	}
	return nil
}

// reportGPUs shows which devices each pod got and how full each GPU is, judges it, and returns
// the nodes' GPUs for the picture.
func reportGPUs(s *Section, nodes []v1.Node, pods []v1.Pod) []*gpuNodeView {
	// Smallest request first: the table reads as sizes, not as names.
	sort.SliceStable(pods, func(i, j int) bool {
		ri, _ := gpu.RequestOf(&pods[i], gpuResources.Memory)
		rj, _ := gpu.RequestOf(&pods[j], gpuResources.Memory)
		return ri.Total < rj.Total
	})
	s.Pods = pods
	bound, waiting := split(pods)

	// The devices of each node, filled from the pods' annotations; every fault found on the way
	// is a contradiction of what GPUShare promises.
	views := make(map[string]*gpuNodeView, len(nodes))
	var order []*gpuNodeView
	var faults []string
	for i := range nodes {
		n := &nodes[i]
		caps, err := gpu.DevicesOf(n, gpuResources)
		if err != nil {
			faults = append(faults, fmt.Sprintf("node %s: %v", n.Name, err))
		}
		v := &gpuNodeView{name: n.Name, source: fmt.Sprintf("%s / %s", gpuResources.Memory, gpuResources.Count)}
		if a, ok := n.Annotations[gpu.NodeGPUMemoryAnnotation]; ok {
			v.source = fmt.Sprintf("annotation %s=%q", gpu.NodeGPUMemoryAnnotation, a)
		}
		for _, c := range caps {
			v.devices = append(v.devices, gpuView{capacity: c})
		}
		views[n.Name] = v
		order = append(order, v)
	}

	rows := make([][]string, 0, len(pods))
	for i := range pods {
		p := &pods[i]
		req, err := gpu.RequestOf(p, gpuResources.Memory)
		if err != nil {
			faults = append(faults, fmt.Sprintf("pod %s: %v", p.Name, err))
		}
		devices, ok := p.Annotations[gpu.PodGPUDevicesAnnotation]
		idx, hasIdx := p.Annotations[gpu.GPUShareIndexAnnotation]
		rows = append(rows, []string{p.Name, asks(req), orNone(p.Spec.NodeName), orNone(devices), orNone(idx), string(p.Status.Phase)})
		if p.Spec.NodeName == "" {
			continue
		}
		if !ok {
			faults = append(faults, fmt.Sprintf("pod %s is bound to %s without annotation %s", p.Name, p.Spec.NodeName, gpu.PodGPUDevicesAnnotation))
			continue
		}
		a, err := gpu.ParseAssignment(devices)
		if err != nil {
			faults = append(faults, fmt.Sprintf("pod %s: annotation %s=%q: %v", p.Name, gpu.PodGPUDevicesAnnotation, devices, err))
			continue
		}
		if len(a) != req.Count || a.Total() != req.Total {
			faults = append(faults, fmt.Sprintf("pod %s asks for %s but got %s", p.Name, asks(req), a))
		}
		if len(a) == 1 && (!hasIdx || idx != strconv.Itoa(a[0].Index)) {
			faults = append(faults, fmt.Sprintf("pod %s got GPU %d but its %s is %q", p.Name, a[0].Index, gpu.GPUShareIndexAnnotation, idx))
		}
		v := views[p.Spec.NodeName]
		for _, share := range a {
			if v == nil || share.Index >= len(v.devices) {
				faults = append(faults, fmt.Sprintf("pod %s holds GPU %d of %s, which the node does not have", p.Name, share.Index, p.Spec.NodeName))
				continue
			}
			v.devices[share.Index].shares = append(v.devices[share.Index].shares, podShare{pod: p.Name, memory: share.Memory})
		}
	}

	s.printf("%d GPU nodes, %d pods asking for GPU memory (%s in container limits, GiB; %s for more than one GPU).\n",
		len(nodes), len(pods), gpuResources.Memory, gpu.PodGPUCountAnnotation)
	s.printf("Where each pod landed, and the devices berth wrote on it before binding:\n\n")
	s.table([]string{"POD", "ASKS (GiB)", "NODE", gpu.PodGPUDevicesAnnotation, gpu.GPUShareIndexAnnotation, "PHASE"}, rows)

	s.printf("\nEach GPU, and the pods sharing it (used/total GiB):\n")
	shared, overfull := 0, []string{}
	for _, v := range order {
		s.printf("  %s: %d GPUs, sizes from %s\n", v.name, len(v.devices), v.source)
		for i, g := range v.devices {
			s.printf("    GPU %d  %s  %2d/%-2d  %s\n", i, bar(g.used(), g.capacity, 24), g.used(), g.capacity, g.pods())
			if len(g.shares) > 1 {
				shared++
			}
			if g.used() > g.capacity {
				overfull = append(overfull, fmt.Sprintf("%s GPU %d holds %d of %d", v.name, i, g.used(), g.capacity))
			}
		}
	}
	s.whyWaiting(waiting)
	s.printf("\n")

	s.expect("every bound pod carries the devices it got, as many GPUs as it asked for, single-GPU pods with their gpushare index",
		len(faults) == 0, orText(strings.Join(faults, "; "), fmt.Sprintf("all %d bound pods do", len(bound))))
	s.expect("no GPU holds more memory than it has", len(overfull) == 0,
		orText(strings.Join(overfull, "; "), "every GPU is within its size"))
	s.expect("pods share GPUs", shared > 0, fmt.Sprintf("%d GPU(s) hold more than one pod", shared))
	s.expectWaitingDoNotFit(waiting, order)
	return order
}

// expectWaitingDoNotFit checks that no waiting pod fits into what is left on any node: space only
// ran out while the pods were placed, so a pod that fits now would have fitted when it was tried.
func (s *Section) expectWaitingDoNotFit(waiting []v1.Pod, nodes []*gpuNodeView) {
	var wrong []string
	for i := range waiting {
		req, err := gpu.RequestOf(&waiting[i], gpuResources.Memory)
		if err != nil {
			continue // reported with the pods above
		}
		for _, n := range nodes {
			devs := make([]gpu.Device, len(n.devices))
			for j, g := range n.devices {
				devs[j] = gpu.Device{Capacity: g.capacity, Used: g.used()}
			}
			if a, err := gpu.Fit(devs, req, gpu.Binpack); err == nil {
				wrong = append(wrong, fmt.Sprintf("%s waits but fits on %s (devices %s)", waiting[i].Name, n.name, a))
			}
		}
	}
	s.expect("more is asked than there is, and every pod that waits fits on no node's free GPU memory",
		len(waiting) > 0 && len(wrong) == 0,
		orText(strings.Join(wrong, "; "), fmt.Sprintf("%d pod(s) wait, none of which fits", len(waiting))))
}

// asks is a request as "8" or "2x8".
func asks(r gpu.Request) string {
	if r.Count > 1 {
		return fmt.Sprintf("%dx%d", r.Count, r.PerDevice)
	}
	return strconv.FormatInt(r.Total, 10)
}

func orText(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
