package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Open returns the control plane that another process started in workDir, read from the
// kubeconfig Start wrote there. Stop on it stops nothing: the process that started it does.
func Open(workDir string) (*ControlPlane, error) {
	kubeconfig := filepath.Join(workDir, "kubeconfig")
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("opening the control plane in %s: %w", workDir, err)
	}
	cluster, user := cfg.Clusters["berth"], cfg.AuthInfos["berth"]
	if cluster == nil || user == nil {
		return nil, fmt.Errorf("%s was not written by controlplane.Start", kubeconfig)
	}
	return &ControlPlane{
		opts:       Options{Logf: func(string, ...any) {}},
		workDir:    workDir,
		url:        cluster.Server,
		token:      user.Token,
		caData:     cluster.CertificateAuthorityData,
		kubeconfig: kubeconfig,
	}, nil
}

// Snapshot names the objects a control plane holds, by resource, namespace and name, each with
// its resourceVersion.
type Snapshot map[string]string

func snapshotKey(gvr schema.GroupVersionResource, namespace, name string) string {
	return gvr.Group + "/" + gvr.Resource + "/" + namespace + "/" + name
}

// Snapshot lists every object the control plane holds, for Reset to go back to, once
// kube-apiserver has made what it makes for itself after it is ready (the default ServiceCIDR; the
// kubernetes Service's IP address, which it may make twice): two listings a second apart that
// name the same objects, or the last of ten. Reset would delete what a snapshot misses.
func (c *ControlPlane) Snapshot(ctx context.Context) (Snapshot, error) {
	rs, err := c.resources()
	if err != nil {
		return nil, err
	}
	var last Snapshot
	for range 10 {
		objs, err := listAll(ctx, c.quietConfig(), rs)
		if err != nil {
			return nil, err
		}
		s := Snapshot{}
		for _, o := range objs {
			s[o.key()] = o.GetResourceVersion()
		}
		if last != nil && maps.EqualFunc(s, last, func(string, string) bool { return true }) {
			return s, nil
		}
		last = s
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return last, nil
}

// holdsAny tells whether s names an object whose key starts with prefix.
func (s Snapshot) holdsAny(prefix string) bool {
	for k := range s {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// WriteFile keeps s in path, for another process to Reset to.
func (s Snapshot) WriteFile(path string) error {
	data, err := json.Marshal(map[string]string(s))
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// ReadSnapshot reads what Snapshot.WriteFile kept.
func ReadSnapshot(path string) (Snapshot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// resetWait bounds how long Reset waits for what it deleted to be gone.
const resetWait = 30 * time.Second

// Reset deletes every object that keep does not name, so that the control plane holds what it
// held when keep was taken: what one test left is gone before the next one starts. With no
// controller manager, nothing would empty a deleted namespace or act on a finalizer, so Reset
// does both itself: it deletes the objects in a namespace before the namespace, finalizes the
// namespace, and drops every finalizer but a CustomResourceDefinition's (which kube-apiserver
// itself handles, deleting the resource's objects). Pods go without grace: no kubelet would
// confirm them gone. The objects kube-apiserver keeps for itself (its identity lease) stay.
//
// Reset ends when a listing finds nothing but what keep names, and fails with what is left if
// that does not come within resetWait. It returns the objects keep names that are there with
// another resourceVersion, or gone: changed since (Reset does not undo a change).
func (c *ControlPlane) Reset(ctx context.Context, keep Snapshot) (changed []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, resetWait)
	defer cancel()
	cfg := c.quietConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	rs, err := c.resources()
	if err != nil {
		return nil, err
	}
	var (
		left    []object
		lastErr error
	)
	for round := 0; ; round++ {
		objs, err := listAll(ctx, cfg, rs)
		if err == nil {
			left = left[:0]
			seen := map[string]bool{}
			for _, o := range objs {
				rv, kept := keep[o.key()]
				seen[o.key()] = true
				switch {
				case o.apiserverOwn():
				case kept && round == 0 && rv != o.GetResourceVersion():
					changed = append(changed, o.key())
				case kept:
				default:
					left = append(left, o)
				}
			}
			if round == 0 {
				for k := range keep {
					if !seen[k] {
						changed = append(changed, k+" (deleted)")
					}
				}
			}
			if len(left) == 0 {
				sort.Strings(changed)
				return changed, nil
			}
			// An error here may pass (a namespace finalized while another request changed
			// it): the next round lists again and deletes what is still there.
			err = deleteAll(ctx, dyn, client, left, keep)
			// Deleting creates nothing: the next round lists only what had objects left.
			rs = rs[:0]
			for _, o := range left {
				if !slices.Contains(rs, o.resource) {
					rs = append(rs, o.resource)
				}
			}
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			names := make([]string, 0, len(left))
			for _, o := range left {
				names = append(names, o.key())
			}
			return nil, fmt.Errorf("resetting the control plane: %w; still there: %s; the last error: %v",
				ctx.Err(), strings.Join(names, ", "), lastErr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// quietConfig is RESTConfig without the deprecation warnings that listing every resource draws
// (v1 Endpoints), which would fill every test's log.
func (c *ControlPlane) quietConfig() *rest.Config {
	cfg := c.RESTConfig()
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

// resource is a resource that can be listed and deleted.
type resource struct {
	gvr schema.GroupVersionResource
	// collection: it can be deleted a namespace at a time.
	collection bool
}

// resources are all the control plane serves that can be listed and deleted.
func (c *ControlPlane) resources() ([]resource, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(c.quietConfig())
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var rs []resource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
				continue
			}
			rs = append(rs, resource{gvr: gv.WithResource(r.Name), collection: slices.Contains(r.Verbs, "deletecollection")})
		}
	}
	return rs, nil
}

// object is a listed object and the resource it was listed as.
type object struct {
	*unstructured.Unstructured
	resource
}

func (o object) key() string { return snapshotKey(o.gvr, o.GetNamespace(), o.GetName()) }

// apiserverOwn tells the objects kube-apiserver makes for itself after it is ready, makes again
// if they go, and changes all the time: its identity lease, renewed every 10 s.
func (o object) apiserverOwn() bool {
	_, ok := o.GetLabels()["apiserver.kubernetes.io/identity"]
	return ok
}

// listAll lists every object of rs, eight lists at a time.
func listAll(ctx context.Context, cfg *rest.Config, rs []resource) ([]object, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var (
		mu    sync.Mutex
		objs  []object
		errs  []error
		wg    sync.WaitGroup
		slots = make(chan struct{}, 8)
	)
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			l, err := dyn.Resource(r.gvr).List(ctx, metav1.ListOptions{})
			mu.Lock()
			defer mu.Unlock()
			if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				return // a resource gone since discovery: a CustomResourceDefinition deleted
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("listing %s: %w", r.gvr, err))
				return
			}
			for i := range l.Items {
				objs = append(objs, object{Unstructured: &l.Items[i], resource: r})
			}
		}()
	}
	wg.Wait()
	return objs, errors.Join(errs...)
}

// deleteAll deletes objs: a namespace's objects first, then the namespace. Where keep holds
// nothing of a resource in a namespace (a test's own namespace, or nodes), one request deletes
// them all: a test may leave thousands of pods.
func deleteAll(ctx context.Context, dyn dynamic.Interface, client kubernetes.Interface, objs []object, keep Snapshot) error {
	var (
		errs       []error
		namespaces []string
		collected  = map[string]bool{}
		noGrace    = metav1.DeleteOptions{GracePeriodSeconds: new(int64)}
	)
	for _, o := range objs {
		if o.gvr.Group == "" && o.gvr.Resource == "namespaces" {
			namespaces = append(namespaces, o.GetName())
			continue
		}
		res := dyn.Resource(o.gvr).Namespace(o.GetNamespace())
		if len(o.GetFinalizers()) > 0 && o.gvr.GroupResource() != crdGR {
			_, err := res.Patch(ctx, o.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("dropping the finalizers of %s %s/%s: %w", o.gvr.Resource, o.GetNamespace(), o.GetName(), err))
			}
		}
		prefix := snapshotKey(o.gvr, o.GetNamespace(), "")
		if o.collection && !keep.holdsAny(prefix) {
			if !collected[prefix] {
				collected[prefix] = true
				if err := res.DeleteCollection(ctx, noGrace, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("deleting %s in %q: %w", o.gvr.Resource, o.GetNamespace(), err))
				}
			}
			continue
		}
		if err := res.Delete(ctx, o.GetName(), noGrace); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s %s/%s: %w", o.gvr.Resource, o.GetNamespace(), o.GetName(), err))
		}
	}
	for _, name := range namespaces {
		err := client.CoreV1().Namespaces().Delete(ctx, name, noGrace)
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", name, err))
			continue
		}
		ns, err := client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ns.Spec.Finalizers = nil
		if _, err := client.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("finalizing namespace %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

var crdGR = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
