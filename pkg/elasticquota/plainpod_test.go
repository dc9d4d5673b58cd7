package elasticquota

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/gpu"
)

// TestPlainPod: a pod of a namespace without a quota is skipped at PreFilter (Filter never runs
// for it), signs nothing, and its Reserve holds nothing.
func TestPlainPod(t *testing.T) {
	e := newEnv(t, nil, elasticQuota("a", "q", nil, cpu("2")))
	pod := podOf("free", "p", "1").Obj()
	if fragments, status := e.pl.SignPod(e.ctx, pod); !status.IsSuccess() || len(fragments) != 0 {
		t.Errorf("SignPod: %v, %v; want no fragment", fragments, status)
	}
	state, status := e.preFilter(t, pod)
	if !status.IsSkip() {
		t.Errorf("PreFilter: %v, want Skip", status)
	}
	if status := e.pl.Reserve(e.ctx, state, pod, "n1"); !status.IsSuccess() {
		t.Errorf("Reserve: %v, want success", status)
	}
	if held, _ := e.pl.ledger.Holds(pod.UID); held {
		t.Error("Reserve of a pod without quota holds it in the ledger")
	}
}

// BenchmarkPlainPod is what ElasticQuota costs a pod of a namespace without a quota in one
// scheduling cycle: every point it serves that the framework calls for such a pod.
func BenchmarkPlainPod(b *testing.B) {
	e := newEnv(b, nil, elasticQuota("a", "q", nil, cpu("2")))
	pod := podOf("free", "p", "1").Obj()
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		if _, status := e.pl.SignPod(e.ctx, pod); !status.IsSuccess() {
			b.Fatal(status)
		}
		if _, status := e.pl.PreFilter(e.ctx, state, pod, nil); !status.IsSkip() {
			b.Fatal(status)
		}
		if status := e.pl.Reserve(e.ctx, state, pod, "n1"); !status.IsSuccess() {
			b.Fatal(status)
		}
	}
}

// BenchmarkPodHandler is what the ledger's pod handler costs per event of a bound pod: its
// binding, then status updates that change nothing the ledger counts (a kubelet's, many per
// pod).
func BenchmarkPodHandler(b *testing.B) {
	e := newEnv(b, nil)
	h := e.pl.podHandler()
	pending := podOf("free", "p", "1").Obj()
	bound := pending.DeepCopy()
	bound.Spec.NodeName = "n1"
	running := bound.DeepCopy()
	running.Status.Phase = v1.PodRunning
	running.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
	for _, tc := range []struct {
		name     string
		old, cur *v1.Pod
	}{
		{"binding", pending, bound},
		{"status", bound, running},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h.OnUpdate(tc.old, tc.cur)
			}
		})
	}
}

// TestPodHandlerFollowsWhatItCounts: the ledger follows a pod through its binding, a resize and
// its end, while status reports that change nothing it counts are passed over.
func TestPodHandlerFollowsWhatItCounts(t *testing.T) {
	e := newEnv(t, nil, elasticQuota("a", "q", nil, cpu("8")))
	h := e.pl.podHandler()
	usedCPU := func() int64 {
		view, ok := e.pl.ledger.ViewOf("a", "")
		if !ok {
			t.Fatal("namespace a has no quota")
		}
		return view.Used[v1.ResourceCPU]
	}
	pending := podOf("a", "p", "1").Obj()
	pending.Generation = 1
	bound := pending.DeepCopy()
	bound.Spec.NodeName = "n1"
	running := bound.DeepCopy()
	running.Status.Phase = v1.PodRunning
	resized := running.DeepCopy()
	resized.Generation = 2
	resized.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = mustParse("500m")
	done := resized.DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	h.OnAdd(pending, false)
	for _, step := range []struct {
		name     string
		old, cur *v1.Pod
		want     int64
	}{
		{"bound", pending, bound, 1000},
		{"running", bound, running, 1000},
		{"resized", running, resized, 500},
		{"succeeded", resized, done, 0},
	} {
		h.OnUpdate(step.old, step.cur)
		if got := usedCPU(); got != step.want {
			t.Errorf("%s: used cpu %dm, want %dm", step.name, got, step.want)
		}
	}
}

func TestSameCount(t *testing.T) {
	bound := podOf("a", "p", "1").Node("n1").Obj()
	bound.Generation = 1
	change := func(f func(*v1.Pod)) *v1.Pod {
		p := bound.DeepCopy()
		f(p)
		return p
	}
	for _, tc := range []struct {
		name string
		cur  *v1.Pod
		want bool
	}{
		{"status report", change(func(p *v1.Pod) { p.Status.Phase = v1.PodRunning; p.ResourceVersion = "2" }), true},
		{"other label", change(func(p *v1.Pod) { p.Labels = map[string]string{"app": "x"} }), true},
		{"spec changed", change(func(p *v1.Pod) { p.Generation = 2 }), false},
		{"other node", change(func(p *v1.Pod) { p.Spec.NodeName = "n2" }), false},
		{"failed", change(func(p *v1.Pod) { p.Status.Phase = v1.PodFailed }), false},
		{"being deleted", change(func(p *v1.Pod) { p.DeletionTimestamp = &metav1.Time{} }), false},
		{"joins a group", change(func(p *v1.Pod) { p.Labels = map[string]string{v1alpha1.PodGroupLabel: "g"} }), false},
		{"GPU count", change(func(p *v1.Pod) { p.Annotations = map[string]string{gpu.PodGPUCountAnnotation: "2"} }), false},
		{"recreated", change(func(p *v1.Pod) { p.UID = "other" }), false},
	} {
		if got := sameCount(bound, tc.cur); got != tc.want {
			t.Errorf("%s: sameCount %v, want %v", tc.name, got, tc.want)
		}
	}
}
