package extender

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const metricsSubsystem = "berth"

var (
	requests = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "extender_requests_total",
		Help:           "Scheduler extender requests by verb and HTTP status code.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"verb", "code"})
	requestDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Subsystem: metricsSubsystem,
		Name:      "extender_request_duration_seconds",
		Help:      "Time to answer a scheduler extender request, by verb and HTTP status code.",
		// From 0.25 ms (a filter over a few nodes) to about 4 s (a bind behind a slow API server).
		Buckets:        metrics.ExponentialBuckets(0.00025, 2, 15),
		StabilityLevel: metrics.ALPHA,
	}, []string{"verb", "code"})

	trailingRetries = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "extender_trailing_retries_total",
		Help:           "Filter answers that asked the scheduler to retry a GPU pod because the extender's cache showed less GPU memory than the scheduler's.",
		StabilityLevel: metrics.ALPHA,
	})

	registerOnce sync.Once
)

// registerMetrics adds the extender's metrics to the legacy registry served on /metrics; the GPU
// metrics come with the cache.
func registerMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(requests, requestDuration, trailingRetries)
	})
}
