package gang

import (
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	// Wires client-go's feature gates to utilfeature.DefaultFeatureGate, as in kube-scheduler.
	_ "k8s.io/kubernetes/pkg/features"
)

// disableWatchList makes informers list then watch. The generated PodGroup fake cannot stream a
// watch list, and its informers predate client-go's check for clients that cannot, so with the
// feature on they never sync against it. A real kube-apiserver serves either.
func disableWatchList(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(clientfeatures.WatchListClient), false)
}
