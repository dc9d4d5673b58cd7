package registry

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"
	schedulerconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
)

func decodeProfiles(t *testing.T, profiles string) []schedulerconfig.KubeSchedulerProfile {
	t.Helper()
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"+profiles), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*schedulerconfig.KubeSchedulerConfiguration).Profiles
}

// TestCheckProfiles: berth's own profile passes; a profile in which another binder would bind GPU
// pods first is refused with a message that says how to fix it. bindOrder, which the check rests
// on, must agree with the order in which the framework itself runs the bind plugins.
func TestCheckProfiles(t *testing.T) {
	tests := []struct {
		name    string
		profile string
		want    []string
		wantErr bool
		// realAPI is set for profiles whose plugins need a real API server to be built (the
		// integration tests run those), so the framework is not built here.
		realAPI bool
	}{
		{name: "berth's profile", profile: Profile("berth"), want: []string{"GPUShare", "DefaultBinder"}, realAPI: true},
		{name: "no GPUShare", profile: "- schedulerName: plain\n", want: []string{"DefaultBinder"}},
		{name: "GPUShare under multiPoint only", wantErr: true, want: []string{"DefaultBinder", "GPUShare"},
			profile: "- schedulerName: mp\n  plugins:\n    multiPoint:\n      enabled: [{name: GPUShare}]\n"},
		{name: "GPUShare at bind only", wantErr: true, want: []string{"DefaultBinder", "GPUShare"},
			profile: "- schedulerName: bind\n  plugins:\n    filter:\n      enabled: [{name: GPUShare}]\n    bind:\n      enabled: [{name: GPUShare}]\n"},
		{name: "the default binder turned off", want: []string{"GPUShare"},
			profile: "- schedulerName: only\n  plugins:\n    multiPoint:\n      enabled: [{name: GPUShare}]\n    bind:\n      disabled: [{name: DefaultBinder}]\n"},
		{name: "every multiPoint binder turned off at bind, GPUShare named there", want: []string{"GPUShare"},
			profile: "- schedulerName: star\n  plugins:\n    multiPoint:\n      enabled: [{name: GPUShare}]\n    bind:\n      enabled: [{name: GPUShare}]\n      disabled: [{name: \"*\"}]\n"},
		{name: "GPUShare's binding turned off", wantErr: true, want: []string{"DefaultBinder"},
			profile: "- schedulerName: unbound\n  plugins:\n    multiPoint:\n      enabled: [{name: GPUShare}]\n    bind:\n      disabled: [{name: GPUShare}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profiles := decodeProfiles(t, tt.profile)
			if diff := cmp.Diff(tt.want, bindOrder(profiles[0].Plugins)); diff != "" {
				t.Errorf("bindOrder (-want +got):\n%s", diff)
			}
			if !tt.realAPI {
				if diff := cmp.Diff(tt.want, frameworkBindOrder(t, profiles[0])); diff != "" {
					t.Errorf("the framework's bind plugins (-want +got):\n%s", diff)
				}
			}
			err := CheckProfiles(profiles)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CheckProfiles: %v, want an error: %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "bind: {enabled: [{name: GPUShare}]}") {
				t.Errorf("the error does not say how to fix it: %v", err)
			}
		})
	}
}

// frameworkBindOrder builds the profile's framework, as the scheduler does, and lists its bind
// plugins in the order it runs them.
func frameworkBindOrder(t *testing.T, profile schedulerconfig.KubeSchedulerProfile) []string {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	schedmetrics.Register()
	registry := plugins.NewInTreeRegistry()
	if err := registry.Merge(Registry()); err != nil {
		t.Fatal(err)
	}
	cs := fake.NewClientset()
	fw, err := frameworkruntime.NewFramework(ctx, registry, &profile,
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(informers.NewSharedInformerFactory(cs, 0)),
		frameworkruntime.WithSnapshotSharedLister(internalcache.NewEmptySnapshot()))
	if err != nil {
		t.Fatalf("building the framework: %v", err)
	}
	var names []string
	for _, p := range fw.ListPlugins().Bind.Enabled {
		names = append(names, p.Name)
	}
	return names
}
