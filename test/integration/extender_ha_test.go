package integration

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/berth-sched/berth/internal/controlplane"
	"github.com/berth-sched/berth/internal/proc"
	"github.com/berth-sched/berth/test/harness"
)

// Two berth-extender replicas as the shipped Deployment runs them (its arguments, its RBAC, mutual
// TLS), behind a stand-in for their Service, with the stock kube-scheduler sending GPU pods through
// it. While pods are being scheduled the active replica is killed by its PID (SIGKILL twice, as a
// lost node would end it, and SIGTERM once, as a rollout does), and each time a replica comes back
// as the new standby. The standby is never ready and refuses the verbs; the other takes over; every
// pod that fits is placed; and no GPU is handed out twice.
func TestExtenderFailoverUnderLoad(t *testing.T) {
	harness.BinDir(t, "berth-extender", "kube-scheduler")
	c := harness.StartCluster(t)
	ctx := context.Background()
	root := filepath.Join(harness.RepoRoot(), "manifests")
	if err := controlplane.ApplyFiles(ctx, c.RESTConfig(), filepath.Join(root, "namespace.yaml"),
		filepath.Join(root, "extender", "rbac.yaml"), filepath.Join(root, "extender", "deployment.yaml")); err != nil {
		t.Fatal(err)
	}
	deploy, err := c.Client.AppsV1().Deployments("berth-system").Get(ctx, "berth-extender", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *deploy.Spec.Replicas != 2 {
		t.Errorf("the shipped Deployment runs %d replicas, want 2", *deploy.Spec.Replicas)
	}
	saKubeconfig, err := c.Kubeconfig("system:serviceaccount:berth-system:berth-extender",
		"system:serviceaccounts", "system:serviceaccounts:berth-system", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	pki := newExtenderPKI(t, "berth-extender.berth-system.svc")
	replicas := [2]*haReplica{}
	for i := range replicas {
		replicas[i] = &haReplica{addr: freeAddr(t)}
	}
	start := func(r *haReplica) {
		// The shipped arguments, then this test's: its certificates, and a lease short enough
		// that three failovers fit in a test.
		args := append(append(append([]string{}, deploy.Spec.Template.Spec.Containers[0].Args...), pki.ExtenderFlags()...),
			"--kubeconfig="+saKubeconfig, "--bind-address=127.0.0.1", "--port="+portOf(r.addr),
			"--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=250ms", "-v=2")
		r.p = harness.StartBinary(t, "berth-extender", args...)
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			code, _ := extenderGetWith(pki.Client(t, "", ""), "https://"+r.addr+"/healthz")
			return code == http.StatusOK, r.p.Exited()
		})
		if err != nil {
			t.Fatalf("berth-extender on %s not serving: %v\n%s", r.addr, err, r.p.LogTail(20))
		}
	}
	for _, r := range replicas {
		start(r)
	}
	svc := newStandInService(t, pki, replicas[:])

	shipped := extenderShippedSchedulerConfig(t)
	urlPrefix := "https://" + svc.addr + extenderURLPrefix(t, shipped).Path
	extenderStartKubeScheduler(t, pki.SchedulerConfig(t, extenderSchedulerConfig(t, shipped, urlPrefix, c.KubeconfigPath(), true)))

	// 4 nodes of 2 GPUs of 16: room for exactly 32 pods of 4, and 48 are created.
	capacity := map[string][]int64{}
	for i := range 4 {
		name := fmt.Sprintf("gpu-%d", i)
		c.CreateNode(t, harness.GPUNode(name, 2, 16))
		capacity[name] = []int64{16, 16}
	}
	ns := c.Namespace(t, "failover")
	active := svc.waitActive(t, nil)

	for round, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGKILL} {
		standby := replicas[0]
		if standby == active {
			standby = replicas[1]
		}
		// The standby is alive, not ready, and refuses a bind even with the scheduler's certificate.
		if code, _ := extenderGetWith(pki.Client(t, "", ""), "https://"+standby.addr+"/healthz"); code != http.StatusOK {
			t.Errorf("round %d: standby /healthz %d, want 200", round, code)
		}
		if code, _ := extenderGetWith(pki.Client(t, "", ""), "https://"+standby.addr+"/readyz"); code != http.StatusServiceUnavailable {
			t.Errorf("round %d: standby /readyz %d, want 503", round, code)
		}
		resp, err := pki.Client(t, pki.ClientCert, pki.ClientKey).Post("https://"+standby.addr+extenderURLPrefix(t, shipped).Path+"/bind",
			"application/json", strings.NewReader(`{"podName":"x","podNamespace":"y","podUID":"z","node":"gpu-0"}`))
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("round %d: bind sent to the standby: %v %v, want 503", round, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}

		for i := range 12 {
			c.CreatePod(t, extenderGPUPod(ns, fmt.Sprintf("r%d-%d", round, i), 4, 1))
		}
		// Mid-load: some of this round's pods are bound, others still on their way.
		before := c.WaitForPods(t, ns, time.Minute, "a pod of this round bound", func(pods []v1.Pod) bool {
			return harness.Bound(pods) > round*12
		})
		killedAt := time.Now()
		if err := syscall.Kill(active.p.PID(), sig); err != nil {
			t.Fatal(err)
		}
		<-active.p.Done()
		next := svc.waitActive(t, active)
		t.Logf("round %d: %s to pid %d with %d pods bound; pid %d active and ready %v later",
			round, sig, active.p.PID(), harness.Bound(before), next.p.PID(), time.Since(killedAt).Round(10*time.Millisecond))
		// The replica comes back, as its Deployment would restart it, as the new standby.
		start(active)
		active = next
	}

	pods := c.WaitForPods(t, ns, 2*time.Minute, "every pod that fits bound", func(pods []v1.Pod) bool { return harness.Bound(pods) >= 32 })
	// Anything wrongly placed would be bound by now too; look once more after the queue is quiet.
	time.Sleep(2 * time.Second)
	list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods = list.Items
	if n := harness.Bound(pods); n != 32 {
		t.Errorf("%d pods bound, want 32: the 4 nodes hold exactly 32 pods of 4", n)
	}
	harness.CheckNoOvercommit(t, pods, capacity)
	svc.stop()
	if svc.bothReady > 0 {
		t.Errorf("both replicas were ready at once %d times", svc.bothReady)
	}
}

type haReplica struct {
	addr string
	p    *proc.Process
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// standInService does for the test what a Service with kube-proxy and kubelet's readiness probes
// do in a cluster: it probes each replica's /readyz (without a client certificate, as kubelet
// does) every 200ms and forwards each TCP connection, TLS and all, to a replica last seen ready;
// with none ready it closes the connection, as a Service without endpoints refuses it.
type standInService struct {
	addr      string
	l         net.Listener
	replicas  []*haReplica
	probe     *http.Client
	mu        sync.Mutex
	ready     *haReplica
	bothReady int
	done      chan struct{}
	wg        sync.WaitGroup
}

func newStandInService(t *testing.T, pki *extenderPKI, replicas []*haReplica) *standInService {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &standInService{addr: l.Addr().String(), l: l, replicas: replicas, probe: pki.Client(t, "", ""), done: make(chan struct{})}
	s.probe.Timeout = time.Second
	s.wg.Add(2)
	go s.probeLoop()
	go s.acceptLoop()
	t.Cleanup(s.stop)
	return s
}

func (s *standInService) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.l.Close()
	s.wg.Wait()
}

func (s *standInService) probeLoop() {
	defer s.wg.Done()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		var ready []*haReplica
		for _, r := range s.replicas {
			if code, _ := extenderGetWith(s.probe, "https://"+r.addr+"/readyz"); code == http.StatusOK {
				ready = append(ready, r)
			}
		}
		s.mu.Lock()
		s.ready = nil
		if len(ready) > 0 {
			s.ready = ready[0]
		}
		if len(ready) > 1 {
			s.bothReady++
		}
		s.mu.Unlock()
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
	}
}

func (s *standInService) acceptLoop() {
	defer s.wg.Done()
	for {
		conn, err := s.l.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		r := s.ready
		s.mu.Unlock()
		if r == nil {
			conn.Close()
			continue
		}
		go func() {
			defer conn.Close()
			backend, err := net.Dial("tcp", r.addr)
			if err != nil {
				return
			}
			defer backend.Close()
			go func() { _, _ = io.Copy(backend, conn); backend.Close() }()
			_, _ = io.Copy(conn, backend)
		}()
	}
}

// waitActive waits until one replica other than not is ready, as the Service sees it, and returns it.
func (s *standInService) waitActive(t *testing.T, not *haReplica) *haReplica {
	t.Helper()
	var got *haReplica
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		got = s.ready
		return got != nil && got != not, nil
	})
	if err != nil {
		var logs []string
		for _, r := range s.replicas {
			logs = append(logs, r.p.LogTail(20))
		}
		t.Fatalf("no replica became ready: %v\n%s", err, strings.Join(logs, "\n----\n"))
	}
	return got
}
