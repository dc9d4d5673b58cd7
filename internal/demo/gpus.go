package demo

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/internal/kwok"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/podroom"
)

// gpuResources are the gpushare resources, as GPUShare reads them by default. Nodes report memory
// in GiB, the gpushare device plugin's default unit.
var gpuResources = gpu.DefaultResourceNames()

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
// for more than any GPU holds. The inference pods finish after a while.
var gpuPods = []struct {
	name    string
	memory  string // the container's limit: the pod's total
	count   string // the berth.dev/gpu-count annotation, if any
	runsFor time.Duration
}{
	{name: "train-2x8", memory: "16", count: "2"},
	{name: "infer-4a", memory: "4", runsFor: gpuRunTime},
	{name: "infer-4b", memory: "4", runsFor: gpuRunTime},
	{name: "infer-8a", memory: "8", runsFor: gpuRunTime},
	{name: "infer-8b", memory: "8", runsFor: gpuRunTime},
	{name: "infer-12a", memory: "12", runsFor: gpuRunTime},
	{name: "infer-12b", memory: "12", runsFor: gpuRunTime},
	{name: "infer-12c", memory: "12", runsFor: gpuRunTime},
	{name: "render-20a", memory: "20"},
	{name: "render-20b", memory: "20"},
	{name: "render-24", memory: "24"},
	{name: "giant-32", memory: "32"},
}

const (
	// gpuRunTime is how long the pods that finish run: long enough for the first report to be
	// taken while they hold their memory.
	gpuRunTime = 10 * time.Second
	// reuseNode has one GPU that a batch pod holds while a second waits for it; a taint keeps
	// the other pods off it.
	reuseNode  = "gpu-small"
	reuseTaint = "berth.dev/demo-reuse"
	batchPod   = "batch-12"
	nextPod    = "next-12"
)

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
	small := newNode("gpus", reuseNode, resources("cpu", "32", "memory", "128Gi", "pods", "110",
		string(gpuResources.Count), "1", string(gpuResources.Memory), "16"))
	small.Spec.Taints = []v1.Taint{{Key: reuseTaint, Value: "true", Effect: v1.TaintEffectNoSchedule}}
	if err := d.createNodes(ctx, small); err != nil {
		return err
	}
	for _, p := range gpuPods {
		pod := newGPUPod(p.name, p.memory)
		if p.count != "" {
			pod.Annotations = map[string]string{gpu.PodGPUCountAnnotation: p.count}
		}
		if p.runsFor > 0 {
			pod.Annotations = kwok.RunsFor(pod.Annotations, p.runsFor)
		}
		if err := d.createPods(ctx, pod); err != nil {
			return err
		}
	}
	// The second pod for the small GPU comes once the first holds it, so the order is certain.
	batch := newReusePod(batchPod)
	batch.Annotations = kwok.RunsFor(nil, gpuRunTime)
	if err := d.createPods(ctx, batch); err != nil {
		return err
	}
	if err := d.waitFor(ctx, "gpus", batchPod+" bound", func(pods []v1.Pod) bool { return boundNamed(pods, batchPod) != "" }); err != nil {
		return err
	}
	if err := d.createPods(ctx, newReusePod(nextPod)); err != nil {
		return err
	}
	want := len(gpuPods) + 2
	d.progress("gpus: created %d GPU nodes and %d GPU pods; waiting for the scheduler", len(gpuNodes)+1, want)
	pods, err := d.settle(ctx, "gpus", "", want, time.Minute)
	if err != nil {
		return err
	}
	nodes, err := d.scenarioNodes(ctx, "gpus")
	if err != nil {
		return err
	}
	before := reportGPUs(s, nodes, pods)
	if d.opts.SVG != "" {
		if err := writeSVG(d.opts.SVG, before); err != nil {
			return fmt.Errorf("writing the picture: %w", err)
		}
		d.res.SVG = d.opts.SVG
		d.progress("gpus: drew the GPUs in %s", d.opts.SVG)
	}

	d.progress("gpus: waiting for the pods that run for %v to finish and for the scheduler to place what fits in the memory they give back", gpuRunTime)
	after, err := d.settleUntil(ctx, "gpus", "", want, gpuRunTime+time.Minute, func(pods []v1.Pod) bool {
		return len(unfinished(pods)) == 0
	})
	if err != nil {
		return err
	}
	reportGPUsAfter(s, nodes, pods, after)
	return nil
}

func newGPUPod(name, memory string) *v1.Pod {
	return newPod("gpus", name, v1.ResourceRequirements{Limits: resources(string(gpuResources.Memory), memory)})
}

// newReusePod is a pod for the small GPU's node only.
func newReusePod(name string) *v1.Pod {
	p := newGPUPod(name, "12")
	p.Spec.NodeSelector[v1.LabelHostname] = reuseNode
	p.Spec.Tolerations = []v1.Toleration{{Key: reuseTaint, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	return p
}

// reportGPUs shows which devices each pod got and, as `kubectl berth gpus` does, how full each
// GPU is; it judges what it shows and returns the GPUs for the picture.
func reportGPUs(s *Section, nodes []v1.Node, pods []v1.Pod) *inspect.GPUs {
	// Smallest request first: the table reads as sizes, not as names.
	sort.SliceStable(pods, func(i, j int) bool {
		ri, _ := gpu.RequestOf(&pods[i], gpuResources.Memory)
		rj, _ := gpu.RequestOf(&pods[j], gpuResources.Memory)
		return ri.Total < rj.Total
	})
	s.Pods = pods
	bound, waiting := split(pods)
	report := inspect.GPUsOf(nodes, pods, gpuResources)

	s.printf("%d GPU nodes, %d pods asking for GPU memory (%s in container limits, GiB; %s for more than one GPU).\n",
		len(nodes), len(pods), gpuResources.Memory, gpu.PodGPUCountAnnotation)
	s.printf("Where each pod landed, and the devices berth wrote on it before binding:\n\n")
	s.table([]string{"POD", "ASKS (GiB)", "NODE", gpu.PodGPUDevicesAnnotation, gpu.GPUShareIndexAnnotation, "PHASE"}, podRows(pods))
	s.printf("\nEach GPU, and the pods sharing it (GiB):\n\n$ kubectl berth gpus -o wide\n")
	s.report(func(w io.Writer) error { return report.WriteTable(w, true) })
	s.whyWaiting(waiting)
	s.printf("\n")

	faults := deviceFaults(pods, report)
	s.expect("every bound pod carries the devices it got, as many GPUs as it asked for, single-GPU pods with their gpushare index",
		len(faults) == 0, orText(strings.Join(faults, "; "), fmt.Sprintf("all %d bound pods do", len(bound))))
	overfull, shared := overfullGPUs(report)
	s.expect("no GPU holds more memory than it has", len(overfull) == 0,
		orText(strings.Join(overfull, "; "), "every GPU is within its size"))
	s.expect("pods share GPUs", shared > 0, fmt.Sprintf("%d GPU(s) hold more than one pod", shared))
	s.expectWaitingDoNotFit(waiting, report)
	return report
}

// reportGPUsAfter shows the GPUs once the pods that finish have finished, and judges whether
// their memory came back and went to pods that waited.
func reportGPUsAfter(s *Section, nodes []v1.Node, before, after []v1.Pod) {
	s.Pods = after
	_, waiting := split(after)
	report := inspect.GPUsOf(nodes, after, gpuResources)
	var finished, placed []string
	for i := range after {
		p := &after[i]
		switch old := podNamed(before, p.Name); {
		case p.Status.Phase == v1.PodSucceeded:
			finished = append(finished, p.Name)
		case old != nil && old.Spec.NodeName == "" && p.Spec.NodeName != "":
			placed = append(placed, p.Name)
		}
	}
	s.printf("\nThe inference pods and %s ran for %v and finished (kwok ended them); the memory they held went back to the GPUs, "+
		"and the scheduler placed what fits in it (%s):\n\n$ kubectl berth gpus -o wide\n", batchPod, gpuRunTime, orText(strings.Join(placed, ", "), "none"))
	s.report(func(w io.Writer) error { return report.WriteTable(w, true) })
	s.whyWaiting(waiting)
	s.printf("\n")

	notRun := unfinished(after)
	for i := range after {
		if p := &after[i]; p.Spec.NodeName != "" && p.Status.Phase != v1.PodRunning && p.Status.Phase != v1.PodSucceeded {
			notRun = append(notRun, fmt.Sprintf("%s is %s", p.Name, p.Status.Phase))
		}
	}
	s.expect("bound pods run, and those given a run time finish", len(notRun) == 0 && len(finished) > 0,
		orText(strings.Join(notRun, "; "), fmt.Sprintf("%d finished: %s", len(finished), strings.Join(finished, ", "))))

	batchBefore, nextBefore, next := podNamed(before, batchPod), podNamed(before, nextPod), podNamed(after, nextPod)
	reused := batchBefore != nil && nextBefore != nil && next != nil && nextBefore.Spec.NodeName == "" &&
		batchBefore.Spec.NodeName == reuseNode && next.Spec.NodeName == reuseNode && sameDevices(batchBefore, next)
	s.expect(fmt.Sprintf("%s, which waited while %s held %s's GPU, gets that GPU once %s has finished", nextPod, batchPod, reuseNode, batchPod),
		reused, fmt.Sprintf("%s had %s; %s has %s", batchPod, devicesOf(batchBefore), nextPod, devicesOf(next)))
	overfull, _ := overfullGPUs(report)
	s.expect("no GPU holds more memory than it has", len(overfull) == 0,
		orText(strings.Join(overfull, "; "), "every GPU is within its size"))
	s.expectWaitingDoNotFit(waiting, report)
}

// podRows are the pods' rows of the placement table.
func podRows(pods []v1.Pod) [][]string {
	rows := make([][]string, 0, len(pods))
	for i := range pods {
		p := &pods[i]
		req, _ := gpu.RequestOf(p, gpuResources.Memory)
		rows = append(rows, []string{p.Name, asks(req), orNone(p.Spec.NodeName), orNone(p.Annotations[gpu.PodGPUDevicesAnnotation]),
			orNone(p.Annotations[gpu.GPUShareIndexAnnotation]), string(p.Status.Phase)})
	}
	return rows
}

// deviceFaults is what contradicts GPUShare's promise about the annotations of each bound pod
// that still holds its room (podroom.Holds, as the report counts it): the devices recorded, as
// many as asked for, the gpushare index of single-GPU pods; and whatever the report could not
// account for.
func deviceFaults(pods []v1.Pod, report *inspect.GPUs) []string {
	faults := append([]string{}, report.Problems...)
	for i := range pods {
		p := &pods[i]
		req, err := gpu.RequestOf(p, gpuResources.Memory)
		if err != nil {
			faults = append(faults, fmt.Sprintf("pod %s: %v", p.Name, err))
		}
		if p.Spec.NodeName == "" || !podroom.Holds(p) {
			continue
		}
		devices, ok := p.Annotations[gpu.PodGPUDevicesAnnotation]
		if !ok {
			faults = append(faults, fmt.Sprintf("pod %s is bound to %s without annotation %s", p.Name, p.Spec.NodeName, gpu.PodGPUDevicesAnnotation))
			continue
		}
		a, err := gpu.ParseAssignment(devices)
		if err != nil {
			continue // the report names it
		}
		if len(a) != req.Count || a.Total() != req.Total {
			faults = append(faults, fmt.Sprintf("pod %s asks for %s but got %s", p.Name, asks(req), a))
		}
		if idx, ok := p.Annotations[gpu.GPUShareIndexAnnotation]; len(a) == 1 && (!ok || idx != strconv.Itoa(a[0].Index)) {
			faults = append(faults, fmt.Sprintf("pod %s got GPU %d but its %s is %q", p.Name, a[0].Index, gpu.GPUShareIndexAnnotation, idx))
		}
	}
	return faults
}

// overfullGPUs lists the GPUs holding more than they have, and counts those shared by pods.
func overfullGPUs(report *inspect.GPUs) (overfull []string, shared int) {
	for _, n := range report.Nodes {
		for _, g := range n.GPUs {
			if len(g.Pods) > 1 {
				shared++
			}
			if g.Used > g.Capacity {
				overfull = append(overfull, fmt.Sprintf("%s GPU %d holds %d of %d", n.Name, g.Index, g.Used, g.Capacity))
			}
		}
	}
	return overfull, shared
}

// unfinished lists the bound pods given a run time that have not finished.
func unfinished(pods []v1.Pod) []string {
	var out []string
	for i := range pods {
		p := &pods[i]
		if _, ok := p.Annotations[kwok.RunsForAnnotation]; ok && p.Spec.NodeName != "" && p.Status.Phase != v1.PodSucceeded {
			out = append(out, fmt.Sprintf("%s is %s after its run time", p.Name, orText(string(p.Status.Phase), "in no phase")))
		}
	}
	return out
}

func isReusePod(name string) bool { return name == batchPod || name == nextPod }

func devicesOf(p *v1.Pod) string {
	if p == nil || p.Spec.NodeName == "" {
		return "no node"
	}
	return p.Spec.NodeName + " " + orNone(p.Annotations[gpu.PodGPUDevicesAnnotation])
}

// sameDevices reports whether two pods hold the same GPUs of the same node.
func sameDevices(a, b *v1.Pod) bool {
	da, okA, errA := gpu.AssignmentOf(a)
	db, okB, errB := gpu.AssignmentOf(b)
	if a.Spec.NodeName != b.Spec.NodeName || !okA || !okB || errA != nil || errB != nil || len(da) != len(db) {
		return false
	}
	for i := range da {
		if da[i].Index != db[i].Index {
			return false
		}
	}
	return true
}

// expectWaitingDoNotFit checks that no waiting pod fits into what is left on any node: space only
// ran out while the pods were placed, so a pod that fits now would have fitted when it was tried.
func (s *Section) expectWaitingDoNotFit(waiting []v1.Pod, report *inspect.GPUs) {
	var wrong []string
	for i := range waiting {
		req, err := gpu.RequestOf(&waiting[i], gpuResources.Memory)
		if err != nil {
			continue // reported with the pods above
		}
		for _, n := range report.Nodes {
			if isReusePod(waiting[i].Name) != (n.Name == reuseNode) {
				continue // the pods' node selectors and the node's taint
			}
			devs := make([]gpu.Device, len(n.GPUs))
			for j, g := range n.GPUs {
				devs[j] = gpu.Device{Capacity: g.Capacity, Used: g.Used}
			}
			if a, nf := gpu.Fit(devs, req, gpu.Binpack); nf == nil {
				wrong = append(wrong, fmt.Sprintf("%s waits but fits on %s (devices %s)", waiting[i].Name, n.Name, a))
			}
		}
	}
	s.expect("more is asked than there is, and every pod that waits fits on no node's free GPU memory",
		len(waiting) > 0 && len(wrong) == 0,
		orText(strings.Join(wrong, "; "), fmt.Sprintf("%d pod(s) wait, none of which fits", len(waiting))))
}

// waitFor polls the pods of ns until cond holds.
func (d *demo) waitFor(ctx context.Context, ns, what string, cond func([]v1.Pod) bool) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := d.exited(); err != nil {
			return false, err
		}
		list, err := d.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		return cond(list.Items), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return nil
}

func boundNamed(pods []v1.Pod, name string) string {
	if p := podNamed(pods, name); p != nil {
		return p.Spec.NodeName
	}
	return ""
}

func podNamed(pods []v1.Pod, name string) *v1.Pod {
	for i := range pods {
		if pods[i].Name == name {
			return &pods[i]
		}
	}
	return nil
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
