// Package activate moves pods a plugin parked back to the scheduler's active queue, where the
// queue runs PreEnqueue on them again. Gang wakes a group's members this way and ElasticQuota the
// pods that waited for quota: the plugin's own informer handler decides when, after its state has
// taken the change in, so a woken pod never meets state that does not show it yet.
package activate

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// Pods moves pods to the active queue; none is a no-op.
func Pods(queue fwk.PodActivator, logger klog.Logger, pods []*v1.Pod) {
	if len(pods) == 0 {
		return
	}
	m := make(map[string]*v1.Pod, len(pods))
	for _, p := range pods {
		m[p.Namespace+"/"+p.Name] = p
	}
	queue.Activate(logger, m)
}
