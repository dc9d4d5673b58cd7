package why

import (
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// WaitingPod is a pod no node has been given (a waiting member, in kubectl berth gangs), and the
// scheduler's latest word on it.
type WaitingPod struct {
	Name string `json:"name"`
	// Reason is the reason of the latest FailedScheduling or GangWaiting event about the pod, or of
	// its PodScheduled=False condition, whichever is newer; empty if the scheduler has said nothing.
	Reason  string      `json:"reason"`
	Message string      `json:"message"`
	Since   metav1.Time `json:"since,omitempty"`
}

// waitingReasons are the event reasons that say why a pod is not placed: the scheduler's own, and
// Gang's for a pod held before scheduling (which reaches no pod condition).
var waitingReasons = map[string]bool{"FailedScheduling": true, "GangWaiting": true}

// LatestEvents is, per pod, the newest event that says why it is not placed.
func LatestEvents(events []eventsv1.Event) map[types.UID]*eventsv1.Event {
	latest := map[types.UID]*eventsv1.Event{}
	for i := range events {
		e := &events[i]
		if e.Regarding.Kind != "Pod" || !waitingReasons[e.Reason] {
			continue
		}
		if old, ok := latest[e.Regarding.UID]; !ok || !eventTime(e).Before(eventTime(old)) {
			latest[e.Regarding.UID] = e
		}
	}
	return latest
}

// eventTime is when an event was last seen: a repeated event counts from its latest repetition.
func eventTime(e *eventsv1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.DeprecatedLastTimestamp.IsZero():
		return e.DeprecatedLastTimestamp.Time
	}
	return e.CreationTimestamp.Time
}

// WaitingOf is the scheduler's latest word on a pod without a node: its newest event, or its
// PodScheduled=False condition if that is newer (a pod's condition keeps the message of the last
// attempt, an event series only its first message).
func WaitingOf(p *v1.Pod, e *eventsv1.Event) WaitingPod {
	w := WaitingPod{Name: p.Name}
	if e != nil {
		w.Reason, w.Message, w.Since = e.Reason, e.Note, metav1.NewTime(eventTime(e))
	}
	for _, c := range p.Status.Conditions {
		if c.Type != v1.PodScheduled || c.Status != v1.ConditionFalse {
			continue
		}
		at := c.LastTransitionTime
		if c.LastProbeTime.After(at.Time) {
			at = c.LastProbeTime
		}
		if e == nil || at.After(w.Since.Time) {
			w.Reason, w.Message, w.Since = c.Reason, c.Message, at
		}
	}
	return w
}
