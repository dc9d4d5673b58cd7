package bench

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	"github.com/berth-sched/berth/test/bench/report"
)

// countFreeDRAGPUs is the DRA workloads' driver: once the workload's ops are done (every pod
// bound, so every claim allocated: DynamicResources writes the allocation before binding), it
// counts the GPUs that no allocated claim consumes, read from the API rather than from berth's
// own view (pkg/dra), so that it measures berth and stock alike. A GPU wholly free is one that a
// pod asking for a whole GPU can still get; a fill that leaves more of them packs better.
func countFreeDRAGPUs(ctx context.Context, tCtx ktesting.TContext, w workloadID) ([]report.Result, error) {
	<-ctx.Done()
	// The driver is stopped before the harness tears the apiserver down: it is still there.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	client := tCtx.Client()
	slices, err := client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing ResourceSlices: %w", err)
	}
	claims, err := client.ResourceV1().ResourceClaims(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing ResourceClaims: %w", err)
	}
	type device struct{ driver, pool, name string }
	used := sets.New[device]()
	allocated := 0
	for _, c := range claims.Items {
		if c.Status.Allocation == nil {
			continue
		}
		allocated++
		for _, r := range c.Status.Allocation.Devices.Results {
			used.Insert(device{r.Driver, r.Pool, r.Device})
		}
	}
	total, free := 0, 0
	for _, s := range slices.Items {
		for _, d := range s.Spec.Devices {
			total++
			if !used.Has(device{s.Spec.Driver, s.Spec.Pool.Name, d.Name}) {
				free++
			}
		}
	}
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	if total == 0 {
		return nil, fmt.Errorf("no devices published in %d ResourceSlices", len(slices.Items))
	}
	tCtx.Logf("DRA driver: %d of %d GPUs fully free, %d of %d claims allocated, %d pods bound", free, total, allocated, len(claims.Items), len(pods.Items))
	return []report.Result{
		w.result(report.DRAGPUsFree, "GPUs", map[string]float64{
			"Value": float64(free), "Total": float64(total), "Claims": float64(allocated), "Pods": float64(len(pods.Items)),
		}),
	}, nil
}
