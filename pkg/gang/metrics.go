package gang

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const metricsSubsystem = "berth"

// Why a round ended without quorum, as the failedRounds label.
const (
	// failedUnschedulable: a member fit no node.
	failedUnschedulable = "MemberUnschedulable"
	// failedTimeout: the round's Permit timeout passed.
	failedTimeout = "Timeout"
	// failedReleased: a waiting member let go of its reservation: rejected by another plugin,
	// preempted or deleted.
	failedReleased = "MemberReleased"
)

var (
	failedRounds = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "gang_failed_rounds_total",
		Help:           "Rounds in which a pod group held members at Permit but gave them all back, by reason.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"reason"})
	quorumWait = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      metricsSubsystem,
		Name:           "gang_quorum_wait_seconds",
		Help:           "How long a pod group's first member waited at Permit until the group reached minMember.",
		Buckets:        metrics.ExponentialBuckets(0.01, 4, 8),
		StabilityLevel: metrics.ALPHA,
	})
	statusWrites = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "gang_podgroup_status_writes_total",
		Help:           "PodGroup status patches, by result.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})

	registerMetrics sync.Once
)

// RegisterMetrics adds the Gang metrics to the legacy registry that the scheduler serves on
// /metrics. New calls it; calling it again does nothing.
func RegisterMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(failedRounds, quorumWait, statusWrites)
	})
}
