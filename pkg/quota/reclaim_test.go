package quota

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/amount"
)

// podOf is a pod of ns that requests kv (and GPU memory from limits, as GPUShare reads it).
func podOf(ns, name string, kv ...string) *v1.Pod {
	p := pod(ns, name)
	requests, limits := v1.ResourceList{}, v1.ResourceList{}
	for k, q := range list(kv...) {
		if k == gpuMem {
			limits[k] = q
		} else {
			requests[k] = q
		}
	}
	p.Spec.Containers = []v1.Container{{Resources: v1.ResourceRequirements{Requests: requests, Limits: limits}}}
	return p
}

// TestLendersOverMinInOneResource: a quota lends in each resource it uses above its min, also
// when it is within its min in another; its pods that hold a resource it lends the preemptor are
// victims, and reclaim stops at its min in every resource it borrows. Plain pods, groups and GPU
// pods alike. (Before, a lender under its min in any resource a victim held, cpu here, lent
// nothing at all.)
func TestLendersOverMinInOneResource(t *testing.T) {
	type step struct {
		// victim is the pods that go together (a group's members), and take what Take answers.
		victim []*v1.Pod
		take   bool
	}
	memCPU := &Spec{Name: "lender/q", Min: vec("memory", "100", "cpu", "100m"), Max: vec("memory", "200", "cpu", "200m")}
	gpuCPU := &Spec{Name: "lender/q", Min: vec("cpu", "8"), Max: vec(string(gpuMem), "32", "cpu", "16")}
	tests := []struct {
		name string
		// lender's quota and bound pods; the preemptor's quota is own, its namespace "own".
		lender   *Spec
		bound    []*v1.Pod
		leaving  []string
		own      *Spec
		asks     amount.Amount
		verdicts map[string]Decision
		steps    []step
	}{{
		// scheduler-plugins' cross-namespace preemption: the lender uses memory 150 (min 100)
		// and cpu 30m (min 100m). One 50-memory pod goes back; a second would take it below its
		// min in memory.
		name:   "plain pods, memory borrowed, cpu within min",
		lender: memCPU,
		bound: []*v1.Pod{podOf("lender", "l0", "memory", "50", "cpu", "10m"), podOf("lender", "l1", "memory", "50", "cpu", "10m"),
			podOf("lender", "l2", "memory", "50", "cpu", "10m")},
		own:      memCPU,
		asks:     vec("memory", "50", "cpu", "10m", "pods", "1"),
		verdicts: map[string]Decision{"l0": Borrowed},
		steps: []step{
			{victim: []*v1.Pod{podOf("lender", "l0", "memory", "50", "cpu", "10m")}, take: true},
			{victim: []*v1.Pod{podOf("lender", "l1", "memory", "50", "cpu", "10m")}, take: false},
		},
	}, {
		name:   "a pod holding only what the lender keeps within its min is no victim",
		lender: memCPU,
		bound: []*v1.Pod{podOf("lender", "l0", "memory", "100", "cpu", "10m"), podOf("lender", "l1", "memory", "50", "cpu", "10m"),
			podOf("lender", "cpuonly", "cpu", "50m")},
		own:      memCPU,
		asks:     vec("memory", "50", "cpu", "10m", "pods", "1"),
		verdicts: map[string]Decision{"cpuonly": Forbidden, "l1": Borrowed},
		steps: []step{
			{victim: []*v1.Pod{podOf("lender", "cpuonly", "cpu", "50m")}, take: false},
			{victim: []*v1.Pod{podOf("lender", "l1", "memory", "50", "cpu", "10m")}, take: true},
		},
	}, {
		name:   "nothing the preemptor asks for is lent",
		lender: memCPU,
		// cpu 150m borrowed, memory 60 within min; the preemptor asks memory only.
		bound:    []*v1.Pod{podOf("lender", "l0", "memory", "30", "cpu", "75m"), podOf("lender", "l1", "memory", "30", "cpu", "75m")},
		own:      memCPU,
		asks:     vec("memory", "50", "pods", "1"),
		verdicts: map[string]Decision{"l0": Forbidden},
		steps:    []step{{victim: []*v1.Pod{podOf("lender", "l0", "memory", "30", "cpu", "75m")}, take: false}},
	}, {
		// The lender borrows both memory (50) and cpu (50m); the preemptor asks memory. A victim
		// whose cpu would take the lender below its cpu min is refused though memory allows it.
		name:     "reclaim stops at the min of every resource the lender borrows",
		lender:   memCPU,
		bound:    []*v1.Pod{podOf("lender", "l0", "memory", "100", "cpu", "75m"), podOf("lender", "l1", "memory", "50", "cpu", "75m")},
		own:      memCPU,
		asks:     vec("memory", "50", "pods", "1"),
		verdicts: map[string]Decision{"l1": Borrowed},
		steps: []step{
			{victim: []*v1.Pod{podOf("lender", "l1", "memory", "50", "cpu", "75m")}, take: false},
			{victim: []*v1.Pod{podOf("lender", "small", "memory", "50", "cpu", "50m")}, take: true},
		},
	}, {
		// A running group goes whole: its members' memory together against what is lent.
		name:   "groups, memory borrowed, cpu within min",
		lender: memCPU,
		bound: []*v1.Pod{podOf("lender", "plain", "memory", "100", "cpu", "10m"), podOf("lender", "g0", "memory", "25", "cpu", "10m"),
			podOf("lender", "g1", "memory", "25", "cpu", "10m")},
		own:      memCPU,
		asks:     vec("memory", "50", "cpu", "10m", "pods", "1"),
		verdicts: map[string]Decision{"g0": Borrowed},
		steps: []step{
			{victim: []*v1.Pod{podOf("lender", "h0", "memory", "25", "cpu", "10m"), podOf("lender", "h1", "memory", "25", "cpu", "10m"),
				podOf("lender", "h2", "memory", "25", "cpu", "10m")}, take: false},
			{victim: []*v1.Pod{podOf("lender", "g0", "memory", "25", "cpu", "10m"), podOf("lender", "g1", "memory", "25", "cpu", "10m")}, take: true},
		},
	}, {
		// GPU memory has no min (max only): all of it is borrowed, while cpu is within min.
		name:   "GPU pods, GPU memory borrowed, cpu within min",
		lender: gpuCPU,
		bound: []*v1.Pod{podOf("lender", "l0", string(gpuMem), "8", "cpu", "1"), podOf("lender", "l1", string(gpuMem), "8", "cpu", "1"),
			podOf("lender", "cpu", "cpu", "4")},
		own:      &Spec{Name: "own/q", Min: vec(string(gpuMem), "16", "cpu", "8"), Max: vec(string(gpuMem), "32", "cpu", "16")},
		asks:     vec(string(gpuMem), "12", "cpu", "1", "pods", "1"),
		verdicts: map[string]Decision{"l0": Borrowed, "cpu": Forbidden},
		steps: []step{
			{victim: []*v1.Pod{podOf("lender", "l0", string(gpuMem), "8", "cpu", "1")}, take: true},
			{victim: []*v1.Pod{podOf("lender", "l1", string(gpuMem), "8", "cpu", "1")}, take: true},
			{victim: []*v1.Pod{podOf("lender", "l2", string(gpuMem), "1", "cpu", "1")}, take: false},
		},
	}, {
		// What leaving pods hold is on its way back: the rest is not lent again, the leaving pod
		// itself costs nothing, and it still counts as reclaimed (InProgress).
		name:   "a lender whose borrowed share is leaving",
		lender: memCPU,
		bound: []*v1.Pod{podOf("lender", "l0", "memory", "50", "cpu", "10m"), podOf("lender", "l1", "memory", "50", "cpu", "10m"),
			podOf("lender", "l2", "memory", "50", "cpu", "10m")},
		leaving:  []string{"l2"},
		own:      memCPU,
		asks:     vec("memory", "50", "cpu", "10m", "pods", "1"),
		verdicts: map[string]Decision{"l2": Borrowed},
		steps: []step{
			{victim: []*v1.Pod{podOf("lender", "l0", "memory", "50", "cpu", "10m")}, take: false},
			{victim: []*v1.Pod{podOf("lender", "l2", "memory", "50", "cpu", "10m")}, take: true},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLedger()
			l.SetQuota("lender", tc.lender)
			l.SetQuota("own", tc.own)
			for _, p := range tc.bound {
				req, err := RequestOf(p, gpuMem)
				if err != nil {
					t.Fatal(err)
				}
				l.Bound(p, "", req)
			}
			for _, name := range tc.leaving {
				l.Leaving(pod("lender", name).UID)
			}
			r := l.ReclaimFor(podOf("own", "preemptor"), tc.asks, gpuMem)
			for _, p := range tc.bound {
				want, ok := tc.verdicts[p.Name]
				if !ok {
					continue
				}
				if got := r.Judge([]*v1.Pod{p}); got != want {
					t.Errorf("Judge(%s) = %v, want %v", p.Name, got, want)
				}
			}
			tally := r.Lenders()
			for i, s := range tc.steps {
				if got := tally.Take(s.victim); got != s.take {
					t.Errorf("step %d: Take(%s) = %v, want %v", i, names(s.victim), got, s.take)
				}
			}
		})
	}
}

// A preemptor beyond its own min takes nothing from another quota, whatever that quota borrows.
func TestBeyondItsMinReclaimsNothing(t *testing.T) {
	l := NewLedger()
	spec := &Spec{Name: "q", Min: vec("memory", "100"), Max: vec("memory", "200")}
	l.SetQuota("lender", spec)
	l.SetQuota("own", spec)
	for i := range 3 {
		p := podOf("lender", fmt.Sprint("l", i), "memory", "50")
		req, _ := RequestOf(p, gpuMem)
		l.Bound(p, "", req)
	}
	own := podOf("own", "o", "memory", "100")
	req, _ := RequestOf(own, gpuMem)
	l.Bound(own, "", req)
	r := l.ReclaimFor(podOf("own", "p"), vec("memory", "50"), gpuMem)
	if got := r.Judge([]*v1.Pod{podOf("lender", "l0", "memory", "50")}); got != Forbidden {
		t.Errorf("own quota at its min asking more: Judge = %v, want Forbidden", got)
	}
	if r.Lenders().Take([]*v1.Pod{podOf("lender", "l0", "memory", "50")}) {
		t.Error("own quota at its min asking more: Take accepted a victim of another quota")
	}
}

func names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}
