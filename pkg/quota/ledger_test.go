package quota

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/amount"
)

const gpuMem v1.ResourceName = "aliyun.com/gpu-mem"

func list(kv ...string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func vec(kv ...string) amount.Amount {
	v, problems := amount.Of(list(kv...))
	if len(problems) > 0 {
		panic(problems)
	}
	return v
}

func pod(ns, name string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name)}}
}

func TestRequestOf(t *testing.T) {
	p := pod("a", "p")
	p.Spec.Containers = []v1.Container{
		{Resources: v1.ResourceRequirements{Requests: list("cpu", "500m", "memory", "1Gi"), Limits: list(string(gpuMem), "8")}},
		{Resources: v1.ResourceRequirements{Requests: list("cpu", "1"), Limits: list(string(gpuMem), "4")}},
	}
	got, err := RequestOf(p, gpuMem)
	if err != nil {
		t.Fatal(err)
	}
	// GPU memory is read from limits as GPUShare reads it, and one pod counts as one.
	want := vec("cpu", "1500m", "memory", "1Gi", string(gpuMem), "12", "pods", "1")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RequestOf (-want +got):\n%s", diff)
	}
	p.Annotations = map[string]string{"berth.dev/gpu-count": "5"}
	if _, err := RequestOf(p, gpuMem); err == nil {
		t.Error("12 GPU memory over 5 GPUs: want GPUShare's error")
	}
}

func TestFitsAndMin(t *testing.T) {
	spec := Spec{Name: "a/q", Min: vec("cpu", "2", "aliyun.com/gpu-mem", "16"), Max: vec("cpu", "4", "aliyun.com/gpu-mem", "32")}
	tests := []struct {
		name       string
		used, req  amount.Amount
		wantExceed string
		wantMin    bool
	}{
		{name: "within min", used: vec("cpu", "1"), req: vec("cpu", "1", "memory", "1Gi"), wantMin: true},
		{name: "borrowing", used: vec("cpu", "2"), req: vec("cpu", "1")},
		{name: "at max", used: vec("cpu", "3"), req: vec("cpu", "1")},
		{name: "over max", used: vec("cpu", "3500m"), req: vec("cpu", "1"), wantExceed: "quota a/q: cpu used 3500m, requested 1, max 4"},
		// memory is named by neither min nor max: not limited, not borrowed.
		{name: "unnamed resource unlimited", used: vec("memory", "1Ti"), req: vec("memory", "1Ti"), wantMin: true},
		{name: "gpu memory over max", used: vec("aliyun.com/gpu-mem", "30"), req: vec("aliyun.com/gpu-mem", "4"),
			wantExceed: "quota a/q: aliyun.com/gpu-mem used 30, requested 4, max 32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := spec.Fits(tc.used, tc.req)
			got := ""
			if e != nil {
				got = e.Error()
			}
			if got != tc.wantExceed {
				t.Errorf("Fits = %q, want %q", got, tc.wantExceed)
			}
			if m := spec.WithinMin(tc.used, tc.req); m != tc.wantMin {
				t.Errorf("WithinMin = %v, want %v", m, tc.wantMin)
			}
		})
	}
}

func TestMaxNamingSomeResourcesLeavesOthersUnlimited(t *testing.T) {
	spec := Spec{Name: "a/q", Max: vec(string(gpuMem), "8")}
	if e := spec.Fits(amount.Amount{}, vec("cpu", "64", "memory", "1Ti", "pods", "1")); e != nil {
		t.Errorf("cpu and memory are not named in max, want them unlimited: %v", e)
	}
	// Named in max but not in min: guaranteed 0, so any use is borrowed.
	if spec.WithinMin(amount.Amount{}, vec(string(gpuMem), "1")) {
		t.Error("gpu-mem has no min: want it borrowed")
	}
}

func eq(name string, created int64, min, max v1.ResourceList) *v1alpha1.ElasticQuota {
	return &v1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.Unix(created, 0)},
		Spec:       v1alpha1.ElasticQuotaSpec{Min: min, Max: max},
	}
}

func TestSpecOfBadInput(t *testing.T) {
	tests := []struct {
		name         string
		quotas       []*v1alpha1.ElasticQuota
		want         *Spec
		wantProblems []string
	}{
		{name: "none"},
		{
			name:         "oldest of two wins, the other is reported",
			quotas:       []*v1alpha1.ElasticQuota{eq("young", 20, nil, list("cpu", "1")), eq("old", 10, nil, list("cpu", "2"))},
			want:         &Spec{Name: "ns/old", Min: amount.Amount{}, Max: vec("cpu", "2")},
			wantProblems: []string{"young: namespace ns has 2 ElasticQuotas; berth enforces only the oldest, old, and ignores this one"},
		},
		{
			name:         "same age: by name",
			quotas:       []*v1alpha1.ElasticQuota{eq("b", 10, nil, nil), eq("a", 10, nil, nil)},
			want:         &Spec{Name: "ns/a", Min: amount.Amount{}, Max: amount.Amount{}},
			wantProblems: []string{"b: namespace ns has 2 ElasticQuotas; berth enforces only the oldest, a, and ignores this one"},
		},
		{
			name:   "min above max lowered, negatives zero",
			quotas: []*v1alpha1.ElasticQuota{eq("q", 1, list("cpu", "8", "memory", "-1Gi"), list("cpu", "4", "nvidia.com/gpu", "-2"))},
			want:   &Spec{Name: "ns/q", Min: vec("cpu", "4", "memory", "0"), Max: vec("cpu", "4", "nvidia.com/gpu", "0")},
			wantProblems: []string{"q: invalid quantities: max: nvidia.com/gpu -2 is negative, counted as 0; " +
				"min cpu 8 is above max 4, lowered to max; min: memory -1Gi is negative, counted as 0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := SpecOf(tc.quotas)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			var gotProblems []string
			for _, p := range problems {
				gotProblems = append(gotProblems, p.Quota.Name+": "+p.Message)
			}
			if len(gotProblems) != len(tc.wantProblems) {
				t.Fatalf("problems %q, want %q", gotProblems, tc.wantProblems)
			}
			for i := range gotProblems {
				if gotProblems[i] != tc.wantProblems[i] {
					t.Errorf("problem %q, want %q", gotProblems[i], tc.wantProblems[i])
				}
			}
		})
	}
}

func TestLedgerReserveBindForget(t *testing.T) {
	l := NewLedger()
	l.SetQuota("a", &Spec{Name: "a/q", Max: vec("cpu", "2")})
	p1, p2, p3 := pod("a", "1"), pod("a", "2"), pod("a", "3")
	one := vec("cpu", "1", "pods", "1")
	if err := l.Reserve(p1, "", one); err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(p2, "", one); err != nil {
		t.Fatal(err)
	}
	err := l.Reserve(p3, "", one)
	if err == nil || err.Error() != "quota a/q: cpu used 2, requested 1, max 2" {
		t.Fatalf("third pod: got %v, want it refused naming quota, resource, used, requested and max", err)
	}
	view, _ := l.ViewOf("a", "")
	if !l.Park(p3, view) {
		t.Fatal("nothing changed since the view: want the pod parked")
	}
	// A bound pod is not given back by Unreserve (the binding cycle finished before it).
	l.Bound(p1, "", one)
	if woken := l.Unreserve(p1.UID); woken != nil {
		t.Errorf("Unreserve of a bound pod woke %d pods", len(woken))
	}
	woken := l.Unreserve(p2.UID)
	if len(woken) != 1 || woken[0] != p3 {
		t.Fatalf("Unreserve woke %v, want the parked pod", woken)
	}
	if err := l.Reserve(p3, "", one); err != nil {
		t.Fatalf("after p2 gave back its cpu: %v", err)
	}
	// A view taken before a release is stale: parking with it would lose the wake-up.
	stale, _ := l.ViewOf("a", "")
	l.Forget(p1.UID)
	if l.Park(pod("a", "4"), stale) {
		t.Error("Park with a stale view: want false so the caller retries")
	}
	usage := l.Quotas()
	if len(usage) != 1 || !cmp.Equal(usage[0].Used, one) {
		t.Errorf("Quotas = %+v, want a using %v", usage, one)
	}
}

// A pod deleted (or finished) while its scheduling cycle ran is forgotten before its Reserve: the
// reservation is refused, for nothing would give it back before the pod's failed Bind. Held, a
// deleted pod of a counted for seconds, and fair sharing took one pod too many from a (the
// no-ping-pong case, one clean-checkout run).
func TestLedgerRefusesAReservationForAPodGone(t *testing.T) {
	l := NewLedger()
	l.SetQuota("a", &Spec{Name: "a/q", Max: vec("cpu", "2")})
	gone := pod("a", "gone")
	l.Forget(gone.UID)
	if err := l.Reserve(gone, "", vec("cpu", "1")); err == nil || !strings.Contains(err.Error(), "deleted or finished") {
		t.Fatalf("Reserve of a forgotten pod: %v, want it refused as deleted or finished", err)
	}
	if held, _ := l.Holds(gone.UID); held {
		t.Error("the forgotten pod holds resources")
	}
	if err := l.Reserve(pod("a", "live"), "", vec("cpu", "2")); err != nil {
		t.Errorf("the quota's whole max for another pod: %v", err)
	}
}

func TestLedgerCountsGroupsAndNamespacesWithoutQuota(t *testing.T) {
	l := NewLedger()
	l.Bound(pod("b", "1"), "g", vec("cpu", "1"))
	l.Bound(pod("b", "2"), "g", vec("cpu", "1"))
	if _, ok := l.ViewOf("b", "g"); ok {
		t.Fatal("namespace b has no quota")
	}
	// A quota created later sees the use already there.
	l.SetQuota("b", &Spec{Name: "b/q", Max: vec("cpu", "8")})
	view, ok := l.ViewOf("b", "g")
	if !ok || view.GroupHeld != 2 || !cmp.Equal(view.Used, vec("cpu", "2")) {
		t.Errorf("view = %+v, want 2 members of g holding 2 cpu", view)
	}
	l.Forget(pod("b", "1").UID)
	l.Forget(pod("b", "2").UID)
	l.SetQuota("b", nil)
	if len(l.namespaces) != 0 || len(l.pods) != 0 {
		t.Errorf("ledger keeps %d namespaces and %d pods after everything left", len(l.namespaces), len(l.pods))
	}
}

func TestReclaim(t *testing.T) {
	l := NewLedger()
	l.SetQuota("a", &Spec{Name: "a/q", Min: vec("cpu", "4"), Max: vec("cpu", "8")})
	l.SetQuota("b", &Spec{Name: "b/q", Min: vec("cpu", "2"), Max: vec("cpu", "8")})
	l.SetQuota("gpu", &Spec{Name: "gpu/q", Max: vec(string(gpuMem), "8")})
	cpuPod := func(ns, name, cpu string) *v1.Pod {
		p := pod(ns, name)
		p.Spec.Containers = []v1.Container{{Resources: v1.ResourceRequirements{Requests: list("cpu", cpu)}}}
		return p
	}
	// b borrows 3 cpu (uses 5, min 2); a uses 1 of its min 4.
	for i, cpu := range []string{"2", "2", "1"} {
		p := cpuPod("b", fmt.Sprint("b", i), cpu)
		req, _ := RequestOf(p, gpuMem)
		l.Bound(p, "", req)
	}
	a0 := cpuPod("a", "a0", "1")
	req, _ := RequestOf(a0, gpuMem)
	l.Bound(a0, "", req)

	if r := l.ReclaimFor(cpuPod("none", "p", "1"), vec("cpu", "1"), gpuMem); r != nil {
		t.Error("a preemptor without a quota gets no quota rule")
	}
	r := l.ReclaimFor(cpuPod("a", "p", "2"), vec("cpu", "2", "pods", "1"), gpuMem)
	if got := r.Judge([]*v1.Pod{cpuPod("b", "b0", "2")}); got != Borrowed {
		t.Errorf("a within its min, b borrowing: %v, want Borrowed", got)
	}
	if got := r.Judge([]*v1.Pod{cpuPod("a", "a0", "1")}); got != Priority {
		t.Errorf("own namespace: %v, want Priority", got)
	}
	if got := r.Judge([]*v1.Pod{cpuPod("free", "x", "1")}); got != Priority {
		t.Errorf("namespace without quota: %v, want Priority", got)
	}
	// gpu's quota names only GPU memory: a pod holding only cpu holds nothing it counts.
	if got := r.Judge([]*v1.Pod{cpuPod("gpu", "x", "1")}); got != Priority {
		t.Errorf("pod outside its quota's resources: %v, want Priority", got)
	}
	// b may give back 3 cpu: the tally takes 2 + 1 and refuses the next 2.
	lenders := r.Lenders()
	for _, step := range []struct {
		cpu  string
		want bool
	}{{"2", true}, {"1", true}, {"2", false}} {
		if got := lenders.Take([]*v1.Pod{cpuPod("b", "v", step.cpu)}); got != step.want {
			t.Errorf("taking %s cpu from b: %v, want %v", step.cpu, got, step.want)
		}
	}
	// Each candidate counts afresh.
	if !r.Lenders().Take([]*v1.Pod{cpuPod("b", "v", "3")}) {
		t.Error("a fresh tally refused what b can lend")
	}
	// b0 (2 cpu) is being deleted: what it holds is on its way back and is not lent again.
	b0 := cpuPod("b", "b0", "2")
	now := metav1.Now()
	b0.DeletionTimestamp = &now
	req, _ = RequestOf(b0, gpuMem)
	l.Bound(b0, "", req)
	if l.ReclaimFor(cpuPod("a", "p", "2"), vec("cpu", "2"), gpuMem).Lenders().Take([]*v1.Pod{cpuPod("b", "v", "2")}) {
		t.Error("b lends 3 cpu, 2 of them already leaving: taking 2 more would take it below its min")
	}
	// ... but taking b0 itself again costs nothing: it is on its way out already.
	if !l.ReclaimFor(cpuPod("a", "p", "2"), vec("cpu", "2"), gpuMem).Lenders().Take([]*v1.Pod{b0}) {
		t.Error("b0 is already leaving: want it free to take")
	}
	// A victim a preemption chose is leaving before the informer shows its deletion.
	l.Leaving(pod("b", "b2").UID)
	if l.ReclaimFor(cpuPod("a", "p", "2"), vec("cpu", "2"), gpuMem).Lenders().Take([]*v1.Pod{cpuPod("b", "v", "1")}) {
		t.Error("b lends 3 cpu, all 3 leaving: want nothing more lendable")
	}
	l.Forget(b0.UID)
	if got := l.namespaces["b"].leaving[v1.ResourceCPU]; got != 1000 {
		t.Errorf("leaving after b0 went: %v, want b2's 1 cpu", l.namespaces["b"].leaving)
	}
	// Beyond its min a quota reclaims nothing.
	over := l.ReclaimFor(cpuPod("a", "p", "4"), vec("cpu", "4"), gpuMem)
	if got := over.Judge([]*v1.Pod{cpuPod("b", "b0", "2")}); got != Forbidden {
		t.Errorf("a beyond its min: %v, want Forbidden", got)
	}
}

// A recount that comes after its pod was forgotten (another pod's claim changed while the pod was
// leaving) must not hold its quota again; one for a pod still bound changes what it holds.
func TestLedgerRecountNeverBringsBackAForgottenPod(t *testing.T) {
	l := NewLedger()
	l.SetQuota("a", &Spec{Name: "a/q", Max: vec("cpu", "2")})
	p1, p2 := pod("a", "1"), pod("a", "2")
	l.Bound(p1, "", vec("cpu", "1"))
	l.Bound(p2, "", vec("cpu", "1"))
	l.Forget(p1.UID)
	l.Recount(p1, "", vec("cpu", "1"))
	l.Recount(p2, "", vec("cpu", "2"))
	if held, _ := l.Holds(p1.UID); held {
		t.Error("a forgotten pod is held again after a recount")
	}
	if usage := l.Quotas(); len(usage) != 1 || !cmp.Equal(usage[0].Used, vec("cpu", "2")) {
		t.Errorf("Quotas = %+v, want a using cpu 2 (p2 recounted, p1 gone)", usage)
	}
}
