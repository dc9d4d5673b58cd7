package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// elect campaigns for the Lease in the background and activates this replica while it leads.
// Losing the lease is sent on lost; ending ctx releases the lease and sends nil.
func elect(ctx context.Context, o *Options, restConfig *rest.Config, recorder events.EventRecorder, f *front,
	activate func(context.Context) error, lost chan<- error) error {
	logger := klog.FromContext(ctx)
	hostname, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("getting the hostname for the leader-election identity: %w", err)
	}
	// Unique even for two replicas on one host, as kube-scheduler's identity is.
	id := hostname + "_" + string(uuid.NewUUID())
	// Its own client, as kube-scheduler's: a burst of binds must not starve the lease renewals.
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(rest.CopyConfig(restConfig), "leader-election"))
	if err != nil {
		return err
	}
	le := o.LeaderElection
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: le.ResourceNamespace, Name: le.ResourceName},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: id, EventRecorder: leaseEvents{recorder}},
		},
		LeaseDuration:   le.LeaseDuration.Duration,
		RenewDeadline:   le.RenewDeadline.Duration,
		RetryPeriod:     le.RetryPeriod.Duration,
		ReleaseOnCancel: true,
		Name:            component,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				logger.Info("Leading: building the GPU cache", "lease", klog.KRef(le.ResourceNamespace, le.ResourceName), "identity", id)
				if err := activate(ctx); err != nil {
					report(lost, err)
				}
			},
			OnStoppedLeading: func() {
				f.deactivate()
				if ctx.Err() != nil {
					report(lost, nil)
					return
				}
				report(lost, errors.New("lost the leader-election lease"))
			},
			OnNewLeader: func(identity string) {
				if identity != id {
					logger.Info("Standing by", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	go elector.Run(ctx)
	return nil
}

// report sends the first outcome of the election; run reads only one.
func report(lost chan<- error, err error) {
	select {
	case lost <- err:
	default:
	}
}

// leaseEvents adapts the events recorder to the older interface the lock reports with.
type leaseEvents struct{ recorder events.EventRecorder }

func (l leaseEvents) Eventf(obj runtime.Object, eventType, reason, message string, args ...interface{}) {
	l.recorder.Eventf(obj, nil, eventType, reason, "LeaderElection", message, args...)
}
