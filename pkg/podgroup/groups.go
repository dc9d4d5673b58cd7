package podgroup

import (
	"context"
	"fmt"
	"sync"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	schedulingv1beta1listers "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions"
	schedinformers "sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions/scheduling/v1alpha1"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/process"
	"github.com/berth-sched/berth/pkg/tombstone"
)

// The scheduler-plugins client has a rate limit of its own, so that PodGroup and ElasticQuota
// status writes never eat into the budget the scheduler's client needs for binding. Gang and
// ElasticQuota each had 10 QPS (burst 20) on a client of their own; they share these.
const clientQPS, clientBurst = 20, 40

// Groups is what one scheduler process reads of pod groups, whatever its number of profiles and
// of plugins that read them (Gang, ElasticQuota): the process's one scheduler-plugins client and
// informer factory, its PodGroup informer, the scheduler's own informer of native PodGroups (with
// GenericWorkload), the group index on the scheduler's pod informer, and the groups' creation
// order that QOSSort sorts by.
type Groups struct {
	// Client is the process's scheduler-plugins client (PodGroups, ElasticQuotas).
	Client versioned.Interface
	// Informers is the process's informer factory for scheduler-plugins' kinds. Start it again
	// after taking a new informer from it; it starts only those not running yet.
	Informers externalversions.SharedInformerFactory
	// PodGroups is the PodGroup informer, synced before For returns.
	PodGroups schedinformers.PodGroupInformer
	// Order is the scheduler's Order, the one OrderOf returns.
	Order *Order
	// Pods is the scheduler's pod informer's indexer, which finds a group's pods (see Pods).
	Pods cache.Indexer

	// lister is PodGroups' lister, taken once: the informer's Lister() locks the factory and
	// builds a lister on every call, which Gang's hot path (PreEnqueue, Permit) would pay for.
	lister schedlisters.PodGroupLister
	// native is the scheduler's informer of native PodGroups and its lister; nil while
	// GenericWorkload is off (NativeEnabled).
	native       cache.SharedIndexInformer
	nativeLister schedulingv1beta1listers.PodGroupLister
	// adapted keeps the Group made of each PodGroup of either API, by UID, for as long as its
	// informer holds the same object (it stores a new one for every new resourceVersion): Of runs
	// on Gang's hot path (PreEnqueue, PreFilter, Permit, Unreserve), where a new Group per call
	// cost allocations (BenchmarkOf). Like the listers' objects, the Groups it hands out are
	// shared and read only.
	adaptedMu sync.RWMutex
	adapted   map[types.UID]adaptedEntry
}

// adaptedEntry is the Group made of source, an informer's PodGroup of either API.
type adaptedEntry struct {
	source any
	group  *Group
}

var groups process.Shared[informers.SharedInformerFactory, *Groups]

// For returns the pod groups of h's scheduler, building them with the first profile's handle and
// client, or, if client is nil, a client of the scheduler's kubeconfig. They live as long as ctx,
// the scheduler's.
func For(ctx context.Context, h fwk.Handle, client versioned.Interface) (*Groups, error) {
	factory := h.SharedInformerFactory()
	if factory == nil {
		return nil, fmt.Errorf("pod groups need the scheduler's informer factory")
	}
	return groups.Get(ctx, factory, func() (*Groups, error) { return build(ctx, h, client) })
}

func build(ctx context.Context, h fwk.Handle, client versioned.Interface) (*Groups, error) {
	if client == nil {
		var err error
		if client, err = clientOf(h); err != nil {
			return nil, err
		}
	}
	// Without the CRD the informer below would never sync and the scheduler would hang at start.
	if _, err := client.SchedulingV1alpha1().PodGroups("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return nil, fmt.Errorf("listing PodGroups (is the CRD podgroups.scheduling.x-k8s.io installed, and may the scheduler list it?): %w", err)
	}
	podInformer := h.SharedInformerFactory().Core().V1().Pods().Informer()
	if err := AddIndex(podInformer); err != nil {
		return nil, err
	}
	order, err := OrderOf(ctx, h)
	if err != nil {
		return nil, err
	}
	g := &Groups{
		Client:    client,
		Informers: externalversions.NewSharedInformerFactory(client, 0),
		Order:     order,
		Pods:      podInformer.GetIndexer(),
		adapted:   map[types.UID]adaptedEntry{},
	}
	g.PodGroups = g.Informers.Scheduling().V1alpha1().PodGroups()
	g.lister = g.PodGroups.Lister()
	if NativeEnabled() {
		// The scheduler's own, which its queue reads: the scheduler starts it and waits for it.
		native := h.SharedInformerFactory().Scheduling().V1beta1().PodGroups()
		g.native, g.nativeLister = native.Informer(), native.Lister()
		if _, err := g.native.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: g.forget}); err != nil {
			return nil, err
		}
	}
	informer := g.PodGroups.Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: g.forget}); err != nil {
		return nil, err
	}
	g.Informers.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return nil, fmt.Errorf("the PodGroup informer did not sync: %w", context.Cause(ctx))
	}
	return g, nil
}

func clientOf(h fwk.Handle) (versioned.Interface, error) {
	if h.KubeConfig() == nil {
		return nil, fmt.Errorf("pod groups need the scheduler's kubeconfig to build a scheduler-plugins client")
	}
	cfg := rest.CopyConfig(h.KubeConfig())
	cfg.QPS, cfg.Burst = clientQPS, clientBurst
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the scheduler-plugins client: %w", err)
	}
	return client, nil
}

// Of returns the group key names, of either API, from the informers' caches, as its adapter
// (FromPlugins, FromNative) makes it.
func (g *Groups) Of(key types.NamespacedName) (*Group, error) {
	name, native := NativeName(key)
	if !native {
		pg, err := g.lister.PodGroups(key.Namespace).Get(key.Name)
		if err != nil {
			return nil, err
		}
		return adapt(g, pg.UID, pg, FromPlugins), nil
	}
	if g.nativeLister == nil {
		return nil, errNoNative
	}
	pg, err := g.nativeLister.PodGroups(key.Namespace).Get(name)
	if err != nil {
		return nil, err
	}
	return adapt(g, pg.UID, pg, FromNative), nil
}

// adapt returns the Group adapter makes of source, making it only if source is not the object it
// was last made of.
func adapt[T any](g *Groups, uid types.UID, source *T, adapter func(*T) *Group) *Group {
	g.adaptedMu.RLock()
	e, ok := g.adapted[uid]
	g.adaptedMu.RUnlock()
	if ok && e.source == any(source) {
		return e.group
	}
	out := adapter(source)
	g.adaptedMu.Lock()
	g.adapted[uid] = adaptedEntry{source: source, group: out}
	g.adaptedMu.Unlock()
	return out
}

// Native returns the native PodGroup of key (NativeKey) as the informer holds it; shared and read
// only.
func (g *Groups) Native(key types.NamespacedName) (*schedulingv1beta1.PodGroup, error) {
	name, native := NativeName(key)
	switch {
	case !native:
		return nil, fmt.Errorf("%s is not the key of a native PodGroup", key)
	case g.nativeLister == nil:
		return nil, errNoNative
	}
	return g.nativeLister.PodGroups(key.Namespace).Get(name)
}

// List returns the groups of both APIs in namespace, from the informers' caches, each as Of
// returns it; shared and read only.
func (g *Groups) List(namespace string) ([]*Group, error) {
	pgs, err := g.lister.PodGroups(namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := make([]*Group, 0, len(pgs))
	for _, pg := range pgs {
		out = append(out, adapt(g, pg.UID, pg, FromPlugins))
	}
	if g.nativeLister == nil {
		return out, nil
	}
	natives, err := g.nativeLister.PodGroups(namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	for _, pg := range natives {
		out = append(out, adapt(g, pg.UID, pg, FromNative))
	}
	return out, nil
}

// forget drops a deleted PodGroup, of either API, from adapted.
func (g *Groups) forget(obj any) {
	var uid types.UID
	switch pg := tombstone.Unwrap(obj).(type) {
	case *v1alpha1.PodGroup:
		uid = pg.UID
	case *schedulingv1beta1.PodGroup:
		uid = pg.UID
	default:
		return
	}
	g.adaptedMu.Lock()
	delete(g.adapted, uid)
	g.adaptedMu.Unlock()
}

// AddEventHandler has h told of the PodGroups of both APIs as they appear, change and go, each as
// a *Group its adapter makes.
func (g *Groups) AddEventHandler(h cache.ResourceEventHandler) error {
	if _, err := g.PodGroups.Informer().AddEventHandler(adapterHandler{to: h}); err != nil {
		return err
	}
	if g.native != nil {
		if _, err := g.native.AddEventHandler(adapterHandler{to: h}); err != nil {
			return err
		}
	}
	return nil
}

// adapterHandler passes a PodGroup informer's events on to a handler of Groups.
type adapterHandler struct{ to cache.ResourceEventHandler }

// groupOf is the Group of an informer's PodGroup of either API.
func groupOf(obj any) (*Group, bool) {
	switch pg := tombstone.Unwrap(obj).(type) {
	case *v1alpha1.PodGroup:
		return FromPlugins(pg), true
	case *schedulingv1beta1.PodGroup:
		return FromNative(pg), true
	}
	return nil, false
}

func (h adapterHandler) OnAdd(obj any, initial bool) {
	if g, ok := groupOf(obj); ok {
		h.to.OnAdd(g, initial)
	}
}

func (h adapterHandler) OnUpdate(oldObj, newObj any) {
	old, ok1 := groupOf(oldObj)
	cur, ok2 := groupOf(newObj)
	if ok1 && ok2 {
		h.to.OnUpdate(old, cur)
	}
}

func (h adapterHandler) OnDelete(obj any) {
	if g, ok := groupOf(obj); ok {
		h.to.OnDelete(g)
	}
}
