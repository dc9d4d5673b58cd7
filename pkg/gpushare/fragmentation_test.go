package gpushare

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/berth-sched/berth/pkg/apis/config"
	"github.com/berth-sched/berth/pkg/gpu"
)

// scoreAll runs PreScore, Score on every node and NormalizeScore for pod, as a scheduling cycle
// does, and returns the normalised scores, or PreScore's status if it is not Success.
func (e *env) scoreAll(t *testing.T, pod *v1.Pod, nodes ...string) (fwk.NodeScoreList, *fwk.Status) {
	t.Helper()
	state, _ := e.prefilter(t, pod)
	if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
		return nil, status
	}
	var got fwk.NodeScoreList
	for _, n := range nodes {
		score, status := e.pl.Score(e.ctx, state, pod, e.nodeInfo(t, n))
		if !status.IsSuccess() {
			t.Fatalf("Score %s: %v", n, status)
		}
		got = append(got, fwk.NodeScore{Name: n, Score: score})
	}
	if status := e.pl.ScoreExtensions().NormalizeScore(e.ctx, state, pod, got); !status.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", status)
	}
	return got, nil
}

// The cluster's mix is pending pods asking for 12 of a GPU of 16; the pod asks for 4. On "frag",
// 8 of a GPU are free, which no request of the mix can use: the pod fills half of it, and the
// fragmentation shrinks. On "empty" the pod leaves 12 free, still usable. On "twelve", one GPU
// with 12 free, it would leave 8 where 12 were: the fragmentation grows by half a GPU. Binpack,
// which prefers the fullest GPUs, puts "twelve" before "empty".
func TestFragmentationScore(t *testing.T) {
	nodes := []string{"frag", "empty", "twelve"}
	objs := []runtime.Object{
		gpuNode("frag", 2, 32).Obj(), gpuNode("empty", 2, 32).Obj(), gpuNode("twelve", 1, 16).Obj(),
		boundPod("a", "frag", "0:8").Obj(),
		boundPod("b", "twelve", "0:4").Obj(),
		gpuPod("m1", 12).Obj(), gpuPod("m2", 12).Obj(),
	}
	tests := []struct {
		strategy string
		want     fwk.NodeScoreList
	}{
		{strategy: gpu.FragmentationName, want: fwk.NodeScoreList{{Name: "frag", Score: 100}, {Name: "empty", Score: 99}, {Name: "twelve", Score: 98}}},
		{strategy: gpu.BinpackName, want: fwk.NodeScoreList{{Name: "frag", Score: 100}, {Name: "empty", Score: 0}, {Name: "twelve", Score: 83}}},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			e := newEnv(t, args(tt.strategy), objs...)
			got, status := e.scoreAll(t, gpuPod("p", 4).Obj(), nodes...)
			if !status.IsSuccess() {
				t.Fatalf("PreScore: %v", status)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

// The mix's pods may run on T4 GPUs only (a nodeSelector on gpu.ModelLabel); a pod that may run
// anywhere takes the empty V100 node, which no request of the mix can use, before the empty T4
// node: on the T4 it would take from what the mix needs. It costs less there by whole GPUs, not
// by the tie order.
func TestFragmentationScoreByModel(t *testing.T) {
	t4 := map[string]string{gpu.ModelLabel: "T4"}
	e := newEnv(t, args(gpu.FragmentationName),
		gpuNode("t4", 2, 32).Label(gpu.ModelLabel, "T4").Obj(), gpuNode("v100", 2, 32).Label(gpu.ModelLabel, "V100").Obj(),
		gpuPod("m1", 8).NodeSelector(t4).Obj(), gpuPod("m2", 8).NodeSelector(t4).Obj())
	raw := func(pod *v1.Pod) map[string]int64 {
		state, _ := e.prefilter(t, pod)
		if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
			t.Fatalf("PreScore: %v", status)
		}
		scores := map[string]int64{}
		for _, n := range []string{"t4", "v100"} {
			score, status := e.pl.Score(e.ctx, state, pod, e.nodeInfo(t, n))
			if !status.IsSuccess() {
				t.Fatalf("Score %s: %v", n, status)
			}
			scores[n] = score
		}
		return scores
	}
	eventually(t, "the mix's pods observed", func() bool { return e.pl.devices.mix.View().Len() == 1 })
	for _, name := range []string{"p", "q", "r"} {
		if got := raw(gpuPod(name, 8).Obj()); got["v100"]-got["t4"] < gpu.TieSpan {
			t.Errorf("pod %s, free to run anywhere: raw scores %v, want the V100 ahead by more than the tie order", name, got)
		}
	}
}

// The mix's pods are restricted half to model A, half to model S; the cluster has three nodes of
// A and one of S. Counted once each, the two models look alike to a pod that may run anywhere and
// only the tie order would part them; weighed against the cluster's GPUs (gpu.MixView.WithSupply,
// counted by the node informer), S's pods have a quarter of the GPUs to go to, and the pod
// goes to A, ahead by a third of a GPU and more.
func TestFragmentationScoreBySupply(t *testing.T) {
	a := map[string]string{gpu.ModelLabel: "A"}
	s := map[string]string{gpu.ModelLabel: "S"}
	e := newEnv(t, args(gpu.FragmentationName),
		gpuNode("a1", 2, 32).Label(gpu.ModelLabel, "A").Obj(), gpuNode("a2", 2, 32).Label(gpu.ModelLabel, "A").Obj(),
		gpuNode("a3", 2, 32).Label(gpu.ModelLabel, "A").Obj(), gpuNode("s", 2, 32).Label(gpu.ModelLabel, "S").Obj(),
		gpuPod("m1", 8).NodeSelector(a).Obj(), gpuPod("m2", 8).NodeSelector(s).Obj())
	eventually(t, "the mix's pods observed", func() bool { return e.pl.devices.mix.View().NamesModels() })
	e.sync(t)
	pod := gpuPod("p", 8).Obj()
	state, _ := e.prefilter(t, pod)
	if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
		t.Fatalf("PreScore: %v", status)
	}
	scores := map[string]int64{}
	for _, n := range []string{"a1", "s"} {
		score, status := e.pl.Score(e.ctx, state, pod, e.nodeInfo(t, n))
		if !status.IsSuccess() {
			t.Fatalf("Score %s: %v", n, status)
		}
		scores[n] = score
	}
	// Half a GPU taken on S costs half a GPU more than the average need: S's pods count 4 times
	// there, A's 4/3 times on A (8 GPUs over 2 and over 6). The A node is ahead by 2/3 of the half
	// GPU the pod takes; counted once, by a hair (the mix's decay weighs m2 a little more than m1).
	if got, want := scores["a1"]-scores["s"], gpu.RawScore(-0.3, 0)-gpu.RawScore(0, 0); got < want {
		t.Errorf("raw scores %v: want the A node ahead of the S node by %d or more (0.3 GPU), got %d", scores, want, got)
	}
}

// With the Fragmentation strategy Reserve takes the device Score rated the node by, where the
// fragmentation grows least, which is not always Binpack's tightest fit. The mix asks for half a
// GPU of 10; of GPUs with 6 and 10 free, a pod of 3 would leave 3 that the mix cannot use on the
// first (Binpack's choice), 7 that it can on the second. Reserve runs with and without PreScore
// before it (the scheduler skips scoring when one node is feasible).
func TestFragmentationReserve(t *testing.T) {
	for _, tt := range []struct {
		strategy string
		preScore bool
		want     int
	}{
		{strategy: gpu.FragmentationName, preScore: true, want: 1},
		{strategy: gpu.FragmentationName, want: 1},
		{strategy: gpu.BinpackName, preScore: true, want: 0},
	} {
		e := newEnv(t, args(tt.strategy), gpuNode("n1", 2, 20).Obj(), boundPod("a", "n1", "0:4").Obj(),
			gpuPod("m1", 5).Obj())
		eventually(t, "the mix's pod observed", func() bool { return e.pl.devices.mix.View().Len() == 1 })
		pod := gpuPod("p", 3).Obj()
		state, _ := e.prefilter(t, pod)
		if tt.preScore {
			if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
				t.Fatalf("PreScore: %v", status)
			}
		}
		if status := e.reserve(t, e.pl, state, pod, "n1"); !status.IsSuccess() {
			t.Fatalf("Reserve: %v", status)
		}
		_, a, _ := e.pl.devices.PodAssignment(pod.UID)
		if diff := cmp.Diff(gpu.Assignment{{Index: tt.want, Memory: 3}}, a); diff != "" {
			t.Errorf("%s, PreScore %v: devices (-want +got):\n%s", tt.strategy, tt.preScore, diff)
		}
	}
}

// A node the pod no longer fits scores below every other, as 0 does for Binpack and Spread.
func TestFragmentationScoreNoFit(t *testing.T) {
	e := newEnv(t, args(gpu.FragmentationName), gpuNode("full", 1, 16).Obj(), gpuNode("free", 1, 16).Obj(),
		boundPod("a", "full", "0:16").Obj())
	pod := gpuPod("p", 8).Obj()
	state, _ := e.prefilter(t, pod)
	if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
		t.Fatalf("PreScore: %v", status)
	}
	if score, status := e.pl.Score(e.ctx, state, pod, e.nodeInfo(t, "full")); !status.IsSuccess() || score != math.MinInt64 {
		t.Errorf("Score on a full node: %d, %v; want MinInt64", score, status)
	}
}

// A pod without GPU memory prefers, with LeastGPUHarm, a node without GPUs, then the node whose
// GPUs are the fullest; with None it is left to the other plugins.
func TestNoGPUPodScoring(t *testing.T) {
	objs := []runtime.Object{
		gpuNode("gpus", 2, 32).Obj(),
		st.MakeNode().Name("cpu-only").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "32"}).Obj(),
		gpuNode("busy", 2, 32).Obj(),
		boundPod("a", "busy", "0:16").Obj(),
	}
	nodes := []string{"gpus", "cpu-only", "busy"}
	pod := st.MakePod().Namespace("default").Name("cpu").UID("cpu").Req(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj()
	for _, strategy := range []string{gpu.FragmentationName, gpu.BinpackName} {
		t.Run(strategy+"/LeastGPUHarm", func(t *testing.T) {
			e := newEnv(t, argsNoGPU(strategy, config.LeastGPUHarm), objs...)
			got, status := e.scoreAll(t, pod, nodes...)
			if !status.IsSuccess() {
				t.Fatalf("PreScore: %v", status)
			}
			want := fwk.NodeScoreList{{Name: "gpus", Score: 98}, {Name: "cpu-only", Score: 100}, {Name: "busy", Score: 99}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
		t.Run(strategy+"/None", func(t *testing.T) {
			e := newEnv(t, argsNoGPU(strategy, config.NoGPUPodScoringNone), objs...)
			if _, status := e.scoreAll(t, pod, nodes...); !status.IsSkip() {
				t.Errorf("PreScore: %v, want Skip", status)
			}
		})
	}
}

// Each pod counts once in the mix, when the informer adds it: not when it changes, nor each time
// PreFilter or PreScore sees it.
func TestMixObservesEachPodOnce(t *testing.T) {
	e := newEnv(t, args(gpu.FragmentationName), gpuPod("twelve", 12).Obj())
	if err := e.pl.devices.waitForSync(e.ctx); err != nil {
		t.Fatal(err)
	}
	four := gpuPod("four", 4).Obj()
	if _, err := e.cs.CoreV1().Pods("default").Create(e.ctx, four, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// One GPU with 8 free: fragmented for the requests of 12, not for those of 4. With both kinds
	// counted once each, half the mix cannot use half a GPU.
	node := gpu.NodeShape{Devices: []gpu.Device{{Capacity: 16, Used: 8}}}
	eventually(t, "the new pod in the mix", func() bool {
		return e.pl.devices.mix.View().Len() == 2
	})
	for i := range 5 {
		twelve, err := e.cs.CoreV1().Pods("default").Get(e.ctx, "twelve", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		twelve.Labels = map[string]string{"update": string(rune('a' + i))}
		if _, err := e.cs.CoreV1().Pods("default").Update(e.ctx, twelve, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		state, _ := e.prefilter(t, twelve)
		if status := e.pl.PreScore(e.ctx, state, twelve, nil); !status.IsSuccess() {
			t.Fatalf("PreScore: %v", status)
		}
	}
	eventually(t, "the informer to see the updates", func() bool {
		p, err := e.fh.SharedInformerFactory().Core().V1().Pods().Lister().Pods("default").Get("twelve")
		return err == nil && p.Labels["update"] == "e"
	})
	if got := gpu.Fragmentation(node, e.pl.devices.mix.View()); math.Abs(got-0.25) > 1e-3 {
		t.Errorf("fragmentation against the mix %v, want 0.25: a pod was counted more than once", got)
	}
}

// With the fragmentation scores, the pod's cpu and memory requests are in its signature.
func TestSignPodFragmentation(t *testing.T) {
	withCPU := func(pod *st.PodWrapper, cpu string) *v1.Pod {
		return pod.Req(map[v1.ResourceName]string{v1.ResourceCPU: cpu}).Obj()
	}
	cpuPod := func(name, cpu string) *v1.Pod { return withCPU(st.MakePod().Namespace("default").Name(name), cpu) }
	tests := []struct {
		name      string
		args      *config.GPUShareArgs
		a, b      *v1.Pod
		wantEqual bool
	}{
		{name: "Fragmentation: other cpu", args: args(gpu.FragmentationName),
			a: withCPU(gpuPod("a", 8), "1"), b: withCPU(gpuPod("b", 8), "2")},
		{name: "Fragmentation: same demand", args: args(gpu.FragmentationName),
			a: withCPU(gpuPod("a", 8), "1"), b: withCPU(gpuPod("b", 8), "1"), wantEqual: true},
		{name: "Fragmentation: other GPU models", args: args(gpu.FragmentationName),
			a: withCPU(gpuPod("a", 8), "1"), b: withCPU(gpuPod("b", 8).NodeSelector(map[string]string{gpu.ModelLabel: "T4"}), "1")},
		{name: "Binpack: cpu is NodeResourcesFit's to sign", args: args(gpu.BinpackName),
			a: withCPU(gpuPod("a", 8), "1"), b: withCPU(gpuPod("b", 8), "2"), wantEqual: true},
		{name: "LeastGPUHarm: pods without GPU, other cpu", args: argsNoGPU(gpu.FragmentationName, config.LeastGPUHarm),
			a: cpuPod("a", "1"), b: cpuPod("b", "2")},
		{name: "None: pods without GPU sign nothing", args: args(gpu.FragmentationName),
			a: cpuPod("a", "1"), b: cpuPod("b", "2"), wantEqual: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.args)
			a, sa := e.pl.SignPod(e.ctx, tt.a)
			b, sb := e.pl.SignPod(e.ctx, tt.b)
			if !sa.IsSuccess() || !sb.IsSuccess() {
				t.Fatalf("SignPod: %v, %v", sa, sb)
			}
			if got := cmp.Equal(a, b); got != tt.wantEqual {
				t.Errorf("signatures %v and %v: equal %v, want %v", a, b, got, tt.wantEqual)
			}
		})
	}
}

// BenchmarkPreScoreSupply is PreScore's cost per scheduling cycle for a GPU pod with the
// Fragmentation strategy on 1,213 nodes of 5 GPU models (the size of Alibaba's trace): "models",
// where some pods of the mix name models and PreScore weighs the mix against the GPUs the node
// informer counted by model (gpu.MixView.WithSupply); "plain", where none does and it does not.
func BenchmarkPreScoreSupply(b *testing.B) {
	models := []string{"G2", "T4", "P100", "V100", "G3"}
	for _, variant := range []string{"plain", "models"} {
		b.Run(variant, func(b *testing.B) {
			var objs []runtime.Object
			for i := range 1213 {
				objs = append(objs, gpuNode(fmt.Sprintf("n%04d", i), 2+6*(i%2), 128).Label(gpu.ModelLabel, models[i%len(models)]).Obj())
			}
			for i := range 8 {
				p := gpuPod(fmt.Sprintf("m%d", i), 8)
				if variant == "models" && i%2 == 0 {
					p = p.NodeSelector(map[string]string{gpu.ModelLabel: models[i%len(models)]})
				}
				objs = append(objs, p.Obj())
			}
			e := newEnv(b, args(gpu.FragmentationName), objs...)
			for e.pl.devices.mix.View().Len() == 0 {
				time.Sleep(10 * time.Millisecond)
			}
			if e.pl.devices.mix.View().NamesModels() != (variant == "models") {
				b.Fatalf("mix names models: %v", e.pl.devices.mix.View().NamesModels())
			}
			pod := gpuPod("p", 8).Obj()
			state, _ := e.prefilter(b, pod)
			b.ResetTimer()
			for b.Loop() {
				if status := e.pl.PreScore(e.ctx, state, pod, nil); !status.IsSuccess() {
					b.Fatal(status)
				}
			}
		})
	}
}
