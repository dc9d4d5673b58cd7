package elasticquota

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/berth-sched/berth/pkg/amount"
)

func nodeInfosOf(n int, allocatable v1.ResourceList) []fwk.NodeInfo {
	nodes := make([]fwk.NodeInfo, n)
	for i := range nodes {
		ni := framework.NewNodeInfo()
		ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("n", i)}, Status: v1.NodeStatus{Allocatable: allocatable}})
		nodes[i] = ni
	}
	return nodes
}

// The pool fair sharing divides is the nodes' allocatable, every resource in thousandths.
func TestCapacityOf(t *testing.T) {
	nodes := nodeInfosOf(3, v1.ResourceList{v1.ResourceCPU: resource.MustParse("1500m"), v1.ResourceMemory: resource.MustParse("2Ki"),
		v1.ResourcePods: resource.MustParse("110"), "aliyun.com/gpu-mem": resource.MustParse("16")})
	want := amount.Amount{v1.ResourceCPU: 4500, v1.ResourceMemory: 3 * 2048 * 1000, v1.ResourcePods: 330 * 1000, "aliyun.com/gpu-mem": 48 * 1000}
	if got := capacityOf(nodes); !cmp.Equal(got, want) {
		t.Errorf("capacityOf = %v, want %v", got, want)
	}
}

// A large cluster's pool holds at the largest count instead of wrapping negative: 10,000 nodes of
// 1 TiB are 1.1 * 10^19 thousandths of a byte, past int64, and a negative pool would lend nothing.
func TestCapacityOfHoldsPastInt64(t *testing.T) {
	node := nodeInfosOf(1, v1.ResourceList{v1.ResourceCPU: resource.MustParse("64"), v1.ResourceMemory: resource.MustParse("1Ti"),
		v1.ResourcePods: resource.MustParse("110"), "aliyun.com/gpu-mem": resource.MustParse("1Ti")})
	got := capacityOf(slices.Repeat(node, 10_000))
	want := amount.Amount{v1.ResourceCPU: 640_000_000, v1.ResourceMemory: math.MaxInt64, v1.ResourcePods: 1_100_000_000, "aliyun.com/gpu-mem": math.MaxInt64}
	if !cmp.Equal(got, want) {
		t.Errorf("capacityOf = %v, want %v", got, want)
	}
}

// BenchmarkCapacityOf is the pool's sum over the full-size benchmark's 5,000 nodes, which every
// pod that borrows in fair sharing pays.
func BenchmarkCapacityOf(b *testing.B) {
	nodes := nodeInfosOf(5000, v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"),
		v1.ResourcePods: resource.MustParse("110")})
	b.ReportAllocs()
	for b.Loop() {
		capacityOf(nodes)
	}
}
