package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	schedschemev1 "k8s.io/kube-scheduler/config/v1"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// SchemeGroupVersion is kubescheduler.config.k8s.io/v1, the version users write.
var SchemeGroupVersion = schema.GroupVersion{Group: schedconfig.GroupName, Version: "v1"}

var (
	// The builder is kube-scheduler's own, so that its v1 defaulting of a profile finds our
	// <Plugin>Args kinds and fills in defaults for enabled plugins that have no pluginConfig.
	localSchemeBuilder = &schedschemev1.SchemeBuilder
	// AddToScheme registers berth's v1 args types, defaults and conversions.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&GPUShareArgs{},
		&GangArgs{},
		&NodeResourcesAllocatableArgs{},
		&ElasticQuotaArgs{},
	)
	return nil
}

func init() {
	// RegisterConversions registers itself (zz_generated.conversion.go).
	localSchemeBuilder.Register(addKnownTypes, RegisterDefaults)
}
