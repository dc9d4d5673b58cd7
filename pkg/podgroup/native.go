package podgroup

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/cyclestate"
)

// Kubernetes 1.37's own pod groups (scheduling.k8s.io/v1beta1 PodGroup, feature gate
// GenericWorkload) are placed by Gang as a scheduler-plugins PodGroup is: FromNative makes the
// Group of one, and KeyOf finds a pod's native group by its spec.schedulingGroup.podGroupName.

// nativePrefix starts the name in the key of a native PodGroup. An object's name cannot hold a
// "/", so a native group's key never equals that of a scheduler-plugins PodGroup of the same name
// in the same namespace, and messages that name the key say which API it is from.
const nativePrefix = "scheduling.k8s.io/"

// NativeKey is the key of the native PodGroup name in namespace.
func NativeKey(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: nativePrefix + name}
}

// NativeName returns the name of the native PodGroup key stands for, if it stands for one.
func NativeName(key types.NamespacedName) (string, bool) {
	return strings.CutPrefix(key.Name, nativePrefix)
}

// nativeKeyOf returns the native PodGroup pod joins, if any. The scheduler ignores
// spec.schedulingGroup while GenericWorkload is off, and so does berth's scheduler (KeyOf): no
// informer would show the group.
func nativeKeyOf(pod *v1.Pod) (types.NamespacedName, bool) {
	sg := pod.Spec.SchedulingGroup
	if sg == nil || sg.PodGroupName == nil || *sg.PodGroupName == "" {
		return types.NamespacedName{}, false
	}
	return NativeKey(pod.Namespace, *sg.PodGroupName), true
}

// NativeEnabled reports whether this process serves native pod groups: the GenericWorkload
// feature gate, which the scheduler's own queue and informers follow too.
func NativeEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload)
}

// EventTarget is the object that events about group belong on: the PodGroup of its API. The
// recorder finds the object's kind in its TypeMeta: the scheduler's scheme knows neither.
func EventTarget(group *Group) runtime.Object {
	name, native := NativeName(group.Key)
	meta := metav1.ObjectMeta{Namespace: group.Key.Namespace, Name: name, UID: group.UID}
	if !native {
		meta.Name = group.Key.Name
		return &v1alpha1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodGroup"}, ObjectMeta: meta}
	}
	return &schedulingv1beta1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "PodGroup"}, ObjectMeta: meta}
}

// errNoNative is what Of answers for a native group while this process serves none.
var errNoNative = fmt.Errorf("native pod groups (scheduling.k8s.io) are not served: the feature gate GenericWorkload is off")

// The scheduler tries a native group's members together and reports a failed cycle to the
// PodGroupPostFilter plugins without the members' statuses. berth's plugins note why they turned
// a member away in the group's cycle state, so that Gang can say why the group waits.

// rejectionsKey keys the notes in a native group's cycle state.
const rejectionsKey fwk.StateKey = "berth.dev/podgroup-rejections"

// rejections is why berth's plugins turned members away in one group cycle, by member.
type rejections map[types.UID]string

func (r rejections) Clone() fwk.StateData { return r }

// NoteRejection records, in the cycle of the native group pod's state belongs to, why a plugin
// turned pod away; outside a group's cycle it does nothing.
func NoteRejection(state fwk.CycleState, pod types.UID, why string) {
	if state == nil || !state.IsPodGroupSchedulingCycle() {
		return
	}
	pgState := state.GetPodGroupSchedulingCycle()
	if pgState == nil {
		return
	}
	if r, ok := cyclestate.Of[rejections](pgState, rejectionsKey); ok {
		r[pod] = why
		return
	}
	pgState.Write(rejectionsKey, rejections{pod: why})
}

// RejectionOf returns why a plugin turned pod away in the native group cycle of state, or "".
func RejectionOf(state fwk.PodGroupCycleState, pod types.UID) string {
	r, _ := cyclestate.Of[rejections](state, rejectionsKey)
	return r[pod]
}

// PlacementCondition is the condition berth's Gang writes on a native PodGroup, whose status has
// conditions and no phase or counts: reason the group's phase as on a scheduler-plugins PodGroup
// (Pending, Scheduling, Running, Finished, Failed), status True once minCount members are bound,
// message the counts. It sits beside the scheduler's own PodGroupInitiallyScheduled, which turns
// True once and stays so.
const PlacementCondition = "berth.dev/Placement"

// NativePhase is the phase berth last wrote on pg (PlacementCondition), or "" if none.
func NativePhase(pg *schedulingv1beta1.PodGroup) Phase {
	for _, c := range pg.Status.Conditions {
		if c.Type == PlacementCondition {
			return Phase(c.Reason)
		}
	}
	return ""
}
