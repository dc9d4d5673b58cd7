package why

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
)

var res = gpu.ResourceNames{Memory: "aliyun.com/gpu-mem", Count: "aliyun.com/gpu-count"}

func cpuNode(name, cpu string, mutate ...func(*v1.Node)) v1.Node {
	c := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("64Gi"), v1.ResourcePods: resource.MustParse("110")}
	n := v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}}, Status: v1.NodeStatus{Capacity: c, Allocatable: c}}
	for _, m := range mutate {
		m(&n)
	}
	return n
}

func cpuPod(ns, name, node, cpu string, mutate ...func(*v1.Pod)) v1.Pod {
	r := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
	p := v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name)},
		Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: r, Limits: r}}}},
	}
	for _, m := range mutate {
		m(&p)
	}
	return p
}

// deleting marks a pod as being deleted, as a graceful delete leaves it until the kubelet has
// stopped it.
func deleting(p *v1.Pod) { p.DeletionTimestamp = &metav1.Time{} }

func priority(n int32) func(*v1.Pod) { return func(p *v1.Pod) { p.Spec.Priority = &n } }

func inGroup(name string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Labels = map[string]string{v1alpha1.PodGroupLabel: name} }
}

func inNative(name string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(name)} }
}

// nativeGroup is a native PodGroup of ns ml as Gang places it.
func nativeGroup(name string, minCount int32) *podgroup.Group {
	return podgroup.FromNative(&schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount},
		}},
	})
}

func failed(msg string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: msg}}
	}
}

// whyOf answers for the pod named name among pods.
func whyOf(t *testing.T, name string, in Input) *Answer {
	t.Helper()
	for i := range in.Pods {
		if in.Pods[i].Name == name {
			in.Pod = &in.Pods[i]
		}
	}
	if in.Pod == nil {
		t.Fatalf("no pod %s", name)
	}
	in.Resources = res
	w := Of(in)
	// The room counted once and shared (RoomOf, as internal/waitreason shares it over a sweep) gives
	// the same answer, and answering does not change it, though every other pod was answered on it
	// first (and its index of groups built by another pod's answer).
	room := RoomOf(in)
	for i := range in.Pods {
		other := in
		other.Pod = &in.Pods[i]
		OfIn(other, room)
	}
	if diff := cmp.Diff(w, OfIn(in, room)); diff != "" {
		t.Errorf("OfIn on RoomOf differs from Of (-Of +OfIn):\n%s", diff)
	}
	if diff := cmp.Diff(w, OfIn(in, room)); diff != "" {
		t.Errorf("a second answer on the same Room differs (-Of +OfIn):\n%s", diff)
	}
	t.Logf("%s: %s\n%s", w.Cause, w.Summary, strings.Join(w.Details, "\n"))
	return w
}

// text is everything the answer says, for substring checks.
func (w *Answer) text() string {
	return strings.Join(append(append([]string{w.Summary}, w.Details...), append(w.Unblock, w.Preemption)...), "\n")
}

func TestWhy(t *testing.T) {
	quotaObj := func(ns string, max v1.ResourceList) v1alpha1.ElasticQuota {
		return v1alpha1.ElasticQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quota"}, Spec: v1alpha1.ElasticQuotaSpec{Max: max}}
	}
	group := func(name string, minMember int32) *podgroup.Group {
		return podgroup.FromPlugins(&v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name}, Spec: v1alpha1.PodGroupSpec{MinMember: minMember}})
	}
	devices := func(s string) func(*v1.Pod) {
		return func(p *v1.Pod) { p.Annotations = map[string]string{gpu.PodGPUDevicesAnnotation: s} }
	}
	gpuReq := func(n string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Limits[res.Memory] = resource.MustParse(n)
		}
	}
	gpuNodeA := cpuNode("gpu-a", "16", func(n *v1.Node) {
		n.Status.Allocatable[res.Count] = resource.MustParse("2")
		n.Status.Allocatable[res.Memory] = resource.MustParse("32")
	})

	tests := []struct {
		name  string
		pod   string
		in    Input
		cause string
		berth bool
		says  []string
	}{
		{
			name: "bound", pod: "p",
			in:    Input{Pods: []v1.Pod{cpuPod("ml", "p", "node-a", "1")}},
			cause: CauseNotPending, says: []string{"bound to node node-a"},
		},
		{
			name: "scheduling gates", pod: "p",
			in: Input{Pods: []v1.Pod{cpuPod("ml", "p", "", "1", func(p *v1.Pod) {
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
			})}},
			cause: CauseSchedulingGates, says: []string{"held outside berth by scheduling gates example.com/hold"},
		},
		{
			name: "pod group missing", pod: "p",
			in:    Input{Pods: []v1.Pod{cpuPod("ml", "p", "", "1", inGroup("train"))}},
			cause: CausePodGroupMissing, berth: true, says: []string{"pod group ml/train does not exist", "create PodGroup ml/train"},
		},
		{
			name: "gang members missing", pod: "p0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "8")},
				Groups: []*podgroup.Group{group("train", 3)},
				Pods:   []v1.Pod{cpuPod("ml", "p0", "", "1", inGroup("train")), cpuPod("ml", "p1", "", "1", inGroup("train"))},
			},
			cause: CauseGangMembers, berth: true, says: []string{"needs 3 pods (minMember) and 2 exist: 1 missing", "create 1 more pods"},
		},
		{
			name: "quota full", pod: "p",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "16")},
				Quotas: []v1alpha1.ElasticQuota{quotaObj("team", v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")})},
				Pods: []v1.Pod{
					cpuPod("team", "big", "node-a", "2"), cpuPod("team", "small", "node-a", "1"),
					cpuPod("other", "elsewhere", "node-a", "8"), // another namespace: not the quota's
					cpuPod("team", "p", "", "2"),
				},
			},
			cause: CauseQuota, berth: true,
			says: []string{"ElasticQuota team/quota is full in cpu: 3 used of max 4, and the pod asks 2; 1 over", "team/big (2)", "raised to 5"},
		},
		{
			name: "quota: asks more than max", pod: "p",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "16")},
				Quotas: []v1alpha1.ElasticQuota{quotaObj("team", v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")})},
				Pods:   []v1.Pod{cpuPod("team", "p", "", "6")},
			},
			cause: CauseQuota, berth: true, says: []string{"0 used of max 4", "it asks more than the max"},
		},
		{
			name: "GPU fragmentation", pod: "p",
			in: Input{
				Nodes: []v1.Node{gpuNodeA},
				Pods: []v1.Pod{
					cpuPod("ml", "x", "gpu-a", "1", gpuReq("8"), devices("0:8")),
					cpuPod("ml", "y", "gpu-a", "1", gpuReq("4"), devices("1:4")),
					cpuPod("ml", "z", "gpu-a", "1", gpuReq("4"), devices("1:4")),
					cpuPod("ml", "p", "", "1", gpuReq("12")),
				},
			},
			cause: CauseGPUFragmented, berth: true,
			says: []string{"fits in total on node gpu-a (16 free over 2 GPUs), but no GPU has 12 free; the most on one GPU is 8",
				"it fits if pod ml/y (4 on GPU 1 of node gpu-a) ends"},
		},
		{
			name: "GPU fragmentation, two GPUs asked", pod: "p",
			in: Input{
				Nodes: []v1.Node{gpuNodeA},
				Pods: []v1.Pod{
					cpuPod("ml", "x", "gpu-a", "1", gpuReq("10"), devices("0:10")),
					cpuPod("ml", "p", "", "1", gpuReq("16"), func(p *v1.Pod) {
						p.Annotations = map[string]string{gpu.PodGPUCountAnnotation: "2"}
					}),
				},
			},
			cause: CauseGPUFragmented, berth: true,
			says: []string{"it asks 2 GPUs with 8 each and only 1 GPU has that much free; the most on one GPU is 16",
				"it fits if pod ml/x (10 on GPU 0 of node gpu-a) ends"},
		},
		{
			name: "node constraints counted", pod: "p",
			in: Input{
				Nodes: []v1.Node{
					cpuNode("plain", "8"),
					cpuNode("tainted", "8", func(n *v1.Node) {
						n.Labels["disk"] = "ssd"
						n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "ml", Effect: v1.TaintEffectNoSchedule}}
					}),
					cpuNode("cordoned", "8", func(n *v1.Node) { n.Labels["disk"] = "ssd"; n.Spec.Unschedulable = true }),
				},
				Pods: []v1.Pod{cpuPod("ml", "p", "", "1", func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} })},
			},
			cause: CauseNodeConstraints,
			says:  []string{"of 3 nodes, 1 node by cordoned (spec.unschedulable), 1 node by nodeSelector disk=ssd, 1 node by taint dedicated=ml:NoSchedule"},
		},
		{
			name: "no room; preemption would not help", pod: "p",
			in: Input{
				Nodes: []v1.Node{cpuNode("node-a", "4")},
				Pods: []v1.Pod{
					cpuPod("ml", "low", "node-a", "1", priority(0)),
					cpuPod("ml", "high", "node-a", "3", priority(100)),
					cpuPod("ml", "p", "", "3", priority(10)),
				},
			},
			cause: CauseResources, berth: true,
			says: []string{"node node-a, lacks cpu (asks 3, 0 free)", "would not help: even with all 1 pod of lower priority than 10 gone"},
		},
		{
			name: "no room; preemption would make room", pod: "p",
			in: Input{
				Nodes: []v1.Node{cpuNode("node-a", "4")},
				Pods: []v1.Pod{
					cpuPod("ml", "low", "node-a", "3", priority(0)),
					cpuPod("ml", "high", "node-a", "1", priority(100)),
					cpuPod("ml", "p", "", "3", priority(10)),
				},
			},
			cause: CauseResources, berth: true, says: []string{"would make room on node node-a by evicting 1 pod of lower priority (ml/low)"},
		},
		{
			name: "no room; preemption off", pod: "p",
			in: Input{
				Nodes: []v1.Node{cpuNode("node-a", "1")},
				Pods: []v1.Pod{cpuPod("ml", "low", "node-a", "1", priority(0)),
					cpuPod("ml", "p", "", "1", priority(10), func(p *v1.Pod) { p.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever) })},
			},
			cause: CauseResources, berth: true, says: []string{"off for this pod (preemptionPolicy: Never)"},
		},
		{
			name: "gang: members placeable and missing", pod: "g0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "4")},
				Groups: []*podgroup.Group{group("train", 3)},
				Pods: []v1.Pod{
					cpuPod("ml", "other", "node-a", "2"),
					cpuPod("ml", "g0", "", "1", inGroup("train")), cpuPod("ml", "g1", "", "1", inGroup("train")), cpuPod("ml", "g2", "", "1", inGroup("train")),
				},
			},
			cause: CauseGang, berth: true,
			says: []string{"pod group ml/train needs 3 (minMember) placed together: 0 bound, 2 more placeable now, 1 lack room", "lacks cpu (asks 1, 0 free)", "minMember lowered to 2"},
		},
		{
			name: "gang fits now", pod: "g0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "4")},
				Groups: []*podgroup.Group{group("train", 2)},
				Pods:   []v1.Pod{cpuPod("ml", "g0", "", "1", inGroup("train")), cpuPod("ml", "g1", "node-a", "1", inGroup("train"))},
			},
			cause: CauseGang, berth: true, says: []string{"fits now: 1 of its 2 (minMember) bound and 1 more placeable together"},
		},
		{
			// Gang counts a member being deleted as gone (podgroup.Live); its room stays taken
			// until the kubelet has stopped it (podroom.Holds).
			name: "gang: a deleting member is not a member", pod: "g0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "4")},
				Groups: []*podgroup.Group{group("train", 3)},
				Pods: []v1.Pod{
					cpuPod("ml", "g0", "", "1", inGroup("train")), cpuPod("ml", "g1", "", "1", inGroup("train")),
					cpuPod("ml", "g2", "node-a", "1", inGroup("train"), deleting),
				},
			},
			cause: CauseGangMembers, berth: true, says: []string{"needs 3 pods (minMember) and 2 exist: 1 missing", "members: 0 bound, 2 waiting"},
		},
		{
			name: "gang: a deleting member is not bound, and holds its room", pod: "g0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "2")},
				Groups: []*podgroup.Group{group("train", 2)},
				Pods: []v1.Pod{
					cpuPod("ml", "g0", "", "1", inGroup("train")), cpuPod("ml", "g1", "", "1", inGroup("train")),
					cpuPod("ml", "g2", "node-a", "1", inGroup("train"), deleting),
				},
			},
			cause: CauseGang, berth: true, says: []string{"members: 0 bound, 2 waiting, 1 placeable now together"},
		},
		// A native group (scheduling.k8s.io), read as the API names it: this test process's
		// GenericWorkload gate is off, as kubectl berth's is.
		{
			name: "native gang: members placeable and missing", pod: "g0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "4")},
				Groups: []*podgroup.Group{nativeGroup("train", 3)},
				Pods: []v1.Pod{
					cpuPod("ml", "other", "node-a", "2"),
					cpuPod("ml", "g0", "", "1", inNative("train")), cpuPod("ml", "g1", "", "1", inNative("train")), cpuPod("ml", "g2", "", "1", inNative("train")),
				},
			},
			cause: CauseGang, berth: true,
			says: []string{"pod group ml/scheduling.k8s.io/train needs 3 (minCount) placed together: 0 bound, 2 more placeable now, 1 lack room", "the PodGroup recreated with schedulingPolicy.gang.minCount 2"},
		},
		{
			name: "native gang: over quota as a group", pod: "g0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "8")},
				Quotas: []v1alpha1.ElasticQuota{quotaObj("ml", v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")})},
				Groups: []*podgroup.Group{nativeGroup("train", 3)},
				Pods:   []v1.Pod{cpuPod("ml", "g0", "", "1", inNative("train")), cpuPod("ml", "g1", "", "1", inNative("train")), cpuPod("ml", "g2", "", "1", inNative("train"))},
			},
			cause: CauseQuota, berth: true, says: []string{"its group's 3 waiting members ask 3; 1 over"},
		},
		{
			name: "native gang: PodGroup missing", pod: "g0",
			in:    Input{Pods: []v1.Pod{cpuPod("ml", "g0", "", "1", inNative("train"))}},
			cause: CausePodGroupMissing, berth: true,
			says: []string{"its pod group ml/scheduling.k8s.io/train does not exist (spec.schedulingGroup.podGroupName train)", "create PodGroup ml/train (scheduling.k8s.io/v1beta1)"},
		},
		{
			// berth-scheduler answers by its own gate (podgroup.KeyOf): off, it serves no native
			// group, and the member is a pod of none.
			name: "native gang: a scheduler that serves no native groups", pod: "g0",
			in: Input{
				Nodes:  []v1.Node{cpuNode("node-a", "8")},
				Quotas: []v1alpha1.ElasticQuota{quotaObj("ml", v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")})},
				Pods:   []v1.Pod{cpuPod("ml", "g0", "", "1", inNative("train"), failed("no")), cpuPod("ml", "g1", "", "1", inNative("train")), cpuPod("ml", "g2", "", "1", inNative("train"))},
				KeyOf:  podgroup.KeyOf,
			},
			cause: CauseFitsNow, says: []string{"node node-a has room"},
		},
		{
			name: "room now, the scheduler said something else", pod: "p",
			in: Input{
				Nodes: []v1.Node{cpuNode("node-a", "4")},
				Pods:  []v1.Pod{cpuPod("ml", "p", "", "1", failed("0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."))},
			},
			cause: CauseFitsNow, says: []string{"node node-a has room", "anti-affinity", "outside berth"},
		},
		{
			name: "room now, no scheduler has spoken", pod: "p",
			in: Input{
				Nodes: []v1.Node{cpuNode("node-a", "4")},
				Pods:  []v1.Pod{cpuPod("ml", "p", "", "1", func(p *v1.Pod) { p.Spec.SchedulerName = "nobody" })},
			},
			cause: CauseNoScheduler, says: []string{`is a scheduler named "nobody" running?`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := whyOf(t, tt.pod, tt.in)
			if w.Cause != tt.cause || w.Berth != tt.berth {
				t.Errorf("cause %s (berth %v), want %s (berth %v): %s", w.Cause, w.Berth, tt.cause, tt.berth, w.Summary)
			}
			for _, s := range tt.says {
				if !strings.Contains(w.text(), s) {
					t.Errorf("the answer does not say %q:\n%s", s, w.text())
				}
			}
		})
	}
}

// The answer berth-scheduler published on the pod (internal/waitreason) is read back, for a pending
// pod and for one bound since; kubectl berth why shows it only for the pending one
// (internal/inspect's TestWhyTableShowsPublished).
func TestWhyReadsPublished(t *testing.T) {
	published := func(p *v1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: WaitingForCondition, Status: v1.ConditionTrue,
			Reason: CauseResources, Message: "Resources: no node it may use has room", LastTransitionTime: metav1.Now()})
	}
	in := Input{Nodes: []v1.Node{cpuNode("n", "2")}, Pods: []v1.Pod{cpuPod("ns", "big", "", "4", published), cpuPod("ns", "bound", "n", "1", published)}}
	w := whyOf(t, "big", in)
	if w.Published == nil || w.Published.Reason != CauseResources || w.Published.Message != "Resources: no node it may use has room" {
		t.Fatalf("Published %+v, want the condition's reason and message", w.Published)
	}
	if w := whyOf(t, "bound", in); w.Cause != CauseNotPending {
		t.Errorf("bound pod: cause %s, want %s", w.Cause, CauseNotPending)
	}
}

// kubectl berth why and kubectl berth gangs judge a toleration alike, as the scheduler does by
// default: the comparison operators (Gt, Lt) are an alpha gate, off unless enabled, so a toleration
// using one tolerates nothing.
func TestWhyAndGangsJudgeTolerationsAlike(t *testing.T) {
	tainted := cpuNode("tainted", "8", func(n *v1.Node) {
		n.Spec.Taints = []v1.Taint{{Key: "example.com/generation", Value: "5", Effect: v1.TaintEffectNoSchedule}}
	})
	newer := func(p *v1.Pod) {
		p.Spec.Tolerations = []v1.Toleration{{Key: "example.com/generation", Operator: v1.TolerationOpGt, Value: "3", Effect: v1.TaintEffectNoSchedule}}
	}
	in := Input{Nodes: []v1.Node{tainted}, Pods: []v1.Pod{cpuPod("ns", "p", "", "1", newer)}}
	w := whyOf(t, "p", in)
	if w.Cause != CauseNodeConstraints || !strings.Contains(w.text(), "taint example.com/generation=5:NoSchedule") {
		t.Errorf("why: cause %s, %q; want %s by taint example.com/generation=5:NoSchedule", w.Cause, w.text(), CauseNodeConstraints)
	}
	levels := topology.Levels{v1.LabelHostname}
	rooms := DomainRooms(noderoom.Of(in.Nodes, nil, gpu.DefaultResourceNames()), levels, 0, in.Pods[0].Spec.Tolerations, noderoom.RequestOf(&in.Pods[0]))
	if n := rooms["tainted"]; n != 0 {
		t.Errorf("gangs: the tainted node's domain has room for %d members, want 0", n)
	}
}
