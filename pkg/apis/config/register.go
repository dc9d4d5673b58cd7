package config

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// SchemeGroupVersion is the internal version of kube-scheduler's config group, which berth's
// args join.
var SchemeGroupVersion = schema.GroupVersion{Group: schedconfig.GroupName, Version: runtime.APIVersionInternal}

// init registers berth's internal args types into kube-scheduler's own builder, so that its
// AddToScheme adds them with its own.
func init() {
	schedconfig.SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(SchemeGroupVersion, &GPUShareArgs{}, &GangArgs{}, &NodeResourcesAllocatableArgs{}, &ElasticQuotaArgs{})
		return nil
	})
}
