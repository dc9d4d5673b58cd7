package qossort

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// queued wraps a pod as the scheduling queue does.
func queued(t *testing.T, pod *v1.Pod, ts time.Time) *framework.QueuedPodInfo {
	t.Helper()
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		t.Fatal(err)
	}
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: ts}}
}

func group(prio int32, ts time.Time) *framework.QueuedPodGroupInfo {
	return &framework.QueuedPodGroupInfo{
		PodGroupInfo: &framework.PodGroupInfo{
			Namespace: "ns", Name: "g", Type: fwk.PodGroupKeyType,
			PodGroup: &schedulingv1beta1.PodGroup{Spec: schedulingv1beta1.PodGroupSpec{Priority: &prio}},
		},
		QueueingParams: framework.QueueingParams{Timestamp: ts},
		QueuedPodInfos: map[fwk.EntityKey][]*framework.QueuedPodInfo{},
	}
}

// Pods of each class; the apiserver stores status.qosClass, these leave it empty so the class is
// computed from the container as Kubernetes does.
func withContainer(name string, req, lim v1.ResourceList) *st.PodWrapper {
	return st.MakePod().Name(name).Containers([]v1.Container{{
		Name: "c", Image: "i", Resources: v1.ResourceRequirements{Requests: req, Limits: lim},
	}})
}

var oneCPU = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")}

func guaranteed(name string) *st.PodWrapper { return withContainer(name, oneCPU, oneCPU) }
func burstable(name string) *st.PodWrapper  { return withContainer(name, oneCPU, nil) }
func bestEffort(name string) *st.PodWrapper { return withContainer(name, nil, nil) }

func TestClasses(t *testing.T) {
	for want, pod := range map[v1.PodQOSClass]*v1.Pod{
		v1.PodQOSGuaranteed: guaranteed("g").Obj(),
		v1.PodQOSBurstable:  burstable("b").Obj(),
		v1.PodQOSBestEffort: bestEffort("be").Obj(),
	} {
		if got := qos.GetPodQOS(pod); got != want {
			t.Errorf("test pod %s has QoS %s, want %s", pod.Name, got, want)
		}
	}
}

func TestLess(t *testing.T) {
	tests := []struct {
		name   string
		e1, e2 func(t *testing.T) fwk.QueuedEntityInfo
		want   bool
	}{
		{
			name: "higher priority first, whatever the QoS",
			e1: func(t *testing.T) fwk.QueuedEntityInfo {
				return queued(t, bestEffort("a").Priority(10).Obj(), t0.Add(time.Hour))
			},
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Priority(5).Obj(), t0) },
			want: true,
		},
		{
			name: "lower priority last",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("a").Priority(5).Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Priority(10).Obj(), t0) },
			want: false,
		},
		{
			name: "Guaranteed before Burstable at equal priority, even if later",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("a").Obj(), t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: true,
		},
		{
			name: "Burstable before BestEffort",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Obj(), t0) },
			want: true,
		},
		{
			name: "Guaranteed before BestEffort",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("a").Obj(), t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Obj(), t0) },
			want: true,
		},
		{
			name: "BestEffort after Guaranteed",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("a").Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Obj(), t0.Add(time.Hour)) },
			want: false,
		},
		{
			name: "stored status.qosClass is what counts",
			e1: func(t *testing.T) fwk.QueuedEntityInfo {
				p := bestEffort("a").Obj()
				p.Status.QOSClass = v1.PodQOSGuaranteed
				return queued(t, p, t0.Add(time.Hour))
			},
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: true,
		},
		{
			name: "same priority and class: earlier first",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0.Add(time.Second)) },
			want: true,
		},
		{
			name: "same priority and class: later last",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0.Add(time.Second)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: false,
		},
		{
			name: "identical keys are not less",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("a").Obj(), t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, burstable("b").Obj(), t0) },
			want: false,
		},
		{
			name: "pod group by priority against a pod",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(10, t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Priority(5).Obj(), t0) },
			want: true,
		},
		{
			name: "pod group ranks as Burstable: after Guaranteed",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, guaranteed("b").Obj(), t0.Add(time.Hour)) },
			want: false,
		},
		{
			name: "pod group ranks as Burstable: before BestEffort",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0.Add(time.Hour)) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return queued(t, bestEffort("b").Obj(), t0) },
			want: true,
		},
		{
			name: "two pod groups by timestamp",
			e1:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0) },
			e2:   func(t *testing.T) fwk.QueuedEntityInfo { return group(0, t0.Add(time.Second)) },
			want: true,
		},
	}
	pl := &QOSSort{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pl.Less(tt.e1(t), tt.e2(t)); got != tt.want {
				t.Errorf("Less() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOrder sorts a mixed queue with Less and checks the whole order, which also exercises that
// Less is a consistent ordering over pods and groups together.
func TestOrder(t *testing.T) {
	entities := []fwk.QueuedEntityInfo{
		queued(t, bestEffort("be-early").Obj(), t0),
		queued(t, guaranteed("g-late").Obj(), t0.Add(3*time.Second)),
		queued(t, burstable("b-mid").Obj(), t0.Add(time.Second)),
		queued(t, bestEffort("be-high").Priority(100).Obj(), t0.Add(9*time.Second)),
		queued(t, guaranteed("g-early").Obj(), t0.Add(2*time.Second)),
		group(0, t0.Add(500*time.Millisecond)),
		queued(t, burstable("b-low").Priority(-5).Obj(), t0),
	}
	pl := &QOSSort{}
	sort.SliceStable(entities, func(i, j int) bool { return pl.Less(entities[i], entities[j]) })
	var got []string
	for _, e := range entities {
		if pe, ok := e.(podEntity); ok {
			got = append(got, pe.GetPodInfo().GetPod().Name)
		} else {
			got = append(got, "group")
		}
	}
	want := []string{"be-high", "g-early", "g-late", "group", "b-mid", "be-early", "b-low"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
