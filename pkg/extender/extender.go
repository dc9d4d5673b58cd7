// Package extender serves berth's GPU memory accounting (package gpu) to a stock kube-scheduler
// through the scheduler extender protocol (k8s.io/kube-scheduler/extender/v1): filter,
// prioritize, preempt and bind. It holds protocol and wiring only; every decision about GPU
// memory is the core's, the same the GPUShare plugin makes.
//
// The verbs are read here in the order the scheduler calls them. Filter and prioritize only read
// the cache, because the scheduler may still pick another node or another extender may reject
// it; bind picks the devices and commits them in one step under the cache's lock (the check the
// plugin makes in Reserve), then binds the pod with them in one request.
package extender

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/berth-sched/berth/pkg/gpu"
)

// Config is how the extender accounts GPUs; the defaults match the GPUShare plugin's args.
type Config struct {
	Resources gpu.ResourceNames
	Strategy  *gpu.Strategy
}

// Extender answers the scheduler from a gpu.Cache that pod and node informers keep, and binds
// pods with the devices it picks for them.
type Extender struct {
	cfg    Config
	client kubernetes.Interface
	cache  *gpu.Cache
	pods   corelisters.PodLister
	nodes  corelisters.NodeLister
	synced []toolscache.InformerSynced
	now    func() time.Time
	// trailing is when filter first told the scheduler to retry each pod because the cache trailed it.
	trailing trailingPods
}

// New builds an extender on the pod and node informers of factory; start the factory afterwards.
// onError receives what the cache finds wrong with a pod or node (nil: log it).
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, cfg Config, logger klog.Logger,
	onError func(obj runtime.Object, err error)) (*Extender, error) {
	if cfg.Resources.Memory == "" || cfg.Resources.Count == "" || cfg.Strategy == nil {
		return nil, fmt.Errorf("extender config needs both resource names and a strategy: %+v", cfg)
	}
	registerMetrics()
	pods, nodes := factory.Core().V1().Pods(), factory.Core().V1().Nodes()
	e := &Extender{
		cfg:      cfg,
		client:   client,
		cache:    gpu.NewCache(cfg.Resources),
		pods:     pods.Lister(),
		nodes:    nodes.Lister(),
		now:      time.Now,
		trailing: trailingPods{since: map[types.UID]time.Time{}},
	}
	regs, err := e.cache.AddEventHandlers(pods.Informer(), nodes.Informer(), logger, onError)
	if err != nil {
		return nil, err
	}
	for _, reg := range regs {
		e.synced = append(e.synced, reg.HasSynced)
	}
	return e, nil
}

// HasSynced reports whether the cache holds every pod and node of the initial lists: before that
// the extender answers nothing, as it could over-commit devices it has not seen yet.
func (e *Extender) HasSynced() bool {
	for _, synced := range e.synced {
		if !synced() {
			return false
		}
	}
	return true
}

// filter keeps the nodes whose GPUs have room for the pod now. Nodes that could not hold it even
// with every GPU empty are unresolvable, so that the scheduler does not try preemption there.
//
// A GPU pod that fits on none of the candidates may only seem not to fit: the scheduler calls
// filter as soon as its own informer shows the event that made room (a pod gone, a node or its
// GPUs added), and the extender's informer may not have delivered that event yet. The scheduler
// retries a pod the extender turned down only on a later cluster event, so such an answer could
// leave the pod pending until the scheduler's periodic flush, minutes later. The scheduler counts
// a node's GPU memory in total (managedResources with ignoredByScheduler: false, as shipped)
// before it asks the extender, so a candidate on which the cache shows less memory free in total
// than the pod asks for is one the two views disagree on. Then filter answers with an error,
// which the scheduler retries after a backoff of a second or so, by which time the cache has
// caught up; for at most trailingGrace per pod, after which the answer is the final one.
func (e *Extender) filter(ctx context.Context, args *extenderv1.ExtenderArgs) (*extenderv1.ExtenderFilterResult, error) {
	pod, nodes, err := candidateNodes(args)
	if err != nil {
		return nil, err
	}
	req, reqErr := gpu.RequestOf(pod, e.cfg.Resources.Memory)
	var capErr error
	var views [][]gpu.Device
	if reqErr == nil && req.Total > 0 {
		capErr = e.cache.CheckCapacity(req)
		views = e.cache.NodeViews(nodes)
	}
	failed, unresolvable := extenderv1.FailedNodesMap{}, extenderv1.FailedNodesMap{}
	trailing := ""
	fits := func(i int, name string) bool {
		switch {
		case reqErr != nil:
			// The pod itself is at fault.
			unresolvable[name] = reqErr.Error()
			return false
		case req.Total == 0:
			return true
		}
		if trailing == "" && freeMemory(views[i]) < req.Total {
			trailing = name
		}
		if capErr != nil {
			// No GPU anywhere is large enough.
			unresolvable[name] = capErr.Error()
			return false
		}
		reason, resolvable := e.noFit(name, views[i], req)
		switch {
		case reason == "":
			return true
		case resolvable:
			failed[name] = reason
		default:
			unresolvable[name] = reason
		}
		return false
	}
	result := &extenderv1.ExtenderFilterResult{FailedNodes: failed, FailedAndUnresolvableNodes: unresolvable}
	kept := 0
	if args.NodeNames != nil {
		names := make([]string, 0, len(nodes))
		for i, name := range nodes {
			if fits(i, name) {
				names = append(names, name)
			}
		}
		result.NodeNames, kept = &names, len(names)
	} else {
		list := &v1.NodeList{Items: make([]v1.Node, 0, len(args.Nodes.Items))}
		for i := range args.Nodes.Items {
			if fits(i, args.Nodes.Items[i].Name) {
				list.Items = append(list.Items, args.Nodes.Items[i])
			}
		}
		result.Nodes, kept = list, len(list.Items)
	}
	logger := klog.FromContext(ctx)
	if kept == 0 && trailing != "" {
		if e.trailing.retry(pod.UID, e.now()) {
			trailingRetries.Inc()
			logger.V(2).Info("Pod fits on no candidate, but the cache shows less GPU memory free than the scheduler does; asking the scheduler to retry",
				"pod", klog.KObj(pod), "request", req, "node", trailing)
			return &extenderv1.ExtenderFilterResult{Error: fmt.Sprintf(
				"berth-extender: the pod asks for %d %s and node %s, which the scheduler passed, has less free in the extender's cache: "+
					"the extender has not seen the change the scheduler acts on yet; retry", req.Total, e.cfg.Resources.Memory, trailing)}, nil
		}
	} else {
		e.trailing.forget(pod.UID)
	}
	logger.V(4).Info("Filtered nodes", "pod", klog.KObj(pod), "request", req,
		"nodes", len(nodes), "failed", len(failed), "unresolvable", len(unresolvable))
	return result, nil
}

func freeMemory(devs []gpu.Device) int64 {
	var free int64
	for _, d := range devs {
		free += d.Free()
	}
	return free
}

// trailingGrace is how long filter keeps asking the scheduler to retry a pod whose candidates
// the cache shows with less GPU memory than the scheduler does. A watch event reaches the
// extender milliseconds after the scheduler; a disagreement that lasts longer is not lag (the
// scheduler is configured not to count GPU memory, or counts pods the extender does not), and the
// pod then waits for cluster events like any other the extender turned down.
const trailingGrace = 5 * time.Second

// trailingPods remembers, per pod, when filter first asked the scheduler to retry it.
type trailingPods struct {
	mu    sync.Mutex
	since map[types.UID]time.Time
}

// retry reports whether the pod is still within its grace, starting the grace at its first call.
func (t *trailingPods) retry(uid types.UID, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	first, ok := t.since[uid]
	if !ok {
		if len(t.since) >= maxTrailingPods {
			// Pods past their grace, most of them deleted or placed since: forgetting one only
			// gives it another grace.
			for uid, at := range t.since {
				if now.Sub(at) >= trailingGrace {
					delete(t.since, uid)
				}
			}
		}
		t.since[uid] = now
		return true
	}
	return now.Sub(first) < trailingGrace
}

// forget ends the pod's grace: the cache agrees with the scheduler on its candidates again.
func (t *trailingPods) forget(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.since, uid)
}

// maxTrailingPods bounds the memory of trailingPods between prunings.
const maxTrailingPods = 1024

// noFit says why the request does not fit on the node's GPUs now (devs, the cache's view of
// them), "" if it does, and whether evicting pods could change that.
func (e *Extender) noFit(node string, devs []gpu.Device, req gpu.Request) (reason string, resolvable bool) {
	nf := gpu.Fits(devs, req)
	switch {
	case nf == nil:
		return "", false
	case nf.Devices == 0:
		if _, err := e.nodes.Get(node); err != nil {
			// The scheduler's informer saw the node before this one did.
			return fmt.Sprintf("node %q is not in the GPU extender's cache yet", node), false
		}
	}
	return nf.Error(), nf.Resolvable
}

// prioritize scores each node from 0 to MaxExtenderPriority by the core's Score with the
// configured strategy. Pods without GPU memory, and nodes where the pod does not fit, score 0:
// the scheduler's own plugins rank those. The Fragmentation strategy rates placements here as
// Binpack (its devices are Binpack's too): the fragmentation cost needs the mix of requests and
// each node's free cpu and memory, which GPUShare has from the scheduler and the extender does
// not keep; see docs/extender.md.
func (e *Extender) prioritize(ctx context.Context, args *extenderv1.ExtenderArgs) (*extenderv1.HostPriorityList, error) {
	pod, nodes, err := candidateNodes(args)
	if err != nil {
		return nil, err
	}
	req, reqErr := gpu.RequestOf(pod, e.cfg.Resources.Memory)
	var views [][]gpu.Device
	if reqErr == nil && req.Total > 0 {
		views = e.cache.NodeViews(nodes)
	}
	scores := make(extenderv1.HostPriorityList, len(nodes))
	for i, name := range nodes {
		scores[i].Host = name
		if views == nil {
			continue
		}
		if s, nf := gpu.Score(views[i], req, e.cfg.Strategy); nf == nil {
			scores[i].Score = int64(math.Round(s * float64(extenderv1.MaxExtenderPriority)))
		}
	}
	klog.FromContext(ctx).V(4).Info("Scored nodes", "pod", klog.KObj(pod), "request", req, "scores", scores)
	return &scores, nil
}

// candidateNodes checks the arguments of filter and prioritize and returns the candidate nodes' names.
// NodeNames comes from a scheduler configured with nodeCacheCapable: true, Nodes from one with
// false; the answer takes the same form.
func candidateNodes(args *extenderv1.ExtenderArgs) (*v1.Pod, []string, error) {
	if args.Pod == nil {
		return nil, nil, badRequest("the request has no Pod")
	}
	switch {
	case args.NodeNames != nil && args.Nodes != nil:
		return nil, nil, badRequest("the request has both NodeNames and Nodes; a scheduler sends one of them")
	case args.NodeNames != nil:
		return args.Pod, *args.NodeNames, nil
	case args.Nodes != nil:
		names := make([]string, len(args.Nodes.Items))
		for i := range args.Nodes.Items {
			names[i] = args.Nodes.Items[i].Name
		}
		return args.Pod, names, nil
	default:
		return nil, nil, badRequest("the request has neither NodeNames (nodeCacheCapable: true) nor Nodes (nodeCacheCapable: false)")
	}
}

// preempt checks the scheduler's victims node by node: a node stays a candidate, with exactly the
// victims the scheduler chose, if the pod's GPU request fits on its devices once those victims'
// shares are freed; otherwise it is dropped. The scheduler picked the victims for the resources
// it sees (including GPU memory in total) and minimised them; the extender adds only what the
// scheduler cannot see, which GPU the memory is on. It neither removes victims (one may be
// needed for CPU or memory) nor adds any (that would bypass the scheduler's priority and PDB
// rules); a node where the victims free the wrong GPUs is simply no candidate.
func (e *Extender) preempt(ctx context.Context, args *extenderv1.ExtenderPreemptionArgs) (*extenderv1.ExtenderPreemptionResult, error) {
	if args.Pod == nil {
		return nil, badRequest("the request has no Pod")
	}
	candidates, err := metaVictimsOf(args)
	if err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx)
	kept := map[string]*extenderv1.MetaVictims{}
	req, err := gpu.RequestOf(args.Pod, e.cfg.Resources.Memory)
	if err != nil {
		logger.V(4).Info("Pod cannot preempt: its GPU request is invalid", "pod", klog.KObj(args.Pod), "err", err)
		return &extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: kept}, nil
	}
	for node, victims := range candidates {
		// The scheduler rejects a candidate without victims.
		if victims == nil || len(victims.Pods) == 0 {
			continue
		}
		if req.Total > 0 {
			if nf := gpu.Fits(e.withoutVictims(node, victims), req); nf != nil {
				logger.V(4).Info("Victims do not free the GPU memory the pod needs", "pod", klog.KObj(args.Pod), "node", node, "reason", nf)
				continue
			}
		}
		kept[node] = victims
	}
	logger.V(4).Info("Checked preemption candidates", "pod", klog.KObj(args.Pod), "candidates", len(candidates), "kept", len(kept))
	return &extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: kept}, nil
}

// metaVictimsOf gives the candidates by victim UID, whichever form the scheduler sent them in.
func metaVictimsOf(args *extenderv1.ExtenderPreemptionArgs) (map[string]*extenderv1.MetaVictims, error) {
	switch {
	case args.NodeNameToMetaVictims != nil && args.NodeNameToVictims != nil:
		return nil, badRequest("the request has both NodeNameToVictims and NodeNameToMetaVictims; a scheduler sends one of them")
	case args.NodeNameToMetaVictims != nil:
		for node, victims := range args.NodeNameToMetaVictims {
			if victims != nil && hasNil(victims.Pods) {
				return nil, badRequest(fmt.Sprintf("victims on node %q include null", node))
			}
		}
		return args.NodeNameToMetaVictims, nil
	case args.NodeNameToVictims != nil:
		meta := make(map[string]*extenderv1.MetaVictims, len(args.NodeNameToVictims))
		for node, victims := range args.NodeNameToVictims {
			if victims == nil {
				continue
			}
			if hasNil(victims.Pods) {
				return nil, badRequest(fmt.Sprintf("victims on node %q include null", node))
			}
			m := &extenderv1.MetaVictims{Pods: make([]*extenderv1.MetaPod, len(victims.Pods)), NumPDBViolations: victims.NumPDBViolations}
			for i, p := range victims.Pods {
				m.Pods[i] = &extenderv1.MetaPod{UID: string(p.UID)}
			}
			meta[node] = m
		}
		return meta, nil
	default:
		return nil, badRequest("the request has neither NodeNameToVictims nor NodeNameToMetaVictims")
	}
}

func hasNil[T any](s []*T) bool {
	for _, p := range s {
		if p == nil {
			return true
		}
	}
	return false
}

// withoutVictims is the node's devices as they would be with the victims gone. Victims are looked
// up in the cache by UID, so both forms of the request count the same shares: a victim the cache
// holds nothing for on this node frees nothing, and one listed twice frees its share once.
func (e *Extender) withoutVictims(node string, victims *extenderv1.MetaVictims) []gpu.Device {
	devs := e.cache.NodeView(node)
	freed := sets.New[string]()
	for _, victim := range victims.Pods {
		on, shares, ok := e.cache.PodAssignment(types.UID(victim.UID))
		if !ok || on != node || freed.Has(victim.UID) {
			continue
		}
		freed.Insert(victim.UID)
		gpu.Adjust(devs, shares, -1)
	}
	return devs
}

// bind places a pod on the node the scheduler chose. A GPU pod gets its devices here, picked and
// committed under the cache's lock, and is bound with them in one request (gpu.Bind, as the
// plugin binds). If the devices were taken since filter, or the binding fails, the reservation is
// released and the error goes back to the scheduler, which retries the pod.
func (e *Extender) bind(ctx context.Context, args *extenderv1.ExtenderBindingArgs) (*extenderv1.ExtenderBindingResult, error) {
	if args.PodName == "" || args.PodNamespace == "" || args.PodUID == "" || args.Node == "" {
		return nil, badRequest("the request needs PodName, PodNamespace, PodUID and Node")
	}
	logger := klog.FromContext(ctx).WithValues("pod", klog.KRef(args.PodNamespace, args.PodName), "node", args.Node)
	a, err := e.bindPod(ctx, args)
	if err != nil {
		logger.V(2).Info("Could not bind pod", "err", err)
		return &extenderv1.ExtenderBindingResult{Error: err.Error()}, nil
	}
	logger.V(2).Info("Bound pod", "devices", a)
	return &extenderv1.ExtenderBindingResult{}, nil
}

func (e *Extender) bindPod(ctx context.Context, args *extenderv1.ExtenderBindingArgs) (gpu.Assignment, error) {
	pod, err := e.getPod(ctx, args.PodNamespace, args.PodName, args.PodUID)
	if err != nil {
		return nil, err
	}
	if pod.Spec.NodeName != "" {
		if pod.Spec.NodeName == args.Node {
			// A retry of a bind that went through.
			a, _, _ := gpu.AssignmentOf(pod)
			return a, nil
		}
		return nil, fmt.Errorf("pod %s is already bound to node %q", klog.KObj(pod), pod.Spec.NodeName)
	}
	req, err := gpu.RequestOf(pod, e.cfg.Resources.Memory)
	if err != nil {
		return nil, err
	}
	if req.Total == 0 {
		return nil, e.createBinding(ctx, pod, args.Node)
	}
	a, err := e.cache.Reserve(pod, args.Node, req, e.cfg.Strategy)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", args.Node, err)
	}
	var capacity []int64
	for _, d := range e.cache.NodeView(args.Node) {
		capacity = append(capacity, d.Capacity)
	}
	if err := gpu.Bind(ctx, e.client, pod, args.Node, a, capacity, e.now()); err != nil {
		e.cache.Unreserve(pod.UID)
		return nil, err
	}
	gpu.ObservePodPlaced()
	return a, nil
}

// getPod finds the pod to bind, from the informer or, when that has not seen it (or has an older
// pod of that name), from the API server.
func (e *Extender) getPod(ctx context.Context, namespace, name string, uid types.UID) (*v1.Pod, error) {
	if pod, err := e.pods.Pods(namespace).Get(name); err == nil && pod.UID == uid {
		return pod, nil
	}
	pod, err := e.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("pod %s/%s no longer exists", namespace, name)
	case err != nil:
		return nil, fmt.Errorf("getting pod %s/%s: %w", namespace, name, err)
	case pod.UID != uid:
		return nil, fmt.Errorf("pod %s/%s was replaced: UID %s, not %s", namespace, name, pod.UID, uid)
	}
	return pod, nil
}

func (e *Extender) createBinding(ctx context.Context, pod *v1.Pod, node string) error {
	binding := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}
	if err := e.client.CoreV1().Pods(pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("binding pod %s to node %s: %w", klog.KObj(pod), node, err)
	}
	return nil
}

// requestError is a request the extender refuses, with the HTTP status that says why.
type requestError struct {
	code int
	msg  string
	// retryAfter, in seconds, is sent as Retry-After when set.
	retryAfter int
}

func (e *requestError) Error() string { return e.msg }

func badRequest(msg string) error { return &requestError{code: http.StatusBadRequest, msg: msg} }
