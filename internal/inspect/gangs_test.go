package inspect

import (
	"context"
	"errors"
	"strings"
	"testing"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	groupsfake "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned/fake"
)

// A user allowed scheduler-plugins' groups but not the native ones gets the groups they may read
// and a warning that names what was left out; any other failure to list native groups is an error.
func TestListGangsWithoutNativeGroups(t *testing.T) {
	groups := groupsfake.NewSimpleClientset(&v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train"},
		Spec:       v1alpha1.PodGroupSpec{MinMember: 2},
	})
	refuse := func(err error) *fake.Clientset {
		client := fake.NewClientset(&schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "native"}})
		client.PrependReactor("list", "podgroups", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, err
		})
		return client
	}
	forbidden := apierrors.NewForbidden(schedulingv1beta1.Resource("podgroups"), "", errors.New(`User "alice" cannot list resource "podgroups"`))
	r, err := ListGangs(context.Background(), refuse(forbidden), groups, "ml")
	if err != nil {
		t.Fatalf("forbidden native groups failed the report: %v", err)
	}
	if len(r.Groups) != 1 || r.Groups[0].Name != "train" {
		t.Errorf("groups %+v, want the scheduler-plugins group train alone", r.Groups)
	}
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "native PodGroups (scheduling.k8s.io/v1beta1) not shown") || !strings.Contains(w[0], `User "alice" cannot list`) {
		t.Errorf("warnings %q, want one naming the native groups and the apiserver's reason", w)
	}

	if _, err := ListGangs(context.Background(), refuse(apierrors.NewInternalError(errors.New("etcd is away"))), groups, "ml"); err == nil || !strings.Contains(err.Error(), "etcd is away") {
		t.Errorf("an apiserver failure gave %v, want it as the error", err)
	}

	r, err = ListGangs(context.Background(), fake.NewClientset(&schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "native"}}), groups, "ml")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 2 || len(r.Warnings()) != 0 {
		t.Errorf("allowed to list both: groups %+v, warnings %q; want both groups and no warning", r.Groups, r.Warnings())
	}
}
