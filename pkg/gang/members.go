package gang

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/podgroup"
)

// members reads a group's pods from an informer indexed by podgroup.AddIndex.
type members struct {
	indexer cache.Indexer
}

func (m members) of(key types.NamespacedName) []*v1.Pod { return podgroup.Pods(m.indexer, key) }

// schedulable reports whether pod can take part in its group's next round: live and not held
// by scheduling gates, which would leave its siblings waiting at Permit for nothing.
func schedulable(pod *v1.Pod) bool {
	return podgroup.Live(pod) && len(pod.Spec.SchedulingGates) == 0
}

// memberState is what the group's quorum counts of pod (gangcore.Manager.PodChanged).
func memberState(pod *v1.Pod) gangcore.PodState {
	switch {
	case !schedulable(pod):
		return gangcore.PodIdle
	case pod.Spec.NodeName != "":
		return gangcore.PodBound
	}
	return gangcore.PodReady
}

// bound returns the group's live pods that are bound to a node.
func (m members) bound(key types.NamespacedName) []*v1.Pod {
	var pods []*v1.Pod
	for _, pod := range m.of(key) {
		if pod.Spec.NodeName != "" && podgroup.Live(pod) {
			pods = append(pods, pod)
		}
	}
	return pods
}

func uids(pods []*v1.Pod) sets.Set[types.UID] {
	s := sets.New[types.UID]()
	for _, pod := range pods {
		s.Insert(pod.UID)
	}
	return s
}
