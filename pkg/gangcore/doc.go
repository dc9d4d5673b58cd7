// Package gangcore is the state of berth's pod groups, whichever API declared them. One Manager
// serves a scheduler process; pkg/gang's plugin drives it from the extension points, and
// pkg/podgroup's adapters turn each API's PodGroup into what the plugin reads. It knows neither
// API and makes no API request: groups are keys, members are pods known by UID.
//
//   - manager.go: the Manager, each group's members and quorum count (PodChanged, Reserve, Drop),
//     and why two groups that cannot both fit never deadlock.
//   - admit.go: a member's admission in PreEnqueue (Enqueue) and PreFilter (Admit), its rules in
//     the order they apply, and Cluster, what the plugin supplies: the PodGroup, the check
//     against the nodes, the room sums.
//   - parking.go: why a pod was turned away (ParkReason), parking, and the wake-ups that bring
//     parked pods back.
//   - rounds.go: a round at Permit, its quorum or failure, backoff and the member failures that
//     end a round (MemberFailed, Unreserve).
//   - turns.go: groups that hold nothing give way to a round in progress and to older groups.
//   - roomwait.go: a group that holds nothing waits for room behind one member.
//   - roomseen.go: freeings a native group's cycle may have missed.
//   - domain.go: the topology domain a group's reserved members hold.
package gangcore
