package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	"github.com/berth-sched/berth/test/bench/report"
)

// Node status churn for the GPUShare workloads (issue 12). In a real cluster every node's object
// changes every few seconds (kubelet's status heartbeats, labels that controllers set), and each
// change is a new Node object in the scheduler's snapshot. When the workload creates the ConfigMap
// bench-driver/node-churn, the driver updates every node once per its data.period, in turn, at a
// steady rate, alternating the two kinds: a heartbeat (the Ready condition's lastHeartbeatTime, a
// status patch) and a label change. Neither touches GPU capacity. It starts with the first pod,
// once the harness has created every node, and runs until the workload ends: the same churn for
// every scheduler, so the ratios stay fair.
const (
	churnNamespace = "bench-driver"
	churnConfig    = "node-churn"
	// nodeUpdatesInFlight bounds the concurrent requests, so a slow apiserver slows the churn
	// down rather than piling up requests.
	nodeUpdatesInFlight = 32
	churnLabel          = "bench.berth.io/churn"
)

func churnNodes(ctx context.Context, tCtx ktesting.TContext, w workloadID) ([]report.Result, error) {
	client := tCtx.Client()
	// The harness creates the nodes first; a status patch racing its creation could fail it.
	var config *v1.ConfigMap
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil || len(pods.Items) == 0 {
			return false, nil
		}
		if config, err = client.CoreV1().ConfigMaps(churnNamespace).Get(ctx, churnConfig, metav1.GetOptions{}); err != nil {
			config = nil
		}
		return true, nil
	})
	if err != nil || config == nil {
		return nil, nil // the workload ended before its first pod, or asks for no churn
	}
	period, err := time.ParseDuration(config.Data["period"])
	if err != nil || period <= 0 {
		return nil, fmt.Errorf("%s/%s: period %q: want a positive duration", churnNamespace, churnConfig, config.Data["period"])
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	if len(nodes.Items) == 0 {
		return nil, fmt.Errorf("no nodes to update")
	}
	names := make([]string, len(nodes.Items))
	for i, n := range nodes.Items {
		names[i] = n.Name
	}

	var updates atomic.Int64
	var failed struct {
		sync.Mutex
		n     int
		first error
	}
	var inFlight sync.WaitGroup
	slots := make(chan struct{}, nodeUpdatesInFlight)
	ticker := time.NewTicker(period / time.Duration(len(names)))
	defer ticker.Stop()
	start := time.Now()
loop:
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			break loop
		case <-ticker.C:
		}
		select {
		case <-ctx.Done():
			break loop
		case slots <- struct{}{}:
		}
		name, round := names[i%len(names)], i/len(names)
		inFlight.Add(1)
		go func() {
			defer inFlight.Done()
			defer func() { <-slots }()
			var err error
			if round%2 == 0 {
				patch := fmt.Sprintf(`{"status":{"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":%q}]}}`, time.Now().UTC().Format(time.RFC3339))
				_, err = client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
			} else {
				patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"%d"}}}`, churnLabel, round)
				_, err = client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
			}
			switch {
			case err == nil:
				updates.Add(1)
			case ctx.Err() == nil:
				failed.Lock()
				if failed.n++; failed.first == nil {
					failed.first = err
				}
				failed.Unlock()
			}
		}()
	}
	inFlight.Wait()
	elapsed := time.Since(start)
	if failed.n > 0 {
		return nil, fmt.Errorf("%d node updates failed, the first: %w", failed.n, failed.first)
	}
	return []report.Result{
		w.result(report.NodeUpdates, "1/s", map[string]float64{"Value": float64(updates.Load()) / elapsed.Seconds()}),
	}, nil
}
