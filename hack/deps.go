//go:build tools

package hack

// Temporary: libraries berth's packages are being written against, vendored ahead of the code that imports them.
import (
	_ "github.com/google/go-cmp/cmp"
	_ "k8s.io/client-go/dynamic"
	_ "k8s.io/client-go/restmapper"
	_ "k8s.io/component-base/metrics/testutil"
	_ "k8s.io/component-helpers/resource"
	_ "k8s.io/klog/v2/ktesting"
	_ "k8s.io/kube-scheduler/extender/v1"
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	_ "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	_ "k8s.io/kubernetes/pkg/scheduler/metrics"
	_ "k8s.io/kubernetes/pkg/scheduler/testing"
	_ "k8s.io/kubernetes/pkg/scheduler/testing/framework"
	_ "k8s.io/kubernetes/test/integration/framework"
	_ "k8s.io/kubernetes/test/integration/scheduler_perf"
	_ "k8s.io/kubernetes/test/utils/ktesting"
	_ "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	_ "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"
	_ "sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions"
	_ "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"
	_ "sigs.k8s.io/yaml"
)
