package podgroup

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	// Wires client-go's feature gates to utilfeature.DefaultFeatureGate, as in kube-scheduler.
	_ "k8s.io/kubernetes/pkg/features"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"
)

// profile is one scheduler profile's handle on factory, as the framework builds one per profile.
// It turns off watch lists: the generated PodGroup fake cannot stream one, and its informers
// predate client-go's check for clients that cannot, so they would never sync (a real
// kube-apiserver serves either).
func profile(t testing.TB, ctx context.Context, factory informers.SharedInformerFactory) fwk.Handle {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(clientfeatures.WatchListClient), false)
	h, err := frameworkruntime.NewFramework(ctx, nil, nil, frameworkruntime.WithInformerFactory(factory))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The profiles of one scheduler share one Groups and one Order (the one QOSSort reads), built
// with the first profile's client; another scheduler has its own.
func TestForIsOnePerScheduler(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"}}
	factory := informers.NewSharedInformerFactory(kubefake.NewClientset(), 0)
	first, second := profile(t, ctx, factory), profile(t, ctx, factory)

	g1, err := For(ctx, first, pgfake.NewSimpleClientset(pg))
	if err != nil {
		t.Fatal(err)
	}
	g2, err := For(ctx, second, pgfake.NewSimpleClientset())
	if err != nil {
		t.Fatal(err)
	}
	if g1 != g2 {
		t.Error("two profiles of one scheduler got two Groups")
	}
	if _, err := g2.Of(types.NamespacedName{Namespace: "ns", Name: "g"}); err != nil {
		t.Errorf("the PodGroup of the first profile's client is not in the synced informer: %v", err)
	}
	order, err := OrderOf(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if order != g1.Order {
		t.Error("the Order a QueueSort plugin reads is not the one the pod groups write")
	}

	other, err := For(ctx, profile(t, ctx, informers.NewSharedInformerFactory(kubefake.NewClientset(), 0)), pgfake.NewSimpleClientset())
	if err != nil {
		t.Fatal(err)
	}
	if other == g1 || other.Order == g1.Order {
		t.Error("another scheduler shares the first one's pod groups")
	}
}

// Without the PodGroup CRD, For fails at once with a message that names it, instead of waiting
// forever for an informer that cannot sync; nothing is kept, so a later call can succeed.
func TestForWithoutTheCRD(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := pgfake.NewSimpleClientset()
	client.PrependReactor("list", "podgroups", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "scheduling.x-k8s.io", Resource: "podgroups"}, "")
	})
	h := profile(t, ctx, informers.NewSharedInformerFactory(kubefake.NewClientset(), 0))
	_, err := For(ctx, h, client)
	if err == nil || !strings.Contains(err.Error(), "podgroups.scheduling.x-k8s.io") {
		t.Fatalf("For without the CRD: %v, want an error naming podgroups.scheduling.x-k8s.io", err)
	}
	if _, err := For(ctx, h, pgfake.NewSimpleClientset()); err != nil {
		t.Errorf("For after a failed first try: %v", err)
	}
}
