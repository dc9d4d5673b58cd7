package normalize

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	fwk "k8s.io/kube-scheduler/framework"
)

func TestMinMax(t *testing.T) {
	tests := []struct {
		name string
		raw  []int64
		want []int64
	}{
		{name: "no nodes"},
		{name: "one node", raw: []int64{7}, want: []int64{0}},
		{name: "all equal", raw: []int64{-3, -3, -3}, want: []int64{0, 0, 0}},
		{name: "lowest to 0, highest to 100", raw: []int64{10, 20, 15}, want: []int64{0, 100, 50}},
		{name: "truncated like integer division", raw: []int64{5, 3, 2, -1}, want: []int64{100, 66, 50, 0}},
		// 29/100 is not exact in floating point: 0.29*100 would truncate to 28.
		{name: "exact where floats are not", raw: []int64{0, 29, 100}, want: []int64{0, 29, 100}},
		{name: "negative raw scores (Least mode)", raw: []int64{-2, -4, -8}, want: []int64{100, 66, 0}},
		{name: "the whole int64 range", raw: []int64{math.MinInt64, 0, math.MaxInt64}, want: []int64{0, 50, 100}},
		{name: "a span too wide for int64 arithmetic", raw: []int64{math.MaxInt64, math.MaxInt64 - 1, -math.MaxInt64}, want: []int64{100, 99, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores := make(fwk.NodeScoreList, len(tt.raw))
			for i, r := range tt.raw {
				scores[i] = fwk.NodeScore{Name: string(rune('a' + i)), Score: r}
			}
			MinMax(scores, fwk.MinNodeScore)
			var got []int64
			for i, s := range scores {
				if s.Name != string(rune('a'+i)) {
					t.Errorf("score %d is now node %s: MinMax must keep the order", i, s.Name)
				}
				got = append(got, s.Score)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}
