package inspect

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/topology"
)

// A placed group shows its domain; a waiting one the level it needs and the most members any one
// domain has room for, counting what other pods hold; a bad annotation says why; a group without
// topology leaves the column out unless another group has one.
func TestGangsTopology(t *testing.T) {
	rackNode := func(name, rack, cpu string) v1.Node {
		return v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{topology.BlockLabel: "b1", topology.RackLabel: rack, topology.HostLabel: name}},
			Status:     v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourcePods: resource.MustParse("110")}},
		}
	}
	pod := func(name, group, node, cpu string) v1.Pod {
		p := v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name},
			Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}},
		}
		if group != "" {
			p.Labels = map[string]string{v1alpha1.PodGroupLabel: group}
		}
		return p
	}
	pg := func(name string, minMember int32, ann ...string) v1alpha1.PodGroup {
		g := v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, Annotations: map[string]string{}}, Spec: v1alpha1.PodGroupSpec{MinMember: minMember}}
		for i := 0; i+1 < len(ann); i += 2 {
			g.Annotations[ann[i]] = ann[i+1]
		}
		return g
	}
	nodes := []v1.Node{rackNode("n1", "r1", "4"), rackNode("n2", "r1", "4"), rackNode("n3", "r2", "4")}
	groups := []v1alpha1.PodGroup{
		pg("placed", 2, topology.RequiredAnnotation, topology.RackLabel),
		pg("waiting", 6, topology.RequiredAnnotation, topology.RackLabel),
		pg("bad", 1, topology.PreferredAnnotation, "example.com/spine"),
		pg("plain", 1),
	}
	members := []v1.Pod{
		pod("placed-0", "placed", "n3", "1"), pod("placed-1", "placed", "n3", "1"),
		pod("waiting-0", "waiting", "", "1"), pod("waiting-1", "waiting", "", "2"),
		pod("bad-0", "bad", "", "1"), pod("plain-0", "plain", "n1", "1"),
	}
	// On nodes: the placed group, plain-0 and another pod: n1 and n2 have 3 cores free, n3 2.
	all := []v1.Pod{members[0], members[1], members[5], pod("other", "", "n2", "1")}
	r := GangsOf(groups, members, nil)
	r.addTopology(groups, members, all, nodes, topology.Levels(topology.DefaultLevels()))
	got := map[string]*GangTopology{}
	for _, g := range r.Groups {
		got[g.Name] = g.Topology
	}
	two := 2 // the largest waiting member asks 2 cores: 1 each on n1 and n2 in r1, 1 on n3 in r2
	want := map[string]*GangTopology{
		"placed":  {Level: topology.RackLabel, Mode: "required", Domains: []topology.Domain{"/b1/r2"}},
		"waiting": {Level: topology.RackLabel, Mode: "required", LargestRoom: &two},
		"bad":     {Level: "example.com/spine", Invalid: `annotation berth.dev/topology-preferred names "example.com/spine", which is not one of the scheduler's topologyLevels [topology.kubernetes.io/zone berth.dev/block berth.dev/rack kubernetes.io/hostname]`},
		"plain":   nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("topology (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := r.WriteTable(&out, false); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"NAME      PHASE    MINMEMBER   MEMBERS   PLACED   RUNNING   SUCCEEDED   WAITING   TOPOLOGY",
		"placed    <none>   2           2         2        0         0           0         berth.dev/rack=/b1/r2",
		"waiting   <none>   6           2         0        0         0           2         needs one berth.dev/rack (required); largest room 2 of 6",
	} {
		if !containsLine(out.String(), line) {
			t.Errorf("table lacks line %q:\n%s", line, out.String())
		}
	}
}
