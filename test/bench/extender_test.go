package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"sigs.k8s.io/yaml"

	"github.com/berth-sched/berth/internal/proc"
	"github.com/berth-sched/berth/internal/registry"

	"github.com/berth-sched/berth/test/harness"
)

// The GPUShare_Extender test case runs the stock kube-scheduler calling berth-extender, as
// manifests/extender/ deploys them. The extender must watch the apiserver the harness starts for
// each workload, and the harness offers no hook between starting its apiserver and building its
// scheduler but the plugin factories. So that test case's profile enables StartBerthExtender: its
// factory starts bin/berth-extender against the harness's apiserver and waits until it serves, and
// its PreFilter does nothing. Everything else in that profile is the stock default.
const (
	extenderLauncher = "StartBerthExtender"
	// extenderConfig names the extender at extenderAddress, fixed because the configuration is a
	// file the harness reads.
	extenderConfig  = "extender-scheduler-config.yaml"
	extenderAddress = "127.0.0.1:39123"
	extenderPrefix  = "/berth"
	// extenderFilterOnlyConfig is the same extender without prioritizeVerb.
	extenderFilterOnlyConfig = "extender-filteronly-scheduler-config.yaml"
)

// benchRegistry is berth's plugins plus the extender launcher.
func benchRegistry() frameworkruntime.Registry {
	r := registry.Registry()
	r[extenderLauncher] = startExtender
	return r
}

// runningExtender is the extender of the workload in progress. The harness cancels a workload's
// context when the workload ends; the extender is stopped then, and at the latest before the next
// one starts on the same address, and when the test binary exits.
var runningExtender struct {
	sync.Mutex
	p   *proc.Process
	dir string
}

func stopExtender() {
	runningExtender.Lock()
	defer runningExtender.Unlock()
	if runningExtender.p != nil {
		runningExtender.p.Stop(10 * time.Second)
		os.RemoveAll(runningExtender.dir)
		runningExtender.p = nil
	}
}

type extenderLauncherPlugin struct{}

func (extenderLauncherPlugin) Name() string { return extenderLauncher }

func (extenderLauncherPlugin) PreFilter(context.Context, fwk.CycleState, *v1.Pod, []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	return nil, nil
}

func (extenderLauncherPlugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// startExtender runs bin/berth-extender against the scheduler's apiserver with the client limits
// the harness gives the scheduler (qps and burst 5000), so that the two are compared on how they
// work rather than on client-side throttling, and returns once it is ready.
func startExtender(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	stopExtender()
	dir, err := os.MkdirTemp("", "berth-bench-extender-")
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(h.KubeConfig(), kubeconfig); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The configuration names a fixed address, so a berth-extender left by another benchmark there
	// would answer for this one, watching another apiserver: refuse to start instead.
	l, err := net.Listen("tcp", extenderAddress)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("the extender benchmarks need %s, which is in use (another benchmark running?): %w", extenderAddress, err)
	}
	l.Close()
	host, port, _ := net.SplitHostPort(extenderAddress)
	p, err := proc.Start("berth-extender", filepath.Join(dir, "berth-extender.log"), filepath.Join(binDir(), "berth-extender"),
		"--kubeconfig", kubeconfig, "--bind-address", host, "--port", port, "--url-prefix", extenderPrefix,
		"--kube-api-qps", "5000", "--kube-api-burst", "5000", "-v=1")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	runningExtender.Lock()
	runningExtender.p, runningExtender.dir = p, dir
	runningExtender.Unlock()
	context.AfterFunc(ctx, stopExtender)

	ready := "http://" + extenderAddress + "/readyz"
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := p.Exited(); err != nil {
			return false, err
		}
		resp, err := http.Get(ready)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		tail := p.LogTail(20)
		stopExtender()
		return nil, fmt.Errorf("berth-extender not ready at %s: %w\n%s", ready, err, tail)
	}
	return extenderLauncherPlugin{}, nil
}

// writeKubeconfig writes a kubeconfig with what cfg connects and authenticates with.
func writeKubeconfig(cfg *restclient.Config, path string) error {
	if cfg == nil {
		return errors.New("the scheduler has no kubeconfig to give berth-extender")
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["bench"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthority:     cfg.CAFile,
		CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify:    cfg.Insecure,
		TLSServerName:            cfg.ServerName,
	}
	kc.AuthInfos["bench"] = &clientcmdapi.AuthInfo{
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		ClientCertificate:     cfg.CertFile,
		ClientCertificateData: cfg.CertData,
		ClientKey:             cfg.KeyFile,
		ClientKeyData:         cfg.KeyData,
		Username:              cfg.Username,
		Password:              cfg.Password,
	}
	kc.Contexts["bench"] = &clientcmdapi.Context{Cluster: "bench", AuthInfo: "bench"}
	kc.CurrentContext = "bench"
	return clientcmd.WriteToFile(*kc, path)
}

// TestExtenderConfigIsShipped holds the benchmark's extender configurations to the one berth ships,
// but for where the extender listens (and, for the filter-only one, its prioritize).
func TestExtenderConfigIsShipped(t *testing.T) {
	harness.SoakOnly(t) // the benchmark harness's own tests run with its workloads, in make soak
	extenders := func(path string, configMap bool) []map[string]any {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if configMap {
			var cm v1.ConfigMap
			if err := yaml.Unmarshal(raw, &cm); err != nil {
				t.Fatal(err)
			}
			raw = []byte(cm.Data["config.yaml"])
		}
		var cfg struct{ Extenders []map[string]any }
		if err := yaml.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		return cfg.Extenders
	}
	shipped := extenders(filepath.Join(repoRoot(), "manifests", "extender", "scheduler-config.yaml"), true)
	bench := extenders(extenderConfig, false)
	if len(bench) != 1 || len(shipped) != 1 {
		t.Fatalf("extenders: %d in the benchmark's configuration, %d shipped; want 1 each", len(bench), len(shipped))
	}
	u, err := url.Parse(fmt.Sprint(bench[0]["urlPrefix"]))
	if err != nil || u.Host != extenderAddress || u.Path != extenderPrefix {
		t.Errorf("benchmark urlPrefix %v, want http://%s%s", bench[0]["urlPrefix"], extenderAddress, extenderPrefix)
	}
	delete(bench[0], "urlPrefix")
	delete(shipped[0], "urlPrefix")
	// The shipped extender speaks mutual TLS to the scheduler; the benchmark runs both on loopback
	// over plain HTTP, so its figures leave out the handshake and encryption (docs/benchmarks.md).
	if shipped[0]["enableHTTPS"] != true || shipped[0]["tlsConfig"] == nil {
		t.Errorf("the shipped extender does not use TLS: enableHTTPS=%v tlsConfig=%v", shipped[0]["enableHTTPS"], shipped[0]["tlsConfig"])
	}
	delete(shipped[0], "enableHTTPS")
	delete(shipped[0], "tlsConfig")
	if diff := cmp.Diff(shipped[0], bench[0]); diff != "" {
		t.Errorf("the benchmark's extender differs from the shipped one (-shipped +bench):\n%s", diff)
	}
	// The filter-only configuration is the shipped one less prioritize and its weight.
	filterOnly := extenders(extenderFilterOnlyConfig, false)
	if len(filterOnly) != 1 {
		t.Fatalf("extenders: %d in %s; want 1", len(filterOnly), extenderFilterOnlyConfig)
	}
	if filterOnly[0]["urlPrefix"] != u.String() {
		t.Errorf("%s: urlPrefix %v, want %s", extenderFilterOnlyConfig, filterOnly[0]["urlPrefix"], u)
	}
	delete(filterOnly[0], "urlPrefix")
	delete(shipped[0], "prioritizeVerb")
	delete(shipped[0], "weight")
	if diff := cmp.Diff(shipped[0], filterOnly[0]); diff != "" {
		t.Errorf("%s is not the shipped extender less prioritizeVerb and weight (-shipped +bench):\n%s", extenderFilterOnlyConfig, diff)
	}
}
