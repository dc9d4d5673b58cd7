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
	var led atomic.Bool
	WhenLeading(ctx, 10*time.Millisecond, Leads, func() bool { return false }, func() { led.Store(true) })
	if !led.Load() {
		t.Error("WhenLeading returned without calling lead")
	}
}

// TestWhenLeadingStopsOnceScheduling: a process that started scheduling first is the leader
// already; WhenLeading stops asking and does not call lead.
func TestWhenLeadingStopsOnceScheduling(t *testing.T) {
	var asked, led atomic.Int32
	var scheduling atomic.Bool
	go func() {
		time.Sleep(50 * time.Millisecond)
		scheduling.Store(true)
	}()
	WhenLeading(context.Background(), 10*time.Millisecond,
		func() (bool, bool) { asked.Add(1); return false, false },
		scheduling.Load, func() { led.Add(1) })
	if led.Load() != 0 {
		t.Errorf("lead called %d times without a lease", led.Load())
	}
	if asked.Load() == 0 {
		t.Error("the lease was never asked about")
	}
}
