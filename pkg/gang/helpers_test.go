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
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	// Wires client-go's feature gates to utilfeature.DefaultFeatureGate, as in kube-scheduler.
	_ "k8s.io/kubernetes/pkg/features"

	"github.com/berth-sched/berth/internal/fakeclock"
	"github.com/berth-sched/berth/pkg/gangcore"
)

// disableWatchList makes informers list then watch. The generated PodGroup fake cannot stream a
// watch list, and its informers predate client-go's check for clients that cannot, so with the
// feature on they never sync against it. A real kube-apiserver serves either.
func disableWatchList(t testing.TB) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(clientfeatures.WatchListClient), false)
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// member returns a pod of group pg in namespace ns.
func member(pg, name, uid string) *v1.Pod {
	return st.MakePod().Namespace("ns").Name(name).UID(uid).Label(v1alpha1.PodGroupLabel, pg).Obj()
}

var (
	a1   = member("a", "a1", "uid-a1")
	a2   = member("a", "a2", "uid-a2")
	a3   = member("a", "a3", "uid-a3")
	b1   = member("b", "b1", "uid-b1")
	b2   = member("b", "b2", "uid-b2")
	keyA = types.NamespacedName{Namespace: "ns", Name: "a"}
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
			Gone:     func(types.NamespacedName) {},
		},
	})
}
