// Package waitreason publishes, on each pod that has waited long for one of berth's profiles, why
// it waits: kubectl berth why's answer (internal/why.Of), in short, as the pod condition
// berth.dev/WaitingFor and one WaitingFor event. Anyone who can read the pod sees it, with no
// plugin, and without the scheduler's memory over a private port: the answer is built from the
// scheduler's informer caches, the same API objects kubectl berth why reads.
//
// It writes only when the answer changes: a pod that waits with nothing changing gets one
// condition and one event, then no further writes. Only the leader writes (pkg/leader), and one
// publisher runs per scheduler process whatever its number of profiles.
package waitreason

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/leader"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/podroom"
	"github.com/berth-sched/berth/pkg/process"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/pkg/why"
)

// ConditionType is the pod condition the publisher writes: status True, reason one of
// why's Cause constants, message the short answer. It is left in place once the pod is
// bound: PodScheduled=True then says the pod no longer waits, and kubectl berth why shows a
// published answer only for a pod that is still pending.
const ConditionType = why.WaitingForCondition

// EventReason is the reason of the Normal event written with each new answer.
const EventReason = "WaitingFor"

// profile is one of berth's scheduling profiles: its events carry its scheduler name, and its
// GPUShare's resources count GPU memory for its pods.
type profile struct {
	recorder events.EventRecorder
	// key is the profile's framework handle, the key gpu.ProfileResourceNames reads it by.
	key any
	// levels are the profile's Gang topologyLevels (UseLevels); nil where Gang is not enabled,
	// which reads the shipped default.
	levels topology.Levels
}

// publisher is the process's one writer of answers.
type publisher struct {
	cfg    Config
	client kubernetes.Interface
	pods   corelisters.PodLister
	nodes  corelisters.NodeLister
	synced []cache.InformerSynced
	// quotas and groups are nil where scheduler-plugins' CRDs are not installed: then no quota
	// blocks a pod, and a group's member is told its PodGroup is missing.
	quotas schedlisters.ElasticQuotaLister
	groups *podgroup.Groups
	gate   *leader.Gate
	logger klog.Logger
	now    func() time.Time

	mu       sync.Mutex
	profiles map[string]profile
	// last is the answer last written to each pod, so that a sweep that runs before the informer
	// has seen the write does not write it again; checked is when each waiting pod was last
	// answered, so that a backlog above MaxPods is answered in turn, not its oldest MaxPods each
	// sweep. Both hold only pods still waiting.
	last    map[types.UID]string
	checked map[types.UID]time.Time
}

var processState process.Shared[informers.SharedInformerFactory, *publisher]

// Start counts h's profile among berth's and, on the first call for h's scheduler, starts the
// scheduler's publisher until ctx ends. Each of berth's plugin factories calls it
// (internal/registry), so every profile that enables any berth plugin is answered for. It is a
// no-op where cfg is Disabled or h has no informer factory or no profile name (a test's handle).
func Start(ctx context.Context, h fwk.Handle, cfg Config) error {
	factory := h.SharedInformerFactory()
	named, ok := h.(interface{ ProfileName() string })
	if cfg.Disabled || factory == nil || !ok || h.ClientSet() == nil {
		return nil
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	p, err := processState.Get(ctx, factory, func() (*publisher, error) { return newPublisher(ctx, h, cfg), nil })
	if err != nil {
		return err
	}
	p.addProfile(named.ProfileName(), profile{recorder: h.EventRecorder(), key: h})
	return nil
}

// UseLevels tells the publisher the topology levels of h's profile, its Gang's topologyLevels, so
// that a group waiting for a domain is answered by the levels its scheduler places it by. Gang's
// factory calls it (internal/registry); a no-op where no publisher runs.
func UseLevels(h fwk.Handle, levels topology.Levels) {
	named, ok := h.(interface{ ProfileName() string })
	if !ok || h.SharedInformerFactory() == nil {
		return
	}
	p, ok := processState.Lookup(h.SharedInformerFactory())
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr, ok := p.profiles[named.ProfileName()]; ok {
		pr.levels = slices.Clone(levels)
		p.profiles[named.ProfileName()] = pr
	}
}

func newPublisher(ctx context.Context, h fwk.Handle, cfg Config) *publisher {
	logger := klog.LoggerWithName(klog.FromContext(ctx), "waitreason")
	factory := h.SharedInformerFactory()
	podInformer := factory.Core().V1().Pods()
	nodeInformer := factory.Core().V1().Nodes()
	p := &publisher{
		cfg:      cfg,
		client:   h.ClientSet(),
		pods:     podInformer.Lister(),
		nodes:    nodeInformer.Lister(),
		synced:   []cache.InformerSynced{podInformer.Informer().HasSynced, nodeInformer.Informer().HasSynced},
		gate:     leader.NewGate(leader.LeadsOrCycled),
		logger:   logger,
		now:      time.Now,
		profiles: map[string]profile{},
		last:     map[types.UID]string{},
		checked:  map[types.UID]time.Time{},
	}
	go p.run(ctx, h)
	return p
}

// connect reads PodGroups and ElasticQuotas through the process's one scheduler-plugins informer
// factory, the one Gang and ElasticQuota use. It runs once the scheduler runs, after every
// plugin's New: an informer started earlier would hand those plugins events before their New
// has finished (ElasticQuota's handler reads what its New sets after adding it). Without the CRDs the answers leave groups and quotas out.
func (p *publisher) connect(ctx context.Context, h fwk.Handle) {
	groups, err := podgroup.For(ctx, h, nil)
	if err != nil {
		p.logger.Info("Answering without PodGroups or ElasticQuotas", "err", err)
		return
	}
	p.groups = groups
	if _, err := groups.Client.SchedulingV1alpha1().ElasticQuotas("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		p.logger.Info("Answering without ElasticQuotas", "err", err)
		return
	}
	eq := groups.Informers.Scheduling().V1alpha1().ElasticQuotas()
	p.quotas = eq.Lister()
	p.synced = append(p.synced, eq.Informer().HasSynced)
	groups.Informers.Start(ctx.Done())
}

func (p *publisher) addProfile(name string, pr profile) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.profiles[name]; !ok {
		p.profiles[name] = pr
	}
}

// run sweeps every period once this process leads and its caches hold the cluster.
func (p *publisher) run(ctx context.Context, h fwk.Handle) {
	if !p.gate.Wait(ctx, p.cfg.Period) {
		return
	}
	// The scheduler starts its informers once every plugin is built: past this, connect cannot
	// start an informer under a plugin's New (the gate may be open before: leader.Cycled is the
	// process's, and a process, as the tests do, may build a scheduler again).
	if !cache.WaitForCacheSync(ctx.Done(), p.synced...) {
		return
	}
	p.connect(ctx, h)
	if !cache.WaitForCacheSync(ctx.Done(), p.synced...) {
		return
	}
	p.logger.V(2).Info("Publishing why pods wait", "condition", ConditionType, "period", p.cfg.Period, "after", p.cfg.After, "maxPods", p.cfg.MaxPods)
	wait.UntilWithContext(ctx, p.sweep, p.cfg.Period)
}

// candidate is a pod that has waited longer than After.
type candidate struct {
	pod     *v1.Pod
	since   time.Time
	checked time.Time
	profile profile
}

// sweep answers up to MaxPods of the pods that have waited longer than After: first those never
// answered, oldest first, then those answered longest ago.
func (p *publisher) sweep(ctx context.Context) {
	now := p.now()
	p.mu.Lock()
	profiles := make(map[string]profile, len(p.profiles))
	for name, pr := range p.profiles {
		profiles[name] = pr
	}
	p.mu.Unlock()
	all, err := p.pods.List(labels.Everything())
	if err != nil {
		p.logger.Error(err, "Listing pods from the cache")
		return
	}
	live := make([]*v1.Pod, 0, len(all))
	var waiting []candidate
	seen := map[types.UID]bool{}
	for _, pod := range all {
		if !podroom.Holds(pod) {
			continue
		}
		live = append(live, pod)
		pr, ok := profiles[pod.Spec.SchedulerName]
		if !ok || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
			continue
		}
		seen[pod.UID] = true
		since := waitingSince(pod)
		if now.Sub(since) < p.cfg.After {
			continue
		}
		waiting = append(waiting, candidate{pod: pod, since: since, checked: p.checked[pod.UID], profile: pr})
	}
	// Forget pods that no longer wait.
	for uid := range p.checked {
		if !seen[uid] {
			delete(p.checked, uid)
		}
	}
	for uid := range p.last {
		if !seen[uid] {
			delete(p.last, uid)
		}
	}
	if len(waiting) == 0 {
		return
	}
	slices.SortFunc(waiting, func(a, b candidate) int {
		return cmp.Or(a.checked.Compare(b.checked), a.since.Compare(b.since),
			cmp.Compare(a.pod.Namespace, b.pod.Namespace), cmp.Compare(a.pod.Name, b.pod.Name))
	})
	waiting = waiting[:min(len(waiting), p.cfg.MaxPods)]

	// One copy of the cluster for the whole sweep: why.OfIn reads, never writes, what it is given.
	in := why.Input{Pods: make([]v1.Pod, len(live)), KeyOf: podgroup.KeyOf}
	for i, pod := range live {
		in.Pods[i] = *pod
	}
	nodes, err := p.nodes.List(labels.Everything())
	if err != nil {
		p.logger.Error(err, "Listing nodes from the cache")
		return
	}
	in.Nodes = make([]v1.Node, len(nodes))
	for i, n := range nodes {
		in.Nodes[i] = *n
	}
	if p.quotas != nil {
		qs, _ := p.quotas.List(labels.Everything())
		in.Quotas = make([]v1alpha1.ElasticQuota, len(qs))
		for i, q := range qs {
			in.Quotas[i] = *q
		}
	}
	groupsOf := map[string][]*podgroup.Group{}
	// The room on each node is counted once a sweep (per GPU resource names, which profiles may
	// set apart): it is most of an answer's cost.
	rooms := map[gpu.ResourceNames]*why.Room{}
	for _, c := range waiting {
		if ctx.Err() != nil {
			return
		}
		p.checked[c.pod.UID] = now
		in.Pod = c.pod
		in.Groups = nil
		if _, ok := podgroup.KeyOf(c.pod); ok && p.groups != nil {
			ns := c.pod.Namespace
			if _, ok := groupsOf[ns]; !ok {
				groupsOf[ns], _ = p.groups.List(ns)
			}
			in.Groups = groupsOf[ns]
		}
		in.Resources = gpu.ProfileResourceNames(c.profile.key)
		in.Levels = c.profile.levels
		room, ok := rooms[in.Resources]
		if !ok {
			room = why.RoomOf(in)
			rooms[in.Resources] = room
		}
		w, err := answer(in, room)
		if err != nil {
			p.logger.Error(err, "Skipping a pod whose wait cannot be explained", "pod", klog.KObj(c.pod))
			continue
		}
		if w.Cause == why.CauseNotPending {
			continue
		}
		p.publish(ctx, c, w.Cause, Short(w, p.cfg.MaxMessage))
	}
}

// answer is why.OfIn, with a panic on input it did not foresee (a malformed object) turned into an
// error: one pod's answer never stops the scheduler.
func answer(in why.Input, room *why.Room) (w *why.Answer, err error) {
	defer func() {
		if r := recover(); r != nil {
			w, err = nil, fmt.Errorf("explaining the pod panicked: %v", r)
		}
	}()
	return why.OfIn(in, room), nil
}

// publish writes the condition and the event, unless the pod already has this answer, or this
// process wrote it and the cache has not seen the write yet.
func (p *publisher) publish(ctx context.Context, c candidate, reason, message string) {
	key := reason + "\x00" + message
	if cur := conditionOf(c.pod); cur != nil && cur.Status == v1.ConditionTrue && cur.Reason == reason && cur.Message == message {
		p.last[c.pod.UID] = key
		return
	}
	if p.last[c.pod.UID] == key {
		return
	}
	now := metav1.NewTime(p.now())
	patch, err := json.Marshal(map[string]any{
		// The uid makes the patch fail on a pod deleted and created again under the same name.
		"metadata": map[string]any{"uid": c.pod.UID},
		"status": map[string]any{"conditions": []v1.PodCondition{{
			Type: ConditionType, Status: v1.ConditionTrue, Reason: reason, Message: message, LastTransitionTime: now,
		}}},
	})
	if err != nil {
		p.logger.Error(err, "Encoding the condition", "pod", klog.KObj(c.pod))
		return
	}
	// A strategic merge patch keyed by condition type: the scheduler's PodScheduled and the
	// kubelet's conditions are left as they are.
	_, err = p.client.CoreV1().Pods(c.pod.Namespace).Patch(ctx, c.pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		p.logger.V(4).Info("The pod went before its wait was published", "pod", klog.KObj(c.pod), "err", err)
		return
	case err != nil:
		p.logger.Error(err, "Publishing why a pod waits", "pod", klog.KObj(c.pod), "cause", reason)
		return
	}
	p.last[c.pod.UID] = key
	c.profile.recorder.Eventf(c.pod, nil, v1.EventTypeNormal, EventReason, "Waiting", "%s", message)
	p.logger.V(4).Info("Published why a pod waits", "pod", klog.KObj(c.pod), "cause", reason, "message", message)
}

// conditionOf returns the pod's ConditionType condition, or nil.
func conditionOf(pod *v1.Pod) *v1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == ConditionType {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// waitingSince is when the pod began to wait: when the scheduler first found it unschedulable
// (its PodScheduled=False condition's transition), or its creation if it has no such condition.
func waitingSince(pod *v1.Pod) time.Time {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return pod.CreationTimestamp.Time
}

// Short is the answer in at most max bytes: the cause, its summary with the numbers, and the
// first thing that would unblock the pod.
func Short(w *why.Answer, max int) string {
	s := w.Cause + ": " + w.Summary
	if len(w.Unblock) > 0 {
		s += "; would unblock: " + w.Unblock[0]
	}
	return truncate(s, max)
}

// truncate cuts s to at most max bytes on a rune boundary, marking the cut.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const mark = "..."
	cut := max - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
