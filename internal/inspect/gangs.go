package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/pkg/podgroup"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/pkg/why"
)

// Gangs is PodGroups, scheduler-plugins' (scheduling.x-k8s.io/v1alpha1) and Kubernetes' own
// (scheduling.k8s.io/v1beta1), and how far their members have got.
type Gangs struct {
	Groups []Gang `json:"groups"`
	// AllNamespaces adds the namespace to the table, as kubectl does with -A.
	AllNamespaces bool `json:"-"`
	// Unlisted names the groups that could not be read: native PodGroups the user may not list.
	Unlisted []string `json:"-"`
}

// Warnings is Unlisted, for the command to print on standard error.
func (r *Gangs) Warnings() []string { return r.Unlisted }

// Gang is one PodGroup. The phase is what the scheduler last wrote on the PodGroup; the counts are
// read from the member pods, so they are current even when the status lags.
type Gang struct {
	Namespace string `json:"namespace"`
	// Name is the PodGroup's name; a native PodGroup's is prefixed "scheduling.k8s.io/", as
	// berth's messages name it (podgroup.NativeKey).
	Name string `json:"name"`
	// Phase is the PodGroup's status.phase, or, for a native PodGroup, the reason of the
	// condition berth writes there (podgroup.PlacementCondition); empty while no scheduler has
	// written it, and for a group whose PodGroup does not exist (Missing).
	Phase podgroup.Phase `json:"phase"`
	// MinMember is the members the scheduler waits for (podgroup.Group's): an unset minMember
	// counts as 1; a native PodGroup's schedulingPolicy.gang.minCount, 1 for a basic one.
	MinMember int32 `json:"minMember"`
	// Missing is set when pods name the group but its PodGroup does not exist.
	Missing bool `json:"missing,omitempty"`
	// Members counts the group's members as Gang counts them (podgroup.Live): pods labelled with
	// the group, or naming it in spec.schedulingGroup, that have not finished and are not being
	// deleted.
	Members int `json:"members"`
	// Placed and Running count the members bound to a node and running.
	Placed  int `json:"placed"`
	Running int `json:"running"`
	// Succeeded and Failed count the pods of the group that have finished, which are no longer
	// members.
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// Waiting are the members not bound to a node, with why.
	Waiting []why.WaitingPod `json:"waiting"`
	// Topology is set when the PodGroup asks for a topology level (gangtopology.go).
	Topology *GangTopology `json:"topology,omitempty"`
}

// GangsOf builds the report from pod groups of either API, pods (those of no group are ignored)
// and events (only those about waiting pods are read).
func GangsOf(groups []*podgroup.Group, pods []v1.Pod, events []eventsv1.Event) *Gangs {
	latest := why.LatestEvents(events)
	byKey := map[types.NamespacedName]*Gang{}
	r := &Gangs{}
	for _, pg := range groups {
		byKey[pg.Key] = &Gang{
			Namespace: pg.Key.Namespace, Name: pg.Key.Name, Phase: pg.Phase, MinMember: pg.MinMember, Waiting: []why.WaitingPod{},
		}
	}
	for i := range pods {
		p := &pods[i]
		key, ok := podgroup.APIKeyOf(p)
		if !ok {
			continue
		}
		g := byKey[key]
		if g == nil {
			g = &Gang{Namespace: p.Namespace, Name: key.Name, Missing: true, Waiting: []why.WaitingPod{}}
			byKey[key] = g
		}
		switch p.Status.Phase {
		case v1.PodSucceeded:
			g.Succeeded++
		case v1.PodFailed:
			g.Failed++
		}
		if !podgroup.Live(p) {
			continue
		}
		g.Members++
		if p.Status.Phase == v1.PodRunning {
			g.Running++
		}
		if p.Spec.NodeName != "" {
			g.Placed++
			continue
		}
		g.Waiting = append(g.Waiting, why.WaitingOf(p, latest[p.UID]))
	}
	for _, g := range byKey {
		sort.Slice(g.Waiting, func(i, j int) bool { return g.Waiting[i].Name < g.Waiting[j].Name })
		r.Groups = append(r.Groups, *g)
	}
	sort.Slice(r.Groups, func(i, j int) bool {
		if r.Groups[i].Namespace != r.Groups[j].Namespace {
			return r.Groups[i].Namespace < r.Groups[j].Namespace
		}
		return r.Groups[i].Name < r.Groups[j].Name
	})
	if r.Groups == nil {
		r.Groups = []Gang{}
	}
	return r
}

// ListGangs reads the report from the cluster, in namespace ns (all namespaces if empty), reading
// topology domains by the shipped profile's levels.
func ListGangs(ctx context.Context, client kubernetes.Interface, groups versioned.Interface, ns string) (*Gangs, error) {
	return ListGangsByLevels(ctx, client, groups, ns, topology.DefaultLevels())
}

// ListGangsByLevels is ListGangs reading topology domains by levels, the scheduler's
// topologyLevels (outermost first), as Gang reads them.
func ListGangsByLevels(ctx context.Context, client kubernetes.Interface, groups versioned.Interface, ns string, levels topology.Levels) (*Gangs, error) {
	all, err := pluginsGroups(ctx, groups, ns)
	if err != nil {
		return nil, err
	}
	natives, served, err := nativeGroups(ctx, client, ns)
	// A user may be allowed scheduler-plugins' groups and not the native ones: those are left out
	// and named, as kubectl leaves out what it may not read.
	var unlisted []string
	if apierrors.IsForbidden(err) {
		var status apierrors.APIStatus
		errors.As(err, &status)
		unlisted = append(unlisted, fmt.Sprintf("native PodGroups (%s) not shown: %s", schedulingv1beta1.SchemeGroupVersion, status.Status().Message))
	} else if err != nil {
		return nil, err
	}
	all = append(all, natives...)
	// No selector finds a native group's pods (spec.schedulingGroup): where the API serves native
	// groups, every pod of ns is read.
	opts := metav1.ListOptions{LabelSelector: v1alpha1.PodGroupLabel}
	if served {
		opts = metav1.ListOptions{}
	}
	pods, err := client.CoreV1().Pods(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	events, err := client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing events: %w", err)
	}
	r := GangsOf(all, pods.Items, events.Items)
	r.AllNamespaces = ns == metav1.NamespaceAll
	r.Unlisted = unlisted
	if err := r.listTopology(ctx, client, all, pods.Items, levels); err != nil {
		return nil, err
	}
	return r, nil
}

// pluginsGroups lists the scheduler-plugins PodGroups of ns, each as Gang reads it
// (podgroup.FromPlugins).
func pluginsGroups(ctx context.Context, groups versioned.Interface, ns string) ([]*podgroup.Group, error) {
	list, err := groups.SchedulingV1alpha1().PodGroups(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing PodGroups (is the %s CRD installed?): %w", v1alpha1.SchemeGroupVersion, err)
	}
	out := make([]*podgroup.Group, len(list.Items))
	for i := range list.Items {
		out[i] = podgroup.FromPlugins(&list.Items[i])
	}
	return out, nil
}

// nativeGroups lists the native PodGroups (scheduling.k8s.io/v1beta1) of ns, each as Gang reads it
// (podgroup.FromNative); served is false where the apiserver does not serve them (GenericWorkload
// off), which is no error.
func nativeGroups(ctx context.Context, client kubernetes.Interface, ns string) (groups []*podgroup.Group, served bool, err error) {
	list, err := client.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("listing PodGroups (%s): %w", schedulingv1beta1.SchemeGroupVersion, err)
	}
	for i := range list.Items {
		groups = append(groups, podgroup.FromNative(&list.Items[i]))
	}
	return groups, true, nil
}

// WriteTable prints one row per group, then each waiting member with the scheduler's reason. Wide
// adds failed members and when the reason was given.
func (r *Gangs) WriteTable(w io.Writer, wide bool) error {
	if len(r.Groups) == 0 {
		_, err := fmt.Fprintln(w, "No pod groups found.")
		return err
	}
	header := []string{"NAME", "PHASE", "MINMEMBER", "MEMBERS", "PLACED", "RUNNING", "SUCCEEDED", "WAITING"}
	if wide {
		header = append(header, "FAILED")
	}
	topo := r.hasTopology()
	if topo {
		header = append(header, "TOPOLOGY")
	}
	if r.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := newTable(w, header...)
	waiting := 0
	for _, g := range r.Groups {
		phase, minMember := string(g.Phase), strconv.Itoa(int(g.MinMember))
		if g.Missing {
			phase, minMember = "<no PodGroup>", "<none>"
		}
		cells := []string{g.Name, orNone(phase), minMember, strconv.Itoa(g.Members), strconv.Itoa(g.Placed),
			strconv.Itoa(g.Running), strconv.Itoa(g.Succeeded), strconv.Itoa(len(g.Waiting))}
		if wide {
			cells = append(cells, strconv.Itoa(g.Failed))
		}
		if topo {
			cells = append(cells, g.topologyCell())
		}
		if r.AllNamespaces {
			cells = append([]string{g.Namespace}, cells...)
		}
		t.row(cells...)
		waiting += len(g.Waiting)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if waiting == 0 {
		return nil
	}
	fmt.Fprintln(w)
	header = []string{"WAITING POD", "GROUP", "REASON", "MESSAGE"}
	if wide {
		header = append(header, "SINCE")
	}
	t = newTable(w, header...)
	for _, g := range r.Groups {
		group := g.Name
		if r.AllNamespaces {
			group = g.Namespace + "/" + g.Name
		}
		for _, p := range g.Waiting {
			reason, message := p.Reason, p.Message
			if reason == "" {
				reason, message = "<none>", "not tried by a scheduler yet"
			}
			cells := []string{p.Name, group, reason, message}
			if wide {
				since := "<none>"
				if !p.Since.IsZero() {
					since = p.Since.UTC().Format(time.RFC3339)
				}
				cells = append(cells, since)
			}
			t.row(cells...)
		}
	}
	return t.flush()
}
