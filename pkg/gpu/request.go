package gpu

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/resource"
)

// Request is the GPU memory a pod asks for: Count GPUs with PerDevice each, Total in all.
// The zero Request asks for nothing.
type Request struct {
	Total     int64
	Count     int
	PerDevice int64
}

// RequestOf reads the GPU memory a pod asks for from its containers' limits of memoryResource and
// the berth.dev/gpu-count annotation.
//
// The pod's total follows the rule Kubernetes applies to every resource: the sum over app
// containers and sidecars, or the largest init container (plus the sidecars started before it) if
// that is more. Pod overhead is left out: the device plugin hands memory to containers only.
// A pod without GPU memory gets the zero Request whatever its annotations say.
func RequestOf(pod *v1.Pod, memoryResource v1.ResourceName) (Request, error) {
	if !limitsName(pod, memoryResource) {
		// Most pods ask for no GPU; spare them the aggregation.
		return Request{}, nil
	}
	limits := resource.PodLimits(pod, resource.PodResourcesOptions{ExcludeOverhead: true, SkipPodLevelResources: true})
	q, ok := limits[memoryResource]
	if !ok || q.Sign() <= 0 {
		return Request{}, nil
	}
	total := q.Value()
	count := 1
	if s, ok := pod.Annotations[PodGPUCountAnnotation]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return Request{}, fmt.Errorf("annotation %s=%q must be a whole number of GPUs, at least 1", PodGPUCountAnnotation, s)
		}
		count = n
	}
	if total%int64(count) != 0 {
		return Request{}, fmt.Errorf("%s %d does not divide evenly over %d GPUs (annotation %s): the limit is the pod's total, split equally over the GPUs",
			memoryResource, total, count, PodGPUCountAnnotation)
	}
	return Request{Total: total, Count: count, PerDevice: total / int64(count)}, nil
}

func limitsName(pod *v1.Pod, name v1.ResourceName) bool {
	for _, containers := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range containers {
			if _, ok := containers[i].Resources.Limits[name]; ok {
				return true
			}
		}
	}
	return false
}
