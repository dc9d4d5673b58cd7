package podroom

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHolds(t *testing.T) {
	deleting := &metav1.Time{}
	for _, tc := range []struct {
		name string
		pod  v1.Pod
		want bool
	}{
		{name: "pending, not bound", pod: v1.Pod{Status: v1.PodStatus{Phase: v1.PodPending}}, want: true},
		{name: "no phase yet", pod: v1.Pod{}, want: true},
		{name: "running", pod: v1.Pod{Spec: v1.PodSpec{NodeName: "n"}, Status: v1.PodStatus{Phase: v1.PodRunning}}, want: true},
		{name: "unknown", pod: v1.Pod{Spec: v1.PodSpec{NodeName: "n"}, Status: v1.PodStatus{Phase: v1.PodUnknown}}, want: true},
		// The scheduler's cache keeps a deleting pod on its node until the kubelet has stopped it.
		{name: "running, being deleted", pod: v1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: deleting},
			Spec: v1.PodSpec{NodeName: "n"}, Status: v1.PodStatus{Phase: v1.PodRunning}}, want: true},
		{name: "succeeded", pod: v1.Pod{Spec: v1.PodSpec{NodeName: "n"}, Status: v1.PodStatus{Phase: v1.PodSucceeded}}},
		{name: "failed", pod: v1.Pod{Spec: v1.PodSpec{NodeName: "n"}, Status: v1.PodStatus{Phase: v1.PodFailed}}},
		{name: "failed, being deleted", pod: v1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: deleting},
			Spec: v1.PodSpec{NodeName: "n"}, Status: v1.PodStatus{Phase: v1.PodFailed}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Holds(&tc.pod); got != tc.want {
				t.Errorf("Holds = %v, want %v", got, tc.want)
			}
		})
	}
}
