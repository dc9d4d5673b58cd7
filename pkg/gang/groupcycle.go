package gang

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/berth-sched/berth/pkg/cyclestate"
	"github.com/berth-sched/berth/pkg/gangcore"
	"github.com/berth-sched/berth/pkg/podgroup"
)

// A native group's scheduling cycle.
//
// The scheduler tries a native PodGroup's members together, in one cycle, and runs no member's
// PostFilter there: when the cycle fails it calls the PodGroupPostFilter plugins once, for the
// group. Gang is one of them, and does for the group what its PostFilter does for a member of a
// scheduler-plugins group that found no node (MemberFailed), with the first member that failed as
// the group's waiter: the group waits for room, Gang's PreEnqueue holds its members (the waiter
// once too, see WaitsForRoom), and the queue parks the group among its unschedulable entities,
// from which the event that makes room moves it: Gang's hint on a room event, or the waiter's own
// plugins' hints and wakes (ElasticQuota's, say), after which the waiter passes PreEnqueue and
// ends the wait. Without it the queue put a failed group in its backoff queue, which no event
// moves: it came back after 1 s, doubling with each failure.

// groupCycleKey keys, in the cycle state of a native group's cycle, what Gang saw of its members.
const groupCycleKey fwk.StateKey = "PodGroupPostFilter" + Name

// groupCycle is which members Gang's PreFilter let on in a native group's cycle, in order, and
// which of them Reserve then saw placed; a member let on and not placed failed. The scheduler
// tries the members one after another, so nothing here needs a lock.
type groupCycle struct {
	// roomFreed is the manager's count of RoomFreed when the cycle's first member was let on.
	roomFreed uint64
	tried     []*v1.Pod
	placed    map[types.UID]bool
	// room is the least the group needs, when the cluster's free room turned a member away
	// (roomsum.go).
	room map[types.UID]*roomState
}

func (c *groupCycle) Clone() fwk.StateData { return c }

// groupCycleOf returns the record of the native group's cycle that state belongs to, new (with
// create's count of RoomFreed) if there is none and create is given, or nil outside a group's
// cycle.
func groupCycleOf(state fwk.CycleState, create func() uint64) *groupCycle {
	if state == nil || !state.IsPodGroupSchedulingCycle() {
		return nil
	}
	pgState := state.GetPodGroupSchedulingCycle()
	if pgState == nil {
		return nil
	}
	if c, ok := cyclestate.Of[*groupCycle](pgState, groupCycleKey); ok {
		return c
	}
	if create == nil {
		return nil
	}
	c := &groupCycle{roomFreed: create(), placed: map[types.UID]bool{}, room: map[types.UID]*roomState{}}
	pgState.Write(groupCycleKey, c)
	return c
}

// noteTried records that PreFilter let pod on in its group's cycle; room, if the cluster's free
// room cannot hold the group. A member tried again (in the next placement the scheduler weighs)
// counts from then on.
func (pl *Gang) noteTried(state fwk.CycleState, pod *v1.Pod, room *roomState) {
	c := groupCycleOf(state, pl.groups.RoomFreedCount)
	if c == nil {
		return
	}
	delete(c.placed, pod.UID)
	if room != nil {
		c.room[pod.UID] = room
	} else {
		delete(c.room, pod.UID)
	}
	for _, p := range c.tried {
		if p.UID == pod.UID {
			return
		}
	}
	c.tried = append(c.tried, pod)
}

// notePlaced records that pod reserved a node in its group's cycle.
func notePlaced(state fwk.CycleState, pod *v1.Pod) {
	if c := groupCycleOf(state, nil); c != nil {
		c.placed[pod.UID] = true
	}
}

// firstFailed is the first member let on that was not placed, and why the room turned it away, if
// it did.
func (c *groupCycle) firstFailed() (*v1.Pod, *roomState) {
	for _, p := range c.tried {
		if !c.placed[p.UID] {
			return p, c.room[p.UID]
		}
	}
	return nil, nil
}

// snapshotView reads this scheduling cycle's snapshot for the manager (gangcore's roomseen.go).
func (pl *Gang) snapshotView() gangcore.SnapshotView {
	nodes := pl.handle.SnapshotSharedLister().NodeInfos()
	return gangcore.SnapshotView{
		PodVersion: func(uid types.UID, node string) (string, bool) {
			ni, err := nodes.Get(node)
			if err != nil {
				return "", false
			}
			for _, p := range ni.GetPods() {
				if pod := p.GetPod(); pod.UID == uid {
					return pod.ResourceVersion, true
				}
			}
			return "", false
		},
		NodeVersion: func(name string) (string, bool) {
			ni, err := nodes.Get(name)
			if err != nil || ni.Node() == nil {
				return "", false
			}
			return ni.Node().ResourceVersion, true
		},
	}
}

// PodGroupPostFilter runs when a native group's cycle failed: the member that failed first is
// judged as PostFilter judges a member that found no node. A group that holds nothing waits for
// room with that member as its waiter; a group waiting at Permit without quorum (members of an
// earlier cycle) lets go and stands aside. It returns Unschedulable, so that preemption, after it,
// may still make room.
func (pl *Gang) PodGroupPostFilter(_ context.Context, state fwk.PodGroupCycleState, pgInfo fwk.PodGroupInfo, _ fwk.PodGroupSchedulingFunc) (*fwk.PodGroupPostFilterResult, *fwk.Status) {
	if pgInfo.GetType() != fwk.PodGroupKeyType {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	c, ok := cyclestate.Of[*groupCycle](state, groupCycleKey)
	if !ok {
		// No member got past Gang's PreFilter: Gang held them for a reason of its own.
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	pod, room := c.firstFailed()
	if pod == nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	key := podgroup.NativeKey(pgInfo.GetNamespace(), pgInfo.GetName())
	pg, err := pl.podGroups.Of(key)
	if err != nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	// The scheduler writes each member's condition with the group's status, to which this one's
	// reasons are added: every member says why the group waits, as Gang's held members do.
	cause := gangcore.Cause{Why: fmt.Sprintf("could not place member %s in the group's scheduling cycle", pod.Name)}
	if msg := podgroup.RejectionOf(state, pod.UID); msg != "" {
		// Noted only by berth's PreFilters (ElasticQuota's).
		cause = gangcore.Cause{Why: fmt.Sprintf("could not place member %s: %s", pod.Name, msg), ByPreFilter: true}
	} else if room != nil {
		cause.Why = fmt.Sprintf("could not place member %s: %s", pod.Name, room.msg)
	}
	// The group's cycle gave back what its members reserved before this runs, and its statuses per
	// node are not passed on: no node is known to have turned the member away for room since given
	// back.
	v := pl.groups.GroupCycleFailed(key, pod, pg.MinMember, pl.snapshotCheck(func(string) bool { return false }), cause, c.roomFreed, pl.snapshotView())
	if room != nil {
		pl.groups.NoteNeed(key, room.need)
	}
	switch v.Verdict {
	case gangcore.VerdictFail:
		return nil, fwk.NewStatus(fwk.Unschedulable, pl.release(key, v.Failure, failedUnschedulable))
	case gangcore.VerdictRetry:
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf(
			"pod group %s keeps its waiting members: this attempt saw room held that has been given back since; retrying", key))
	}
	return nil, fwk.NewStatus(fwk.Unschedulable, gangcore.WaitsForRoom(key, cause.Why))
}
