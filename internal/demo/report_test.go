package demo

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/gpu"
)

// The report functions judge whatever the API shows; these tests feed them outcomes a broken
// scheduler could produce, to show that each expectation can fail, and says why.

// placed is a pod as the API shows it after scheduling: bound to node, or unschedulable.
func placed(p *v1.Pod, node string) v1.Pod {
	p.Spec.NodeName = node
	if node == "" {
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse,
			Reason: v1.PodReasonUnschedulable, Message: "0/1 nodes are available: 1 Too many pods."}}
	}
	p.Status.Phase = v1.PodPending
	return *p
}

// checkResults is what the tests compare: whether each expectation held, and what was seen.
func checkResults(s *Section) (ok []bool, got []string) {
	for _, c := range s.Checks {
		ok = append(ok, c.OK)
		got = append(got, c.Got)
	}
	return ok, got
}

func TestReportQoS(t *testing.T) {
	qp := func(name string, priority int32, class v1.PodQOSClass, node string) v1.Pod {
		p := newPod("qos", name, v1.ResourceRequirements{})
		p.Spec.Priority = &priority
		p.Status.QOSClass = class
		return placed(p, node)
	}
	node := newNode("qos", qosNode, resources("pods", "4"))
	tests := []struct {
		name    string
		pods    []v1.Pod
		wantOK  []bool
		wantGot []string
	}{{
		name: "berth's order",
		pods: []v1.Pod{
			qp("urgent", 1000, v1.PodQOSBestEffort, qosNode), qp("guaranteed-a", 0, v1.PodQOSGuaranteed, qosNode),
			qp("guaranteed-b", 0, v1.PodQOSGuaranteed, qosNode), qp("burstable-a", 0, v1.PodQOSBurstable, qosNode),
			qp("burstable-b", 0, v1.PodQOSBurstable, ""), qp("besteffort-a", 0, v1.PodQOSBestEffort, ""),
			qp("besteffort-b", 0, v1.PodQOSBestEffort, ""),
		},
		wantOK:  []bool{true, true},
		wantGot: []string{"4 bound, 3 waiting", "the places went to urgent, guaranteed-a, guaranteed-b, burstable-a"},
	}, {
		name: "arrival order",
		pods: []v1.Pod{
			qp("urgent", 1000, v1.PodQOSBestEffort, qosNode), qp("guaranteed-a", 0, v1.PodQOSGuaranteed, ""),
			qp("guaranteed-b", 0, v1.PodQOSGuaranteed, ""), qp("burstable-a", 0, v1.PodQOSBurstable, qosNode),
			qp("burstable-b", 0, v1.PodQOSBurstable, ""), qp("besteffort-a", 0, v1.PodQOSBestEffort, qosNode),
			qp("besteffort-b", 0, v1.PodQOSBestEffort, qosNode),
		},
		wantOK:  []bool{true, false},
		wantGot: []string{"4 bound, 3 waiting", "guaranteed-a (priority 0, Guaranteed) waits while besteffort-b (priority 0, BestEffort) got a place"},
	}, {
		name: "priority ignored",
		pods: []v1.Pod{
			qp("urgent", 1000, v1.PodQOSBestEffort, ""), qp("guaranteed-a", 0, v1.PodQOSGuaranteed, qosNode),
			qp("guaranteed-b", 0, v1.PodQOSGuaranteed, qosNode), qp("burstable-a", 0, v1.PodQOSBurstable, qosNode),
			qp("burstable-b", 0, v1.PodQOSBurstable, qosNode),
		},
		wantOK:  []bool{true, false},
		wantGot: []string{"4 bound, 1 waiting", "urgent (priority 1000, BestEffort) waits while burstable-b (priority 0, Burstable) got a place"},
	}, {
		name: "room left unused",
		pods: []v1.Pod{
			qp("urgent", 1000, v1.PodQOSBestEffort, qosNode), qp("guaranteed-a", 0, v1.PodQOSGuaranteed, qosNode),
			qp("burstable-a", 0, v1.PodQOSBurstable, ""), qp("besteffort-a", 0, v1.PodQOSBestEffort, ""),
			qp("besteffort-b", 0, v1.PodQOSBestEffort, ""),
		},
		wantOK:  []bool{false, true},
		wantGot: []string{"2 bound, 3 waiting", "the places went to urgent, guaranteed-a"},
	}, {
		name: "capacity not short",
		pods: []v1.Pod{
			qp("guaranteed-a", 0, v1.PodQOSGuaranteed, qosNode), qp("burstable-a", 0, v1.PodQOSBurstable, qosNode),
		},
		wantOK:  []bool{false, true},
		wantGot: []string{"2 bound, 0 waiting", "the places went to guaranteed-a, burstable-a"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Section{}
			reportQoS(s, node, tt.pods)
			ok, got := checkResults(s)
			if diff := cmp.Diff(tt.wantOK, ok); diff != "" {
				t.Errorf("expectations held (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantGot, got); diff != "" {
				t.Errorf("what was seen (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReportGPUs(t *testing.T) {
	gpuNode := func(name, count, memory, perDevice string) v1.Node {
		n := newNode("gpus", name, resources(string(gpuResources.Count), count, string(gpuResources.Memory), memory))
		if perDevice != "" {
			n.Annotations = map[string]string{gpu.NodeGPUMemoryAnnotation: perDevice}
		}
		return *n
	}
	nodes := []v1.Node{gpuNode("gpu-a", "2", "32", ""), gpuNode("gpu-mixed", "4", "80", "16,16,24,24")}
	// gp is a GPU pod: devices and idx are its annotations, if not empty.
	gp := func(name, memory, count, node, devices, idx string) v1.Pod {
		p := newPod("gpus", name, v1.ResourceRequirements{Limits: resources(string(gpuResources.Memory), memory)})
		p.Annotations = map[string]string{}
		for k, v := range map[string]string{gpu.PodGPUCountAnnotation: count, gpu.PodGPUDevicesAnnotation: devices, gpu.GPUShareIndexAnnotation: idx} {
			if v != "" {
				p.Annotations[k] = v
			}
		}
		return placed(p, node)
	}
	giant := gp("giant-32", "32", "", "", "", "")
	failed := gp("failed-4", "4", "", "gpu-a", "", "")
	failed.Status.Phase = v1.PodFailed
	tests := []struct {
		name string
		pods []v1.Pod
		// wantOK: devices recorded, no GPU overfull, GPUs shared, waiting pods do not fit.
		wantOK []bool
		// wantGot is part of what was seen for the first expectation that failed.
		wantGot string
	}{{
		name: "shared as promised",
		pods: []v1.Pod{
			gp("infer-4", "4", "", "gpu-a", "0:4", "0"), gp("infer-12", "12", "", "gpu-a", "0:12", "0"),
			gp("render-20", "20", "", "gpu-mixed", "2:20", "2"), gp("train-2x8", "16", "2", "gpu-mixed", "0:8,1:8", ""), giant,
		},
		wantOK: []bool{true, true, true, true},
	}, {
		name:    "bound without devices",
		pods:    []v1.Pod{gp("infer-4", "4", "", "gpu-a", "", ""), gp("infer-8", "8", "", "gpu-a", "0:8", "0"), giant},
		wantOK:  []bool{false, true, false, true},
		wantGot: "pod infer-4 is bound to gpu-a without annotation berth.dev/gpu-devices",
	}, {
		// A pod that has run to its end holds no room (podroom.Holds), whatever its annotations say.
		name:   "a failed pod is not judged",
		pods:   []v1.Pod{failed, gp("infer-4", "4", "", "gpu-a", "0:4", "0"), gp("infer-8", "8", "", "gpu-a", "0:8", "0"), giant},
		wantOK: []bool{true, true, true, true},
	}, {
		name:    "fewer GPUs than asked",
		pods:    []v1.Pod{gp("train-2x8", "16", "2", "gpu-mixed", "0:16", "0"), giant},
		wantOK:  []bool{false, true, false, true},
		wantGot: "pod train-2x8 asks for 2x8 but got 0:16",
	}, {
		name:    "gpushare index disagrees",
		pods:    []v1.Pod{gp("infer-4", "4", "", "gpu-a", "1:4", "0"), gp("infer-8", "8", "", "gpu-a", "1:8", "1"), giant},
		wantOK:  []bool{false, true, true, true},
		wantGot: `pod infer-4 got GPU 1 but its ALIYUN_COM_GPU_MEM_IDX is "0"`,
	}, {
		name:    "device the node lacks",
		pods:    []v1.Pod{gp("infer-4", "4", "", "gpu-a", "3:4", "3"), giant},
		wantOK:  []bool{false, true, false, true},
		wantGot: "pod gpus/infer-4 holds GPU 3 of gpu-a, which has 2 GPUs",
	}, {
		name:    "GPU overfull",
		pods:    []v1.Pod{gp("infer-12a", "12", "", "gpu-a", "0:12", "0"), gp("infer-12b", "12", "", "gpu-a", "0:12", "0"), giant},
		wantOK:  []bool{true, false, true, true},
		wantGot: "gpu-a GPU 0 holds 24 of 16",
	}, {
		name:    "waiting pod fits",
		pods:    []v1.Pod{gp("infer-4", "4", "", "gpu-a", "0:4", "0"), gp("infer-8", "8", "", "gpu-a", "0:8", "0"), gp("infer-12", "12", "", "", "", "")},
		wantOK:  []bool{true, true, true, false},
		wantGot: "infer-12 waits but fits on gpu-a (devices 1:12)",
	}, {
		name:    "nothing waits",
		pods:    []v1.Pod{gp("infer-4", "4", "", "gpu-a", "0:4", "0"), gp("infer-8", "8", "", "gpu-a", "0:8", "0")},
		wantOK:  []bool{true, true, true, false},
		wantGot: "0 pod(s) wait",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Section{}
			report := reportGPUs(s, nodes, tt.pods)
			ok, got := checkResults(s)
			if diff := cmp.Diff(tt.wantOK, ok); diff != "" {
				t.Errorf("expectations held (-want +got):\n%s", diff)
			}
			for i := range ok {
				if !ok[i] {
					if !strings.Contains(got[i], tt.wantGot) {
						t.Errorf("first contradiction says %q, want it to say %q", got[i], tt.wantGot)
					}
					break
				}
			}
			if len(report.Nodes) != len(nodes) {
				t.Errorf("%d nodes in the report for %d nodes", len(report.Nodes), len(nodes))
			}
		})
	}

	t.Run("report", func(t *testing.T) {
		s := &Section{}
		reportGPUs(s, nodes, tests[0].pods)
		// The GPUs as kubectl berth gpus -o wide prints them.
		for _, want := range [][]string{
			{"total", "36/80", "44", "[#########...........]", "sizes", "from", "annotation", `berth.dev/gpu-memory="16,16,24,24"`},
			{"gpu-a", "0", "16/16", "0", "[####################]", "gpus/infer-12", "(12),", "gpus/infer-4", "(4)"},
			{"2", "20/24", "4", "[################....]", "gpus/render-20", "(20)"},
			{"giant-32:", "0/1", "nodes", "are", "available:"},
		} {
			if !hasFields(s.text.String(), want...) {
				t.Errorf("report lacks a line with %q:\n%s", want, s.text.String())
			}
		}
	})
}

func TestReportGangs(t *testing.T) {
	member := func(g gang, i int, node string) v1.Pod {
		req := podRequests(g)
		p := newPod("gangs", g.name+"-"+string(rune('0'+i)), v1.ResourceRequirements{Requests: req, Limits: req})
		p.Labels = map[string]string{v1alpha1.PodGroupLabel: g.name}
		return placed(p, node)
	}
	members := func(g gang, nodes ...string) []v1.Pod {
		var pods []v1.Pod
		for i, n := range nodes {
			pods = append(pods, member(g, i, n))
		}
		return pods
	}
	natives := func(nodes ...string) []v1.Pod {
		pods := members(native, nodes...)
		for i := range pods {
			pods[i].Labels = nil
			pods[i].Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &native.name}
		}
		return pods
	}
	nativeWhole := natives(nativeNode, nativeNode)
	room := func(kv ...string) amount.Amount {
		a, _ := amount.Of(resources(append(kv, "pods", "110")...))
		return a
	}
	left := map[string]amount.Amount{"gang-1": room("cpu", "2", "memory", "14Gi"), "gang-2": room("cpu", "3", "memory", "15Gi")}
	roomy := map[string]amount.Amount{"gang-1": room("cpu", "4", "memory", "16Gi"), "gang-2": room("cpu", "4", "memory", "16Gi")}
	tests := []struct {
		name       string
		fit, big   []v1.Pod
		native     []v1.Pod
		free       map[string]amount.Amount
		wantOK     []bool
		wantExpect string // part of the second expectation
	}{{
		name:       "all or nothing",
		fit:        members(fitting, "gang-1", "gang-2", "gang-1"),
		big:        members(tooBig, "", "", "", ""),
		free:       left,
		native:     nativeWhole,
		wantOK:     []bool{true, true, true},
		wantExpect: "in the cpu left (gang-1 2, gang-2 3), so it is held back whole, though 2 of its pods would fit on their own",
	}, {
		name:   "first gang split",
		fit:    members(fitting, "gang-1", "gang-2", ""),
		big:    members(tooBig, "", "", "", ""),
		native: nativeWhole,
		free:   left,
		wantOK: []bool{false, true, true},
	}, {
		name:   "second gang partly bound",
		fit:    members(fitting, "gang-1", "gang-2", "gang-1"),
		big:    members(tooBig, "gang-1", "gang-2", "", ""),
		native: nativeWhole,
		free:   left,
		wantOK: []bool{true, false, true},
	}, {
		name:   "native group split",
		fit:    members(fitting, "gang-1", "gang-2", "gang-1"),
		big:    members(tooBig, "", "", "", ""),
		native: natives(nativeNode, ""),
		free:   left,
		wantOK: []bool{true, true, false},
	}, {
		name:       "second gang would have fitted",
		fit:        members(fitting, "gang-1", "gang-2", "gang-1"),
		big:        members(tooBig, "", "", "", ""),
		native:     nativeWhole,
		free:       roomy,
		wantOK:     []bool{true, false, true},
		wantExpect: "4 of its pods would fit on their own",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Section{}
			reportGangs(s, &inspect.Gangs{}, tt.fit, tt.big, tt.native, tt.free)
			ok, _ := checkResults(s)
			if diff := cmp.Diff(tt.wantOK, ok); diff != "" {
				t.Errorf("expectations held (-want +got):\n%s", diff)
			}
			if len(s.Checks) == 3 && !strings.Contains(s.Checks[1].Expected, tt.wantExpect) {
				t.Errorf("expectation %q does not say %q", s.Checks[1].Expected, tt.wantExpect)
			}
		})
	}
}

func TestWriteSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpus.svg")
	report := &inspect.GPUs{Nodes: []inspect.NodeGPUs{
		{Name: "gpu-a", GPUs: []inspect.GPU{
			{Index: 0, Capacity: 16, Used: 16, Pods: []inspect.Share{{Name: "infer-4", Memory: 4}, {Name: "infer-12", Memory: 12}}},
			{Index: 1, Capacity: 16},
		}},
		{Name: "gpu-mixed", GPUs: []inspect.GPU{{Index: 0, Capacity: 24, Used: 20, Pods: []inspect.Share{{Name: "render-20", Memory: 20}}}}},
	}}
	if err := writeSVG(path, report); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Well-formed XML, with an element per GPU bar and per pod share.
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	rects := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, data)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "rect" {
			rects++
		}
	}
	// The background, three GPU bars, three pod shares.
	if want := 7; rects != want {
		t.Errorf("%d rects, want %d", rects, want)
	}
	for _, want := range []string{"gpu-a", "gpu-mixed", "GPU 0 (16 GiB)", "16/16 used  infer-4 (4), infer-12 (12)", "20/24 used  render-20 (20)", "0/16 used"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the SVG does not say %q", want)
		}
	}
}

// hasFields reports whether a line of text has the given fields, in a row.
func hasFields(text string, fields ...string) bool {
	want := strings.Join(fields, " ")
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(" "+strings.Join(strings.Fields(line), " ")+" ", " "+want+" ") {
			return true
		}
	}
	return false
}
