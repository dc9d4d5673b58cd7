package podgroup

import (
	"maps"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/topology"
)

// Group is a pod group as berth's plugins read it, whichever API declared it. The adapters below
// make one of each API's PodGroup; a later API version is one more adapter. Outside this package
// only the status writers, which patch each API's own status, read the API types.
type Group struct {
	// Key is what KeyOf returns for the group's members; a native group's (NativeKey) says so.
	Key types.NamespacedName
	// UID is the PodGroup's.
	UID types.UID
	// Created is the PodGroup's creation time, by which QOSSort orders groups.
	Created time.Time
	// MinMember is the number of members placed together, at least 1.
	MinMember int32
	// MinResources is what the group asks of the cluster's free capacity before its members are
	// tried; nil for none.
	MinResources v1.ResourceList
	// ScheduleTimeout is how long a round may wait at Permit; 0 for Gang's default.
	ScheduleTimeout time.Duration
	// Topology is berth's topology annotations (topology.RequiredAnnotation and
	// PreferredAnnotation) as the group asks them; topology.Levels.ConstraintOf reads it.
	Topology map[string]string
	// Started is when the scheduler first tried a member, as the PodGroup's status shows it; zero
	// if it shows none.
	Started time.Time
	// Phase is the phase berth last wrote on the PodGroup, or "".
	Phase Phase
}

// Phase is a group's phase as berth writes it (v1alpha1's names, on either API).
type Phase string

const (
	PhasePending    Phase = Phase(v1alpha1.PodGroupPending)
	PhaseScheduling Phase = Phase(v1alpha1.PodGroupScheduling)
	PhaseRunning    Phase = Phase(v1alpha1.PodGroupRunning)
	PhaseFinished   Phase = Phase(v1alpha1.PodGroupFinished)
	PhaseFailed     Phase = Phase(v1alpha1.PodGroupFailed)
)

// Native reports whether the group is a native PodGroup (scheduling.k8s.io).
func (g *Group) Native() bool {
	_, native := NativeName(g.Key)
	return native
}

// FromPlugins is the group of a scheduler-plugins PodGroup: an unset minMember reads as 1.
func FromPlugins(pg *v1alpha1.PodGroup) *Group {
	g := &Group{
		Key:          types.NamespacedName{Namespace: pg.Namespace, Name: pg.Name},
		UID:          pg.UID,
		Created:      pg.CreationTimestamp.Time,
		MinMember:    max(pg.Spec.MinMember, 1),
		MinResources: pg.Spec.MinResources,
		Topology:     topologyOf(pg.Annotations),
		Started:      pg.Status.ScheduleStartTime.Time,
		Phase:        Phase(pg.Status.Phase),
	}
	if s := pg.Spec.ScheduleTimeoutSeconds; s != nil && *s > 0 {
		g.ScheduleTimeout = time.Duration(*s) * time.Second
	}
	return g
}

// FromNative is the group of a native PodGroup: under the native group's key, with its
// schedulingPolicy.gang.minCount as minMember (1 for a group of the basic policy, whose members go
// one by one), and its schedulingConstraints.topology key as the level the group requires
// (berth.dev/topology-required), which takes the place of berth's topology annotations on the
// native PodGroup, if any; without a constraint those annotations apply as they do to a
// scheduler-plugins PodGroup. A native PodGroup has no minResources and no scheduling timeout of
// its own (Gang's defaults apply), and no phase: berth's is that of its PlacementCondition.
func FromNative(pg *schedulingv1beta1.PodGroup) *Group {
	g := &Group{
		Key:       NativeKey(pg.Namespace, pg.Name),
		UID:       pg.UID,
		Created:   pg.CreationTimestamp.Time,
		MinMember: 1,
		Topology:  topologyOf(pg.Annotations),
		Phase:     NativePhase(pg),
	}
	if gang := pg.Spec.SchedulingPolicy.Gang; gang != nil {
		g.MinMember = max(gang.MinCount, 1)
	}
	if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		// The API allows one constraint; a later version that allows more needs its own reading.
		g.Topology = map[string]string{topology.RequiredAnnotation: c.Topology[0].Key}
	}
	return g
}

// topologyOf is berth's topology annotations among annotations, nil for none.
func topologyOf(annotations map[string]string) map[string]string {
	var out map[string]string
	for _, a := range []string{topology.RequiredAnnotation, topology.PreferredAnnotation} {
		if v, ok := annotations[a]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[a] = v
		}
	}
	return out
}

// SpecChanged reports whether cur asks for anything other than old: its quorum, minResources,
// timeout or topology.
func SpecChanged(old, cur *Group) bool {
	return old.MinMember != cur.MinMember || old.ScheduleTimeout != cur.ScheduleTimeout ||
		!maps.Equal(old.Topology, cur.Topology) || !resourcesEqual(old.MinResources, cur.MinResources)
}

func resourcesEqual(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		if w, ok := b[name]; !ok || q.Cmp(w) != 0 {
			return false
		}
	}
	return true
}
