package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FieldManager owns the fields that Apply sets.
const FieldManager = "berth"

const (
	// establishWait bounds how long Apply waits for a CRD to be established.
	establishWait = 30 * time.Second
	// discoveryWait bounds how long Apply waits for a kind to show up in
	// discovery: a CRD's kind can lag a little behind its Established
	// condition, and a misspelt kind should not hang Apply for long.
	discoveryWait = 10 * time.Second
)

var crdGK = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// Apply server-side applies every object of a multi-document YAML (or JSON)
// stream, in order, forcing conflicts so that re-applying a file always
// converges. A namespaced object without a namespace goes to "default".
// After a CRD, Apply waits until it is established, so later documents may
// be of the kind it defines.
//
// Status is kept only where the API keeps it: a Node created with a status
// keeps it, but re-applying one does not change it (use the status
// subresource for that).
func Apply(ctx context.Context, cfg *rest.Config, yamlDocs []byte) error {
	a, err := newApplier(cfg)
	if err != nil {
		return err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(yamlDocs)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading document %d: %w", i, err)
		}
		data, err := utilyaml.ToJSON(doc)
		if err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
			continue // only comments, or "---" twice
		}
		// The unstructured decoder keeps integers as int64, where a plain
		// JSON decode would turn them into float64.
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(data); err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if err := a.apply(ctx, obj); err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
	}
}

// ApplyFiles applies each file in turn, as Apply does.
func ApplyFiles(ctx context.Context, cfg *rest.Config, paths ...string) error {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := Apply(ctx, cfg, data); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

type applier struct {
	client dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newApplier(cfg *rest.Config) (*applier, error) {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cached := memory.NewMemCacheClientWithContext(discovery.ToDiscoveryInterfaceWithContext(dc))
	return &applier{client: client, mapper: restmapper.NewDeferredDiscoveryRESTMapperWithContext(cached)}, nil
}

func (a *applier) apply(ctx context.Context, obj *unstructured.Unstructured) error {
	if obj.IsList() {
		return obj.EachListItem(func(item runtime.Object) error {
			return a.apply(ctx, item.(*unstructured.Unstructured))
		})
	}
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || obj.GetName() == "" {
		return fmt.Errorf("object needs apiVersion, kind and metadata.name")
	}
	mapping, err := a.mapping(ctx, gvk)
	if err != nil {
		return err
	}
	var res dynamic.ResourceInterface = a.client.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if obj.GetNamespace() == "" {
			obj.SetNamespace(metav1.NamespaceDefault)
		}
		res = a.client.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	}
	if _, err := res.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
		return fmt.Errorf("applying %s %s: %w", gvk.Kind, describe(obj), err)
	}
	if gvk.GroupKind() == crdGK {
		return a.waitEstablished(ctx, res, obj.GetName())
	}
	return nil
}

// mapping resolves a kind to its resource. A kind that is missing may be one
// whose CRD was just established but is not yet in discovery, so the
// discovery cache is dropped and asked again for a while.
func (a *applier) mapping(ctx context.Context, gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	var mapping *meta.RESTMapping
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, discoveryWait, true, func(ctx context.Context) (bool, error) {
		mapping, lastErr = a.mapper.RESTMappingWithContext(ctx, gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(lastErr) {
			a.mapper.ResetWithContext(ctx)
			return false, nil
		}
		return lastErr == nil, lastErr
	})
	if err != nil && lastErr != nil {
		return nil, lastErr
	}
	return mapping, err
}

// waitEstablished waits until the apiserver serves the CRD's kind, then drops
// the discovery cache so that the kind can be mapped.
func (a *applier) waitEstablished(ctx context.Context, crds dynamic.ResourceInterface, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, establishWait, true, func(ctx context.Context) (bool, error) {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, c := range conditions {
			c, _ := c.(map[string]any)
			if c["type"] == "Established" && c["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CustomResourceDefinition %s to be established: %w", name, err)
	}
	a.mapper.ResetWithContext(ctx)
	return nil
}

func describe(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
