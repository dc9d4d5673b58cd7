package why

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
)

// rackNode is a node of rack r in block b, zone z1.
func rackNode(name, cpu, b, r string, mutate ...func(*v1.Node)) v1.Node {
	return cpuNode(name, cpu, append([]func(*v1.Node){func(n *v1.Node) {
		n.Labels[topology.ZoneLabel] = "z1"
		n.Labels[topology.BlockLabel] = b
		n.Labels[topology.RackLabel] = r
	}}, mutate...)...)
}

func rackGroup(name string, minMember int32, annotation, level string) *podgroup.Group {
	return podgroup.FromPlugins(&v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, Annotations: map[string]string{annotation: level}},
		Spec: v1alpha1.PodGroupSpec{MinMember: minMember}})
}

func TestWhyTopology(t *testing.T) {
	// Three racks of two 4-cpu nodes: z1/b1/r1 has 3 cpus free, z1/b2/r1 (another block's rack of
	// the same name) 5, z1/b1/r3 none on a node a member may use.
	nodes := []v1.Node{
		rackNode("n1", "4", "b1", "r1"), rackNode("n2", "4", "b1", "r1"),
		rackNode("n3", "4", "b2", "r1"), rackNode("n4", "4", "b2", "r1"),
		rackNode("n5", "4", "b1", "r3", func(n *v1.Node) { n.Spec.Unschedulable = true }),
		rackNode("n6", "4", "b1", "r3", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "x", Effect: v1.TaintEffectNoSchedule}}
		}),
	}
	busy := []v1.Pod{
		cpuPod("other", "f1", "n1", "4"), cpuPod("other", "f2", "n2", "1"),
		cpuPod("other", "f3", "n3", "2"), cpuPod("other", "f4", "n4", "1"),
	}
	members := func(group string, n int, cpu string) []v1.Pod {
		var ps []v1.Pod
		for i := range n {
			ps = append(ps, cpuPod("ml", group+"-"+string(rune('0'+i)), "", cpu, inGroup(group)))
		}
		return ps
	}
	tests := []struct {
		name  string
		group *podgroup.Group
		pods  []v1.Pod
		cause string
		says  []string
		not   []string
	}{
		{
			// 8 cpus are free in all, 5 in the largest rack: the group of 6 fits spread, not in one rack.
			name:  "no rack holds the group",
			group: rackGroup("train", 6, topology.RequiredAnnotation, topology.RackLabel),
			pods:  members("train", 6, "1"),
			cause: CauseTopology,
			says: []string{
				"requires one berth.dev/rack (berth.dev/topology-required) for its 6 members still to place; the largest room any berth.dev/rack has is 5, at berth.dev/rack=z1/b2/r1",
				"z1/b2/r1 5, z1/b1/r1 3\n", // r3's nodes are cordoned or tainted: it has no room
				"together have room for 8",
				"room for 1 more member like train-0 (cpu 1) in berth.dev/rack=z1/b2/r1",
				"made berth.dev/topology-preferred",
			},
		},
		{
			// Counted at the largest member: two 2-cpu members fit r2's nodes (3 and 2 free) twice.
			name:  "members counted at the largest",
			group: rackGroup("train", 3, topology.RequiredAnnotation, topology.RackLabel),
			pods:  append(members("train", 2, "1"), cpuPod("ml", "train-big", "", "2", inGroup("train"))),
			cause: CauseTopology,
			says:  []string{"the largest room any berth.dev/rack has is 2, at berth.dev/rack=z1/b2/r1", "like train-big (cpu 2)"},
		},
		{
			name:  "a rack holds it: the gang answer",
			group: rackGroup("train", 5, topology.RequiredAnnotation, topology.RackLabel),
			pods:  members("train", 5, "1"),
			cause: CauseGang,
		},
		{
			name:  "preferred does not hold it back",
			group: rackGroup("train", 6, topology.PreferredAnnotation, topology.RackLabel),
			pods:  members("train", 6, "1"),
			cause: CauseGang,
		},
		{
			// A block is the tuple zone/block: z1/b1 has r1 and r3, 3 usable cpus.
			name:  "block level",
			group: rackGroup("train", 6, topology.RequiredAnnotation, topology.BlockLabel),
			pods:  members("train", 6, "1"),
			cause: CauseTopology,
			says:  []string{"the largest room any berth.dev/block has is 5, at berth.dev/block=z1/b2"},
		},
		{
			// One member bound in r1 of b1 fixes the rack: r2's room does not count.
			name:  "fixed by a bound member",
			group: rackGroup("train", 5, topology.RequiredAnnotation, topology.RackLabel),
			pods:  append(members("train", 4, "1"), cpuPod("ml", "train-b", "n2", "1", inGroup("train"))),
			cause: CauseTopology,
			says:  []string{"its 1 bound member fixed it at berth.dev/rack=z1/b1/r1, which has room for 2 of the 4 members still to place"},
			not:   []string{"another berth.dev/rack"},
		},
		{
			name:  "a level no node has",
			group: rackGroup("train", 2, topology.RequiredAnnotation, topology.HostLabel),
			pods:  members("train", 2, "1"),
			cause: CauseGang,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Nodes: nodes, Groups: []*podgroup.Group{tt.group}, Pods: append(append([]v1.Pod{}, busy...), tt.pods...)}
			w := whyOf(t, tt.pods[0].Name, in)
			if w.Cause != tt.cause {
				t.Errorf("cause %s, want %s", w.Cause, tt.cause)
			}
			for _, s := range tt.says {
				if !strings.Contains(w.text(), s) {
					t.Errorf("answer does not say %q", s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(w.text(), s) {
					t.Errorf("answer says %q", s)
				}
			}
		})
	}
}
