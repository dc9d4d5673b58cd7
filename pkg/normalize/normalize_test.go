package normalize

import (
	"math"
	"strconv"
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

func TestRank(t *testing.T) {
	many := make([]int64, 150) // 150 distinct raw scores, the highest last
	wantMany := make([]int64, 150)
	for i := range many {
		many[i] = int64(i) * 1000
		wantMany[i] = max(int64(i)-49, 0)
	}
	tests := []struct {
		name string
		raw  []int64
		want []int64
	}{
		{name: "no nodes"},
		{name: "one node", raw: []int64{-7}, want: []int64{100}},
		{name: "all equal", raw: []int64{3, 3, 3}, want: []int64{100, 100, 100}},
		{name: "by rank, not by distance", raw: []int64{-1_000_000_000, -2, -1}, want: []int64{98, 99, 100}},
		{name: "a tie takes one rank", raw: []int64{5, 9, 9, 7, 5, 1}, want: []int64{98, 100, 100, 99, 98, 97}},
		{name: "the extremes of int64", raw: []int64{math.MinInt64, math.MaxInt64, 0}, want: []int64{98, 100, 99}},
		{name: "past the hundredth distinct score, MinNodeScore", raw: many, want: wantMany},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores := make(fwk.NodeScoreList, len(tt.raw))
			for i, r := range tt.raw {
				scores[i] = fwk.NodeScore{Name: strconv.Itoa(i), Score: r}
			}
			Rank(scores)
			var got []int64
			for i, s := range scores {
				if s.Name != strconv.Itoa(i) {
					t.Errorf("score %d is now node %s: Rank must keep the order", i, s.Name)
				}
				got = append(got, s.Score)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}
