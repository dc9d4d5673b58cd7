package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/pkg/dra"
	"github.com/berth-sched/berth/test/harness"
)

// TestDRAFill measures (BERTH_DRA_FILL=rounds) a fill of DRA GPUs: 16 nodes of 4 shareable 80Gi
// GPUs, pods asking 10, 20, 30 or 40Gi (a fixed seeded mix) up to 75% of the memory, all created at
// once; berth's profile with GPUShare's Binpack scores (weight 100) against the same profile with
// GPUShare's score off (the in-tree scorers alone, as the stock scheduler scores DRA pods), in
// interleaved rounds. It logs the GPUs left fully free, the memory placed and pods bound per second.
func TestDRAFill(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("BERTH_DRA_FILL"))
	if rounds == 0 {
		t.Skip("a measurement: BERTH_DRA_FILL=<rounds> runs it")
	}
	c := harness.StartCluster(t)
	ctx := context.Background()
	if _, err := c.Client.ResourceV1().DeviceClasses().Create(ctx, draGPUClass(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	configs := map[string]string{
		"berth":   scoringConfig(c, "[{name: GPUShare, weight: 100}]", "  - name: GPUShare\n    args: {scoringStrategy: Binpack}\n"),
		"in-tree": c.SchedulerConfig(registry.Plugins("default-scheduler")+"    score:\n      disabled: [{name: GPUShare}]\n", ""),
	}
	const nodes, gpus = 16, 4
	results := map[string][][3]float64{}
	for r := range rounds {
		for _, name := range []string{"berth", "in-tree"} {
			round := fmt.Sprintf("fill-%s-%d", name, r)
			if name == "in-tree" {
				round = fmt.Sprintf("fill-intree-%d", r)
			}
			e := &draEnv{Cluster: c, ns: c.Namespace(t, round)}
			e.draNodes(t, round, nodes, gpus, true)
			stop := c.StartScheduler(t, configs[name])
			rng := rand.New(rand.NewPCG(1, 2))
			var shares []string
			for total, limit := 0, nodes*gpus*80*3/4; ; {
				m := 10 * (1 + rng.IntN(4))
				if total+m > limit {
					break
				}
				total += m
				shares = append(shares, fmt.Sprintf("%dGi", m))
			}
			start := time.Now()
			e.placeAll(t, round, round, shares)
			elapsed := time.Since(start)
			stop()

			claims, err := c.Client.ResourceV1().ResourceClaims(e.ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sl, err := c.Client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var sp []*resourceapi.ResourceSlice
			for i := range sl.Items {
				sp = append(sp, &sl.Items[i])
			}
			var cp []*resourceapi.ResourceClaim
			for i := range claims.Items {
				cp = append(cp, &claims.Items[i])
			}
			inv, _ := dra.Inventory(dra.DefaultConfig(), sp, cp)
			free, used := 0, int64(0)
			for i := range nodes {
				for _, g := range inv[fmt.Sprintf("%s-n%d", round, i)].GPUs {
					if g.Used == 0 {
						free++
					}
					used += g.Used
				}
			}
			rate := float64(len(shares)) / elapsed.Seconds()
			t.Logf("%s round %d: %d pods bound in %.1fs (%.1f pods/s), %d of %d GPUs fully free, %d Gi placed",
				name, r, len(shares), elapsed.Seconds(), rate, free, nodes*gpus, used>>30)
			results[name] = append(results[name], [3]float64{float64(free), rate, float64(used >> 30)})
		}
	}
	for _, name := range []string{"berth", "in-tree"} {
		var free, rate []float64
		for _, x := range results[name] {
			free, rate = append(free, x[0]), append(rate, x[1])
		}
		slices.Sort(free)
		slices.Sort(rate)
		t.Logf("%s: GPUs fully free %v, pods/s %v", name, free, rate)
	}
	for r := range rounds {
		t.Logf("round %d: pods/s berth / in-tree = %.2f", r, results["berth"][r][1]/results["in-tree"][r][1])
	}
}
