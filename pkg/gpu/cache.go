package gpu

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-sched/berth/pkg/podroom"
)

// Cache knows every node's GPUs and every pod's share of them: pods seen bound with an assignment
// (whoever placed them) and pods the scheduler has reserved devices for and not yet seen bound.
// It is fed by node and pod informers and by Reserve/Unreserve, and is safe for concurrent use.
type Cache struct {
	res ResourceNames

	mu    sync.RWMutex
	nodes map[string]*nodeState
	pods  map[types.UID]*podState
	// largest answers "could any node ever hold this"; rebuilt on demand after GPUs change.
	largest      capacityIndex
	largestStale bool
}

type nodeState struct {
	// known is true while the Node object exists. A node can be unknown and still have pods,
	// which informers may report before the node or after its deletion.
	known    bool
	capacity []int64
	// links is how the GPUs of capacity are linked; nil if unknown.
	links *Links
	// used is indexed by device and may be longer than capacity, when pods name devices the node
	// does not (or no longer) report.
	used []int64
	pods int
}

type podState struct {
	node   string
	shares Assignment
	// assumed is true from Reserve until the pod is seen bound.
	assumed bool
}

// NewCache returns an empty cache for the given resource names, reported in the GPU metrics until
// it is closed.
func NewCache(res ResourceNames) *Cache {
	RegisterMetrics()
	c := &Cache{
		res:   res,
		nodes: map[string]*nodeState{},
		pods:  map[types.UID]*podState{},
	}
	addLiveCache(c)
	return c
}

// AddOrUpdateNode records a node's GPUs and their links. A malformed berth.dev/gpu-memory
// annotation is returned as an error for the caller to report, and the node gets the devices its
// capacity implies; so is a malformed berth.dev/gpu-topology annotation (a *LinksError), and
// the node's GPUs are then placed as without one.
func (c *Cache) AddOrUpdateNode(node *v1.Node) error {
	devs, err := DevicesOf(node, c.res)
	links, linksErr := LinksOf(node, len(devs))
	switch {
	case err == nil:
		err = linksErr
	case linksErr != nil:
		err = errors.Join(err, linksErr)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nodeState(node.Name)
	if !n.known || !slices.Equal(n.capacity, devs) {
		c.largestStale = true
	}
	n.known = true
	n.capacity = devs
	n.links = links
	if len(n.used) < len(devs) {
		n.used = append(n.used, make([]int64, len(devs)-len(n.used))...)
	}
	return err
}

// DeleteNode forgets a node's GPUs. Pods still bound to it keep their shares
// until they are deleted.
func (c *Cache) DeleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[name]
	if !ok || !n.known {
		return
	}
	n.known = false
	n.capacity = nil
	n.links = nil
	c.largestStale = true
	if n.pods == 0 {
		delete(c.nodes, name)
	}
}

// AddOrUpdatePod accounts a pod as the informer reports it. A bound pod holds the devices its
// annotations name, whoever bound it; this replaces the scheduler's reservation for the pod, if
// any. Pods that are not bound keep their reservation; pods in a terminal phase release theirs.
//
// A bound pod with malformed annotations keeps what it held before and the error is returned for
// the caller to report; so is a bound pod that asks for GPU memory but names no devices.
func (c *Cache) AddOrUpdatePod(pod *v1.Pod) error {
	if !podroom.Holds(pod) {
		c.DeletePod(pod.UID)
		return nil
	}
	if pod.Spec.NodeName == "" {
		return nil
	}
	a, ok, err := AssignmentOf(pod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pods[pod.UID]
	if !ok {
		switch {
		case p != nil && p.assumed:
			// Bound by a binder that does not record devices. The pod is on the node and asked for
			// GPU memory: it keeps what was reserved for it until it goes, rather than vanish from
			// the accounting while it may use a GPU.
			p.assumed = false
			return fmt.Errorf("pod was bound without recording the GPUs reserved for it (%s): a binder that does not write %s bound it; the reservation is kept until the pod ends",
				p.shares, PodGPUDevicesAnnotation)
		case p != nil:
			// Its containers got their GPUs when they started; the annotations going does not free them.
			return fmt.Errorf("pod's GPU annotations were removed; it keeps the GPUs it held (%s)", p.shares)
		}
		switch req, err := RequestOf(pod, c.res.Memory); {
		case err != nil:
			return fmt.Errorf("pod names no devices (annotation %s) and its GPU request is invalid; it holds nothing: %w", PodGPUDevicesAnnotation, err)
		case req.Total > 0:
			return fmt.Errorf("pod asks for %d %s but names no devices (annotation %s); its GPU memory is not accounted",
				req.Total, c.res.Memory, PodGPUDevicesAnnotation)
		}
		return nil
	}
	if p != nil {
		if p.node == pod.Spec.NodeName && slices.Equal(p.shares, a) {
			p.assumed = false
			return nil
		}
		c.release(pod.UID, p)
	}
	c.hold(pod.UID, &podState{node: pod.Spec.NodeName, shares: a})
	return nil
}

// DeletePod releases whatever the pod holds.
func (c *Cache) DeletePod(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pods[uid]; ok {
		c.release(uid, p)
	}
}

// Reserve chooses devices for a pod's request on a node and holds them for the pod, checking and
// committing under one lock, so that no two pods get the same free memory. It returns a
// *NoFitError when the request does not fit (any more). The reservation lasts until Unreserve,
// until the pod is seen bound (when its annotations take over), or until it is deleted.
func (c *Cache) Reserve(pod *v1.Pod, node string, req Request, s *Strategy) (Assignment, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.alreadyHolds(pod.UID); err != nil {
		return nil, err
	}
	a, nf := Fit(c.view(node), req, s)
	if nf != nil {
		return nil, nf
	}
	if len(a) == 0 {
		return nil, nil
	}
	c.hold(pod.UID, &podState{node: node, shares: a, assumed: true})
	return slices.Clone(a), nil
}

// Hold records that a pod was given a on node, as Reserve does, for a caller that chose the
// devices from a view of its own (see DevicesOn). It fails if the pod already holds devices.
func (c *Cache) Hold(uid types.UID, node string, a Assignment) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.alreadyHolds(uid); err != nil {
		return err
	}
	c.hold(uid, &podState{node: node, shares: slices.Clone(a), assumed: true})
	return nil
}

// alreadyHolds is the error for reserving again for a pod that holds devices. c.mu is held.
func (c *Cache) alreadyHolds(uid types.UID) error {
	if p, ok := c.pods[uid]; ok {
		return fmt.Errorf("pod already holds GPU memory on node %q (%s)", p.node, p.shares)
	}
	return nil
}

// DevicesOn returns a node's devices as a scheduler's snapshot has them, the pods being the pods
// the snapshot places on the node: a pod's share is what the cache holds for it on that node; else
// what its annotations name, as the cache may not have seen the pod yet; else, for a pod not yet
// placed (a nominated pod that preemption adds), the devices Fit would give it after all placed
// pods. Deriving the view from the snapshot keeps Filter, preemption's dry runs and Reserve in
// agreement with the scheduler's other plugins even while this cache's informer handlers lag the
// scheduler's own. It counts as DevicesHeld counts, which kubectl berth reads.
func (c *Cache) DevicesOn(node string, capacity []int64, links *Links, pods iter.Seq[*v1.Pod], s *Strategy) []Device {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return devicesHeld(capacity, links, pods, c.pods, node, c.res.Memory, s, nil)
}

// DevicesHeld is a node's devices as the API shows them: GPUs of the given capacities and links
// (the Node object's, see DevicesOf and LinksOf) less the shares the annotations of pods, the pods
// bound to the node, name. counted, if not nil, is told each share counted. It is the one account
// of what a node's GPUs hold: GPUShare's (Cache.DevicesOn) with nothing reserved, so that the
// scheduler and kubectl berth (noderoom.Of) cannot count a node's GPUs differently.
func DevicesHeld(capacity []int64, links *Links, pods iter.Seq[*v1.Pod], counted func(*v1.Pod, Assignment)) []Device {
	return devicesHeld(capacity, links, pods, nil, "", "", nil, counted)
}

// devicesHeld is Cache.DevicesOn with the cache's pods as known, nil for DevicesHeld; mem and s
// place the pods not yet placed. It takes no closures on the scheduler's path: Filter calls it
// once per NodeInfo generation.
func devicesHeld(capacity []int64, links *Links, pods iter.Seq[*v1.Pod], known map[types.UID]*podState, node string,
	mem v1.ResourceName, s *Strategy, counted func(*v1.Pod, Assignment)) []Device {
	devs := WithLinks(EmptyDevices(capacity), links)
	if len(devs) == 0 {
		return nil
	}
	var unplaced []*v1.Pod
	for pod := range pods {
		var a Assignment
		if p, ok := known[pod.UID]; ok && p.node == node {
			a = p.shares
		} else if pod.Spec.NodeName == "" {
			unplaced = append(unplaced, pod)
			continue
		} else if held, ok, err := AssignmentOf(pod); ok && err == nil {
			a = held
		} else {
			continue
		}
		Adjust(devs, a, 1)
		if counted != nil {
			counted(pod, a)
		}
	}
	for _, pod := range unplaced {
		req, err := RequestOf(pod, mem)
		if err != nil || req.Total == 0 {
			continue
		}
		if a, nf := Fit(devs, req, s); nf == nil {
			Adjust(devs, a, 1)
		}
	}
	return devs
}

// EmptyDevices is devices of the given capacities with nothing used; nil if there are none.
func EmptyDevices(capacity []int64) []Device {
	if len(capacity) == 0 {
		return nil
	}
	devs := make([]Device, len(capacity))
	for i, m := range capacity {
		devs[i].Capacity = m
	}
	return devs
}

// Unreserve releases a reservation made by Reserve or Hold. A pod already seen bound keeps its devices:
// its binding went through even if the binder saw an error.
func (c *Cache) Unreserve(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pods[uid]; ok && p.assumed {
		c.release(uid, p)
	}
}

// PodAssignment returns the node and devices a pod holds, reserved or bound.
func (c *Cache) PodAssignment(uid types.UID) (node string, a Assignment, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, ok := c.pods[uid]
	if !ok {
		return "", nil, false
	}
	return p.node, slices.Clone(p.shares), true
}

// NodeView returns a copy of a node's devices, nil if the node is unknown or has no GPUs.
func (c *Cache) NodeView(name string) []Device {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.view(name)
}

// NodeViews is NodeView for each of names, read under one lock into one allocation: the
// extender's filter and prioritize read hundreds of nodes per request.
func (c *Cache) NodeViews(names []string) [][]Device {
	views := make([][]Device, len(names))
	c.mu.RLock()
	defer c.mu.RUnlock()
	total := 0
	for _, name := range names {
		if n, ok := c.nodes[name]; ok {
			total += len(n.capacity)
		}
	}
	devs := make([]Device, total)
	for i, name := range names {
		n, ok := c.nodes[name]
		if !ok || len(n.capacity) == 0 {
			continue
		}
		views[i] = n.devices(devs[:len(n.capacity):len(n.capacity)])
		devs = devs[len(n.capacity):]
	}
	return views
}

// CheckCapacity returns an error saying why, if no node has req.Count GPUs of at least
// req.PerDevice memory, so that the request could not be met even on empty GPUs.
func (c *Cache) CheckCapacity(req Request) error {
	most, largest := c.capacityFor(req.PerDevice)
	return c.res.capacityError(req, most, largest)
}

// CheckCapacity is Cache.CheckCapacity for nodes given by their GPUs' capacities (DevicesOf), as a
// scheduler's snapshot has them. It stops at the first node that could hold the request, which in
// a cluster with GPUs is almost always one of the first.
func (r ResourceNames) CheckCapacity(req Request, nodes iter.Seq[[]int64]) error {
	var (
		most    int
		largest int64
	)
	for capacity := range nodes {
		n := 0
		for _, m := range capacity {
			largest = max(largest, m)
			if m >= req.PerDevice {
				n++
			}
		}
		if n >= req.Count {
			return nil
		}
		most = max(most, n)
	}
	return r.capacityError(req, most, largest)
}

// capacityError says why no node could hold req, given the most GPUs of at least req.PerDevice on
// one node and the largest GPU of any node; nil if one can.
func (r ResourceNames) capacityError(req Request, most int, largest int64) error {
	switch {
	case most >= req.Count:
		return nil
	case largest == 0:
		return fmt.Errorf("no node has GPUs with %s", r.Memory)
	case req.Count == 1:
		return fmt.Errorf("pod asks for %d %s on one GPU, but the largest GPU of any node holds %d", req.PerDevice, r.Memory, largest)
	case most == 0:
		return fmt.Errorf("pod asks for %d GPUs with %d %s each, but the largest GPU of any node holds %d", req.Count, req.PerDevice, r.Memory, largest)
	default:
		return fmt.Errorf("pod asks for %d GPUs with %d %s each, but no node has more than %d GPUs that large", req.Count, req.PerDevice, r.Memory, most)
	}
}

func (c *Cache) capacityFor(share int64) (most int, largest int64) {
	c.mu.RLock()
	if !c.largestStale {
		defer c.mu.RUnlock()
		return c.largest.query(share)
	}
	c.mu.RUnlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.largestStale {
		c.largest = buildCapacityIndex(c.nodes)
		c.largestStale = false
	}
	return c.largest.query(share)
}

func (c *Cache) nodeState(name string) *nodeState {
	n, ok := c.nodes[name]
	if !ok {
		n = &nodeState{}
		c.nodes[name] = n
	}
	return n
}

func (c *Cache) view(name string) []Device {
	n, ok := c.nodes[name]
	if !ok || len(n.capacity) == 0 {
		return nil
	}
	return n.devices(make([]Device, len(n.capacity)))
}

// devices fills dst, as long as the node's GPU list, with each GPU's capacity and use, and
// returns it. The caller holds the lock.
func (n *nodeState) devices(dst []Device) []Device {
	for i, capacity := range n.capacity {
		dst[i] = Device{Capacity: capacity, Used: n.used[i]}
	}
	WithLinks(dst, n.links)
	return dst
}

func (c *Cache) hold(uid types.UID, p *podState) {
	c.pods[uid] = p
	n := c.nodeState(p.node)
	n.pods++
	addUsage(n, p.shares, 1)
}

func (c *Cache) release(uid types.UID, p *podState) {
	delete(c.pods, uid)
	n := c.nodes[p.node]
	addUsage(n, p.shares, -1)
	n.pods--
	if n.pods == 0 && !n.known {
		delete(c.nodes, p.node)
	}
}

func addUsage(n *nodeState, a Assignment, sign int64) {
	for _, d := range a {
		if d.Index >= len(n.used) {
			n.used = append(n.used, make([]int64, d.Index+1-len(n.used))...)
		}
		n.used[d.Index] += sign * d.Memory
	}
}

// capacityIndex answers, for a share, the most GPUs of at least that size on any one node.
type capacityIndex struct {
	// sizes are the distinct device sizes of all nodes, ascending; most[i] is the most devices of
	// at least sizes[i] on one node.
	sizes []int64
	most  []int
}

func buildCapacityIndex(nodes map[string]*nodeState) capacityIndex {
	// A node whose devices, largest first, are c0 >= c1 >= ... has i+1 devices of at least ci.
	best := map[int64]int{}
	for _, n := range nodes {
		caps := slices.Clone(n.capacity)
		slices.SortFunc(caps, func(a, b int64) int { return cmp.Compare(b, a) })
		for i, c := range caps {
			best[c] = max(best[c], i+1)
		}
	}
	idx := capacityIndex{sizes: make([]int64, 0, len(best))}
	for size := range best {
		idx.sizes = append(idx.sizes, size)
	}
	slices.Sort(idx.sizes)
	idx.most = make([]int, len(idx.sizes))
	// A node with n devices of at least a larger size also has n devices of at least a smaller one.
	running := 0
	for i := len(idx.sizes) - 1; i >= 0; i-- {
		running = max(running, best[idx.sizes[i]])
		idx.most[i] = running
	}
	return idx
}

// query returns the most devices of at least share on one node, and the largest device size.
func (x capacityIndex) query(share int64) (most int, largest int64) {
	if len(x.sizes) == 0 {
		return 0, 0
	}
	largest = x.sizes[len(x.sizes)-1]
	i := sort.Search(len(x.sizes), func(i int) bool { return x.sizes[i] >= share })
	if i == len(x.sizes) {
		return 0, largest
	}
	return x.most[i], largest
}
