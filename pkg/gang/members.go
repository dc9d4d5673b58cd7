package gang

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// groupIndex names the pod-informer index from "namespace/podgroup" to the group's pods.
const groupIndex = "berth.gang/pod-group"

// groupOf returns the PodGroup that pod joins by its label, if any.
func groupOf(pod *v1.Pod) (types.NamespacedName, bool) {
	name := pod.Labels[v1alpha1.PodGroupLabel]
	return types.NamespacedName{Namespace: pod.Namespace, Name: name}, name != ""
}

func indexByGroup(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, nil
	}
	if key, ok := groupOf(pod); ok {
		return []string{key.String()}, nil
	}
	return nil, nil
}

// addGroupIndex indexes a pod informer by group. Two profiles that both enable Gang share the
// scheduler's pod informer, and so the index.
func addGroupIndex(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[groupIndex]; ok {
		return nil
	}
	return informer.AddIndexers(cache.Indexers{groupIndex: indexByGroup})
}

// members reads a group's pods from an informer indexed by addGroupIndex.
type members struct {
	indexer cache.Indexer
}

func (m members) of(key types.NamespacedName) []*v1.Pod {
	objs, err := m.indexer.ByIndex(groupIndex, key.String())
	if err != nil {
		// Only a missing index fails, and New adds it before anything reads.
		return nil
	}
	pods := make([]*v1.Pod, 0, len(objs))
	for _, obj := range objs {
		if pod, ok := obj.(*v1.Pod); ok {
			pods = append(pods, pod)
		}
	}
	return pods
}

// live reports whether pod still counts for its group: not finished and not being deleted.
func live(pod *v1.Pod) bool {
	return pod.DeletionTimestamp == nil && pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed
}

// schedulable reports whether pod can take part in its group's next round: live and not held
// by scheduling gates, which would leave its siblings waiting at Permit for nothing.
func schedulable(pod *v1.Pod) bool {
	return live(pod) && len(pod.Spec.SchedulingGates) == 0
}

// bound returns the group's live pods that are bound to a node.
func (m members) bound(key types.NamespacedName) []*v1.Pod {
	var pods []*v1.Pod
	for _, pod := range m.of(key) {
		if pod.Spec.NodeName != "" && live(pod) {
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
