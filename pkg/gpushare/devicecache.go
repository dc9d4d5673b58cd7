package gpushare

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/process"
)

// syncTimeout bounds how long PreFilter waits for the device cache to take in every existing pod
// and node. The scheduler starts scheduling once its informers have synced, which is a moment
// before this plugin's handlers have processed the initial lists.
const syncTimeout = 30 * time.Second

// deviceCache is a gpu.Cache kept current by the scheduler's pod and node informers.
type deviceCache struct {
	*gpu.Cache
	// mix is the mix of GPU requests among the pods the scheduler has seen, which the Fragmentation
	// strategy and LeastGPUHarm measure fragmentation against: one per process and memory resource,
	// so that every profile learns from every pod. Each pod is observed once, when the pod
	// informer adds it (the initial list included): not on updates, which would count a pod many
	// times, nor in PreFilter, which runs again for every attempt to place a pod. gpu.Mix is safe
	// for concurrent use.
	mix *gpu.Mix
	// supply is the cluster's GPUs by model, which the mix is weighed against (gpu.MixView.WithSupply).
	supply *modelSupply
	res    gpu.ResourceNames
	// handlersSynced report whether each handler has processed its informer's initial list.
	handlersSynced []cache.InformerSynced
	synced         atomic.Bool
}

// The GPUShare plugins of all profiles of a scheduler share one device cache per set of resource
// names, so that devices reserved while scheduling for one profile are not handed out by another.
// A scheduler is told apart by its informer factory.
var deviceCaches = process.Shared[deviceCacheKey, *deviceCache]{Release: (*deviceCache).Close}

type deviceCacheKey struct {
	informers informers.SharedInformerFactory
	res       gpu.ResourceNames
}

// deviceCacheFor returns the scheduler's device cache for res, registering its informer handlers
// the first time. The framework starts the informers after the plugins are built and waits for
// their caches to sync before it schedules; PreFilter then waits for the handlers themselves.
func deviceCacheFor(ctx context.Context, h fwk.Handle, res gpu.ResourceNames) (*deviceCache, error) {
	factory := h.SharedInformerFactory()
	if factory == nil {
		return nil, fmt.Errorf("%s needs the scheduler's informer factory", Name)
	}
	return deviceCaches.Get(ctx, deviceCacheKey{informers: factory, res: res}, func() (*deviceCache, error) {
		return newDeviceCache(ctx, h, res)
	})
}

func newDeviceCache(ctx context.Context, h fwk.Handle, res gpu.ResourceNames) (*deviceCache, error) {
	factory := h.SharedInformerFactory()
	logger := klog.LoggerWithName(klog.FromContext(ctx), Name)
	c := &deviceCache{Cache: gpu.NewCache(res), mix: gpu.NewMix(gpu.DefaultMixLimit, gpu.DefaultMixHalfLife),
		supply: &modelSupply{nodes: map[string]nodeGPUs{}, gpus: map[string]float64{}}, res: res}
	regs, err := c.AddEventHandlers(factory.Core().V1().Pods().Informer(), factory.Core().V1().Nodes().Informer(),
		logger, gpu.Reporter(logger, h.EventRecorder()))
	if err != nil {
		return nil, err
	}
	reg, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*v1.Pod); ok {
				c.observe(pod)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watching pods for the mix of GPU requests: %w", err)
	}
	regs = append(regs, reg)
	reg, err = factory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.supply.set(obj, res.Count) },
		UpdateFunc: func(_, obj any) { c.supply.set(obj, res.Count) },
		DeleteFunc: func(obj any) {
			if name, ok := gpu.DeletedNodeName(logger, obj); ok {
				c.supply.remove(name)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watching nodes for their GPU models: %w", err)
	}
	regs = append(regs, reg)
	for _, r := range regs {
		c.handlersSynced = append(c.handlersSynced, r.HasSynced)
	}
	return c, nil
}

// observe counts pod's demand in the mix. Pods without GPU memory, or with a malformed request,
// are not counted (gpu.Mix.Observe).
func (c *deviceCache) observe(pod *v1.Pod) {
	req, err := gpu.RequestOf(pod, c.res.Memory)
	if err != nil || req.Total == 0 {
		return
	}
	c.mix.Observe(shapeOf(pod, req))
}

// shapeOf is what pod asks of a node: its cpu and memory requests as NodeResourcesFit counts
// them (overhead included, pod-level resources when the feature is on), its GPU request, and the
// GPU models its node selection allows (gpu.ModelsOf).
func shapeOf(pod *v1.Pod, req gpu.Request) gpu.PodShape {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{
		SkipPodLevelResources: !utilfeature.DefaultFeatureGate.Enabled(features.PodLevelResources),
	})
	return gpu.PodShape{MilliCPU: reqs.Cpu().MilliValue(), Memory: reqs.Memory().Value(), GPU: req, GPUModels: gpu.ModelsOf(pod)}
}

// waitForSync returns once every pod and node that existed at start-up is in the cache, so that a
// restarted scheduler never hands out memory that is in use.
func (c *deviceCache) waitForSync(ctx context.Context) error {
	if c.synced.Load() {
		return nil
	}
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, syncTimeout, true, func(context.Context) (bool, error) {
		for _, synced := range c.handlersSynced {
			if !synced() {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("GPU device cache has not taken in the existing pods and nodes: %w", err)
	}
	c.synced.Store(true)
	return nil
}

// modelSupply counts the cluster's GPUs by model (the value of gpu.ModelLabel, "" for nodes
// without it), kept by the node informer so that scoring reads it without a pass over the nodes.
type modelSupply struct {
	mu    sync.Mutex
	nodes map[string]nodeGPUs
	gpus  map[string]float64
}

// nodeGPUs is what one node adds to a modelSupply.
type nodeGPUs struct {
	model string
	count float64
}

// set counts the node's GPUs (its allocatable count resource) under its model, in place of what
// it counted before.
func (s *modelSupply) set(obj any, count v1.ResourceName) {
	node, ok := obj.(*v1.Node)
	if !ok {
		return
	}
	var n nodeGPUs
	if q, ok := node.Status.Allocatable[count]; ok && q.Value() > 0 {
		n = nodeGPUs{model: node.Labels[gpu.ModelLabel], count: float64(q.Value())}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop(node.Name)
	if n.count > 0 {
		s.nodes[node.Name] = n
		s.gpus[n.model] += n.count
	}
}

func (s *modelSupply) remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop(name)
}

func (s *modelSupply) drop(name string) {
	old, ok := s.nodes[name]
	if !ok {
		return
	}
	delete(s.nodes, name)
	if s.gpus[old.model] -= old.count; s.gpus[old.model] <= 0 {
		delete(s.gpus, old.model)
	}
}

// weigh is view weighed against the GPUs counted (gpu.MixView.WithSupply).
func (s *modelSupply) weigh(view gpu.MixView) gpu.MixView {
	if !view.NamesModels() {
		return view
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return view.WithSupply(s.gpus)
}
