package gangcore

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-sched/berth/internal/fakeclock"
	"github.com/berth-sched/berth/internal/gangtest"
)

// The fixtures pkg/gang's tests share (internal/gangtest).
var (
	t0                       = gangtest.T0
	member                   = gangtest.Member
	told                     = gangtest.Told
	a1, a2, a3, b1, b2, keyA = gangtest.A1, gangtest.A2, gangtest.A3, gangtest.B1, gangtest.B2, gangtest.KeyA
	// a1Again has a1's name but is another pod, as after a delete and recreate.
	a1Again = member("a", "a1", "uid-a1-again")
)

const (
	testBackoffBase = 2 * time.Second
	testBackoffMax  = 8 * time.Second
	testTimeout     = 10 * time.Second
)

// podGroup is the plugin's side of an admission, for the manager's tests: a PodGroup of
// minMember created at created (none if missing), and a check against the nodes (none if nil),
// whose calls it counts.
type podGroup struct {
	minMember int32
	created   time.Time
	missing   bool
	check     func() (ParkReason, string, bool)
	checks    int
	// short: the cluster's free room cannot hold the group (RoomShort).
	short bool
}

func (p *podGroup) Group() (Spec, bool) {
	return Spec{MinMember: p.minMember, Created: p.created}, !p.missing
}

func (p *podGroup) Check(GroupView) func() (ParkReason, string, bool) {
	p.checks++
	return p.check
}

func (p *podGroup) RoomShort() bool              { return p.short }
func (*podGroup) OlderFits([]OlderWaiter) string { return "" }

// refusing is a group whose check against the nodes refuses for r.
func refusing(r ParkReason) *podGroup {
	return &podGroup{check: func() (ParkReason, string, bool) { return r, "", false }}
}

// testRecorder keeps what the manager's timers did.
type testRecorder struct {
	activated []string
	expired   []RoundFailure
	// order is what Hooks.Queued and Hooks.Gone were told, in turn.
	order []string
}

// testManager returns a manager on a fake clock at t0, and what its timers do.
func testManager() (*Manager, *fakeclock.Clock, *testRecorder) {
	c := fakeclock.New(t0)
	r := &testRecorder{}
	m := NewManager(Config{
		BackoffBase: testBackoffBase,
		BackoffMax:  testBackoffMax,
		TurnMax:     testBackoffBase,
		Clock:       c,
		Hooks: Hooks{
			Activate: func(pods []*v1.Pod) {
				for _, p := range pods {
					r.activated = append(r.activated, p.Name)
				}
			},
			Expired: func(_ types.NamespacedName, f RoundFailure) { r.expired = append(r.expired, f) },
			Queued:  func(key types.NamespacedName, _ time.Time) { r.order = append(r.order, "queued "+key.String()) },
			Gone:    func(key types.NamespacedName) { r.order = append(r.order, "gone "+key.String()) },
		},
		Native: func(key types.NamespacedName) bool { return strings.HasPrefix(key.Name, nativePrefix) },
	})
	return m, c, r
}

// nativePrefix starts the names of the test's native groups, as pkg/podgroup's keys of native
// PodGroups do.
const nativePrefix = "native/"

// keyOf is the key of the group p joins.
func keyOf(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Labels[gangtest.GroupLabel]}
}

// stateOf is what a group's quorum counts of p, a live pod: bound if it has a node.
func stateOf(p *v1.Pod) PodState {
	if p.Spec.NodeName != "" {
		return PodBound
	}
	return PodReady
}

func onNode(pod *v1.Pod, node string) *v1.Pod {
	p := pod.DeepCopy()
	p.Spec.NodeName = node
	return p
}

func uids(pods []*v1.Pod) sets.Set[types.UID] {
	s := sets.New[types.UID]()
	for _, pod := range pods {
		s.Insert(pod.UID)
	}
	return s
}

// step is one call into the manager, at t0+at, the way the plugin makes it.
type step struct {
	at  time.Duration
	op  string // permit (Reserve then Permit), unreserve, unschedulable (PostFilter), stale (PostFilter on a snapshot that still shows a released pod), forget
	pod *v1.Pod
}

// result holds what a step returned, and what the manager's timers did before it.
type result struct {
	Permit        *PermitVerdict
	Unreserve     *UnreserveResult
	Unschedulable *MemberOutcome
	Expired       []RoundFailure
}

func permitted(v PermitVerdict) result     { return result{Permit: &v} }
func unreserved(r UnreserveResult) result  { return result{Unreserve: &r} }
func unschedulable(v MemberOutcome) result { return result{Unschedulable: &v} }
func uidList(pods ...*v1.Pod) []types.UID  { return sets.List(uids(pods)) }
func failed(f RoundFailure) MemberOutcome  { return MemberOutcome{Verdict: VerdictFail, Failure: f} }
func expired(f ...RoundFailure) result     { return result{Expired: f} }
func (r result) and(o result) result       { o.Expired = r.Expired; return o }

// noRelease is a snapshot that shows no released pod; staleFor one that shows every released pod
// on a node that turned the member away.
func noRelease(types.UID, string) (bool, bool) { return false, false }
func staleFor(types.UID, string) (bool, bool)  { return true, true }

func run(steps []step, minMember int32, bound []*v1.Pod) []result {
	m, c, rec := testManager()
	for _, p := range bound {
		key := keyOf(p)
		m.PodChanged(key, p.UID, stateOf(p))
	}
	var got []result
	for _, s := range steps {
		key := keyOf(s.pod)
		c.Step(t0.Add(s.at).Sub(c.Now()))
		var r result
		switch s.op {
		case "permit":
			m.Reserve(key, s.pod, "node")
			r = permitted(m.Permit(key, s.pod, minMember, testTimeout))
		case "unreserve":
			r = unreserved(m.Unreserve(key, s.pod, minMember, noRelease, "failed "+s.pod.Name))
		case "unschedulable":
			r = unschedulable(m.MemberFailed(key, s.pod, minMember, noRelease, Cause{Why: "failed " + s.pod.Name}))
		case "stale":
			r = unschedulable(m.MemberFailed(key, s.pod, minMember, staleFor, Cause{Why: "failed " + s.pod.Name}))
		case "forget":
			m.PodChanged(key, s.pod.UID, PodGone)
		}
		r.Expired, rec.expired = rec.expired, nil
		got = append(got, r)
	}
	return got
}

func boundTo(p *v1.Pod) *v1.Pod { return onNode(p, "node") }

func TestManagerRounds(t *testing.T) {
	lostA1 := UnreserveResult{Outcome: failed(RoundFailure{Backoff: testBackoffBase, Why: "lost member a1 before it was complete"}), Lost: true}
	tests := []struct {
		name      string
		minMember int32
		bound     []*v1.Pod
		steps     []step
		want      []result
	}{
		{
			name:      "the first member waits the whole timeout and opens the round",
			minMember: 2,
			steps:     []step{{0, "permit", a1}},
			want:      []result{permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true})},
		},
		{
			name:      "later members wait only until the round's deadline",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {4 * time.Second, "permit", a2}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: 6 * time.Second}),
			},
		},
		{
			name:      "the member that reaches minMember lets the waiting ones through",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a2}, {3 * time.Second, "permit", a3}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: 9 * time.Second}),
				permitted(PermitVerdict{Allow: uidList(a1, a2), QuorumWait: 3 * time.Second}),
			},
		},
		{
			name:      "bound members count toward quorum",
			minMember: 3,
			bound:     []*v1.Pod{boundTo(a2), boundTo(a3)},
			steps:     []step{{0, "permit", a1}},
			want:      []result{permitted(PermitVerdict{})},
		},
		{
			name:      "a member both bound and reserved counts once",
			minMember: 3,
			bound:     []*v1.Pod{boundTo(a1)},
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a2}, {2 * time.Second, "permit", a3}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: 9 * time.Second}),
				permitted(PermitVerdict{Allow: uidList(a1, a2), QuorumWait: 2 * time.Second}),
			},
		},
		{
			name:      "members are counted by UID: a recreated pod with the same name is another member",
			minMember: 2,
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a1Again}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Allow: uidList(a1), QuorumWait: time.Second}),
			},
		},
		{
			name:      "a deleted member no longer counts",
			minMember: 2,
			steps:     []step{{0, "permit", a1}, {time.Second, "unreserve", a1}, {2 * time.Second, "forget", a1}, {20 * time.Second, "permit", a2}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unreserved(lostA1),
				{},
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
			},
		},
		{
			name:      "members beyond minMember pass at once",
			minMember: 2,
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a2}, {2 * time.Second, "permit", a3}, {3 * time.Second, "unschedulable", b1}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Allow: uidList(a1), QuorumWait: time.Second}),
				permitted(PermitVerdict{}),
				unschedulable(MemberOutcome{}),
			},
		},
		{
			name:      "the round's timer releases every waiting member at its deadline",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {5 * time.Second, "permit", a2}, {testTimeout, "unreserve", a1}, {testTimeout, "unreserve", a2}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: 5 * time.Second}),
				expired(RoundFailure{Released: uidList(a1, a2), Backoff: testBackoffBase, Why: whyTimedOut}).and(unreserved(UnreserveResult{})),
				unreserved(UnreserveResult{}),
			},
		},
		{
			name:      "a waiting member lost before its round ends releases the others",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {5 * time.Second, "permit", a2}, {6 * time.Second, "unreserve", a1}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: 5 * time.Second}),
				unreserved(UnreserveResult{Outcome: failed(RoundFailure{Released: uidList(a2), Backoff: testBackoffBase, Why: "lost member a1 before it was complete"}), Lost: true}),
			},
		},
		{
			name:      "a member turned down in its own cycle, reserved or not, is judged as a member that fits nowhere",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {time.Second, "unreserve", a2}},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unreserved(UnreserveResult{Outcome: failed(RoundFailure{Released: uidList(a1), Backoff: testBackoffBase, Why: "failed a2"})}),
			},
		},
		{
			name:      "an unreserve with no round under way changes nothing",
			minMember: 1,
			steps:     []step{{0, "permit", a1}, {time.Second, "unreserve", a1}},
			want: []result{
				permitted(PermitVerdict{}),
				unreserved(UnreserveResult{}),
			},
		},
		{
			name:      "a member that fits nowhere releases the waiting ones, and the group stands aside",
			minMember: 3,
			steps: []step{
				{0, "permit", a1}, {time.Second, "permit", a2}, {2 * time.Second, "unschedulable", a3},
				{3 * time.Second, "permit", a1}, {4 * time.Second, "permit", a1},
			},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: 9 * time.Second}),
				unschedulable(failed(RoundFailure{Released: uidList(a1, a2), Backoff: testBackoffBase, Why: "failed a3"})),
				permitted(PermitVerdict{Refused: ParkedBackoff, Backoff: testBackoffBase, Why: "failed a3"}),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
			},
		},
		{
			name:      "a member failure with nothing waiting releases nothing",
			minMember: 2,
			steps:     []step{{0, "unschedulable", a1}},
			want:      []result{unschedulable(MemberOutcome{})},
		},
		{
			name:      "consecutive failed rounds double the backoff up to its cap, and quorum resets it",
			minMember: 2,
			steps: []step{
				{0, "permit", a1}, {1 * time.Second, "unschedulable", a2}, // backoff 2s until 3s
				{10 * time.Second, "permit", a1}, {11 * time.Second, "unschedulable", a2}, // 4s
				{20 * time.Second, "permit", a1}, {21 * time.Second, "unschedulable", a2}, // 8s
				{30 * time.Second, "permit", a1}, {31 * time.Second, "unschedulable", a2}, // capped at 8s
				{40 * time.Second, "permit", a1}, {41 * time.Second, "permit", a2}, // quorum
				{42 * time.Second, "unreserve", a2}, {43 * time.Second, "unreserve", a1},
				{50 * time.Second, "permit", a1}, {51 * time.Second, "unschedulable", a2}, // 2s again
			},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(failed(RoundFailure{Released: uidList(a1), Backoff: 2 * time.Second, Why: "failed a2"})),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(failed(RoundFailure{Released: uidList(a1), Backoff: 4 * time.Second, Why: "failed a2"})),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(failed(RoundFailure{Released: uidList(a1), Backoff: 8 * time.Second, Why: "failed a2"})),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(failed(RoundFailure{Released: uidList(a1), Backoff: 8 * time.Second, Why: "failed a2"})),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Allow: uidList(a1), QuorumWait: time.Second}),
				unreserved(UnreserveResult{}),
				unreserved(UnreserveResult{}),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(failed(RoundFailure{Released: uidList(a1), Backoff: 2 * time.Second, Why: "failed a2"})),
			},
		},
		{
			name:      "a failure on a snapshot that still shows released room keeps the round",
			minMember: 2,
			steps: []step{
				{0, "permit", a1}, {100 * time.Millisecond, "permit", b1},
				{200 * time.Millisecond, "unschedulable", a2}, // A lets go
				{250 * time.Millisecond, "unreserve", a1},     // A's release reaches the framework
				{260 * time.Millisecond, "stale", b2},         // B's cycle still saw a1
				{300 * time.Millisecond, "permit", b2},        // retried: B completes
			},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(failed(RoundFailure{Released: uidList(a1), Backoff: testBackoffBase, Why: "failed a2"})),
				unreserved(UnreserveResult{}),
				unschedulable(MemberOutcome{Verdict: VerdictRetry}),
				permitted(PermitVerdict{Allow: uidList(b1), QuorumWait: 200 * time.Millisecond}),
			},
		},
		{
			name:      "a failure right after another group's release, on a snapshot that no longer shows it, ends the round",
			minMember: 2,
			steps: []step{
				{0, "permit", a1}, {100 * time.Millisecond, "permit", b1},
				{200 * time.Millisecond, "unschedulable", a2},
				{250 * time.Millisecond, "unreserve", a1},
				{260 * time.Millisecond, "unschedulable", b2},
			},
			want: []result{
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(PermitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(failed(RoundFailure{Released: uidList(a1), Backoff: testBackoffBase, Why: "failed a2"})),
				unreserved(UnreserveResult{}),
				unschedulable(failed(RoundFailure{Released: uidList(b1), Backoff: testBackoffBase, Why: "failed b2"})),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := run(tc.steps, tc.minMember, tc.bound)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestManagerParking(t *testing.T) {
	refuse := refusing
	pass := &podGroup{}
	type admitted struct {
		Reason      ParkReason
		OK, First   bool
		ParkedNow   bool
		ParkedAfter ParkReason
	}
	tests := []struct {
		name  string
		prior []*podGroup
		check *podGroup
		want  admitted
	}{
		{
			name:  "a refused pod is parked with its reason",
			check: refuse(ParkedTooFew),
			want:  admitted{Reason: ParkedTooFew, First: true, ParkedNow: true, ParkedAfter: ParkedTooFew},
		},
		{
			name:  "refusing again for the same reason is not news",
			prior: []*podGroup{refuse(ParkedTooFew)},
			check: refuse(ParkedTooFew),
			want:  admitted{Reason: ParkedTooFew, ParkedNow: true, ParkedAfter: ParkedTooFew},
		},
		{
			name:  "a new reason is news",
			prior: []*podGroup{refuse(ParkedNotFound)},
			check: refuse(ParkedTooFew),
			want:  admitted{Reason: ParkedTooFew, First: true, ParkedNow: true, ParkedAfter: ParkedTooFew},
		},
		{
			name: "a reason the pod was told of before is not news, whatever came between",
			// A group that waits for room goes through backoff and turns over and over: an event
			// each time would load the API server with what the first ones said.
			prior: []*podGroup{refuse(ParkedBackoff), pass, refuse(ParkedTurn), refuse(ParkedBackoff), pass},
			check: refuse(ParkedBackoff),
			want:  admitted{Reason: ParkedBackoff, ParkedNow: true, ParkedAfter: ParkedBackoff},
		},
		{
			name: "giving way for a turn is never news",
			// It lasts 2 s at most, and a freeing in a deep backlog holds every waiting group for
			// one: an event each would be a burst of API writes that slows the bindings.
			check: refuse(ParkedTurn),
			want:  admitted{Reason: ParkedTurn, ParkedNow: true, ParkedAfter: ParkedTurn},
		},
		{
			name:  "an admitted pod is unparked",
			prior: []*podGroup{refuse(ParkedTooFew)},
			check: pass,
			want:  admitted{OK: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := testManager()
			for _, c := range tc.prior {
				m.Admit(keyA, a1, c)
			}
			var got admitted
			a := m.Admit(keyA, a1, tc.check)
			got.Reason, got.OK, got.First = a.Reason, a.Reason == 0, a.FirstTime
			got.ParkedAfter, got.ParkedNow = m.ParkedReason(keyA, a1.UID)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A member that passes is told to QOSSort's order (Hooks.Queued) before the verdict, under the
// lock: when admitting it leaves its group with no state, Gone, which forgets the group's place,
// comes after, and the order keeps no place for a group the manager no longer knows.
func TestManagerQueuesBeforeItForgets(t *testing.T) {
	m, _, rec := testManager()
	if a := m.Enqueue(keyA, a1, &podGroup{}); a.Reason != 0 {
		t.Fatalf("a1 held: %s", a.Msg)
	}
	if diff := cmp.Diff([]string{"queued ns/a", "gone ns/a"}, rec.order); diff != "" {
		t.Errorf("hooks told (-want +got):\n%s", diff)
	}
	rec.order = nil
	m.Enqueue(keyA, a1, &podGroup{minMember: 2})
	m.Admit(keyA, a2, refusing(ParkedMinResources))
	if len(rec.order) != 0 {
		t.Errorf("hooks told %v of members held back, want nothing", rec.order)
	}
}

func TestManagerWake(t *testing.T) {
	allReasons := []ParkReason{ParkedNotFound, ParkedTooFew, ParkedMinResources, ParkedBackoff, ParkedRetry}
	names := func(pods []*v1.Pod) []string {
		var n []string
		for _, p := range pods {
			n = append(n, p.Name)
		}
		return sets.List(sets.New(n...))
	}
	tests := []struct {
		name      string
		setup     func(m *Manager)
		reasons   []ParkReason
		ready     func(GroupView) bool
		want      []string
		wantAfter []string
	}{
		{
			name: "wakes the group's pods parked for the given reasons when ready",
			setup: func(m *Manager) {
				m.Park(keyA, a1, ParkedTooFew)
				m.Park(keyA, a2, ParkedTooFew)
				m.Park(keyA, a3, ParkedBackoff)
				m.Park(types.NamespacedName{Namespace: "ns", Name: "b"}, b1, ParkedTooFew)
			},
			reasons:   []ParkReason{ParkedTooFew},
			ready:     func(GroupView) bool { return true },
			want:      []string{"a1", "a2"},
			wantAfter: []string{"a3"},
		},
		{
			name:      "nil readiness wakes unconditionally",
			setup:     func(m *Manager) { m.Park(keyA, a1, ParkedBackoff); m.Park(keyA, a2, ParkedRetry) },
			reasons:   []ParkReason{ParkedBackoff, ParkedRetry},
			want:      []string{"a1", "a2"},
			wantAfter: nil,
		},
		{
			name:      "wakes nothing while not ready, and keeps the pods parked",
			setup:     func(m *Manager) { m.Park(keyA, a1, ParkedTooFew); m.Park(keyA, a2, ParkedTooFew) },
			reasons:   []ParkReason{ParkedTooFew},
			ready:     func(GroupView) bool { return false },
			want:      nil,
			wantAfter: []string{"a1", "a2"},
		},
		{
			name:  "readiness is not computed when nobody waits for it",
			setup: func(m *Manager) { m.Park(keyA, a1, ParkedBackoff) },
			ready: func(GroupView) bool {
				t.Error("readiness computed with no pod parked for the reason")
				return true
			},
			reasons:   []ParkReason{ParkedTooFew},
			want:      nil,
			wantAfter: []string{"a1"},
		},
		{
			name: "a deleted pod is no longer parked",
			setup: func(m *Manager) {
				m.Park(keyA, a1, ParkedTooFew)
				m.Park(keyA, a2, ParkedTooFew)
				m.PodChanged(keyA, a2.UID, PodGone)
			},
			reasons:   []ParkReason{ParkedTooFew},
			want:      []string{"a1"},
			wantAfter: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := testManager()
			tc.setup(m)
			if diff := cmp.Diff(tc.want, names(m.Wake(keyA, tc.ready, tc.reasons...)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("woken (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAfter, names(m.Wake(keyA, nil, allReasons...)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("still parked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestManagerDrop(t *testing.T) {
	m, _, _ := testManager()
	for _, p := range []*v1.Pod{a1, a2} {
		m.Reserve(keyA, p, "node")
		m.Permit(keyA, p, 3, testTimeout)
	}
	if diff := cmp.Diff(uidList(a1, a2), m.Drop(keyA)); diff != "" {
		t.Errorf("released (-want +got):\n%s", diff)
	}
	if r, ok := m.ParkedReason(keyA, a1.UID); !ok || r != ParkedNotFound {
		t.Errorf("a released member is parked %v (%v), want until its PodGroup is back", r, ok)
	}
	m.Reserve(keyA, a3, "node")
	if v := m.Permit(keyA, a3, 3, testTimeout); v.Refused != 0 {
		t.Errorf("a dropped group stands aside: %+v", v)
	}
}

func TestManagerForgetsEmptyGroups(t *testing.T) {
	m, c, _ := testManager()
	m.Reserve(keyA, a1, "node")
	m.Permit(keyA, a1, 1, testTimeout)
	m.PodChanged(keyA, a1.UID, PodGone)
	if len(m.groups) != 0 {
		t.Errorf("a group with nothing left is kept: %+v", m.groups[keyA])
	}

	// A group that failed a round is kept while its backoff grows, and dropped once its pods go.
	m.Reserve(keyA, a1, "node")
	m.Permit(keyA, a1, 2, testTimeout)
	c.Step(time.Second)
	m.MemberFailed(keyA, a2, 2, noRelease, Cause{Why: "failed"})
	m.Unreserve(keyA, a1, 2, noRelease, "failed")
	c.Step(time.Minute)
	m.PodChanged(keyA, a1.UID, PodGone)
	m.PodChanged(keyA, a2.UID, PodGone)
	if len(m.groups) == 0 {
		t.Errorf("a group with failed rounds was dropped")
	}
}

// Every member parked for a time has a wake-up that fires, whichever path parked it and in
// whatever order the timers and the parking come.
func TestManagerWakesEveryTimedPark(t *testing.T) {
	m, c, rec := testManager()
	m.Reserve(keyA, a1, "node")
	m.Permit(keyA, a1, 3, testTimeout)
	c.Step(time.Second)
	m.MemberFailed(keyA, a2, 3, noRelease, Cause{Why: "failed"}) // a1 released, a2 parked: backoff until t0+3s
	c.Step(time.Second)
	m.Reserve(keyA, a3, "node")
	if v := m.Permit(keyA, a3, 3, testTimeout); v.Refused != ParkedBackoff {
		t.Fatalf("Permit during the backoff: %+v", v)
	}
	m.Enqueue(keyA, a1Again, &podGroup{})
	c.Step(testBackoffBase)
	if diff := cmp.Diff([]string{"a1", "a1", "a2", "a3"}, rec.activated, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("woken at the end of the backoff (-want +got):\n%s", diff)
	}
	for _, p := range []*v1.Pod{a1, a1Again, a2, a3} {
		if r, ok := m.ParkedReason(keyA, p.UID); ok {
			t.Errorf("%s (%s) still parked for %v after its backoff", p.Name, p.UID, r)
		}
	}

	// A member parked for backoff after the timer fired gets a timer of its own.
	rec.activated = nil
	m.Reserve(keyA, a1, "node")
	m.Permit(keyA, a1, 3, testTimeout)
	m.MemberFailed(keyA, a2, 3, noRelease, Cause{Why: "failed"})
	c.Step(testBackoffBase * 2)
	rec.activated = nil
	m.Park(keyA, a3, ParkedBackoff) // a backoff already over: woken at once
	c.Step(0)
	if diff := cmp.Diff([]string{"a3"}, rec.activated); diff != "" {
		t.Errorf("woken (-want +got):\n%s", diff)
	}
}

// Lowering minMember lets waiting members through when they now make quorum.
func TestManagerReevaluate(t *testing.T) {
	m, _, _ := testManager()
	for _, p := range []*v1.Pod{a1, a2} {
		m.Reserve(keyA, p, "node")
		m.Permit(keyA, p, 3, testTimeout)
	}
	if v := m.Reevaluate(keyA, 3); len(v.Allow) != 0 {
		t.Errorf("allowed %v without quorum", v.Allow)
	}
	if diff := cmp.Diff(uidList(a1, a2), m.Reevaluate(keyA, 2).Allow); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
}

// failRoundOfA runs one failed round of group a (minMember 2): a1 waits at Permit, a2 fits
// nowhere, and a1's Unreserve follows.
func failRoundOfA(m *Manager) {
	m.Reserve(keyA, a1, "node")
	m.Permit(keyA, a1, 2, testTimeout)
	m.MemberFailed(keyA, a2, 2, noRelease, Cause{Why: "failed"})
	m.Unreserve(keyA, a1, 2, noRelease, "failed")
}

// failThreeRoundsOfA fails three rounds of group a in a row, each as its backoff ends: the third
// stands aside for 8s.
func failThreeRoundsOfA(m *Manager, c *fakeclock.Clock) {
	failRoundOfA(m)
	c.Step(testBackoffBase)
	failRoundOfA(m)
	c.Step(2 * testBackoffBase)
	failRoundOfA(m)
}

// Room appearing cuts a group's backoff short, to backoffBase after its failure or at once,
// whichever is later; without room, the backoff runs its doubled length.
func TestManagerRoomCutsBackoffShort(t *testing.T) {
	m, c, rec := testManager()
	failThreeRoundsOfA(m, c)
	rec.activated = nil
	if g := m.groups[keyA]; g.backoff != 8*time.Second || !c.Now().Before(g.backoffUntil) {
		t.Fatalf("after three failed rounds: backoff %v until %v, want 8s from now", g.backoff, g.backoffUntil)
	}
	// Room 1s after the failure: the backoff ends at the floor, 2s after the failure.
	c.Step(time.Second)
	m.RoomFreed()
	c.Step(time.Second - time.Millisecond)
	if len(rec.activated) != 0 {
		t.Fatalf("woken before the floor: %v", rec.activated)
	}
	c.Step(time.Millisecond)
	if diff := cmp.Diff([]string{"a1", "a2"}, rec.activated, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("woken at the floor (-want +got):\n%s", diff)
	}

	// The next failure doubles on (8s, the cap); room 5s later wakes the group at once.
	failRoundOfA(m)
	rec.activated = nil
	c.Step(5 * time.Second)
	m.RoomFreed()
	c.Step(0)
	if diff := cmp.Diff([]string{"a1", "a2"}, rec.activated, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("woken by room past the floor (-want +got):\n%s", diff)
	}

	// Without room the backoff runs its length.
	failRoundOfA(m)
	rec.activated = nil
	c.Step(8*time.Second - time.Millisecond)
	if len(rec.activated) != 0 {
		t.Fatalf("woken before the end of the backoff without room: %v", rec.activated)
	}
	c.Step(time.Millisecond)
	if len(rec.activated) != 2 {
		t.Errorf("woken at the end of the backoff: %v, want a1 and a2", rec.activated)
	}
}

// Room appearing twice in a backoff's first seconds keeps the floor: the second cut must not read
// the cut backoff as if it were the doubled one. In the topology simulation it did, ended a 32s
// backoff at once, and the group's next round met the members its last one had released still
// counted (see TestManagerReleasedMembersDoNotMakeQuorum).
func TestManagerRoomTwiceKeepsTheFloor(t *testing.T) {
	m, c, rec := testManager()
	failThreeRoundsOfA(m, c)
	rec.activated = nil
	c.Step(100 * time.Millisecond)
	m.RoomFreed()
	c.Step(100 * time.Millisecond)
	m.RoomFreed()
	c.Step(0)
	if len(rec.activated) != 0 {
		t.Fatalf("woken 200ms after the failure, before the floor of %v: %v", testBackoffBase, rec.activated)
	}
	if g := m.groups[keyA]; !c.Now().Before(g.backoffUntil) {
		t.Fatalf("backoff over 200ms after the failure; want it to last until the floor, %v after", testBackoffBase)
	}
	c.Step(testBackoffBase - 200*time.Millisecond)
	if len(rec.activated) != 2 {
		t.Errorf("woken at the floor: %v, want a1 and a2", rec.activated)
	}
}

// A member a failed round released holds its reservation until its Unreserve runs in its binding
// goroutine, which may come after the group's next member reaches Permit. It must not count
// toward that round's quorum: it will never bind, and counting it let one member through alone
// (the topology simulation's g0338: one member of seven bound for 11s).
func TestManagerReleasedMembersDoNotMakeQuorum(t *testing.T) {
	m, c, _ := testManager()
	m.Reserve(keyA, a1, "node")
	if v := m.Permit(keyA, a1, 3, testTimeout); v.Wait <= 0 {
		t.Fatalf("a1 at Permit: %+v, want it to wait", v)
	}
	m.Reserve(keyA, a2, "node")
	if v := m.Permit(keyA, a2, 3, testTimeout); v.Wait <= 0 {
		t.Fatalf("a2 at Permit: %+v, want it to wait", v)
	}
	out := m.MemberFailed(keyA, a3, 3, noRelease, Cause{Why: "failed a3"})
	if out.Verdict != VerdictFail || len(out.Failure.Released) != 2 {
		t.Fatalf("a3 failed: %+v, want the round failed with a1 and a2 released", out)
	}
	// The backoff ends before a1's and a2's Unreserves run.
	c.Step(testBackoffBase)
	m.Reserve(keyA, a3, "node")
	v := m.Permit(keyA, a3, 3, testTimeout)
	if len(v.Allow) > 0 || v.Wait <= 0 {
		t.Fatalf("a3 at Permit while the released a1 and a2 still hold reservations: %+v; want it to wait, not make quorum", v)
	}
	// Their Unreserves then give their places back without touching the new round.
	for _, p := range []*v1.Pod{a1, a2} {
		if r := m.Unreserve(keyA, p, 3, nil, ""); r.Outcome.Verdict != VerdictNone || r.Lost {
			t.Errorf("late Unreserve of %s: %+v, want no effect on a3's round", p.Name, r)
		}
	}
	if g := m.groups[keyA]; !g.waiting.Has(a3.UID) || g.placed.Len() != 1 {
		t.Errorf("after the late Unreserves: waiting %v, placed %v; want a3 alone", sets.List(g.waiting), sets.List(g.placed))
	}
}
