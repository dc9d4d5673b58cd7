// Package quota is berth's ElasticQuota ledger: what every pod holds, by UID, per namespace, and
// each namespace's quota (min and max) as the scheduler enforces it. It knows no scheduling
// framework types: the ElasticQuota plugin (package elasticquota) and the quota victim rule of
// berth's preemption (package preemption) are built on it.
//
// The model, in full in docs/quota.md:
//   - A quota names resources in min and max. A pod of its namespace is admitted while
//     used + request <= max for every resource max names; a resource max leaves out is not limited.
//   - What a quota uses above min is borrowed, resource by resource: it may be reclaimed by a pod
//     of a quota that is below its min and asks for that resource, never taking the lender below
//     its own min in a resource it borrows (reclaim.go).
//   - A resource the quota names in neither min nor max is outside the quota altogether.
//   - Quotas may form a tree (tree.go): a pod is admitted only within every quota on its path, and a
//     quota counts its children's use. A quota without the tree's annotations is flat: at the top,
//     of its own namespace.
package quota

import (
	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/gpu"
)

// RequestOf is what a pod holds against its quota: its requests as the scheduler counts them
// (containers, init containers, overhead; amount.RequestOf), one pod, and GPU memory counted as
// GPUShare counts it, from container limits of gpuMemory.
func RequestOf(pod *v1.Pod, gpuMemory v1.ResourceName) (amount.Amount, error) {
	v := amount.RequestOf(pod, 2)
	v[amount.Pods] = amount.One
	g, err := gpu.RequestOf(pod, gpuMemory)
	if err != nil {
		return nil, err
	}
	if g.Total > 0 {
		v[gpuMemory] = min(g.Total, amount.Max/amount.One) * amount.One
	} else {
		delete(v, gpuMemory)
	}
	return v, nil
}
