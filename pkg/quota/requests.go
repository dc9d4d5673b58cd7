package quota

import (
	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/amount"
)

// UseRequests makes r read what victims hold with requestOf instead of RequestOf: ElasticQuota's,
// which adds the DRA claims a pod is charged for, so that a victim holding a borrowed GPU through
// a claim lends it like one holding gpushare memory.
func (r *Reclaim) UseRequests(requestOf func(*v1.Pod) (amount.Amount, error)) {
	r.requestOf = requestOf
}

// victimRequests is requestsOf with r's way of reading a request.
func (r *Reclaim) victimRequests(pods []*v1.Pod) []amount.Amount {
	if r.requestOf == nil {
		return requestsOf(pods, r.gpuMemory)
	}
	reqs := make([]amount.Amount, len(pods))
	for i, p := range pods {
		if req, err := r.requestOf(p); err == nil {
			reqs[i] = req
		}
	}
	return reqs
}
