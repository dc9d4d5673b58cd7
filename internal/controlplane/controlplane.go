// Package controlplane runs a throwaway Kubernetes control plane on loopback
// for berth's integration tests, demo and benchmarks: a real etcd and a real
// kube-apiserver, as child processes, and nothing else.
//
// With no kubelet and no controller-manager, what controllers would do never
// happens: no default ServiceAccount, no node heartbeats, no namespace
// finalization (a deleted Namespace stays Terminating), no garbage collection.
// The admission plugins that would depend on them are switched off.
package controlplane

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/berth-sched/berth/internal/proc"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// startTimeout bounds Start even when the caller's context has no
	// deadline; a loaded two-core machine needs well under half of it.
	startTimeout = 2 * time.Minute
	// portAttempts is how often Start picks new ports when one was taken
	// between choosing it and the process binding it.
	portAttempts = 3

	adminUser         = "berth-admin"
	serviceClusterIPs = "10.0.0.0/24"
)

// Options configures Start.
type Options struct {
	// BinDir holds the etcd and kube-apiserver binaries (`make binaries`).
	BinDir string
	// WorkDir receives etcd's data, certificates, kubeconfigs and the
	// processes' logs. When empty, a temporary directory is made and Stop
	// removes it; a WorkDir given here is kept so the logs can be read.
	WorkDir string
	// Logf, when set, receives progress messages.
	Logf func(format string, args ...any)
	// APIServerFlags are appended to kube-apiserver's command line after
	// berth's own flags, so they win: e.g. --feature-gates or
	// --runtime-config for beta APIs.
	APIServerFlags []string
}

// ControlPlane is a running etcd and kube-apiserver. Stop it when done.
type ControlPlane struct {
	opts       Options
	workDir    string
	ownWorkDir bool

	url        string
	token      string // bearer token of the system:masters user
	caData     []byte // the apiserver's self-signed serving CA
	kubeconfig string

	procs    []*proc.Process // in start order: etcd, kube-apiserver
	stopOnce sync.Once
}

// Start launches etcd and kube-apiserver on free loopback ports and returns
// once the apiserver's /readyz passes. On failure, everything started so far
// is stopped and the error carries the end of the failing process's log.
func Start(ctx context.Context, o Options) (_ *ControlPlane, err error) {
	begin := time.Now()
	c := &ControlPlane{opts: o}
	if c.opts.Logf == nil {
		c.opts.Logf = func(string, ...any) {}
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	// Absolute, so that an empty BinDir does not send exec to $PATH and paths
	// in a kubeconfig do not depend on the reader's working directory.
	if c.opts.BinDir, err = filepath.Abs(o.BinDir); err != nil {
		return nil, err
	}
	if o.WorkDir != "" {
		if c.opts.WorkDir, err = filepath.Abs(o.WorkDir); err != nil {
			return nil, err
		}
	}
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(c.opts.BinDir, bin)); err != nil {
			return nil, fmt.Errorf("%s binary missing (run `make binaries`): %w", bin, err)
		}
	}
	if err := c.prepareWorkDir(); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		err = c.launch(ctx)
		if !errors.Is(err, errAddrInUse) || attempt == portAttempts {
			break
		}
		c.opts.Logf("controlplane: a port was taken, retrying with new ports: %v", err)
		c.stopProcesses()
		c.procs = nil
	}
	if err != nil {
		return nil, err
	}

	c.kubeconfig = filepath.Join(c.workDir, "kubeconfig")
	if err := c.writeKubeconfig(c.kubeconfig, ""); err != nil {
		return nil, err
	}
	c.opts.Logf("controlplane: kube-apiserver ready at %s after %v (work dir %s)", c.url, time.Since(begin).Round(time.Millisecond), c.workDir)
	return c, nil
}

// prepareWorkDir makes the work dir and the credentials the apiserver reads at
// start-up.
func (c *ControlPlane) prepareWorkDir() error {
	if c.opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "berth-controlplane-")
		if err != nil {
			return err
		}
		c.workDir, c.ownWorkDir = dir, true
	} else {
		if err := os.MkdirAll(c.opts.WorkDir, 0o755); err != nil {
			return err
		}
		c.workDir = c.opts.WorkDir
	}

	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return err
	}
	c.token = hex.EncodeToString(token)
	// token,user,uid,groups: system:masters bypasses authorization entirely.
	line := fmt.Sprintf("%s,%s,%s,system:masters\n", c.token, adminUser, adminUser)
	if err := os.WriteFile(c.path("tokens.csv"), []byte(line), 0o600); err != nil {
		return err
	}

	// The apiserver refuses to start without a service-account signing key,
	// even though no token is ever issued here.
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return os.WriteFile(c.path("sa.key"), keyPEM, 0o600)
}

// launch starts both processes and waits for readiness. The apiserver is
// started without waiting for etcd: it retries its etcd connection, and its
// own initialisation overlaps etcd's.
func (c *ControlPlane) launch(ctx context.Context) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	c.url = fmt.Sprintf("https://127.0.0.1:%d", ports[2])

	// Left-overs of a previous attempt or a reused WorkDir would be for other
	// ports; this cluster is throwaway, so start from nothing.
	for _, d := range []string{"etcd", "pki"} {
		if err := os.RemoveAll(c.path(d)); err != nil {
			return err
		}
	}

	etcd, err := proc.Start("etcd", c.path("etcd.log"), filepath.Join(c.opts.BinDir, "etcd"),
		"--name=berth",
		"--data-dir="+c.path("etcd"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=berth="+peerURL,
		// Nothing here needs to survive a crash, and fsync is most of
		// etcd's latency on a shared disk.
		"--unsafe-no-fsync",
		// A single member elects itself after one election timeout; the
		// default of a second is for real networks.
		"--heartbeat-interval=10",
		"--election-timeout=100",
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	c.procs = append(c.procs, etcd)
	c.opts.Logf("controlplane: etcd (pid %d) at %s", etcd.PID(), etcdURL)

	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		// Without it the apiserver advertises the host's default-route
		// address, and fails to start on a machine that has none.
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", ports[2]),
		// A self-signed serving certificate for 127.0.0.1 and localhost is
		// generated here; clients trust it through RESTConfig's CAData.
		"--cert-dir=" + c.path("pki"),
		"--token-auth-file=" + c.path("tokens.csv"),
		// AlwaysAllow refuses anonymous requests since 1.37, and RBAC is what a
		// scheduler meets in a real cluster.
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.path("sa.key"),
		"--service-account-signing-key-file=" + c.path("sa.key"),
		"--service-cluster-ip-range=" + serviceClusterIPs,
		// ServiceAccount would reject every pod, since no controller creates
		// the default ServiceAccount; TaintNodesByCondition would taint every
		// new Node not-ready, and no node-lifecycle controller would lift it.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		// One trusted client population: fairness buys nothing, and the
		// in-flight limits are raised far above the defaults (400 and 200) so
		// that benchmarks measure the scheduler, not the apiserver's
		// throttling. They stay positive so that --enable-priority-and-fairness
		// can be turned back on through APIServerFlags.
		"--enable-priority-and-fairness=false",
		"--max-requests-inflight=2000",
		"--max-mutating-requests-inflight=1000",
		// No kubelet runs, so there are no endpoints worth reconciling.
		"--endpoint-reconciler-type=none",
		// API groups nothing here reads (no controller manager, no autoscaler; priority and
		// fairness is off): each served group's storage and OpenAPI are built at every start.
		// Without them kube-apiserver was ready about 1.4 s sooner on 2 loaded cores (8 starts
		// each, interleaved: 7.7 s against 9.1 s on average at load average 14 to 17).
		// A later --runtime-config in APIServerFlags adds to this one.
		"--runtime-config=autoscaling/v1=false,autoscaling/v2=false,batch/v1=false,certificates.k8s.io/v1=false," +
			"storagemigration.k8s.io/v1=false,flowcontrol.apiserver.k8s.io/v1=false",
		"--allow-privileged=true",
	}
	apiserver, err := proc.Start("kube-apiserver", c.path("kube-apiserver.log"), filepath.Join(c.opts.BinDir, "kube-apiserver"),
		append(args, c.opts.APIServerFlags...)...)
	if err != nil {
		return err
	}
	c.procs = append(c.procs, apiserver)
	c.opts.Logf("controlplane: kube-apiserver (pid %d) at %s", apiserver.PID(), c.url)

	return c.waitReady(ctx, etcd, apiserver)
}

// waitReady polls /readyz and returns as soon as it passes, as soon as either
// process exits, or when ctx ends.
func (c *ControlPlane) waitReady(ctx context.Context, etcd, apiserver *proc.Process) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		select {
		case <-etcd.Done():
			return earlyExit(etcd)
		case <-apiserver.Done():
			return earlyExit(apiserver)
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready: %w; last /readyz answer: %s\nlast lines of %s:\n%s\nlast lines of %s:\n%s",
				ctx.Err(), last, apiserver.LogPath, apiserver.LogTail(30), etcd.LogPath, etcd.LogTail(10))
		case <-tick.C:
			ca, ok, answer := c.probe(ctx)
			if ok {
				c.caData = ca
				return nil
			}
			if ctx.Err() == nil { // keep the apiserver's answer, not our own timeout
				last = answer
			}
		}
	}
}

// earlyExit describes a process that died during start-up together with the end of its log,
// which is where the reason is. A port taken between choosing it and binding it is worth a retry.
func earlyExit(p *proc.Process) error {
	err := fmt.Errorf("%v; last lines of %s:\n%s", p.Exited(), p.LogPath, p.LogTail(30))
	if p.LogContains("address already in use") {
		return fmt.Errorf("%w: %v", errAddrInUse, err)
	}
	return err
}

var errAddrInUse = errors.New("address already in use")

// stopGrace is 0: etcd and kube-apiserver are killed at once (proc.Stop), not sent SIGTERM. The data
// is throwaway, and a graceful shutdown of kube-apiserver took 1.1 to 1.2 s of every test's end on a
// quiet machine.
const stopGrace = 0

// probe asks /readyz with the admin token. The serving certificate is read
// afresh each time because the apiserver writes it during start-up, and a
// half-written file must not be trusted for good.
func (c *ControlPlane) probe(ctx context.Context) (ca []byte, ok bool, answer string) {
	ca, err := os.ReadFile(c.path("pki", "apiserver.crt"))
	if err != nil {
		return nil, false, "no serving certificate yet"
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, false, "serving certificate not readable yet"
	}
	client := &http.Client{
		Timeout: 2 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: pool},
			DisableKeepAlives: true,
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/readyz", nil)
	if err != nil {
		return nil, false, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := client.Do(req)
	if err != nil {
		return nil, false, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Sprintf("%s: %s", resp.Status, body)
	}
	return ca, true, ""
}

// freePorts asks the kernel for n distinct free loopback ports. They are held
// together so that they differ, then released for the processes to bind; the
// small race this leaves is handled by retrying in Start.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Stop kills the processes and waits for them to be reaped, then removes the
// work dir if Start made it. It is safe to call more than once.
func (c *ControlPlane) Stop() {
	c.stopOnce.Do(func() {
		c.stopProcesses()
		if c.ownWorkDir {
			if err := os.RemoveAll(c.workDir); err != nil {
				c.opts.Logf("controlplane: removing %s: %v", c.workDir, err)
			}
		}
	})
}

// stopProcesses stops the apiserver before etcd, so that it never sees etcd gone.
func (c *ControlPlane) stopProcesses() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].Stop(stopGrace)
	}
}

// RESTConfig returns a fresh config for the system:masters admin user. Its
// client-side rate limit is far above client-go's default of 5 qps, which
// would otherwise dominate test set-up and benchmark times.
func (c *ControlPlane) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            c.url,
		BearerToken:     c.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: bytes.Clone(c.caData)},
		QPS:             1000,
		Burst:           2000,
	}
}

// KubeconfigPath is a kubeconfig for the admin user, for processes such as
// kube-scheduler --kubeconfig or kubectl.
func (c *ControlPlane) KubeconfigPath() string { return c.kubeconfig }

// Kubeconfig writes a kubeconfig that acts as user (and groups) and returns
// its path. It impersonates through the admin token, which needs no
// certificate authority or restart, and the apiserver authorizes the result
// exactly as that user (plus system:authenticated): enough to test a
// component's RBAC rules.
func (c *ControlPlane) Kubeconfig(user string, groups ...string) (string, error) {
	f, err := os.CreateTemp(c.workDir, "kubeconfig-*")
	if err != nil {
		return "", err
	}
	path := f.Name()
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, c.writeKubeconfig(path, user, groups...)
}

func (c *ControlPlane) writeKubeconfig(path, user string, groups ...string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["berth"] = &clientcmdapi.Cluster{Server: c.url, CertificateAuthorityData: c.caData}
	cfg.AuthInfos["berth"] = &clientcmdapi.AuthInfo{Token: c.token, Impersonate: user, ImpersonateGroups: groups}
	cfg.Contexts["berth"] = &clientcmdapi.Context{Cluster: "berth", AuthInfo: "berth"}
	cfg.CurrentContext = "berth"
	return clientcmd.WriteToFile(*cfg, path)
}

// PIDs lets tests check that Stop left nothing running.
func (c *ControlPlane) PIDs() []int {
	pids := make([]int, 0, len(c.procs))
	for _, p := range c.procs {
		pids = append(pids, p.PID())
	}
	return pids
}

// URL is the apiserver's address, https://127.0.0.1:<port>.
func (c *ControlPlane) URL() string { return c.url }

// WorkDir holds the processes' logs (etcd.log, kube-apiserver.log), useful
// when a test fails. It is removed by Stop unless it was given in Options.
func (c *ControlPlane) WorkDir() string { return c.workDir }

func (c *ControlPlane) path(elem ...string) string {
	return filepath.Join(append([]string{c.workDir}, elem...)...)
}
