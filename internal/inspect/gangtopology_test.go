package inspect

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	groupsfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"

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
	r := GangsOf(fromPlugins(groups), members, nil)
	r.addTopology(fromPlugins(groups), members, all, nodes, topology.Levels(topology.DefaultLevels()))
	got := map[string]*GangTopology{}
	for _, g := range r.Groups {
		got[g.Name] = g.Topology
	}
	two := 2 // the largest waiting member asks 2 cores: 1 each on n1 and n2 in r1, 1 on n3 in r2
	want := map[string]*GangTopology{
		"placed":  {Level: topology.RackLabel, Mode: "required", Domains: []topology.Domain{"/b1/r2"}},
		"waiting": {Level: topology.RackLabel, Mode: "required", LargestRoom: &two, ToPlace: 6},
		"bad":     {Level: "example.com/spine", Invalid: `annotation berth.dev/topology-preferred names "example.com/spine", which is not one of the scheduler's topologyLevels [topology.kubernetes.io/zone berth.dev/block berth.dev/rack kubernetes.io/hostname]`},
		"plain":   nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("topology (-want +got):\n%s", diff)
	}
	// Cordoned, n1 gives nothing: r1 has room for 1, as r2 has.
	cordoned := append([]v1.Node(nil), nodes...)
	cordoned[0].Spec.Unschedulable = true
	rc := GangsOf(fromPlugins(groups), members, nil)
	rc.addTopology(fromPlugins(groups), members, all, cordoned, topology.Levels(topology.DefaultLevels()))
	for _, g := range rc.Groups {
		if g.Name == "waiting" && (g.Topology == nil || g.Topology.LargestRoom == nil || *g.Topology.LargestRoom != 1) {
			t.Errorf("with n1 cordoned the waiting group's topology is %+v, want a largest room of 1", g.Topology)
		}
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

// ListGangsByLevels reads domains by the levels it is given, as the scheduler's topologyLevels
// would: a level of a custom topology is understood there, and refused by the shipped levels.
func TestListGangsByLevels(t *testing.T) {
	const spine, leaf = "example.com/spine", "example.com/leaf"
	node := func(name, s, l string) *v1.Node {
		return &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{spine: s, leaf: l}},
			Status:     v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110")}},
		}
	}
	member := func(name, node string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, Labels: map[string]string{v1alpha1.PodGroupLabel: "train"}},
			Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}},
		}
	}
	client := fake.NewClientset(node("n1", "s1", "l1"), node("n2", "s1", "l2"), node("n3", "s2", "l2"),
		member("train-0", "n2"), member("train-1", "n2"))
	groups := groupsfake.NewSimpleClientset(&v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train", Annotations: map[string]string{topology.RequiredAnnotation: leaf}},
		Spec:       v1alpha1.PodGroupSpec{MinMember: 2},
	})
	topologyOf := func(levels topology.Levels) *GangTopology {
		t.Helper()
		r, err := ListGangsByLevels(context.Background(), client, groups, "ml", levels)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Groups) != 1 {
			t.Fatalf("%d groups, want 1", len(r.Groups))
		}
		return r.Groups[0].Topology
	}

	// Leaf l2 of spine s1, not l2 of s2.
	want := &GangTopology{Level: leaf, Mode: "required", Domains: []topology.Domain{"s1/l2"}}
	if diff := cmp.Diff(want, topologyOf(topology.Levels{spine, leaf, topology.HostLabel})); diff != "" {
		t.Errorf("by the custom levels (-want +got):\n%s", diff)
	}
	if got := topologyOf(topology.DefaultLevels()); got == nil || !strings.Contains(got.Invalid, "not one of the scheduler's topologyLevels") {
		t.Errorf("by the shipped levels: %+v, want the level refused", got)
	}
}

// A group's topology counts its members as Gang does: a member held by scheduling gates is not
// placed, so its request does not size the others, and a member that has finished holds no
// place, so it fixes no domain.
func TestGangsTopologyCountsMembersAsGang(t *testing.T) {
	node := func(name, rack, cpu string) v1.Node {
		return v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{topology.BlockLabel: "b1", topology.RackLabel: rack, topology.HostLabel: name}},
			Status:     v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourcePods: resource.MustParse("110")}},
		}
	}
	member := func(name, node, cpu string) v1.Pod {
		return v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, Labels: map[string]string{v1alpha1.PodGroupLabel: "train"}},
			Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}},
		}
	}
	nodes := []v1.Node{node("n1", "r1", "4"), node("n2", "r2", "2")}
	gated := member("gated", "", "4")
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
	done := member("done", "n2", "1")
	done.Status.Phase = v1.PodSucceeded
	members := []v1.Pod{member("waiting", "", "1"), gated, done}
	groups := fromPlugins([]v1alpha1.PodGroup{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train", Annotations: map[string]string{topology.RequiredAnnotation: topology.RackLabel}},
		Spec:       v1alpha1.PodGroupSpec{MinMember: 1},
	}})
	r := GangsOf(groups, members, nil)
	r.addTopology(groups, members, members, nodes, topology.DefaultLevels())
	four := 4 // members of 1 core: 4 on n1 in r1, 2 on n2 in r2
	want := &GangTopology{Level: topology.RackLabel, Mode: "required", LargestRoom: &four, ToPlace: 1}
	if diff := cmp.Diff(want, r.Groups[0].Topology); diff != "" {
		t.Errorf("topology (-want +got):\n%s", diff)
	}
	if got, want := r.Groups[0].topologyCell(), "needs one berth.dev/rack (required); largest room 4 of 1"; got != want {
		t.Errorf("TOPOLOGY cell %q, want %q", got, want)
	}
}
