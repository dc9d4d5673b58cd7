package gang

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podgroup"
)

// capacityShortfall says which of want the cluster's free capacity cannot cover, or "" if it
// covers all. Free capacity is every node's allocatable minus what its pods request, summed; the
// group's own placed members (placed) count as free, since they are part of what want asks for.
// It checks the sum only: a group can still fail to pack, which Filter and PostFilter handle.
func capacityShortfall(nodes []fwk.NodeInfo, want v1.ResourceList, placed []*v1.Pod) string {
	free := make(map[v1.ResourceName]int64, len(want))
	for _, n := range nodes {
		if n.Node() == nil {
			continue
		}
		for name := range want {
			free[name] = amount.Sum(free[name], noderoom.FreeOn(n, name))
		}
	}
	for _, pod := range placed {
		need := noderoom.NeedOf(pod)
		for name := range want {
			free[name] = amount.Sum(free[name], need[name])
		}
	}

	var short []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		q := want[name]
		needed, have := amount.Whole(name, q), resource.NewQuantity(free[name]/amount.One, q.Format)
		if name == v1.ResourceCPU {
			have = resource.NewMilliQuantity(free[name], q.Format)
		}
		if needed > free[name] {
			short = append(short, fmt.Sprintf("%s: %s wanted, %s free", name, q.String(), have.String()))
		}
	}
	return strings.Join(short, "; ")
}

// wantedResources is what a group asks of the cluster: its minResources and a pod slot for each
// of minMember members.
func wantedResources(pg *podgroup.Group) v1.ResourceList {
	want := pg.MinResources.DeepCopy()
	if _, ok := want[v1.ResourcePods]; !ok {
		want[v1.ResourcePods] = *resource.NewQuantity(int64(pg.MinMember), resource.DecimalSI)
	}
	return want
}
