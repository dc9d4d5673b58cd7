package gpu

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const metricsSubsystem = "berth"

var (
	memoryCapacity = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      metricsSubsystem,
		Name:           "gpu_memory_capacity",
		Help:           "GPU memory of each device, in the units the node reports.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"node", "device"})
	memoryAllocated = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Subsystem:      metricsSubsystem,
		Name:           "gpu_memory_allocated",
		Help:           "GPU memory held on each device by bound pods and pods the scheduler has reserved it for.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"node", "device"})
	podsPlaced = metrics.NewCounter(&metrics.CounterOpts{
		Subsystem:      metricsSubsystem,
		Name:           "gpu_pods_placed_total",
		Help:           "GPU pods that berth assigned devices to and bound.",
		StabilityLevel: metrics.ALPHA,
	})

	registerMetrics sync.Once
)

// RegisterMetrics adds the GPU metrics to the legacy registry that the scheduler serves on
// /metrics. NewCache calls it; calling it again does nothing.
func RegisterMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(memoryCapacity, memoryAllocated, podsPlaced)
	})
}

// ObservePodPlaced counts a GPU pod bound with its devices.
func ObservePodPlaced() { podsPlaced.Inc() }
