package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/test/utils/client-go/ktesting"

	"github.com/berth-sched/berth/test/bench/report"
	"github.com/berth-sched/berth/test/harness"
)

// The GangContention workloads (issue 9): more gangs than the cluster has room for, their members
// created interleaved (member j of every gang, then member j+1 of every gang), and gangs released
// as they finish. The harness creates the nodes, the PodGroups and the pods; this driver watches
// the gangs' pods and does what the harness's ops cannot:
//
//  1. it measures the time from the first member's creation until the room is full of whole gangs
//     (the room, in gangs, is a parameter of the workload; its nodes hold exactly that many);
//  2. it then releases whole bound gangs, deleting all their pods at once (as a finished job's pods
//     go), at a fixed rate, and measures for each release the delay until a waiting gang is bound
//     whole in the room it freed (the n-th release against the n-th gang bound after it);
//  3. all along, it counts the gangs seen partly bound: some but fewer than podsPerGroup members
//     bound for longer than partialGrace. (A gang's members are bound one request each, so a gang
//     whose binding is in flight is partly bound for a moment; that is not a partial gang. One
//     that stays so is: part of a job would run without the rest.)
//
// The harness's ops end with a barrier on one gated pod (gang-done/contention-gate, whose
// annotations carry the workload's parameters): the driver removes its scheduling gate when it is
// done, so the workload ends when the driver does.
const (
	gangNamespace        = "gang"
	gateNamespace        = "gang-done"
	gatePod              = "contention-gate"
	gateName             = "bench.berth.io/contention-driver"
	gangLabel            = "bench.berth.io/gang"
	annotationRoom       = "bench.berth.io/room-groups"
	annotationPerGroup   = "bench.berth.io/pods-per-group"
	annotationReleases   = "bench.berth.io/releases"
	annotationReleaseQPS = "bench.berth.io/releases-per-second"

	partialGrace   = 5 * time.Second
	contentionTick = 100 * time.Millisecond
	fillTimeout    = 5 * time.Minute
	refillTimeout  = 3 * time.Minute
)

type contentionParams struct {
	room, podsPerGroup, releases int
	releasesPerSecond            float64
}

func driveGangContention(ctx context.Context, tCtx ktesting.TContext, w workloadID) (results []report.Result, err error) {
	client := tCtx.Client()
	var gate *v1.Pod
	if err := wait.PollUntilContextCancel(ctx, contentionTick, true, func(ctx context.Context) (bool, error) {
		gate, err = client.CoreV1().Pods(gateNamespace).Get(ctx, gatePod, metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		return nil, nil // the workload ended before its gate was created
	}
	// Whatever happens, let the workload end.
	defer func() {
		patch := []byte(`{"spec":{"schedulingGates":null}}`)
		if _, perr := client.CoreV1().Pods(gateNamespace).Patch(ctx, gatePod, types.MergePatchType, patch, metav1.PatchOptions{}); perr != nil && ctx.Err() == nil {
			err = errors.Join(err, fmt.Errorf("opening the gate %s/%s: %w", gateNamespace, gatePod, perr))
		}
	}()
	p, err := readContentionParams(gate)
	if err != nil {
		return nil, err
	}

	c := newContention(func(*v1.Pod) int { return p.podsPerGroup })
	stop := make(chan struct{})
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(gangNamespace))
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(c.handler()); err != nil {
		return nil, err
	}
	factory.Start(stop)
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	factory.WaitForCacheSync(stop)

	tick := time.NewTicker(contentionTick)
	defer tick.Stop()
	full, err := c.fill(ctx, tick.C, p.room)
	if err != nil {
		return nil, err
	}
	delays, err := c.release(ctx, tick.C, client, p)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	partial := c.partialSeen()
	for _, g := range c.gangs {
		if g.partialSeen {
			// Which gangs, and how many members they hold at the end, is where a look into
			// the scheduler's log starts.
			tCtx.Logf("gang %s was seen partly bound; at the end %d of %d members bound, released %v", g.name, g.bound, g.size, g.released)
		}
	}
	c.mu.Unlock()
	var sum, maxDelay float64
	for _, d := range delays {
		ms := float64(d) / float64(time.Millisecond)
		sum += ms
		maxDelay = max(maxDelay, ms)
	}
	return []report.Result{
		w.result(report.GangTimeToFull, "s", map[string]float64{"Value": full.Seconds()}),
		w.result(report.GangRefillDelay, "ms", map[string]float64{"Average": sum / float64(len(delays)), "Max": maxDelay}),
		w.result(report.GangPartialSeen, "groups", map[string]float64{"Value": float64(partial)}),
	}, nil
}

func readContentionParams(gate *v1.Pod) (contentionParams, error) {
	var p contentionParams
	for _, f := range []struct {
		key string
		to  *int
	}{{annotationRoom, &p.room}, {annotationPerGroup, &p.podsPerGroup}, {annotationReleases, &p.releases}} {
		v, err := strconv.Atoi(gate.Annotations[f.key])
		if err != nil || v <= 0 {
			return p, fmt.Errorf("gate pod %s/%s: annotation %s=%q: want a positive integer", gate.Namespace, gate.Name, f.key, gate.Annotations[f.key])
		}
		*f.to = v
	}
	qps, err := strconv.ParseFloat(gate.Annotations[annotationReleaseQPS], 64)
	if err != nil || qps <= 0 {
		return p, fmt.Errorf("gate pod %s/%s: annotation %s=%q: want a positive number", gate.Namespace, gate.Name, annotationReleaseQPS, gate.Annotations[annotationReleaseQPS])
	}
	p.releasesPerSecond = qps
	return p, nil
}

// contention is what the driver knows of the gangs, from the pod informer's events.
type contention struct {
	mu sync.Mutex
	// sizeOf is how many members the gang of a pod has: the workload's podsPerGroup, or, where
	// sizes are mixed (the topology simulation), the pod's gang's own.
	sizeOf    func(*v1.Pod) int
	gangs     map[string]*gangState
	bound     map[types.NamespacedName]bool
	firstPod  time.Time
	releasing bool
	// refills are the times gangs became whole after the first release, in order.
	refills []time.Time
}

type gangState struct {
	name                  string
	size, bound           int
	wholeAt, partialSince time.Time
	partialSeen, released bool
}

func newContention(sizeOf func(*v1.Pod) int) *contention {
	return &contention{sizeOf: sizeOf, gangs: map[string]*gangState{}, bound: map[types.NamespacedName]bool{}}
}

func (c *contention) handler() cache.ResourceEventHandlerFuncs { return harness.Observing(c.observe) }

func (c *contention) observe(obj any, deleted bool) {
	pod, ok := obj.(*v1.Pod)
	if !ok || pod.Labels[gangLabel] == "" {
		return
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.firstPod.IsZero() {
		c.firstPod = now
	}
	name := pod.Labels[gangLabel]
	g := c.gangs[name]
	if g == nil {
		g = &gangState{name: name, size: c.sizeOf(pod)}
		c.gangs[name] = g
	}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	isBound := !deleted && pod.Spec.NodeName != ""
	switch wasBound := c.bound[key]; {
	case isBound && !wasBound:
		c.bound[key] = true
		if g.bound++; g.bound == g.size {
			g.wholeAt = now
			if c.releasing && !g.released {
				c.refills = append(c.refills, now)
			}
		}
	case !isBound && wasBound:
		delete(c.bound, key)
		g.bound--
		g.wholeAt = time.Time{}
	}
}

// check updates the partial gangs as of now and returns the gangs bound whole and not released,
// earliest bound first. The caller holds c.mu.
func (c *contention) check(now time.Time) []*gangState {
	var whole []*gangState
	for _, g := range c.gangs {
		switch {
		case g.released:
		case g.bound == g.size:
			whole = append(whole, g)
			g.partialSince = time.Time{}
		case g.bound > 0:
			if g.partialSince.IsZero() {
				g.partialSince = now
			} else if now.Sub(g.partialSince) >= partialGrace {
				g.partialSeen = true
			}
		default:
			g.partialSince = time.Time{}
		}
	}
	slices.SortFunc(whole, func(a, b *gangState) int { return a.wholeAt.Compare(b.wholeAt) })
	return whole
}

func (c *contention) partialSeen() int {
	n := 0
	for _, g := range c.gangs {
		if g.partialSeen {
			n++
		}
	}
	return n
}

// fill waits until room gangs are bound whole and returns the time from the first member seen to
// the last of them bound.
func (c *contention) fill(ctx context.Context, tick <-chan time.Time, room int) (time.Duration, error) {
	deadline := time.Now().Add(fillTimeout)
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case now := <-tick:
			c.mu.Lock()
			whole := c.check(now)
			first, partial := c.firstPod, c.partialSeen()
			c.mu.Unlock()
			if len(whole) >= room {
				return whole[len(whole)-1].wholeAt.Sub(first), nil
			}
			if now.After(deadline) {
				return 0, fmt.Errorf("the room for %d gangs held %d whole gangs after %s (%d seen partly bound)", room, len(whole), fillTimeout, partial)
			}
		}
	}
}

// release deletes p.releases whole gangs, earliest bound first, at p.releasesPerSecond, and
// returns for each the delay until a waiting gang was bound whole in its room.
func (c *contention) release(ctx context.Context, tick <-chan time.Time, client kubernetes.Interface, p contentionParams) ([]time.Duration, error) {
	var released []time.Time
	next := time.Now()
	// Releases wait for whole gangs; if none comes, the phase still ends.
	deadline := next.Add(time.Duration(float64(p.releases)/p.releasesPerSecond*float64(time.Second)) + refillTimeout)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case now := <-tick:
			c.mu.Lock()
			whole := c.check(now)
			refilled := len(c.refills)
			var g *gangState
			if len(released) < p.releases && !now.Before(next) && len(whole) > 0 {
				g = whole[0]
				g.released = true
				c.releasing = true
				released = append(released, now)
				next = next.Add(time.Duration(float64(time.Second) / p.releasesPerSecond))
			}
			c.mu.Unlock()
			if g != nil {
				err := client.CoreV1().Pods(gangNamespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)},
					metav1.ListOptions{LabelSelector: gangLabel + "=" + g.name})
				if err != nil {
					return nil, fmt.Errorf("releasing gang %s: %w", g.name, err)
				}
				if len(released) == p.releases {
					deadline = time.Now().Add(refillTimeout)
				}
				continue
			}
			if len(released) == p.releases && refilled >= p.releases {
				c.mu.Lock()
				delays := make([]time.Duration, p.releases)
				for i := range delays {
					delays[i] = max(0, c.refills[i].Sub(released[i]))
				}
				c.mu.Unlock()
				return delays, nil
			}
			if now.After(deadline) {
				return nil, fmt.Errorf("%d of %d gangs released, %d waiting gangs bound whole in the room they freed, by %s", len(released), p.releases, refilled, deadline.Format(time.TimeOnly))
			}
		}
	}
}
