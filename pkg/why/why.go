// Package why answers "why is my pod pending" from API objects alone: the one thing that blocks a
// pod (a missing PodGroup, too few members, a full ElasticQuota, no domain with room, no node with
// room or with a GPU that has its share free, node constraints), with the numbers that show it and
// what would unblock it. berth-scheduler publishes its answers on pods that wait long
// (internal/waitreason); kubectl berth why reads the cluster and prints one (internal/inspect).
package why

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	"github.com/berth-sched/berth/pkg/amount"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/noderoom"
	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/podroom"
	"github.com/berth-sched/berth/pkg/quota"
	"github.com/berth-sched/berth/pkg/topology"
)

// Causes an Answer names, one per pod: the first that applies, in this order.
const (
	CauseNotPending      = "NotPending"      // bound, finished or being deleted: nothing blocks it
	CauseSchedulingGates = "SchedulingGates" // outside berth: whoever added the gates removes them
	CausePodGroupMissing = "PodGroupMissing" // the pod names a PodGroup that does not exist
	CauseGangMembers     = "GangMembers"     // fewer pods of the group exist than minMember
	CauseQuota           = "Quota"           // an ElasticQuota on the namespace's path is full
	CauseTopology        = "Topology"        // no domain of the level the group requires holds it
	CauseGang            = "Gang"            // the group's members do not fit together
	CauseGPUFragmented   = "GPUFragmentation"
	CauseNodeConstraints = "NodeConstraints" // no node passes selectors, affinity, taints, cordons
	CauseResources       = "Resources"       // no node it may use has room
	CauseNoScheduler     = "NoScheduler"     // outside berth: no scheduler has reported on it
	CauseFitsNow         = "FitsNow"         // berth's checks find room now: see the scheduler's word
)

// WaitingForCondition is the pod condition berth-scheduler publishes on a pod that has waited
// long (internal/waitreason): status True, reason one of the Cause constants, message the answer in
// short. It is written only when the answer changes, and left in place once the pod is bound.
const WaitingForCondition v1.PodConditionType = "berth.dev/WaitingFor"

// Answer is the answer to "why is my pod pending": the one thing that blocks it, with the numbers
// that show it, and what would unblock it. It is built from API objects only (the pod, nodes,
// pods, ElasticQuotas, PodGroups and events), as any client with read access could, never from a
// scheduler's memory; so it is an account of the cluster as it is now, which the scheduler's own
// latest word (Scheduler) confirms or, when it names something berth does not model, overrides.
type Answer struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Cause is one of the Cause constants.
	Cause string `json:"cause"`
	// Berth is set when the cause is one berth's plugins decide; otherwise it lies outside berth.
	Berth bool `json:"berth"`
	// Summary says the cause in one sentence, with its numbers.
	Summary string   `json:"summary"`
	Details []string `json:"details,omitempty"`
	// Unblock lists what would let the pod in, each on its own.
	Unblock []string `json:"unblock,omitempty"`
	// Preemption says what preempting lower-priority pods would do, or why it would not help;
	// empty where room is not what the pod lacks.
	Preemption string `json:"preemption,omitempty"`
	// Scheduler is the scheduler's latest word on the pod: its newest FailedScheduling or
	// GangWaiting event, or its PodScheduled=False condition, whichever is newer.
	Scheduler *WaitingPod `json:"scheduler,omitempty"`
	// Published is the answer berth-scheduler last published on the pod, its WaitingForCondition
	// (reason the cause, message the short answer, since when it was written); nil if none.
	Published *WaitingPod `json:"published,omitempty"`
}

// Input is what an Answer is built from: the pod, every node, every pod in the cluster (for the room
// on each node and the use of each quota), every ElasticQuota, the PodGroups of the pod's
// namespace, the events about the pod, and the GPU resources GPUShare is configured with.
type Input struct {
	Pod    *v1.Pod
	Nodes  []v1.Node
	Pods   []v1.Pod
	Quotas []v1alpha1.ElasticQuota
	// Groups are the pod groups of the pod's namespace, of either API (podgroup.FromPlugins,
	// podgroup.FromNative).
	Groups []*podgroup.Group
	// KeyOf finds a pod's group as the scheduler does: berth-scheduler passes podgroup.KeyOf,
	// which follows its own GenericWorkload gate; nil is podgroup.APIKeyOf, the group the pod
	// names in the API (kubectl berth, whose own gate says nothing of the scheduler's).
	KeyOf     func(*v1.Pod) (types.NamespacedName, bool)
	Events    []eventsv1.Event
	Resources gpu.ResourceNames
	// Levels are the scheduler's topologyLevels, outermost first; nil reads the shipped default.
	Levels topology.Levels
}

// Of answers for in.Pod.
func Of(in Input) *Answer {
	return OfIn(in, nil)
}

// Room is the room on each node of an Input (its Nodes, Pods and Resources), counted once to
// answer many pending pods of it: counting it is most of an answer's cost (each pod's request
// parsed), and a publisher answering pods in turn (internal/waitreason) shares it.
type Room struct{ c *cluster }

// RoomOf counts the room of in's Nodes and Pods by in.Resources; in.Pod is not read.
func RoomOf(in Input) *Room {
	in.Pod = nil
	return &Room{c: newCluster(in)}
}

// OfIn is Of on room, counted by RoomOf from the same Nodes, Pods, Resources and KeyOf as in;
// nil counts it. Nothing in room is changed, so it may answer any number of pods in turn.
func OfIn(in Input, room *Room) *Answer {
	p := in.Pod
	w := &Answer{Namespace: p.Namespace, Name: p.Name}
	if e, word := LatestEvents(in.Events)[p.UID], WaitingOf(p, nil); e != nil || word.Reason != "" {
		word = WaitingOf(p, e)
		w.Scheduler = &word
	}
	for _, c := range p.Status.Conditions {
		if c.Type == WaitingForCondition && c.Status == v1.ConditionTrue {
			w.Published = &WaitingPod{Name: p.Name, Reason: c.Reason, Message: c.Message, Since: c.LastTransitionTime}
		}
	}
	switch {
	case p.Spec.NodeName != "":
		w.Cause, w.Summary = CauseNotPending, fmt.Sprintf("not pending: bound to node %s", p.Spec.NodeName)
		return w
	case !podroom.Holds(p):
		w.Cause, w.Summary = CauseNotPending, fmt.Sprintf("not pending: it has finished (%s)", p.Status.Phase)
		return w
	case p.DeletionTimestamp != nil:
		w.Cause, w.Summary = CauseNotPending, "not pending: it is being deleted"
		return w
	case len(p.Spec.SchedulingGates) > 0:
		var gates []string
		for _, g := range p.Spec.SchedulingGates {
			gates = append(gates, g.Name)
		}
		w.Cause = CauseSchedulingGates
		w.Summary = fmt.Sprintf("held outside berth by scheduling gates %s: no scheduler considers it until they are removed", strings.Join(gates, ", "))
		w.Unblock = []string{"whoever added the gates (a queueing controller, an operator) removes them"}
		return w
	}

	var c *cluster
	if room == nil {
		c = newCluster(in)
	} else {
		c = &cluster{in: in, nodes: room.c.nodes, pods: room.c.pods, requests: room.c.requests, groups: room.c.groups}
	}
	req, err := quota.RequestOf(p, in.Resources.Memory)
	if err != nil {
		w.Cause, w.Berth = CauseResources, true
		w.Summary = fmt.Sprintf("its GPU request cannot be read: %v", err)
		return w
	}
	greq, _ := gpu.RequestOf(p, in.Resources.Memory)
	need := noderoom.NeedOf(p)

	var gang *gangState
	if key, ok := c.keyOf(p); ok {
		gang = c.gangOf(key, in.Groups)
		t := termsOf(key)
		if gang.pg == nil {
			w.Cause, w.Berth = CausePodGroupMissing, true
			w.Summary = fmt.Sprintf("its pod group %s does not exist (%s): Gang holds every pod of a group until its PodGroup exists", key, t.join)
			w.Unblock = []string{fmt.Sprintf("create %s, or %s", t.create, t.leave)}
			return w
		}
		if n := int32(len(gang.members)); n < gang.minMember {
			w.Cause, w.Berth = CauseGangMembers, true
			w.Summary = fmt.Sprintf("pod group %s needs %d pods (%s) and %d exist: %d missing", key, gang.minMember, t.min, n, gang.minMember-n)
			w.Details = []string{fmt.Sprintf("members: %d bound, %d waiting", len(gang.bound), len(gang.waiting))}
			w.Unblock = []string{fmt.Sprintf("create %d more pods with %s, or %s", gang.minMember-n, t.join, fmt.Sprintf(t.lowered, n))}
			return w
		}
	}

	if c.quotaBlocks(w, req, gang) {
		return w
	}

	if gang != nil {
		if c.topologyBlocks(w, gang) {
			return w
		}
		c.explainGang(w, gang)
		return w
	}
	fits := c.judge(p, need, greq)
	if fits.fitting != "" {
		c.explainFits(w, fits)
		return w
	}
	c.explainNoRoom(w, p, need, greq, fits)
	return w
}

// groupTerms are the words of a group's API that an answer uses.
type groupTerms struct {
	join   string // how a pod joins the group
	min    string // the field of the group's quorum
	create string // what creates the group
	leave  string // what takes a pod out of it
	// lowered is the quorum lowered, a format of the new quorum.
	lowered string
}

// termsOf is the words of key's API: scheduler-plugins' PodGroup, or the native one, whose
// schedulingPolicy and pods' spec.schedulingGroup cannot be changed once created.
func termsOf(key types.NamespacedName) groupTerms {
	if name, native := podgroup.NativeName(key); native {
		return groupTerms{
			join:    "spec.schedulingGroup.podGroupName " + name,
			min:     "minCount",
			create:  fmt.Sprintf("PodGroup %s/%s (scheduling.k8s.io/v1beta1)", key.Namespace, name),
			leave:   "recreate the pod without spec.schedulingGroup",
			lowered: "the PodGroup recreated with schedulingPolicy.gang.minCount %d",
		}
	}
	return groupTerms{
		join:    fmt.Sprintf("label %s=%s", v1alpha1.PodGroupLabel, key.Name),
		min:     "minMember",
		create:  "PodGroup " + key.String(),
		leave:   "remove the label from the pod",
		lowered: "the PodGroup's minMember lowered to %d",
	}
}

// keyOf finds p's group by in.KeyOf.
func (c *cluster) keyOf(p *v1.Pod) (types.NamespacedName, bool) {
	if c.in.KeyOf != nil {
		return c.in.KeyOf(p)
	}
	return podgroup.APIKeyOf(p)
}

// cluster is the room on each node, as the API shows it now.
type cluster struct {
	in    Input
	nodes []*noderoom.Node
	// pods are the pods bound to a node that hold room there, for the quotas' use.
	pods []*v1.Pod
	// requests are the bound pods' quota requests, read once (nil: unreadable, counted as nothing).
	requests map[*v1.Pod]amount.Amount
	// groups indexes in.Pods by group, once for every answer on the same Room: a publisher answers
	// many members of many groups in one sweep, and a scan of every pod per member was most of its
	// cost while a deep backlog of groups waited.
	groups *groupIndex
}

// groupIndex is the live pods of each group, in the order of in.Pods, built on first use.
type groupIndex struct {
	once  sync.Once
	byKey map[types.NamespacedName][]*v1.Pod
}

// membersOf is the live pods of in.Pods that join key, by c.keyOf; a Room's index is built by the
// KeyOf of the first answer on it, which OfIn's contract makes every answer's.
func (c *cluster) membersOf(key types.NamespacedName) []*v1.Pod {
	c.groups.once.Do(func() {
		c.groups.byKey = map[types.NamespacedName][]*v1.Pod{}
		for i := range c.in.Pods {
			p := &c.in.Pods[i]
			if k, ok := c.keyOf(p); ok && podgroup.Live(p) {
				c.groups.byKey[k] = append(c.groups.byKey[k], p)
			}
		}
	})
	return c.groups.byKey[key]
}

// requestOf is a bound pod's quota request, as newCluster read it; callers must not change it.
func (c *cluster) requestOf(p *v1.Pod) (amount.Amount, bool) {
	if v, ok := c.requests[p]; ok {
		return v, v != nil
	}
	v, err := quota.RequestOf(p, c.in.Resources.Memory)
	return v, err == nil
}

func newCluster(in Input) *cluster {
	c := &cluster{in: in, nodes: noderoom.Of(in.Nodes, in.Pods, in.Resources), requests: map[*v1.Pod]amount.Amount{}, groups: &groupIndex{}}
	for i := range in.Pods {
		p := &in.Pods[i]
		if p.Spec.NodeName == "" || !podroom.Holds(p) {
			continue
		}
		c.pods = append(c.pods, p)
		v, err := quota.RequestOf(p, in.Resources.Memory)
		if err != nil {
			v = nil
		}
		c.requests[p] = v
	}
	return c
}

// take subtracts a pod's request from the room, its GPU shares from the fullest GPUs that hold
// them, as Binpack places them.
func take(r *noderoom.Node, need amount.Amount, g gpu.Request) {
	r.Free.Add(need, -1)
	for range g.Count {
		best := -1
		for i, d := range r.GPUs {
			if d.Free >= g.PerDevice && (best < 0 || d.Free < r.GPUs[best].Free) {
				best = i
			}
		}
		if best >= 0 {
			r.GPUs[best].Free -= g.PerDevice
		}
	}
}

// short lists what the node lacks for need, "cpu (asks 4, 2 free)"; fragmented is set when its
// GPUs have the memory in total but not enough of it on few enough GPUs.
func short(r *noderoom.Node, need amount.Amount, g gpu.Request) (short []string, fragmented bool) {
	for _, name := range slices.Sorted(maps.Keys(need)) {
		if need[name] > 0 && need[name] > r.Free[name] {
			short = append(short, fmt.Sprintf("%s (asks %s, %s free)", name, amount.Text(name, need[name]), amount.Text(name, max(r.Free[name], 0))))
		}
	}
	if len(short) == 0 && g.Total > 0 && fittingGPUs(r, g.PerDevice) < g.Count {
		return nil, true
	}
	return short, false
}

func fittingGPUs(r *noderoom.Node, perDevice int64) int {
	n := 0
	for _, d := range r.GPUs {
		if d.Free >= perDevice {
			n++
		}
	}
	return n
}

func mostOnOneGPU(r *noderoom.Node) int64 {
	var most int64
	for i, d := range r.GPUs {
		if i == 0 || d.Free > most {
			most = d.Free
		}
	}
	return most
}

// excluded says why the pod may not run on the node whatever its room: cordoned, its node selector
// or required node affinity, a taint it does not tolerate; "" if it may.
// comparisonOperators is noderoom.ComparisonOperators, read once per pod judged.
func excluded(p *v1.Pod, n *v1.Node, comparisonOperators bool) string {
	cordoned, taint := noderoom.Excluded(n, p.Spec.Tolerations, comparisonOperators)
	if cordoned {
		return "cordoned (spec.unschedulable)"
	}
	if len(p.Spec.NodeSelector) > 0 {
		if ok, _ := nodeaffinity.NewRequiredNodeAffinity(p.Spec.NodeSelector, nil).Match(n); !ok {
			return "nodeSelector " + selectorText(p.Spec.NodeSelector)
		}
	}
	if ok, _ := nodeaffinity.NewRequiredNodeAffinity(nil, p.Spec.Affinity).Match(n); !ok {
		return "required node affinity"
	}
	if taint != nil {
		return "taint " + taint.ToString()
	}
	return ""
}

func selectorText(sel map[string]string) string {
	parts := make([]string, 0, len(sel))
	for k, v := range sel {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// fit is what every node says about one pod.
type fit struct {
	// fitting is the first node (by name) with room now, "" if none.
	fitting string
	// excluded counts nodes by the constraint that keeps the pod off them.
	excluded map[string]int
	// short are the nodes it may use that lack room, each with what it lacks.
	short map[string][]string
	// fragmented are the nodes with the GPU memory in total but not on few enough GPUs.
	fragmented []*noderoom.Node
	usable     []*noderoom.Node
}

func (c *cluster) judge(p *v1.Pod, need amount.Amount, g gpu.Request) fit {
	f := fit{excluded: map[string]int{}, short: map[string][]string{}}
	comparisonOperators := noderoom.ComparisonOperators()
	for _, r := range c.nodes {
		if why := excluded(p, r.Node, comparisonOperators); why != "" {
			f.excluded[why]++
			continue
		}
		f.usable = append(f.usable, r)
		lacks, fragmented := short(r, need, g)
		switch {
		case fragmented:
			f.fragmented = append(f.fragmented, r)
		case len(lacks) > 0:
			f.short[r.Node.Name] = lacks
		case f.fitting == "":
			f.fitting = r.Node.Name
		}
	}
	return f
}

// excludedText counts the nodes each constraint keeps the pod off, most first.
func (f fit) excludedText() string {
	whys := make([]string, 0, len(f.excluded))
	for why := range f.excluded {
		whys = append(whys, why)
	}
	sort.Slice(whys, func(i, j int) bool {
		if f.excluded[whys[i]] != f.excluded[whys[j]] {
			return f.excluded[whys[i]] > f.excluded[whys[j]]
		}
		return whys[i] < whys[j]
	})
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = fmt.Sprintf("%s by %s", plural(f.excluded[why], "node"), why)
	}
	return strings.Join(parts, ", ")
}

// quotaBlocks fills w and reports true if a quota on the pod's path has no room for it (with its
// waiting siblings, for a gang member: Gang and ElasticQuota admit a group whole).
func (c *cluster) quotaBlocks(w *Answer, req amount.Amount, gang *gangState) bool {
	p := c.in.Pod
	ptrs := make([]*v1alpha1.ElasticQuota, len(c.in.Quotas))
	for i := range c.in.Quotas {
		ptrs[i] = &c.in.Quotas[i]
	}
	tree, _, invalid := quota.TreeOf(ptrs)
	if tree == nil {
		if len(invalid) > 0 {
			w.Details = append(w.Details, fmt.Sprintf("the ElasticQuotas do not form a valid tree (%s); the scheduler enforces the last valid one, which the API does not show: quotas not checked", invalid[0].Message))
		}
		return false
	}
	path := tree.Path(p.Namespace)
	if len(path) == 0 {
		return false
	}
	ask, who := req.Clone(), "the pod asks"
	if gang != nil && len(gang.waiting) > 1 {
		ask = amount.Amount{}
		for _, m := range gang.waiting {
			if v, err := quota.RequestOf(m, c.in.Resources.Memory); err == nil {
				ask.Add(v, 1)
			}
		}
		who = fmt.Sprintf("its group's %d waiting members ask", len(gang.waiting))
	}
	for _, q := range path {
		names := tree.Subtree(q.Spec.Name)
		used := amount.Amount{}
		var holders []*v1.Pod
		for _, o := range c.pods {
			if containsString(names, o.Namespace) {
				if v, ok := c.requestOf(o); ok {
					used.Add(v, 1)
					holders = append(holders, o)
				}
			}
		}
		for _, name := range sortedNames(q.Spec.Max) {
			limit := q.Spec.Max[name]
			if ask[name] == 0 || used[name]+ask[name] <= limit {
				continue
			}
			over := used[name] + ask[name] - limit
			w.Cause, w.Berth = CauseQuota, true
			w.Summary = fmt.Sprintf("ElasticQuota %s is full in %s: %s used of max %s, and %s %s; %s over",
				q.Spec.Name, name, amount.Text(name, used[name]), amount.Text(name, limit), who, amount.Text(name, ask[name]), amount.Text(name, over))
			if len(path) > 1 {
				w.Details = append(w.Details, "quota path: "+pathText(path))
			}
			if ask[name] > limit {
				w.Unblock = []string{fmt.Sprintf("nothing that ends makes room: it asks more than the max; raise %s's max %s to at least %s", q.Spec.Name, name, amount.Text(name, ask[name]))}
				return true
			}
			sort.SliceStable(holders, func(i, j int) bool {
				return requestOf(holders[i], name, c.in.Resources) > requestOf(holders[j], name, c.in.Resources)
			})
			var ending []string
			var freed int64
			for _, h := range holders {
				if freed >= over {
					break
				}
				if x := requestOf(h, name, c.in.Resources); x > 0 {
					freed += x
					ending = append(ending, fmt.Sprintf("%s/%s (%s)", h.Namespace, h.Name, amount.Text(name, x)))
				}
			}
			w.Unblock = []string{
				fmt.Sprintf("pods of quota %s end, freeing %s: %s", q.Spec.Name, amount.Text(name, over), strings.Join(ending, ", ")),
				fmt.Sprintf("or %s's max %s is raised to %s", q.Spec.Name, name, amount.Text(name, used[name]+ask[name])),
			}
			w.Preemption = "would not help: the quota's own pods fill its max, and berth reclaims only what other quotas borrowed, for a pod within its min"
			return true
		}
	}
	return false
}

func pathText(path []*quota.TreeQuota) string {
	names := make([]string, len(path))
	for i, q := range path {
		names[i] = q.Spec.Name
	}
	return strings.Join(names, " -> ")
}

func requestOf(p *v1.Pod, name v1.ResourceName, res gpu.ResourceNames) int64 {
	v, err := quota.RequestOf(p, res.Memory)
	if err != nil {
		return 0
	}
	return v[name]
}

func sortedNames(v amount.Amount) []v1.ResourceName {
	names := make([]v1.ResourceName, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// explainNoRoom: no node it may use has room. Fragmentation first (the most specific and the one a
// user can least see), then constraints that leave no node at all, then room.
func (c *cluster) explainNoRoom(w *Answer, p *v1.Pod, need amount.Amount, g gpu.Request, f fit) {
	w.Berth = true
	if ex := f.excludedText(); ex != "" {
		w.Details = append(w.Details, fmt.Sprintf("of %s, %s", plural(len(c.nodes), "node"), ex))
	}
	switch {
	case len(f.fragmented) > 0:
		c.explainFragmented(w, g, f.fragmented)
	case len(f.usable) == 0:
		w.Cause = CauseNodeConstraints
		w.Berth = false
		if len(c.nodes) == 0 {
			w.Summary = "the cluster has no nodes"
			return
		}
		w.Summary = fmt.Sprintf("no node passes its constraints: of %s, %s", plural(len(c.nodes), "node"), f.excludedText())
		w.Details = nil
		w.Unblock = []string{"a node that matches its nodeSelector and affinity and whose taints it tolerates (labels, tolerations or a new node)"}
		return
	default:
		w.Cause = CauseResources
		best := nearest(f.short)
		w.Summary = fmt.Sprintf("no node it may use has room: the nearest, node %s, lacks %s", best, strings.Join(f.short[best], ", "))
		if len(f.short) > 1 {
			for _, name := range sortedKeys(f.short) {
				w.Details = append(w.Details, fmt.Sprintf("node %s lacks %s", name, strings.Join(f.short[name], ", ")))
			}
		}
		if u := c.roomIfEnded(best, need); u != "" {
			w.Unblock = append(w.Unblock, u)
		}
		w.Unblock = append(w.Unblock, "a node with more room")
	}
	w.Preemption = preemption(p, need, g, f.usable)
}

// nearest is the node nearest to fitting: the one that lacks the fewest resources.
func nearest(short map[string][]string) string {
	best := ""
	for _, name := range sortedKeys(short) {
		if best == "" || len(short[name]) < len(short[best]) {
			best = name
		}
	}
	return best
}

// roomIfEnded names the pods on node whose end would give the pod room, largest first in the
// first resource the node lacks; "" if ending every pod there is not enough.
func (c *cluster) roomIfEnded(node string, need amount.Amount) string {
	for _, r := range c.nodes {
		if r.Node.Name != node {
			continue
		}
		var lacking v1.ResourceName
		for _, name := range slices.Sorted(maps.Keys(need)) {
			if need[name] > r.Free[name] {
				lacking = name
				break
			}
		}
		if lacking == "" {
			return ""
		}
		// held is what a pod holds of the lacking resource: a pod slot each, if that is it.
		held := func(p noderoom.Pod) int64 {
			if lacking == amount.Pods {
				return amount.One
			}
			return p.Request[lacking]
		}
		pods := slices.Clone(r.Pods)
		sort.SliceStable(pods, func(i, j int) bool { return held(pods[i]) > held(pods[j]) })
		room := r.Clone()
		var names []string
		for _, p := range pods {
			if held(p) == 0 {
				continue
			}
			room.Release(p)
			names = append(names, fmt.Sprintf("%s/%s (%s %s)", p.Pod.Namespace, p.Pod.Name, amount.Text(lacking, held(p)), lacking))
			if lacks, _ := short(room, need, gpu.Request{}); len(lacks) == 0 {
				return fmt.Sprintf("it fits on node %s if these pods end: %s", node, strings.Join(names, ", "))
			}
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// explainFragmented: a node has the GPU memory in total, but not on few enough GPUs. It names the
// node with the most on one GPU, and the fewest pods whose end would make a GPU large enough.
func (c *cluster) explainFragmented(w *Answer, g gpu.Request, nodes []*noderoom.Node) {
	w.Cause = CauseGPUFragmented
	best := nodes[0]
	most := mostOnOneGPU(best)
	for _, r := range nodes[1:] {
		if m := mostOnOneGPU(r); m > most {
			best, most = r, m
		}
	}
	var total int64
	for _, d := range best.GPUs {
		total += max(d.Free, 0)
	}
	if g.Count == 1 {
		w.Summary = fmt.Sprintf("it fits in total on node %s (%d free over %s), but no GPU has %d free; the most on one GPU is %d",
			best.Node.Name, total, plural(len(best.GPUs), "GPU"), g.PerDevice, most)
	} else {
		w.Summary = fmt.Sprintf("it fits in total on node %s (%d free over %s), but it asks %d GPUs with %d each and only %s that much free; the most on one GPU is %d",
			best.Node.Name, total, plural(len(best.GPUs), "GPU"), g.Count, g.PerDevice, gpusHave(fittingGPUs(best, g.PerDevice)), most)
	}
	if len(nodes) > 1 {
		w.Details = append(w.Details, fmt.Sprintf("%s are fragmented the same way", plural(len(nodes), "node")))
	}
	// The single pod whose end lets the request in, smallest first: the cheapest way out.
	type way struct {
		node  string
		gpu   int
		share noderoom.Share
	}
	var ways []way
	for _, r := range nodes {
		for i, d := range r.GPUs {
			for _, s := range d.Shares {
				// A GPU that already has room gains the pod nothing by another pod's end.
				if d.Free < g.PerDevice && d.Free+s.Memory >= g.PerDevice && fittingGPUs(r, g.PerDevice)+1 >= g.Count {
					ways = append(ways, way{r.Node.Name, i, s})
				}
			}
		}
	}
	sort.SliceStable(ways, func(i, j int) bool { return ways[i].share.Memory < ways[j].share.Memory })
	for i, wy := range ways {
		if i == 3 {
			break
		}
		w.Unblock = append(w.Unblock, fmt.Sprintf("it fits if pod %s/%s (%d on GPU %d of node %s) ends",
			wy.share.Pod.Namespace, wy.share.Pod.Name, wy.share.Memory, wy.gpu, wy.node))
	}
	if len(ways) == 0 {
		w.Unblock = append(w.Unblock, fmt.Sprintf("more than one pod must end on one GPU of node %s, or a GPU with %d free must appear", best.Node.Name, g.PerDevice))
	}
}

// preemption says what evicting lower-priority pods would do on the nodes the pod may use.
func preemption(p *v1.Pod, need amount.Amount, g gpu.Request, usable []*noderoom.Node) string {
	if p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy == v1.PreemptNever {
		return "off for this pod (preemptionPolicy: Never): it waits for room to be freed"
	}
	prio := corev1helpers.PodPriority(p)
	if n := p.Status.NominatedNodeName; n != "" {
		return fmt.Sprintf("under way: the scheduler nominated node %s and waits for its victims to end", n)
	}
	lower := 0
	for _, r := range usable {
		room := r.Clone()
		var victims []string
		cands := slices.Clone(r.Pods)
		sort.SliceStable(cands, func(i, j int) bool {
			return corev1helpers.PodPriority(cands[i].Pod) < corev1helpers.PodPriority(cands[j].Pod)
		})
		for _, v := range cands {
			if corev1helpers.PodPriority(v.Pod) >= prio {
				break
			}
			lower++
			victims = append(victims, v.Pod.Namespace+"/"+v.Pod.Name)
			room.Release(v)
			if lacks, frag := short(room, need, g); len(lacks) == 0 && !frag {
				return fmt.Sprintf("would make room on node %s by evicting %s of lower priority (%s); berth keeps a running gang whole and reclaims quota only where it was borrowed, so it may still refuse these victims: see the scheduler's word",
					r.Node.Name, plural(len(victims), "pod"), strings.Join(victims, ", "))
			}
		}
	}
	if lower == 0 {
		return fmt.Sprintf("would not help: no pod of lower priority than %d runs on the nodes it may use", prio)
	}
	return fmt.Sprintf("would not help: even with all %s of lower priority than %d gone, no node it may use has room", plural(lower, "pod"), prio)
}

// explainFits: berth's checks find room. The scheduler has either not tried since the room
// appeared, or turned it away for something berth does not model; its own word says which.
func (c *cluster) explainFits(w *Answer, f fit) {
	if w.Scheduler == nil {
		w.Cause = CauseNoScheduler
		w.Summary = fmt.Sprintf("no scheduler has reported on it yet, though node %s has room: is a scheduler named %q running?", f.fitting, c.in.Pod.Spec.SchedulerName)
		return
	}
	w.Cause = CauseFitsNow
	w.Summary = fmt.Sprintf("node %s has room for it now as berth counts it (resources, GPUs, selectors, taints, quota); the scheduler's last word was: %s", f.fitting, w.Scheduler.Message)
	w.Details = append(w.Details, "room that appeared since the scheduler's last try is taken at its next one; a cause it names that is not room (volumes, ports, inter-pod affinity, topology spread) lies outside berth")
}

// gangState is a pod group as its members show it.
type gangState struct {
	name      types.NamespacedName
	key       string
	pg        *podgroup.Group
	minMember int32
	members   []*v1.Pod
	bound     []*v1.Pod
	waiting   []*v1.Pod
}

func (c *cluster) gangOf(key types.NamespacedName, groups []*podgroup.Group) *gangState {
	g := &gangState{name: key, key: key.String()}
	for _, pg := range groups {
		if pg.Key == key {
			g.pg, g.minMember = pg, pg.MinMember
		}
	}
	self := c.in.Pod
	// Members as Gang counts them (podgroup.Live): one being deleted is gone for the group, though
	// its room stays taken (noderoom.Of) until the kubelet has stopped it.
	add := func(p *v1.Pod) {
		g.members = append(g.members, p)
		if p.Spec.NodeName != "" {
			g.bound = append(g.bound, p)
		} else {
			g.waiting = append(g.waiting, p)
		}
	}
	if k, ok := c.keyOf(self); ok && k == key && podgroup.Live(self) {
		add(self)
	}
	for _, p := range c.membersOf(key) {
		if p.UID != self.UID {
			add(p)
		}
	}
	sort.SliceStable(g.waiting, func(i, j int) bool {
		return g.waiting[i].CreationTimestamp.Before(&g.waiting[j].CreationTimestamp)
	})
	return g
}

// explainGang places the group's waiting members one after another on the room there is, as Gang
// needs them placed together, and says how many fit and what the first that does not lacks.
func (c *cluster) explainGang(w *Answer, g *gangState) {
	w.Cause, w.Berth = CauseGang, true
	rooms := make([]*noderoom.Node, len(c.nodes))
	for i, r := range c.nodes {
		rooms[i] = r.Clone()
	}
	placeable := 0
	var lacking *v1.Pod
	var lacks fit
	for _, m := range g.waiting {
		if len(m.Spec.SchedulingGates) > 0 {
			continue
		}
		greq, err := gpu.RequestOf(m, c.in.Resources.Memory)
		if err != nil {
			continue
		}
		need := noderoom.NeedOf(m)
		sub := &cluster{in: c.in, nodes: rooms, pods: c.pods, requests: c.requests}
		f := sub.judge(m, need, greq)
		if f.fitting == "" {
			if lacking == nil {
				lacking, lacks = m, f
			}
			continue
		}
		for _, r := range rooms {
			if r.Node.Name == f.fitting {
				take(r, need, greq)
			}
		}
		placeable++
	}
	bound := len(g.bound)
	need := int(g.minMember) - bound
	t := termsOf(g.name)
	w.Details = append(w.Details, fmt.Sprintf("members: %d bound, %d waiting, %d placeable now together", bound, len(g.waiting), placeable))
	if placeable >= need {
		w.Summary = fmt.Sprintf("pod group %s fits now: %d of its %d (%s) bound and %d more placeable together; Gang places it whole at its next try",
			g.key, bound, g.minMember, t.min, placeable)
		w.Details = append(w.Details, "a group that failed a round stands aside for a backoff first: its GangWaiting events and the PodGroup's status say for how long")
		return
	}
	missing := need - placeable
	w.Summary = fmt.Sprintf("pod group %s needs %d (%s) placed together: %d bound, %d more placeable now, %d lack room",
		g.key, g.minMember, t.min, bound, placeable, missing)
	if lacking != nil {
		why := &Answer{}
		need := noderoom.NeedOf(lacking)
		greq, _ := gpu.RequestOf(lacking, c.in.Resources.Memory)
		sub := &cluster{in: Input{Pod: lacking, Resources: c.in.Resources}, nodes: rooms, pods: c.pods, requests: c.requests}
		sub.explainNoRoom(why, lacking, need, greq, lacks)
		w.Details = append(w.Details, fmt.Sprintf("member %s, once the others are placed: %s", lacking.Name, why.Summary))
		w.Unblock = []string{fmt.Sprintf("room for %d more %s as large as %s (%s)", missing, pluralWord(missing, "member"), lacking.Name, need.String())}
		if why.Cause == CauseGPUFragmented {
			w.Unblock = why.Unblock
		}
		w.Unblock = append(w.Unblock, fmt.Sprintf("or %s, what fits now", fmt.Sprintf(t.lowered, bound+placeable)))
		w.Preemption = why.Preemption
	}
}

// gpusHave is "1 GPU has" or "n GPUs have".
func gpusHave(n int) string {
	if n == 1 {
		return "1 GPU has"
	}
	return fmt.Sprintf("%d GPUs have", n)
}

// plural is n what, plural unless n is 1: "1 node", "2 nodes".
func plural(n int, what string) string { return fmt.Sprintf("%d %s", n, pluralWord(n, what)) }

func pluralWord(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}
