package demo

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/topology"
)

// topoNodes is the scenario's cluster as the API shows it.
func topoNodes() []v1.Node {
	var nodes []v1.Node
	for _, b := range topoBlocks {
		for _, r := range topoRacks {
			for i := 1; i <= topoNodesPerRack; i++ {
				n := newNode("topology", topoNodeName(b, r, i), resources("cpu", topoNodeCPU, "pods", "110"))
				n.Labels[topology.BlockLabel] = b
				n.Labels[topology.RackLabel] = r
				nodes = append(nodes, *n)
			}
		}
	}
	return nodes
}

// topoPods places every member of the scenario's groups on the node where names it.
func topoPods(where func(g topoGroup, i int) string) []v1.Pod {
	var pods []v1.Pod
	for _, g := range topoGroups {
		for i := range int(g.members) {
			req := resources("cpu", g.cpu)
			p := newPod("topology", fmt.Sprintf("%s-%d", g.name, i), v1.ResourceRequirements{Requests: req})
			p.Labels = map[string]string{v1alpha1.PodGroupLabel: g.name}
			pods = append(pods, placed(p, where(g, i)))
		}
	}
	return pods
}

// reportTopology judges each group by the racks its pods are in: a group spread over two racks,
// or not all bound, contradicts the scenario.
func TestReportTopology(t *testing.T) {
	tests := []struct {
		name    string
		where   func(g topoGroup, i int) string
		wantOK  []bool
		wantGot []string
	}{{
		name: "each group in one rack",
		where: func(g topoGroup, i int) string {
			rack := map[string]string{"allreduce": "b1-r1", "finetune": "b1-r2", "eval": "b2-r1"}[g.name]
			return fmt.Sprintf("%s-%d", rack, 1+i%2)
		},
		wantOK: []bool{true, true, true},
		wantGot: []string{"4 of 4 pods bound, in rack(s) b1/r1", "3 of 3 pods bound, in rack(s) b1/r2",
			"4 of 4 pods bound, in rack(s) b2/r1"},
	}, {
		name: "spread over the emptiest nodes, as without topology",
		where: func(g topoGroup, i int) string {
			return []string{"b1-r1-1", "b1-r2-1", "b2-r1-1", "b2-r2-1"}[i]
		},
		wantOK: []bool{false, false, false},
		wantGot: []string{"4 of 4 pods bound, in rack(s) b1/r1, b1/r2, b2/r1, b2/r2", "3 of 3 pods bound, in rack(s) b1/r1, b1/r2, b2/r1",
			"4 of 4 pods bound, in rack(s) b1/r1, b1/r2, b2/r1, b2/r2"},
	}, {
		name: "one rack, not whole",
		where: func(g topoGroup, i int) string {
			if i == 0 {
				return ""
			}
			return "b2-r2-1"
		},
		wantOK:  []bool{false, false, false},
		wantGot: []string{"3 of 4 pods bound, in rack(s) b2/r2", "2 of 3 pods bound, in rack(s) b2/r2", "3 of 4 pods bound, in rack(s) b2/r2"},
	}, {
		name:    "nothing bound",
		where:   func(topoGroup, int) string { return "" },
		wantOK:  []bool{false, false, false},
		wantGot: []string{"0 of 4 pods bound, in rack(s) <none>", "0 of 3 pods bound, in rack(s) <none>", "0 of 4 pods bound, in rack(s) <none>"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Section{}
			reportTopology(s, topoNodes(), topoPods(tt.where), nil)
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

// The picture groups the nodes by block and rack and fills each node's bar with its pods.
func TestTopologySVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "topology.svg")
	pods := topoPods(func(g topoGroup, i int) string {
		if g.name == "eval" {
			return "" // waiting pods are not drawn on a node
		}
		return "b1-r2-2"
	})
	if err := writeTopologySVG(path, topoNodes(), pods); err != nil {
		t.Fatal(err)
	}
	picture, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(picture, new(struct{})); err != nil {
		t.Errorf("the picture is not well-formed XML: %v", err)
	}
	// The racks, in order, with a block heading before the first rack of each block.
	var order []int
	for _, want := range []string{"block b1", "rack b1/r1", "rack b1/r2", "block b2", "rack b2/r1", "rack b2/r2"} {
		i := bytes.Index(picture, []byte(">"+want))
		if i < 0 {
			t.Errorf("the picture has no heading %q", want)
			continue
		}
		order = append(order, i)
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			t.Errorf("headings out of order at %d: %v", i, order)
		}
	}
	// b1-r2-2 is over-full on purpose: every bound member is drawn on it, none elsewhere.
	if !bytes.Contains(picture, []byte(">14/4 cpu<")) {
		t.Errorf("b1-r2-2 should show the 14 cpu of allreduce and finetune bound to it")
	}
	if got := bytes.Count(picture, []byte(">0/4 cpu<")); got != 7 {
		t.Errorf("%d nodes shown empty, want 7", got)
	}
	for _, g := range topoGroups {
		if !bytes.Contains(picture, []byte("pod group "+g.name+": ")) {
			t.Errorf("the legend does not name %s and what it asks", g.name)
		}
	}
}
