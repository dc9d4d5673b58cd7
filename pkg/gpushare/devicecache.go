package gpushare

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

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
	res       gpu.Resources
}

// deviceCacheFor returns the scheduler's device cache for res, registering its informer handlers
// the first time. The framework starts the informers after the plugins are built and waits for
// their caches to sync before it schedules; PreFilter then waits for the handlers themselves.
func deviceCacheFor(ctx context.Context, h fwk.Handle, res gpu.Resources) (*deviceCache, error) {
	factory := h.SharedInformerFactory()
	if factory == nil {
		return nil, fmt.Errorf("%s needs the scheduler's informer factory", Name)
	}
	return deviceCaches.Get(ctx, deviceCacheKey{informers: factory, res: res}, func() (*deviceCache, error) {
		return newDeviceCache(ctx, h, res)
	})
}

func newDeviceCache(ctx context.Context, h fwk.Handle, res gpu.Resources) (*deviceCache, error) {
	factory := h.SharedInformerFactory()
	logger := klog.LoggerWithName(klog.FromContext(ctx), Name)
	c := &deviceCache{Cache: gpu.NewCache(res)}
	regs, err := c.AddEventHandlers(factory.Core().V1().Pods().Informer(), factory.Core().V1().Nodes().Informer(),
		logger, gpu.Reporter(logger, h.EventRecorder()))
	if err != nil {
		return nil, err
	}
	for _, r := range regs {
		c.handlersSynced = append(c.handlersSynced, r.HasSynced)
	}
	return c, nil
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
