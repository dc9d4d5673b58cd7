package elasticquota

import (
	"context"
	"encoding/json"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/quota"
)

// statusWriter copies the ledger's use into each enforced ElasticQuota's status.used, so that
// `kubectl get elasticquota` shows what the scheduler enforces: bound and reserved pods alike,
// no separate controller. It runs on its own clock, off the scheduling path, and only while the
// process leads, so a standby replica writes nothing: from the moment it holds the leader lease
// and its ledger has taken in every pod and ElasticQuota, not from its first scheduling cycle,
// which may be long in coming.
type statusWriter struct {
	client versioned.Interface
	s      *shared
	period time.Duration
}

func newStatusWriter(client versioned.Interface, s *shared, period time.Duration) *statusWriter {
	return &statusWriter{client: client, s: s, period: period}
}

func (w *statusWriter) run(ctx context.Context) {
	if !w.s.leading.Wait(ctx, w.period) {
		return
	}
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if !w.s.synced() {
			return
		}
		for _, u := range w.s.ledger.Quotas() {
			w.write(ctx, u)
		}
	}, w.period)
}

// write patches status.used of the quota u describes when it differs. Only resources the quota
// names are shown, as scheduler-plugins' controller shows them.
func (w *statusWriter) write(ctx context.Context, u quota.Usage) {
	name := u.Spec.Name[len(u.Namespace)+1:]
	eq, err := w.s.quotas.ElasticQuotas(u.Namespace).Get(name)
	if err != nil {
		return
	}
	used := v1.ResourceList{}
	for res := range eq.Spec.Max {
		used[res] = amount.Quantity(res, u.Used[res])
	}
	for res := range eq.Spec.Min {
		used[res] = amount.Quantity(res, u.Used[res])
	}
	if apiequality.Semantic.DeepEqual(used, eq.Status.Used) {
		return
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": eq.UID},
		"status":   map[string]any{"used": used},
	})
	if err != nil {
		return
	}
	_, err = w.client.SchedulingV1alpha1().ElasticQuotas(u.Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		w.s.logger.Error(err, "Writing ElasticQuota status", "elasticQuota", u.Spec.Name)
	}
}
