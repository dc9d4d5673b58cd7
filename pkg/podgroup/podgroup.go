// Package podgroup is what berth knows of a pod group: scheduler-plugins' PodGroup
// (scheduling.x-k8s.io/v1alpha1), joined by the scheduling.x-k8s.io/pod-group label, and, with
// the feature gate GenericWorkload, Kubernetes' own (scheduling.k8s.io/v1beta1), joined by
// spec.schedulingGroup.podGroupName. Each is read through its adapter (FromPlugins, FromNative)
// as a Group, which is all berth's plugins read of a group (group.go). It
// owns a pod's group key (KeyOf), which pods still count
// as members (Live), the index that finds a group's pods on the scheduler's pod informer (which
// has no other index that finds them, not even one by namespace), the groups' creation order that
// QOSSort sorts by (Order), and, once per scheduler process, the scheduler-plugins client and the
// PodGroup informers that Gang and ElasticQuota share (Groups).
//
// In the queue, the scheduler holds a native group's members as one entity, which QOSSort ranks
// on its own.
package podgroup

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/podroom"
)

// Live reports whether pod still counts as one of its group's members: it holds its room and is
// not being deleted, since a group cannot count on a member that is going.
func Live(pod *v1.Pod) bool {
	return pod.DeletionTimestamp == nil && podroom.Holds(pod)
}

// index names the pod-informer index from "namespace/podgroup" to the group's pods.
const index = "berth.dev/pod-group"

// KeyOf returns the key of the pod group pod joins: the scheduler-plugins PodGroup its label
// names, else the native PodGroup its spec.schedulingGroup names (NativeKey), if any and if this
// process serves native groups (NativeEnabled).
func KeyOf(pod *v1.Pod) (types.NamespacedName, bool) {
	if name := pod.Labels[v1alpha1.PodGroupLabel]; name != "" {
		return types.NamespacedName{Namespace: pod.Namespace, Name: name}, true
	}
	// The gate is read only for a pod that names a native group: most pods name none.
	if key, ok := nativeKeyOf(pod); ok && NativeEnabled() {
		return key, true
	}
	return types.NamespacedName{}, false
}

// APIKeyOf is KeyOf whatever this process's GenericWorkload gate: the group pod names in the API,
// for a client that reads what the API holds (kubectl berth), not what one scheduler serves. A
// pod keeps spec.schedulingGroup only where the apiserver serves native groups.
func APIKeyOf(pod *v1.Pod) (types.NamespacedName, bool) {
	if name := pod.Labels[v1alpha1.PodGroupLabel]; name != "" {
		return types.NamespacedName{Namespace: pod.Namespace, Name: name}, true
	}
	return nativeKeyOf(pod)
}

// PluginsKeyOf returns the key of the scheduler-plugins PodGroup pod joins, if any: that of
// KeyOf, unless pod is a member of a native group.
func PluginsKeyOf(pod *v1.Pod) (types.NamespacedName, bool) {
	key, ok := KeyOf(pod)
	if _, native := NativeName(key); !ok || native {
		return types.NamespacedName{}, false
	}
	return key, true
}

func indexByGroup(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, nil
	}
	if key, ok := KeyOf(pod); ok {
		return []string{key.String()}, nil
	}
	return nil, nil
}

// AddIndex indexes a pod informer by group, once however many plugins and profiles ask: they
// share the scheduler's pod informer, and so the index. Call it before the informer starts, as a
// plugin's New does.
func AddIndex(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[index]; ok {
		return nil
	}
	return informer.AddIndexers(cache.Indexers{index: indexByGroup})
}

// Pods returns the pods of the group key, in no order, from an indexer that AddIndex indexed.
func Pods(indexer cache.Indexer, key types.NamespacedName) []*v1.Pod {
	objs, err := indexer.ByIndex(index, key.String())
	if err != nil {
		// Only a missing index fails, and the plugins add it before anything reads.
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
