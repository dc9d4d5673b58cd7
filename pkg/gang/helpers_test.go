package gang

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	// Wires client-go's feature gates to utilfeature.DefaultFeatureGate, as in kube-scheduler.
	_ "k8s.io/kubernetes/pkg/features"

	"github.com/berth-sched/berth/internal/fakeclock"
	"github.com/berth-sched/berth/internal/gangtest"
	"github.com/berth-sched/berth/pkg/gangcore"
)

// disableWatchList makes informers list then watch. The generated PodGroup fake cannot stream a
// watch list, and its informers predate client-go's check for clients that cannot, so with the
// feature on they never sync against it. A real kube-apiserver serves either.
func disableWatchList(t testing.TB) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(clientfeatures.WatchListClient), false)
}

// The fixtures pkg/gangcore's tests share (internal/gangtest).
var (
	t0                       = gangtest.T0
	member                   = gangtest.Member
	told                     = gangtest.Told
	a1, a2, a3, b1, b2, keyA = gangtest.A1, gangtest.A2, gangtest.A3, gangtest.B1, gangtest.B2, gangtest.KeyA
)

// testManager returns a group state on a fake clock at t0 whose timers act on nothing.
func testManager() *gangcore.Manager {
	return gangcore.NewManager(gangcore.Config{
		BackoffBase: 2 * time.Second,
		BackoffMax:  8 * time.Second,
		TurnMax:     2 * time.Second,
		Clock:       fakeclock.New(t0),
		Hooks: gangcore.Hooks{
			Activate: func([]*v1.Pod) {},
			Expired:  func(types.NamespacedName, gangcore.RoundFailure) {},
			Queued:   func(types.NamespacedName, time.Time) {},
			Gone:     func(types.NamespacedName) {},
		},
	})
}
