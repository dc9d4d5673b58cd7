package gpu

import (
	"fmt"
	"math"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	podresource "k8s.io/component-helpers/resource"
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
// A pod without GPU memory, or with a limit of 0, gets the zero Request whatever its annotations
// say. A limit that is negative or not a whole number is an error, not "no GPU": the API server
// refuses such limits today, but a pod that reached the scheduler some other way (an extender's
// request body, an older or differently validated server) must not pass every node as asking for
// nothing, nor free memory in the accounting.
func RequestOf(pod *v1.Pod, memoryResource v1.ResourceName) (Request, error) {
	named, err := checkLimits(pod, memoryResource)
	if err != nil || !named {
		// Most pods ask for no GPU; spare them the aggregation.
		return Request{}, err
	}
	limits := podresource.PodLimits(pod, podresource.PodResourcesOptions{ExcludeOverhead: true, SkipPodLevelResources: true})
	q := limits[memoryResource]
	if q.Sign() == 0 {
		return Request{}, nil
	}
	total, ok := wholeUnits(q)
	if !ok {
		return Request{}, fmt.Errorf("the pod's total %s, %s, is larger than %d", memoryResource, q.String(), int64(math.MaxInt64))
	}
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

// checkLimits reports whether any container limits name, and an error for the first limit that is
// not a whole number of at least 0. Each container is checked on its own: a negative limit must
// not cancel another container's in the pod's sum.
func checkLimits(pod *v1.Pod, name v1.ResourceName) (bool, error) {
	named := false
	for _, containers := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range containers {
			q, ok := containers[i].Resources.Limits[name]
			if !ok {
				continue
			}
			named = true
			if _, ok := wholeUnits(q); !ok {
				return true, fmt.Errorf("container %q: limit %s=%q is not a GPU memory request: it must be a whole number of units, at least 1 (0 or no limit asks for no GPU)",
					containers[i].Name, name, q.String())
			}
		}
	}
	return named, nil
}

var maxUnits = *resource.NewQuantity(math.MaxInt64, resource.DecimalSI)

// wholeUnits is q as a whole number of units; false if it is negative, fractional or past int64.
func wholeUnits(q resource.Quantity) (int64, bool) {
	if q.Sign() < 0 || q.Cmp(maxUnits) > 0 {
		return 0, false
	}
	if whole := q.DeepCopy(); !whole.RoundUp(0) {
		return 0, false
	}
	return q.Value(), true
}
