package backlog

import (
	"cmp"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	pgclient "sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/internal/registry"
	"github.com/berth-sched/berth/pkg/topology"
	"github.com/berth-sched/berth/pkg/why"
	"github.com/berth-sched/berth/test/harness"
)

// backlogSize is the Backlog workload's shape: groups of groupSize one-CPU members and GPU pods,
// all waiting on a full cluster, then tries times room for 10 groups appears, made by each of
// backlogEvents in turn.
type backlogSize struct {
	groups, gpuPods, tries int
	quiet                  time.Duration
}

const (
	backlogGroupSize   = 4
	backlogRoomGroups  = 10
	backlogLabelKind   = "bench.berth.io/kind"
	backlogLabelGang   = "bench.berth.io/gang"
	backlogLabelFree   = "bench.berth.io/free"
	backlogBerthName   = "berth-scheduler"
	backlogStockName   = "default-scheduler"
	backlogSpareNodes  = 10 // full CPU nodes never freed
	backlogGPUNodes    = 10
	backlogGPUPerNode  = 16
	backlogGPUPodShare = 8
	// A rack group's members each take one whole node of its rack (backlogRackGPUs GPUs): its
	// racks hold backlogRackSize nodes, one of which a filler holds until the rack try.
	backlogRackSize  = 3
	backlogRackGPUs  = 8
	backlogLabelRack = "bench.berth.io/rack"
	backlogGPU       = v1.ResourceName("nvidia.com/gpu")
)

var (
	backlogFull = backlogSize{groups: 1000, gpuPods: 2000, tries: 5, quiet: time.Minute}
	// More groups than the tries bind, so that younger groups could take the room.
	backlogShort = backlogSize{groups: 60, gpuPods: 20, tries: 5, quiet: 5 * time.Second}
)

// backlogEvents are the ways room for 10 groups appears, one per try in turn (issue 42: a waiting
// group takes room the moment it appears, whatever made it): 10 filler pods deleted (force, no
// grace), 10 filler pods finished (phase Succeeded, as a kubelet reports a completed pod), 10
// nodes joined (created, then their status), 10 nodes that become ready (their not-ready taint
// removed, as the node lifecycle controller does once the kubelet reports Ready), and, under
// berth, 10 racks freed: in each of 10 racks of 3 GPU nodes, the filler another scheduler bound
// by name to one node deleted (force, no grace), while 10 groups of 3 members that each need a
// whole node and require one rack (berth.dev/topology-required) wait beside the backlog (issue
// 42, fault 2). Stock has no rack constraint on scheduler-plugins' PodGroups: it repeats the
// first kinds instead.
var backlogEvents = []string{"deleted", "finished", "joined", "ready", "rack"}

func backlogEvent(berth bool, try int) string {
	kinds := backlogEvents
	if !berth {
		kinds = kinds[:len(kinds)-1]
	}
	return kinds[try%len(kinds)]
}

// rackNode is node i of rack r of a rack try: a whole-GPU node that only rack groups tolerate, so
// that the backlog's groups neither fit it nor count its room.
func rackNode(try, r, i int) *v1.Node {
	n := harness.Node(fmt.Sprintf("rack-%d-%02d-%d", try, r, i), "4", "16Gi", v1.ResourceList{backlogGPU: *resource.NewQuantity(backlogRackGPUs, resource.DecimalSI)})
	n.Labels[topology.ZoneLabel] = "z1"
	n.Labels[topology.BlockLabel] = fmt.Sprintf("b%d", try)
	n.Labels[topology.RackLabel] = fmt.Sprintf("r%02d", r)
	n.Spec.Taints = []v1.Taint{{Key: backlogLabelRack, Effect: v1.TaintEffectNoSchedule}}
	return n
}

// rackPod is a pod that takes a whole rack node.
func rackPod(ns, name, kind string) *v1.Pod {
	c := harness.Container("c", "1", "64Mi")
	c.Resources.Limits[backlogGPU] = *resource.NewQuantity(backlogRackGPUs, resource.DecimalSI)
	p := backlogPod(ns, name, kind, c)
	p.Spec.Tolerations = []v1.Toleration{{Key: backlogLabelRack, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	return p
}

// labelFilter bears the name of scheduler_perf's flag, which hack/bench.sh passes to the benchmark
// binaries alike: "short" runs BenchmarkBacklog tiny, as it runs the harness's workloads.
var labelFilter = flag.String("perf-scheduling-label-filter", "performance", "short runs BenchmarkBacklog at its short size")

// BenchmarkBacklog is issue 28's measure of a big backlog on a real apiserver (etcd and
// kube-apiserver processes) with the scheduler as its own process: a full cluster, 1,000 groups
// of 4 one-CPU pods and 2,000 GPU pods waiting, then room for 10 groups appears, 5 times, by each
// of backlogEvents in turn (pods deleted, pods finished, nodes joined, nodes ready, and under
// berth a rack freed for a rack-required group; stock deletes pods again). Berth runs bin/berth-scheduler with the shipped profile and scheduler-plugins' PodGroups; Stock runs
// bin/kube-scheduler with 1.37's native gangs (GenericWorkload, scheduling.k8s.io/v1beta1
// PodGroups). Reported: the scheduler's CPU over a quiet spell once every waiting pod has been
// turned away (% of one core, from /proc/PID/stat), the pod status writes in that spell (per
// minute, from a watch), and the time from the event's first call to the 10 groups bound (p50,
// max, and the max of each kind of event).
// -perf-scheduling-label-filter=short runs it tiny.
func BenchmarkBacklog(b *testing.B) {
	size := backlogFull
	if strings.Contains(*labelFilter, "short") {
		size = backlogShort
	}
	if v := os.Getenv("BERTH_BACKLOG_SCALE"); v != "" {
		// A fraction of the full backlog, for machines that cannot hold it.
		s, err := strconv.ParseFloat(v, 64)
		if err != nil || s <= 0 {
			b.Fatalf("BERTH_BACKLOG_SCALE=%q: want a positive number", v)
		}
		size.groups = int(float64(size.groups) * s)
		size.gpuPods = int(float64(size.gpuPods) * s)
	}
	for _, sched := range []string{"Berth", "Stock"} {
		b.Run(fmt.Sprintf("%s/%dGroups_%dGPUPods", sched, size.groups, size.gpuPods), func(b *testing.B) {
			for range b.N {
				r := runBacklog(b, sched == "Berth", size)
				b.ReportMetric(r.cpuPercent, "quiet-cpu-%")
				b.ReportMetric(r.writesPerMin, "quiet-status-writes/min")
				b.ReportMetric(r.reasonsPerMin, "quiet-wait-reason-writes/min")
				b.ReportMetric(r.firstWrites, "status-writes-first")
				b.ReportMetric(r.p50.Seconds()*1000, "room-to-bound-p50-ms")
				b.ReportMetric(r.max.Seconds()*1000, "room-to-bound-max-ms")
				for event, d := range r.byEvent {
					b.ReportMetric(d.Seconds()*1000, "room-to-bound-"+event+"-max-ms")
				}
				b.ReportMetric(r.settle.Seconds(), "settle-s")
				b.ReportMetric(float64(r.outOfOrder), "groups-out-of-order")
			}
		})
	}
}

type backlogResult struct {
	cpuPercent, writesPerMin, reasonsPerMin, firstWrites float64
	p50, max, settle                                     time.Duration
	// outOfOrder counts the groups bound while an older group waited.
	outOfOrder int
	// judged counts the groups whose order was judged: the backlog's, not the rack groups.
	judged    int
	latencies []time.Duration
	// byEvent is the longest room to bound of each kind of event.
	byEvent map[string]time.Duration
}

// notReady makes node one whose kubelet has not reported Ready yet: the node lifecycle
// controller's taint, which the scheduler's TaintToleration filter reads, and the condition.
func notReady(node *v1.Node) {
	node.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}}
	node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
}

// roomMaker returns what makes room for 10 groups on the CPU nodes of try by event
// (backlogEvents), having read what it needs first: the time to room counts from its call, and a
// list of the fillers among 6,000 pods takes seconds on a loaded machine.
func roomMaker(ctx context.Context, client kubernetes.Interface, ns string, try int, event string) (func() error, error) {
	zero := int64(0)
	fillers := metav1.ListOptions{LabelSelector: backlogLabelFree + "=" + strconv.Itoa(try)}
	nodeName := func(i int) string { return fmt.Sprintf("cpu-%03d", try*backlogRoomGroups+i) }
	switch event {
	case "deleted", "rack":
		return func() error {
			return client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, fillers)
		}, nil
	case "finished":
		list, err := client.CoreV1().Pods(ns).List(ctx, fillers)
		if err != nil {
			return nil, err
		}
		return func() error {
			return harness.InParallel(len(list.Items), backlogRoomGroups, func(i int) error {
				p := &list.Items[i]
				p.Status.Phase = v1.PodSucceeded
				_, err := client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
				return err
			})
		}, nil
	case "joined":
		return func() error {
			return harness.InParallel(backlogRoomGroups, backlogRoomGroups, func(i int) error {
				_, err := harness.CreateNode(ctx, client, harness.Node(nodeName(i), "4", "16Gi", nil))
				return err
			})
		}, nil
	case "ready":
		nodes := make([]*v1.Node, backlogRoomGroups)
		if err := harness.InParallel(backlogRoomGroups, backlogRoomGroups, func(i int) (err error) {
			nodes[i], err = client.CoreV1().Nodes().Get(ctx, nodeName(i), metav1.GetOptions{})
			return err
		}); err != nil {
			return nil, err
		}
		return func() error {
			return harness.InParallel(backlogRoomGroups, backlogRoomGroups, func(i int) error {
				n := nodes[i]
				n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
				n, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
				if err != nil {
					return err
				}
				n.Spec.Taints = nil
				_, err = client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
				return err
			})
		}, nil
	}
	return nil, fmt.Errorf("unknown event %q", event)
}

// runBacklog runs the workload once against a control plane of its own.
func runBacklog(b testing.TB, berth bool, size backlogSize) backlogResult {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startCtx, startCancel := context.WithTimeout(ctx, 2*time.Minute)
	defer startCancel()
	cp, err := controlplane.Start(startCtx, controlplane.Options{
		BinDir: harness.BinDir(b, "etcd", "kube-apiserver"),
		Logf:   b.Logf,
		APIServerFlags: []string{
			"--feature-gates=GenericWorkload=true",
			"--runtime-config=scheduling.k8s.io/v1beta1=true",
		},
	})
	if err != nil {
		b.Fatalf("starting control plane: %v", err)
	}
	b.Cleanup(cp.Stop)
	crds, err := filepath.Glob(filepath.Join(harness.RepoRoot(), "manifests", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		b.Fatalf("no CRDs in manifests/crds: %v", err)
	}
	if err := controlplane.ApplyFiles(startCtx, cp.RESTConfig(), crds...); err != nil {
		b.Fatalf("installing CRDs: %v", err)
	}
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.QPS, cfg.Burst = 2000, 4000
	client := kubernetes.NewForConfigOrDie(cfg)
	pgs := pgclient.NewForConfigOrDie(cfg)
	c := &harness.Cluster{ControlPlane: cp, Client: client}
	ns := c.Namespace(b, "backlog")
	schedName := backlogStockName
	if berth {
		schedName = backlogBerthName
	}

	// The cluster, full: CPU nodes of 4 CPUs, each held by one filler pod; tries*10 of them make
	// room later, 10 per try, each try's in the way of its event: fillers that go, nodes created
	// only then, or nodes not ready until then (tainted, without a filler). GPU nodes of one
	// 16-unit GPU and 4 CPUs, held by a GPU filler.
	cpuNodes := size.tries*backlogRoomGroups + backlogSpareNodes
	// A rack try's racks, each with its first node held by a filler that go at the try's event.
	rackNodes := size.tries * backlogRoomGroups * backlogRackSize
	if err := harness.InParallel(cpuNodes+backlogGPUNodes+rackNodes, 16, func(i int) error {
		var node *v1.Node
		var filler *v1.Pod
		if i >= cpuNodes+backlogGPUNodes {
			j := i - cpuNodes - backlogGPUNodes
			try, r, n := j/(backlogRoomGroups*backlogRackSize), j/backlogRackSize%backlogRoomGroups, j%backlogRackSize
			if backlogEvent(berth, try) != "rack" {
				return nil
			}
			node = rackNode(try, r, n)
			if n == 0 {
				filler = rackPod(ns, "filler-"+node.Name, "filler")
				filler.Labels[backlogLabelFree] = strconv.Itoa(try)
			}
		} else if i < cpuNodes {
			node = harness.Node(fmt.Sprintf("cpu-%03d", i), "4", "16Gi", nil)
			filler = backlogPod(ns, fmt.Sprintf("filler-cpu-%03d", i), "filler", harness.Container("c", "4", "1Gi"))
			if try := i / backlogRoomGroups; try < size.tries {
				switch backlogEvent(berth, try) {
				case "joined", "rack":
					// Created at the try, or never: a rack try frees room on racks.
					return nil
				case "ready":
					notReady(node)
					filler = nil
				}
				if filler != nil {
					filler.Labels[backlogLabelFree] = strconv.Itoa(try)
				}
			}
		} else {
			node = harness.Node(fmt.Sprintf("gpu-%03d", i-cpuNodes), "4", "16Gi", v1.ResourceList{
				harness.GPUCount:  resource.MustParse("1"),
				harness.GPUMemory: *resource.NewQuantity(backlogGPUPerNode, resource.DecimalSI),
			})
			filler = harness.BoundByGPUShare(ns, fmt.Sprintf("filler-gpu-%03d", i-cpuNodes), node.Name, backlogGPUPerNode, backlogGPUPerNode)
			filler.Labels = map[string]string{backlogLabelKind: "filler"}
			filler.Spec.Containers[0] = harness.Container("c", "4", "1Gi")
			filler.Spec.Containers[0].Resources.Limits[harness.GPUMemory] = *resource.NewQuantity(backlogGPUPerNode, resource.DecimalSI)
		}
		if _, err := harness.CreateNode(ctx, client, node); err != nil {
			return err
		}
		if filler == nil {
			return nil
		}
		filler.Spec.NodeName = node.Name
		filler.Spec.SchedulerName = "nobody"
		_, err := client.CoreV1().Pods(ns).Create(ctx, filler, metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatalf("creating the full cluster: %v", err)
	}

	w := watchBacklog(ctx, b, client, ns)

	path := filepath.Join(b.TempDir(), "scheduler-config.yaml")
	var proc interface{ PID() int }
	if berth {
		var args []string
		if backlogPprof != "" {
			// Serve /debug/pprof and /metrics without credentials, on loopback.
			args = []string{"--secure-port", strconv.Itoa(backlogPprofPort), "--bind-address", "127.0.0.1",
				"--authorization-always-allow-paths=/debug/pprof/*,/metrics,/healthz"}
		}
		if backlogLog != "" {
			args = append(args, "-v="+cmp.Or(os.Getenv("BERTH_BACKLOG_V"), "4"))
		}
		sched := c.StartSchedulerBinary(b, c.SchedulerConfig(registry.Profile(backlogBerthName), ""), args...)
		if backlogLog != "" {
			// Registered after the harness's stop, so it runs first: the log is read while the
			// scheduler still runs, which loses at most its last lines.
			b.Cleanup(func() { keepLog(b, sched.LogPath, filepath.Join(backlogLog, "berth-scheduler.log")) })
		}
		proc = sched
	} else {
		if err := os.WriteFile(path, []byte(c.SchedulerConfig("- schedulerName: "+backlogStockName+"\n", "")), 0o600); err != nil {
			b.Fatal(err)
		}
		proc = harness.StartBinary(b, "kube-scheduler", "--config", path, "--secure-port", "0", "--feature-gates=GenericWorkload=true")
	}

	// The backlog, oldest first: the rack groups (berth's only), which wait longest, then the
	// groups, then the GPU pods, one creation at a time per group so that creation order is group
	// order.
	start := time.Now()
	var rackMembers int
	for try := range size.tries {
		if backlogEvent(berth, try) != "rack" {
			continue
		}
		rackMembers += backlogRoomGroups * backlogRackSize
		if err := harness.InParallel(backlogRoomGroups, 8, func(g int) error {
			name := fmt.Sprintf("rack-%d-%02d", try, g)
			pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
				Annotations: map[string]string{topology.RequiredAnnotation: topology.RackLabel}},
				Spec: v1alpha1.PodGroupSpec{MinMember: backlogRackSize}}
			if _, err := pgs.SchedulingV1alpha1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
				return err
			}
			for m := range backlogRackSize {
				p := rackPod(ns, fmt.Sprintf("%s-%d", name, m), "rack")
				p.Labels[backlogLabelGang] = name
				p.Labels[v1alpha1.PodGroupLabel] = name
				p.Spec.SchedulerName = schedName
				if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatalf("creating the rack groups: %v", err)
		}
	}
	if err := harness.InParallel(size.groups, 8, func(g int) error {
		name := fmt.Sprintf("g%04d", g)
		if berth {
			pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: v1alpha1.PodGroupSpec{MinMember: backlogGroupSize}}
			if _, err := pgs.SchedulingV1alpha1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
				return err
			}
		} else {
			pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: backlogGroupSize},
				}}}
			if _, err := client.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		for m := range backlogGroupSize {
			p := backlogPod(ns, fmt.Sprintf("%s-%d", name, m), "member", harness.Container("c", "1", "64Mi"))
			p.Labels[backlogLabelGang] = name
			p.Spec.SchedulerName = schedName
			if berth {
				p.Labels[v1alpha1.PodGroupLabel] = name
			} else {
				p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(name)}
			}
			if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatalf("creating the groups: %v", err)
	}
	if err := harness.InParallel(size.gpuPods, 8, func(i int) error {
		p := harness.GPUPod(ns, fmt.Sprintf("gpu-pod-%04d", i), backlogGPUPodShare)
		p.Labels = map[string]string{backlogLabelKind: "gpu"}
		p.Spec.SchedulerName = schedName
		_, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatalf("creating the GPU pods: %v", err)
	}
	waiting := size.groups*backlogGroupSize + size.gpuPods + rackMembers
	b.Logf("%d pods created in %v", waiting, time.Since(start).Round(time.Millisecond))

	// Settled: every waiting pod turned away, with its PodScheduled condition written.
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 20*time.Minute, true, func(context.Context) (bool, error) {
		return w.turnedAway() >= waiting, nil
	}); err != nil {
		b.Fatalf("waiting for the %d pods to be turned away: %d are (%v)", waiting, w.turnedAway(), err)
	}
	settle := time.Since(start)
	firstWrites := w.statusWrites.Load()
	b.Logf("all %d turned away %v after the first was created; %d status writes of waiting pods so far", waiting, settle.Round(time.Millisecond), firstWrites)
	if berth {
		// Berth writes each PodGroup's status once its first member was tried, at the rate its
		// client allows: the quiet spell starts when those first writes are done, as it starts
		// when every pod's first PodScheduled write is.
		var pending int
		if err := wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
			list, err := pgs.SchedulingV1alpha1().PodGroups(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			pending = 0
			for _, pg := range list.Items {
				if pg.Status.Phase == "" || pg.Status.ScheduleStartTime.IsZero() {
					pending++
				}
			}
			return pending == 0, nil
		}); err != nil {
			b.Fatalf("waiting for every PodGroup's first status: %d without (%v)", pending, err)
		}
		b.Logf("every PodGroup's first status written %v after the first pod was created", time.Since(start).Round(time.Millisecond))
	}

	// Quiet: nothing changes. The scheduler's CPU and the pods' status writes.
	cpu0, err := processCPU(proc.PID())
	if err != nil {
		b.Fatal(err)
	}
	writes0, reasons0, t0 := w.statusWrites.Load(), w.reasonWrites.Load(), time.Now()
	var attempts0 float64
	profiled := make(chan struct{})
	if berth && backlogPprof != "" {
		attempts0 = schedulerAttempts(b)
		go func() {
			defer close(profiled)
			secs := int(min(size.quiet, 30*time.Second).Seconds())
			backlogProfile(b, fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs), filepath.Join(backlogPprof, "quiet.pprof"))
		}()
	} else {
		close(profiled)
	}
	time.Sleep(size.quiet)
	<-profiled
	if berth && backlogPprof != "" {
		b.Logf("scheduling attempts in the quiet spell: %.0f", schedulerAttempts(b)-attempts0)
	}
	cpu1, err := processCPU(proc.PID())
	if err != nil {
		b.Fatal(err)
	}
	spell := time.Since(t0)
	r := backlogResult{
		byEvent:       map[string]time.Duration{},
		cpuPercent:    100 * (cpu1 - cpu0).Seconds() / spell.Seconds(),
		writesPerMin:  float64(w.statusWrites.Load()-writes0) / spell.Minutes(),
		reasonsPerMin: float64(w.reasonWrites.Load()-reasons0) / spell.Minutes(),
		firstWrites:   float64(firstWrites),
		settle:        settle,
	}
	b.Logf("quiet %v: scheduler CPU %.2f%% of one core, %.1f status writes/min, %.1f wait-reason writes/min",
		spell.Round(time.Millisecond), r.cpuPercent, r.writesPerMin, r.reasonsPerMin)

	// Room for 10 groups, tries times, each made by its try's event.
	var cpuTries, rackTries int
	for try := range size.tries {
		if try > 0 {
			settleScheduler(b, proc.PID())
		}
		event := backlogEvent(berth, try)
		// What the try binds: the next 10 of the backlog's groups, or of the rack groups.
		bound, want := w.membersBound, (cpuTries+1)*backlogRoomGroups*backlogGroupSize
		if event == "rack" {
			bound, want = w.rackMembersBound, (rackTries+1)*backlogRoomGroups*backlogRackSize
		}
		profiled := make(chan struct{})
		profileTry := berth && backlogPprof != ""
		if profileTry {
			// A CPU profile of the try's first 3 s, and where goroutines blocked in it
			// (kube-scheduler counts that from its start: the difference of the two).
			backlogProfile(b, "/debug/pprof/block", filepath.Join(backlogPprof, fmt.Sprintf("block-before-try%d.pprof", try)))
			go func() {
				defer close(profiled)
				backlogProfile(b, "/debug/pprof/profile?seconds=3", filepath.Join(backlogPprof, fmt.Sprintf("try%d.pprof", try)))
			}()
			time.Sleep(100 * time.Millisecond) // for the profile to start
		} else {
			close(profiled)
		}
		makeRoom, err := roomMaker(ctx, client, ns, try, event)
		if err != nil {
			b.Fatalf("try %d: room by %s: %v", try, event, err)
		}
		t0 := time.Now()
		if err := makeRoom(); err != nil {
			b.Fatalf("try %d: room by %s: %v", try, event, err)
		}
		var at time.Time
		if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
			var n int
			n, at = bound()
			return n >= want, nil
		}); err != nil {
			n, _ := bound()
			b.Fatalf("try %d: %d members bound, want %d (%v)", try, n, want, err)
		}
		r.latencies = append(r.latencies, at.Sub(t0))
		r.byEvent[event] = max(r.byEvent[event], at.Sub(t0))
		if partial := w.partialGroups(); len(partial) > 0 {
			// Binding is one request per member: give the last ones a moment.
			time.Sleep(2 * time.Second)
			if partial = w.partialGroups(); len(partial) > 0 {
				b.Fatalf("try %d: groups partly bound: %v", try, partial)
			}
		}
		// First come, first served: the room should go to the oldest waiting groups, those
		// created right after the groups of the earlier tries; count the younger ones bound. A
		// rack try's groups are its own, each bound in a rack of this try's block.
		var order []string
		for _, g := range w.boundSince(event == "rack", cpuTries*backlogRoomGroups, rackTries*backlogRoomGroups) {
			order = append(order, fmt.Sprintf("%s@%v", g.group, g.at.Sub(t0).Round(time.Millisecond)))
			if event == "rack" {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(g.group, "g")); err != nil || n/backlogRoomGroups != cpuTries {
				r.outOfOrder++
			}
			r.judged++
		}
		if event == "rack" {
			rackTries++
		} else {
			cpuTries++
		}
		if oldest := w.oldestWaiting(); event != "rack" && oldest != "" && strings.Compare(oldest, fmt.Sprintf("g%04d", cpuTries*backlogRoomGroups)) < 0 {
			// Why the oldest group still waiting was passed over, as its members were told.
			b.Logf("try %d: %s still waits: %s", try, oldest, strings.Join(w.told(oldest), " | "))
		}
		b.Logf("try %d: room (%s) to %d groups bound in %v: %s", try, event, backlogRoomGroups, at.Sub(t0).Round(time.Millisecond), strings.Join(order, " "))
		<-profiled
		if profileTry {
			backlogProfile(b, "/debug/pprof/block", filepath.Join(backlogPprof, fmt.Sprintf("block-after-try%d.pprof", try)))
		}
	}
	sorted := append([]time.Duration(nil), r.latencies...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	r.p50, r.max = sorted[len(sorted)/2], sorted[len(sorted)-1]
	if n := w.gpuBound(); n != 0 {
		b.Fatalf("%d GPU pods bound on a cluster with no GPU room", n)
	}
	return r
}

// BERTH_BACKLOG_PPROF names a directory: berth-scheduler serves /debug/pprof and /metrics on
// backlogPprofPort, and CPU profiles of the quiet spell (30 s at most) and of each try's first 3 s
// are written there as quiet.pprof and tryN.pprof (with the block profile before and after each
// try), with the scheduling attempts in the spell logged.
var backlogPprof = os.Getenv("BERTH_BACKLOG_PPROF")

const backlogPprofPort = 39259

// BERTH_BACKLOG_LOG names a directory: berth-scheduler runs with -v=4 (BERTH_BACKLOG_V sets another
// level) and its log is kept there as berth-scheduler.log, to read who was tried when around a
// freeing.
var backlogLog = os.Getenv("BERTH_BACKLOG_LOG")

func keepLog(b testing.TB, from, to string) {
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		b.Logf("keeping the scheduler's log: %v", err)
	}
}

func backlogGet(path string) ([]byte, error) {
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d%s", backlogPprofPort, path))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// backlogProfile writes the profile berth-scheduler serves at path (CPU or block) to file.
func backlogProfile(b testing.TB, path, file string) {
	data, err := backlogGet(path)
	if err == nil {
		err = os.WriteFile(file, data, 0o644)
	}
	if err != nil {
		b.Logf("profile: %v", err)
	}
}

// schedulerAttempts sums berth-scheduler's scheduler_schedule_attempts_total.
func schedulerAttempts(b testing.TB) float64 {
	data, err := backlogGet("/metrics")
	if err != nil {
		b.Fatal(err)
	}
	var n float64
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "scheduler_schedule_attempts_total{") {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				b.Fatalf("%q: %v", line, err)
			}
			n += v
		}
	}
	return n
}

// backlogPod is a pod of the workload's kind.
func backlogPod(ns, name, kind string, c v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{backlogLabelKind: kind}},
		Spec:       v1.PodSpec{Containers: []v1.Container{c}},
	}
}

// backlogWatch follows the workload's pods: which are turned away, how often a waiting pod's
// status is written, and when members are bound.
type backlogWatch struct {
	// statusWrites counts the scheduler's writes of waiting pods (PodScheduled and the nominated
	// node), reasonWrites those of berth's wait-reason publisher, which sets only the
	// berth.dev/WaitingFor condition of pods that waited over a minute, at most 50 a sweep.
	statusWrites atomic.Int64
	reasonWrites atomic.Int64

	mu   sync.Mutex
	away map[string]bool
	// why is each waiting pod's last Unschedulable message.
	why     map[string]string
	bound   map[string]int // members bound per group
	members int
	// rackMembers counts the rack groups' members bound, rackFirstBound their groups.
	rackMembers    int
	rackFirstBound []groupBound
	// rackOf is the rack of each rack group's first member bound; split names the groups bound
	// over two racks.
	rackOf    map[string]string
	split     []string
	gpu       int
	lastBound time.Time
	// firstBound is when each group's first member was seen bound, in that order.
	firstBound []groupBound
}

type groupBound struct {
	group string
	at    time.Time
}

func watchBacklog(ctx context.Context, b testing.TB, client kubernetes.Interface, ns string) *backlogWatch {
	w := &backlogWatch{away: map[string]bool{}, why: map[string]string{}, bound: map[string]int{}, rackOf: map[string]string{}}
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := f.Core().V1().Pods().Informer()
	observe := func(old, p *v1.Pod) {
		kind := p.Labels[backlogLabelKind]
		if kind == "filler" {
			return
		}
		now := time.Now()
		w.mu.Lock()
		defer w.mu.Unlock()
		if p.Spec.NodeName == "" {
			if old != nil && old.ResourceVersion != p.ResourceVersion {
				// Nothing but the scheduler writes a waiting pod.
				if onlyWaitingForChanged(old, p) {
					w.reasonWrites.Add(1)
				} else {
					w.statusWrites.Add(1)
				}
			}
			if msg := harness.Unschedulable(p); msg != "" {
				w.away[p.Name] = true
				w.why[p.Name] = msg
			}
			return
		}
		if old != nil && old.Spec.NodeName != "" {
			return
		}
		delete(w.away, p.Name)
		switch kind {
		case "member":
			if w.bound[p.Labels[backlogLabelGang]] == 0 {
				w.firstBound = append(w.firstBound, groupBound{p.Labels[backlogLabelGang], now})
			}
			w.bound[p.Labels[backlogLabelGang]]++
			w.members++
			w.lastBound = now
		case "rack":
			g, rack := p.Labels[backlogLabelGang], p.Spec.NodeName[:strings.LastIndexByte(p.Spec.NodeName, '-')]
			if w.bound[g] == 0 {
				w.rackFirstBound = append(w.rackFirstBound, groupBound{g, now})
				w.rackOf[g] = rack
			} else if w.rackOf[g] != rack {
				w.split = append(w.split, fmt.Sprintf("%s in %s and %s", g, w.rackOf[g], rack))
			}
			w.bound[p.Labels[backlogLabelGang]]++
			w.rackMembers++
			w.lastBound = now
		case "gpu":
			w.gpu++
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { observe(nil, obj.(*v1.Pod)) },
		UpdateFunc: func(old, obj any) { observe(old.(*v1.Pod), obj.(*v1.Pod)) },
	}); err != nil {
		b.Fatal(err)
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Fatal("pod informer did not sync")
	}
	return w
}

func (w *backlogWatch) turnedAway() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.away)
}

func (w *backlogWatch) membersBound() (int, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.members, w.lastBound
}

func (w *backlogWatch) rackMembersBound() (int, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rackMembers, w.lastBound
}

// boundSince lists the backlog's groups whose first member was bound after the first n groups,
// in order, or with rack the rack groups' after the first racks.
func (w *backlogWatch) boundSince(rack bool, n, racks int) []groupBound {
	w.mu.Lock()
	defer w.mu.Unlock()
	if rack {
		return append([]groupBound(nil), w.rackFirstBound[min(racks, len(w.rackFirstBound)):]...)
	}
	return append([]groupBound(nil), w.firstBound[min(n, len(w.firstBound)):]...)
}

// oldestWaiting is the oldest group with no member bound, or "".
func (w *backlogWatch) oldestWaiting() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	oldest := ""
	for name := range w.why {
		g := name[:strings.LastIndexByte(name, '-')]
		if !strings.HasPrefix(g, "g") || w.bound[g] > 0 {
			continue
		}
		if oldest == "" || g < oldest {
			oldest = g
		}
	}
	return oldest
}

// told is what group's members were last told, each message once.
func (w *backlogWatch) told(group string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for m := range backlogGroupSize {
		if msg := w.why[fmt.Sprintf("%s-%d", group, m)]; msg != "" && !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	return out
}

func (w *backlogWatch) gpuBound() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gpu
}

func (w *backlogWatch) partialGroups() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var partial []string
	for g, n := range w.bound {
		size := backlogGroupSize
		if strings.HasPrefix(g, "rack-") {
			size = backlogRackSize
		}
		if n%size != 0 {
			partial = append(partial, fmt.Sprintf("%s: %d of %d", g, n, size))
		}
	}
	sort.Strings(partial)
	return append(partial, w.split...)
}

// processCPU is the user and system CPU time the process has used, from /proc/PID/stat (in
// USER_HZ, 100 on Linux).
// settleScheduler waits until the scheduler is idle again (under 5% of a core for a second), two
// minutes at most, so that a try times its own event. Back to back, a try timed the last one's
// aftermath too: each of its 40 bindings costs upstream's queue a pass over every waiting pod
// (about 25 ms with 6,000 waiting, on a 2-core machine), in the informer handler that delivers
// the next try's event, and each waiting group's waiter is tried once more (roomwait.go).
func settleScheduler(b testing.TB, pid int) {
	start := time.Now()
	prev, err := processCPU(pid)
	for err == nil && time.Since(start) < 2*time.Minute {
		time.Sleep(time.Second)
		var cur time.Duration
		if cur, err = processCPU(pid); err == nil && cur-prev < 50*time.Millisecond {
			b.Logf("scheduler idle %v after the try", time.Since(start).Round(100*time.Millisecond))
			return
		}
		prev = cur
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("scheduler still busy %v after the try", time.Since(start).Round(time.Second))
}

func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: the fields after it start after its closing parenthesis.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(fields))
	}
	// utime and stime are the 14th and 15th fields of the line, the 12th and 13th after the name.
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, fields[11], fields[12])
	}
	return time.Duration(utime+stime) * (time.Second / 100), nil
}

// onlyWaitingForChanged reports whether the one change from old to p is the berth.dev/WaitingFor
// condition, which only the wait-reason publisher writes.
func onlyWaitingForChanged(old, p *v1.Pod) bool {
	cond := func(pod *v1.Pod, t v1.PodConditionType) *v1.PodCondition {
		for i := range pod.Status.Conditions {
			if pod.Status.Conditions[i].Type == t {
				return &pod.Status.Conditions[i]
			}
		}
		return nil
	}
	same := func(t v1.PodConditionType) bool { return apiequality.Semantic.DeepEqual(cond(old, t), cond(p, t)) }
	return !same(why.WaitingForCondition) && same(v1.PodScheduled) && old.Status.NominatedNodeName == p.Status.NominatedNodeName
}

// TestBacklogShort runs the Backlog workload tiny under berth-scheduler (about 30 s): every
// waiting pod is turned away, each freeing (one of each of backlogEvents) binds 10 groups whole
// and no GPU pod, and no group is bound while an older one waited that fitted. All groups have one
// priority and one shape (4 members of 1 cpu), and each freeing gives 10 nodes of 4 cpu: room for exactly the 10 oldest
// waiting groups, each of which fits one freed node. So a freeing that binds any other group has
// bound it while an older group fitted and waited. Once in `make test`, ten times (each on a
// control plane of its own) in `make soak`: about 20 s a try.
func TestBacklogShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	for try := range harness.Tries(1, 10) {
		t.Run(fmt.Sprint("try-", try), func(t *testing.T) {
			r := runBacklog(t, true, backlogShort)
			t.Logf("quiet CPU %.2f%% of a core, %.1f status writes/min (%.0f before), room to bound %v, %d of %d groups bound before older ones",
				r.cpuPercent, r.writesPerMin, r.firstWrites, r.latencies, r.outOfOrder, r.judged)
			if r.outOfOrder > backlogKnownOutOfOrder {
				t.Errorf("%d of %d groups were bound while an older group that fitted waited (at most %d known)", r.outOfOrder, r.judged, backlogKnownOutOfOrder)
			}
		})
	}
}

// backlogKnownOutOfOrder is the fault still open (issue 28, docs/history.md "Who gets the
// room"): a younger group slips in at a turn's hand-over in a few runs in a hundred, 1 or 2 of the
// 30 groups. One gap was found and closed (a group whose wait had just ended was invisible to
// the give-way checks); after it, 1 run of 58 (1 of 22 at the default verbosity) still bound one
// group out of order, the last freed room going to g0030 while g0029 waited, its waiter told the
// sum was short. Since turns are handed on oldest first (2026-11-27), 0 in 32 runs, which does not
// yet tell the rate apart from 1 in 58. Before Gang's Pending wait it was 16, 3, 24, 0 and 9. The
// test fails on more, and at 0 once that is mended.
const backlogKnownOutOfOrder = 2
