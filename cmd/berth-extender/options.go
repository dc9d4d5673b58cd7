package main

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cliflag "k8s.io/component-base/cli/flag"
	componentbaseconfig "k8s.io/component-base/config"
	componentbaseoptions "k8s.io/component-base/config/options"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/berth-sched/berth/pkg/extender"
	"github.com/berth-sched/berth/pkg/gpu"
)

// Options are berth-extender's flags.
type Options struct {
	Kubeconfig   string
	KubeAPIQPS   float32
	KubeAPIBurst int

	BindAddress     string
	Port            int
	TLSCertFile     string
	TLSKeyFile      string
	ClientCAFile    string
	URLPrefix       string
	MaxRequestBytes int64
	// MaxInFlightBytes bounds the request bodies answered at once (extender.Limits).
	MaxInFlightBytes int64
	Profiling        bool

	MemoryResource  string
	CountResource   string
	ScoringStrategy string

	LeaderElection componentbaseconfig.LeaderElectionConfiguration

	Logs *logsapi.LoggingConfiguration
}

// NewOptions returns the defaults; the GPU ones are the GPUShare plugin's.
func NewOptions() *Options {
	return &Options{
		KubeAPIQPS:       50,
		KubeAPIBurst:     100,
		BindAddress:      "0.0.0.0",
		Port:             12345,
		URLPrefix:        "/berth",
		MaxRequestBytes:  extender.DefaultMaxRequestBytes,
		MaxInFlightBytes: extender.DefaultMaxInFlightBytes,
		MemoryResource:   gpu.DefaultMemoryResource,
		CountResource:    gpu.DefaultCountResource,
		ScoringStrategy:  gpu.DefaultStrategyName,
		// kube-scheduler's timings. Off by default: one replica needs no lease (and no RBAC for it).
		LeaderElection: componentbaseconfig.LeaderElectionConfiguration{
			LeaseDuration:     metav1.Duration{Duration: 15 * time.Second},
			RenewDeadline:     metav1.Duration{Duration: 10 * time.Second},
			RetryPeriod:       metav1.Duration{Duration: 2 * time.Second},
			ResourceLock:      "leases",
			ResourceName:      "berth-extender",
			ResourceNamespace: "berth-system",
		},
		Logs: logsapi.NewLoggingConfiguration(),
	}
}

// Flags returns the flags by section, for the command and its help.
func (o *Options) Flags() cliflag.NamedFlagSets {
	var fss cliflag.NamedFlagSets

	fs := fss.FlagSet("serving")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address to listen on.")
	fs.IntVar(&o.Port, "port", o.Port, "Port to serve the extender verbs, /healthz, /readyz and /metrics on.")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile,
		"File with the x509 certificate for HTTPS (with --tls-private-key-file). Without both, plain HTTP.")
	fs.StringVar(&o.TLSKeyFile, "tls-private-key-file", o.TLSKeyFile, "File with the x509 private key matching --tls-cert-file.")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile,
		"File with the PEM CA bundle that signs the scheduler's client certificate (needs --tls-cert-file). With it, every "+
			"request but /healthz, /livez, /readyz and /metrics must present a client certificate that chains to this bundle; "+
			"others are refused. Use a CA that signs nothing but the clients allowed to call the verbs.")
	fs.StringVar(&o.URLPrefix, "url-prefix", o.URLPrefix,
		"Path the verbs are served under, as in the scheduler's urlPrefix: <prefix>/filter, /prioritize, /preempt, /bind.")
	fs.Int64Var(&o.MaxRequestBytes, "max-request-bytes", o.MaxRequestBytes,
		"Largest request body accepted; larger ones get 413. Raise it for nodeCacheCapable: false on large clusters.")
	fs.Int64Var(&o.MaxInFlightBytes, "max-in-flight-request-bytes", o.MaxInFlightBytes,
		"Largest sum of the request bodies answered at once (each counted as at least 16 KiB, a chunked one as --max-request-bytes); "+
			"a request past it gets 429 with Retry-After, which the scheduler retries. Bounds the extender's memory under a burst: "+
			"size the container's memory limit by it (docs/extender.md).")
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling,
		"Serve Go's profiler at /debug/pprof/ (behind --client-ca-file, as the verbs are).")

	fs = fss.FlagSet("GPU")
	fs.StringVar(&o.MemoryResource, "memory-resource", o.MemoryResource,
		"Extended resource that nodes report as their total GPU memory and containers put in their limits.")
	fs.StringVar(&o.CountResource, "count-resource", o.CountResource, "Node capacity that says how many GPUs hold the memory.")
	fs.StringVar(&o.ScoringStrategy, "scoring-strategy", o.ScoringStrategy,
		"How prioritize ranks nodes and bind picks devices: Binpack (fullest GPUs first), Spread (emptiest first) or "+
			"Fragmentation (devices as Binpack; the extender ranks nodes as Binpack too, see docs/extender.md).")

	fs = fss.FlagSet("leader election")
	componentbaseoptions.BindLeaderElectionFlags(&o.LeaderElection, fs)

	fs = fss.FlagSet("Kubernetes client")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig. Empty: the in-cluster service account.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "Queries per second to the API server; each GPU pod bound costs one (its Binding).")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst of queries to the API server.")

	logsapi.AddFlags(o.Logs, fss.FlagSet("logs"))
	return fss
}

// prefixPattern is a URL path of plain segments, which the scheduler joins with "/"+verb.
var prefixPattern = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)*$`)

// Validate checks the flags and returns the extender's configuration.
func (o *Options) Validate() (extender.Config, error) {
	var errs []error
	if net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not an IP address", o.BindAddress))
	}
	if o.Port < 1 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d is not between 1 and 65535", o.Port))
	}
	if (o.TLSCertFile == "") != (o.TLSKeyFile == "") {
		errs = append(errs, fmt.Errorf("--tls-cert-file and --tls-private-key-file go together"))
	}
	if o.ClientCAFile != "" {
		if o.TLSCertFile == "" {
			errs = append(errs, fmt.Errorf("--client-ca-file needs --tls-cert-file and --tls-private-key-file: client certificates only exist over HTTPS"))
		}
		if _, err := o.ClientCAs(); err != nil {
			errs = append(errs, err)
		}
	}
	if le := o.LeaderElection; le.LeaderElect {
		if le.RenewDeadline.Duration <= 0 || le.RetryPeriod.Duration <= 0 || le.LeaseDuration.Duration <= le.RenewDeadline.Duration {
			errs = append(errs, fmt.Errorf("--leader-elect-lease-duration %s, --leader-elect-renew-deadline %s, --leader-elect-retry-period %s: "+
				"each must be positive and the lease longer than the renew deadline", le.LeaseDuration.Duration, le.RenewDeadline.Duration, le.RetryPeriod.Duration))
		}
		if le.ResourceLock != "leases" {
			errs = append(errs, fmt.Errorf("--leader-elect-resource-lock %q: only leases is supported", le.ResourceLock))
		}
		if le.ResourceName == "" || le.ResourceNamespace == "" {
			errs = append(errs, fmt.Errorf("--leader-elect-resource-name and --leader-elect-resource-namespace must not be empty"))
		}
	}
	if !prefixPattern.MatchString(o.URLPrefix) {
		errs = append(errs, fmt.Errorf("--url-prefix %q must be empty or a path like /berth (segments of letters, digits, '.', '_', '~', '-')", o.URLPrefix))
	}
	if o.MaxRequestBytes < 1<<10 {
		errs = append(errs, fmt.Errorf("--max-request-bytes %d is less than 1024", o.MaxRequestBytes))
	}
	if o.MaxInFlightBytes < o.MaxRequestBytes {
		errs = append(errs, fmt.Errorf("--max-in-flight-request-bytes %d is less than --max-request-bytes %d: a request of the largest size would always get 429",
			o.MaxInFlightBytes, o.MaxRequestBytes))
	}
	if o.KubeAPIQPS <= 0 || o.KubeAPIBurst <= 0 {
		errs = append(errs, fmt.Errorf("--kube-api-qps and --kube-api-burst must be positive"))
	}
	if err := gpu.ValidateSettings(nil, o.MemoryResource, o.CountResource, o.ScoringStrategy).ToAggregate(); err != nil {
		// The same rules as the plugin's args, which these flags mirror.
		errs = append(errs, fmt.Errorf("--memory-resource, --count-resource, --scoring-strategy: %w", err))
	}
	if len(errs) > 0 {
		return extender.Config{}, errors.Join(errs...)
	}
	strategy, err := gpu.StrategyNamed(o.ScoringStrategy)
	if err != nil {
		return extender.Config{}, err
	}
	return extender.Config{
		Resources: gpu.ResourceNames{Memory: v1.ResourceName(o.MemoryResource), Count: v1.ResourceName(o.CountResource)},
		Strategy:  strategy,
	}, nil
}

// Address is where to listen.
func (o *Options) Address() string { return net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port)) }

// ClientCAs reads --client-ca-file.
func (o *Options) ClientCAs() (*x509.CertPool, error) {
	pem, err := os.ReadFile(o.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("--client-ca-file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--client-ca-file %s holds no PEM certificate", o.ClientCAFile)
	}
	return pool, nil
}
