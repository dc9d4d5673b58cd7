package leader

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	// Installs the provider that keeps leader_election_master_status, as kube-scheduler does.
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"
)

// TestLeads: no leader election, then a real leader elector over a Lease: Leads reads the gauge
// client-go's elector keeps, and keeps "leading" once it was seen.
func TestLeads(t *testing.T) {
	if leads, known := read(); leads || known {
		t.Fatalf("before any leader election: leads %v, known %v; want neither", leads, known)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: "kube-system", Name: "berth-test"},
		Client:     fake.NewClientset().CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: "me"},
	}
	started := make(chan struct{})
	go leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, Name: "berth-test",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { close(started) },
			OnStoppedLeading: func() {},
		},
	})
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the elector did not take the lease")
	}
	if leads, known := read(); !leads || !known {
		t.Errorf("holding the lease: leads %v, known %v; want both", leads, known)
	}
	if !NewGate(Leads).Wait(ctx, 10*time.Millisecond) {
		t.Error("Wait returned without the lease")
	}
}

// TestWaitStopsOnceScheduling: a process that started scheduling first is the leader already;
// Wait returns without the lease.
func TestWaitStopsOnceScheduling(t *testing.T) {
	var asked atomic.Int32
	g := NewGate(func() (bool, bool) { asked.Add(1); return false, false })
	go func() {
		time.Sleep(50 * time.Millisecond)
		g.Lead()
	}()
	if !g.Wait(context.Background(), 10*time.Millisecond) {
		t.Error("Wait gave up")
	}
	if asked.Load() == 0 {
		t.Error("the lease was never asked about")
	}
}

// TestGate: the gate opens from the moment the leader lease is the process's, without waiting for
// a scheduling cycle; a standby's stays shut; without leader election the first scheduling cycle
// is the sign.
func TestGate(t *testing.T) {
	for _, tc := range []struct {
		name          string
		leads, known  bool
		scheduled     bool
		want, latched bool
	}{
		{name: "leader, no cycle yet", leads: true, known: true, want: true, latched: true},
		{name: "standby", leads: false, known: true, want: false},
		{name: "no leader election, no cycle yet", want: false},
		{name: "no leader election, scheduling", scheduled: true, want: true, latched: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leads, known := tc.leads, tc.known
			g := NewGate(func() (bool, bool) { return leads, known })
			if tc.scheduled {
				g.Lead()
			}
			if got := g.Open(); got != tc.want {
				t.Errorf("Open() = %v, want %v", got, tc.want)
			}
			leads, known = false, true
			if got := g.Open(); got != tc.latched {
				t.Errorf("after the gauge reads 0: Open() = %v, want %v (a scheduler that loses its lease exits)", got, tc.latched)
			}
		})
	}
}
