package gang

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	testBackoffBase = 2 * time.Second
	testBackoffMax  = 8 * time.Second
	testSettle      = time.Second
	testTimeout     = 10 * time.Second
)

// member returns a pod of group pg in namespace ns.
func member(pg, name, uid string) *v1.Pod {
	return st.MakePod().Namespace("ns").Name(name).UID(uid).Label(v1alpha1.PodGroupLabel, pg).Obj()
}

var (
	a1 = member("a", "a1", "uid-a1")
	a2 = member("a", "a2", "uid-a2")
	a3 = member("a", "a3", "uid-a3")
	// a1Again has a1's name but is another pod, as after a delete and recreate.
	a1Again = member("a", "a1", "uid-a1-again")
	b1      = member("b", "b1", "uid-b1")
	b2      = member("b", "b2", "uid-b2")
	keyA    = types.NamespacedName{Namespace: "ns", Name: "a"}
)

// step is one call into the manager, at t0+at, the way the plugin makes it.
type step struct {
	at  time.Duration
	op  string // permit (Reserve then Permit), unreserve, unschedulable (PostFilter), forget
	pod *v1.Pod
}

// result holds what a step returned.
type result struct {
	Permit        *permitVerdict
	Unreserve     *unreserveResult
	Unschedulable *memberOutcome
}

func permitted(v permitVerdict) result             { return result{Permit: &v} }
func unreserved(r unreserveResult) result          { return result{Unreserve: &r} }
func unschedulable(v memberOutcome) result         { return result{Unschedulable: &v} }
func released(f roundFailure) *roundFailure        { return &f }
func uidList(pods ...*v1.Pod) []types.UID          { return sets.List(uids(pods)) }
func boundSet(pods ...*v1.Pod) sets.Set[types.UID] { return uids(pods) }

func run(m *manager, steps []step, minMember int32, bound sets.Set[types.UID]) []result {
	var got []result
	for _, s := range steps {
		key, _ := groupOf(s.pod)
		now := t0.Add(s.at)
		switch s.op {
		case "permit":
			m.Reserve(key, s.pod)
			got = append(got, permitted(m.Permit(key, s.pod, bound, minMember, testTimeout, now)))
		case "unreserve":
			got = append(got, unreserved(m.Unreserve(key, s.pod.UID, now)))
		case "unschedulable":
			got = append(got, unschedulable(m.MemberUnschedulable(key, s.pod, bound, minMember, now)))
		case "forget":
			m.Forget(key, s.pod.UID, now)
			got = append(got, result{})
		}
	}
	return got
}

func TestManagerRounds(t *testing.T) {
	tests := []struct {
		name      string
		minMember int32
		bound     sets.Set[types.UID]
		steps     []step
		want      []result
	}{
		{
			name:      "the first member waits the whole timeout and opens the round",
			minMember: 2,
			steps:     []step{{0, "permit", a1}},
			want:      []result{permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true})},
		},
		{
			name:      "later members wait only until the round's deadline",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {4 * time.Second, "permit", a2}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Wait: 6 * time.Second}),
			},
		},
		{
			name:      "the member that reaches minMember lets the waiting ones through",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a2}, {3 * time.Second, "permit", a3}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Wait: 9 * time.Second}),
				permitted(permitVerdict{Allow: uidList(a1, a2), QuorumWait: 3 * time.Second}),
			},
		},
		{
			name:      "bound members count toward quorum",
			minMember: 3,
			bound:     boundSet(b1, b2),
			steps:     []step{{0, "permit", a1}},
			want:      []result{permitted(permitVerdict{})},
		},
		{
			name:      "a member both bound and reserved counts once",
			minMember: 3,
			bound:     boundSet(a1),
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a2}, {2 * time.Second, "permit", a3}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Wait: 9 * time.Second}),
				permitted(permitVerdict{Allow: uidList(a1, a2), QuorumWait: 2 * time.Second}),
			},
		},
		{
			name:      "members are counted by UID: a recreated pod with the same name is another member",
			minMember: 2,
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a1Again}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Allow: uidList(a1), QuorumWait: time.Second}),
			},
		},
		{
			name:      "a deleted member no longer counts",
			minMember: 2,
			steps:     []step{{0, "permit", a1}, {time.Second, "unreserve", a1}, {2 * time.Second, "forget", a1}, {20 * time.Second, "permit", a2}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unreserved(unreserveResult{Failed: released(roundFailure{Backoff: testBackoffBase})}),
				{},
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
			},
		},
		{
			name:      "members beyond minMember pass at once",
			minMember: 2,
			steps:     []step{{0, "permit", a1}, {time.Second, "permit", a2}, {2 * time.Second, "permit", a3}, {3 * time.Second, "unschedulable", b1}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Allow: uidList(a1), QuorumWait: time.Second}),
				permitted(permitVerdict{}),
				unschedulable(memberOutcome{}),
			},
		},
		{
			name:      "a member arriving at the round's deadline is refused",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {testTimeout, "permit", a2}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Refused: parkedBackoff}),
			},
		},
		{
			name:      "a waiting member that times out releases the others",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {5 * time.Second, "permit", a2}, {testTimeout, "unreserve", a1}, {testTimeout, "unreserve", a2}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Wait: 5 * time.Second}),
				unreserved(unreserveResult{Failed: released(roundFailure{Released: uidList(a2), Backoff: testBackoffBase}), TimedOut: true}),
				unreserved(unreserveResult{}),
			},
		},
		{
			name:      "a member lost before Permit ends the round of those waiting",
			minMember: 3,
			steps:     []step{{0, "permit", a1}, {time.Second, "unreserve", a2}},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unreserved(unreserveResult{Failed: released(roundFailure{Released: uidList(a1), Backoff: testBackoffBase})}),
			},
		},
		{
			name:      "an unreserve with no round under way changes nothing",
			minMember: 1,
			steps:     []step{{0, "permit", a1}, {time.Second, "unreserve", a1}},
			want: []result{
				permitted(permitVerdict{}),
				unreserved(unreserveResult{}),
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
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Wait: 9 * time.Second}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1, a2), Backoff: testBackoffBase}}),
				permitted(permitVerdict{Refused: parkedBackoff}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
			},
		},
		{
			name:      "a member failure with nothing waiting releases nothing",
			minMember: 2,
			steps:     []step{{0, "unschedulable", a1}},
			want:      []result{unschedulable(memberOutcome{})},
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
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1), Backoff: 2 * time.Second}}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1), Backoff: 4 * time.Second}}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1), Backoff: 8 * time.Second}}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1), Backoff: 8 * time.Second}}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Allow: uidList(a1), QuorumWait: time.Second}),
				unreserved(unreserveResult{}),
				unreserved(unreserveResult{}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1), Backoff: 2 * time.Second}}),
			},
		},
		{
			name:      "a failure just after another group's release is retried, not held against the group",
			minMember: 2,
			steps: []step{
				{0, "permit", a1}, {100 * time.Millisecond, "permit", b1},
				{200 * time.Millisecond, "unschedulable", a2}, // A lets go
				{250 * time.Millisecond, "unreserve", a1},     // A's release reaches the framework
				{500 * time.Millisecond, "unschedulable", b2}, // B may only see a stale snapshot
				{1250 * time.Millisecond, "permit", b2},       // retried once settled: B completes
			},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1), Backoff: testBackoffBase}}),
				unreserved(unreserveResult{}),
				unschedulable(memberOutcome{Verdict: verdictRetry, RetryAt: t0.Add(1250 * time.Millisecond)}),
				permitted(permitVerdict{Allow: uidList(b1), QuorumWait: 1150 * time.Millisecond}),
			},
		},
		{
			name:      "a failure once the release has settled ends the round",
			minMember: 2,
			steps: []step{
				{0, "permit", a1}, {100 * time.Millisecond, "permit", b1},
				{200 * time.Millisecond, "unschedulable", a2},
				{250 * time.Millisecond, "unreserve", a1},
				{1250 * time.Millisecond, "unschedulable", b2},
			},
			want: []result{
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				permitted(permitVerdict{Wait: testTimeout, FirstWaiter: true}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(a1), Backoff: testBackoffBase}}),
				unreserved(unreserveResult{}),
				unschedulable(memberOutcome{Verdict: verdictFail, Failure: roundFailure{Released: uidList(b1), Backoff: testBackoffBase}}),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newManager(testBackoffBase, testBackoffMax, testSettle)
			got := run(m, tc.steps, tc.minMember, tc.bound)
			// Deadline has a test of its own.
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(permitVerdict{}, "Deadline")); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestManagerParking(t *testing.T) {
	refuse := func(r parkReason) func(groupView) (parkReason, bool) {
		return func(groupView) (parkReason, bool) { return r, false }
	}
	pass := func(groupView) (parkReason, bool) { return 0, true }
	type admitted struct {
		Reason      parkReason
		OK, Newly   bool
		ParkedNow   bool
		ParkedAfter parkReason
	}
	tests := []struct {
		name  string
		prior []func(groupView) (parkReason, bool)
		check func(groupView) (parkReason, bool)
		want  admitted
	}{
		{
			name:  "a refused pod is parked with its reason",
			check: refuse(parkedTooFew),
			want:  admitted{Reason: parkedTooFew, Newly: true, ParkedNow: true, ParkedAfter: parkedTooFew},
		},
		{
			name:  "refusing again for the same reason is not news",
			prior: []func(groupView) (parkReason, bool){refuse(parkedTooFew)},
			check: refuse(parkedTooFew),
			want:  admitted{Reason: parkedTooFew, ParkedNow: true, ParkedAfter: parkedTooFew},
		},
		{
			name:  "a new reason is news",
			prior: []func(groupView) (parkReason, bool){refuse(parkedNotFound)},
			check: refuse(parkedTooFew),
			want:  admitted{Reason: parkedTooFew, Newly: true, ParkedNow: true, ParkedAfter: parkedTooFew},
		},
		{
			name:  "an admitted pod is unparked",
			prior: []func(groupView) (parkReason, bool){refuse(parkedTooFew)},
			check: pass,
			want:  admitted{OK: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newManager(testBackoffBase, testBackoffMax, testSettle)
			for _, c := range tc.prior {
				m.Admit(keyA, a1, t0, c)
			}
			var got admitted
			got.Reason, got.OK, got.Newly = m.Admit(keyA, a1, t0, tc.check)
			got.ParkedAfter, got.ParkedNow = m.ParkedReason(keyA, a1.UID)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestManagerWake(t *testing.T) {
	allReasons := []parkReason{parkedNotFound, parkedTooFew, parkedMinResources, parkedBackoff, parkedRetry}
	names := func(pods []*v1.Pod) []string {
		var n []string
		for _, p := range pods {
			n = append(n, p.Name)
		}
		return sets.List(sets.New(n...))
	}
	tests := []struct {
		name      string
		setup     func(m *manager)
		reasons   []parkReason
		ready     func() bool
		want      []string
		wantAfter []string
	}{
		{
			name: "wakes the group's pods parked for the given reasons when ready",
			setup: func(m *manager) {
				m.Park(keyA, a1, parkedTooFew)
				m.Park(keyA, a2, parkedTooFew)
				m.Park(keyA, a3, parkedBackoff)
				m.Park(types.NamespacedName{Namespace: "ns", Name: "b"}, b1, parkedTooFew)
			},
			reasons:   []parkReason{parkedTooFew},
			ready:     func() bool { return true },
			want:      []string{"a1", "a2"},
			wantAfter: []string{"a3"},
		},
		{
			name:      "nil readiness wakes unconditionally",
			setup:     func(m *manager) { m.Park(keyA, a1, parkedBackoff); m.Park(keyA, a2, parkedRetry) },
			reasons:   []parkReason{parkedBackoff, parkedRetry},
			want:      []string{"a1", "a2"},
			wantAfter: nil,
		},
		{
			name:      "wakes nothing while not ready, and keeps the pods parked",
			setup:     func(m *manager) { m.Park(keyA, a1, parkedTooFew); m.Park(keyA, a2, parkedTooFew) },
			reasons:   []parkReason{parkedTooFew},
			ready:     func() bool { return false },
			want:      nil,
			wantAfter: []string{"a1", "a2"},
		},
		{
			name:  "readiness is not computed when nobody waits for it",
			setup: func(m *manager) { m.Park(keyA, a1, parkedBackoff) },
			ready: func() bool {
				t.Error("readiness computed with no pod parked for the reason")
				return true
			},
			reasons:   []parkReason{parkedTooFew},
			want:      nil,
			wantAfter: []string{"a1"},
		},
		{
			name: "a deleted pod is no longer parked",
			setup: func(m *manager) {
				m.Park(keyA, a1, parkedTooFew)
				m.Park(keyA, a2, parkedTooFew)
				m.Forget(keyA, a2.UID, t0)
			},
			reasons:   []parkReason{parkedTooFew},
			want:      []string{"a1"},
			wantAfter: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newManager(testBackoffBase, testBackoffMax, testSettle)
			tc.setup(m)
			if diff := cmp.Diff(tc.want, names(m.Wake(keyA, t0, tc.ready, tc.reasons...)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("woken (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAfter, names(m.Wake(keyA, t0, nil, allReasons...)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("still parked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestManagerDrop(t *testing.T) {
	m := newManager(testBackoffBase, testBackoffMax, testSettle)
	m.Reserve(keyA, a1)
	m.Permit(keyA, a1, nil, 3, testTimeout, t0)
	m.Reserve(keyA, a2)
	m.Permit(keyA, a2, nil, 3, testTimeout, t0)
	if diff := cmp.Diff(uidList(a1, a2), m.Drop(keyA, t0)); diff != "" {
		t.Errorf("released (-want +got):\n%s", diff)
	}
	if r, ok := m.ParkedReason(keyA, a1.UID); !ok || r != parkedNotFound {
		t.Errorf("a released member is parked until its PodGroup returns: got %v, %v", r, ok)
	}
	// No backoff: a recreated PodGroup may start at once.
	if v := m.Permit(keyA, a3, nil, 3, testTimeout, t0); v.Refused != 0 {
		t.Errorf("Permit after Drop refused: %+v", v)
	}
}

func TestManagerForgetsEmptyGroups(t *testing.T) {
	m := newManager(testBackoffBase, testBackoffMax, testSettle)
	m.Reserve(keyA, a1)
	m.Permit(keyA, a1, nil, 1, testTimeout, t0)
	m.Forget(keyA, a1.UID, t0)
	if len(m.groups) != 0 {
		t.Errorf("a group with no pods left is still tracked: %+v", m.groups)
	}

	// A group whose rounds failed is kept, so that its backoff keeps growing.
	m.Reserve(keyA, a1)
	m.Permit(keyA, a1, nil, 2, testTimeout, t0)
	m.MemberUnschedulable(keyA, a2, nil, 2, t0.Add(time.Second))
	m.Unreserve(keyA, a1.UID, t0.Add(time.Second))
	m.Forget(keyA, a1.UID, t0.Add(time.Minute))
	m.Forget(keyA, a2.UID, t0.Add(time.Minute))
	if len(m.groups) != 1 {
		t.Errorf("a group with failed rounds was dropped")
	}
}

// The first waiter's round gets a deadline, and Expire ends exactly that round: once, and never a
// later one.
func TestManagerExpire(t *testing.T) {
	m := newManager(testBackoffBase, testBackoffMax, testSettle)
	m.Reserve(keyA, a1)
	v := m.Permit(keyA, a1, nil, 2, testTimeout, t0)
	if want := t0.Add(testTimeout); !v.FirstWaiter || !v.Deadline.Equal(want) {
		t.Fatalf("first waiter: %+v, want a round with deadline %v", v, want)
	}
	if f := m.Expire(keyA, t0.Add(time.Hour), t0.Add(testTimeout)); f != nil {
		t.Errorf("Expire with another round's deadline released %v", f.Released)
	}
	f := m.Expire(keyA, v.Deadline, v.Deadline)
	if f == nil || cmp.Diff(uidList(a1), f.Released) != "" {
		t.Fatalf("Expire of the round: %+v, want a1 released", f)
	}
	if f := m.Expire(keyA, v.Deadline, v.Deadline); f != nil {
		t.Errorf("a second Expire of the same round released %v again", f.Released)
	}
}
