// berth-extender serves berth's GPU memory accounting to a stock kube-scheduler as a scheduler
// extender: filter, prioritize, preempt and bind over HTTP(S), plus /healthz, /readyz and
// /metrics. See docs/extender.md for when to choose it over berth-scheduler's GPUShare plugin.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/component-base/term"
	"k8s.io/component-base/version"
	"k8s.io/component-base/version/verflag"
	"k8s.io/klog/v2"

	"github.com/berth-sched/berth/pkg/extender"
	"github.com/berth-sched/berth/pkg/gpu"
)

const component = "berth-extender"

func main() {
	os.Exit(cli.Run(newCommand()))
}

func newCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   component,
		Short: "Scheduler extender that places pods on shared GPUs by GPU memory",
		Long: `berth-extender serves berth's GPU memory accounting to a stock kube-scheduler
through the scheduler extender protocol: filter, prioritize, preempt and bind under --url-prefix,
and /healthz, /readyz and /metrics. Configure the scheduler's extenders with the same verbs,
nodeCacheCapable true or false, and managedResources naming --memory-resource.`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			verflag.PrintAndExitIfRequested()
			if err := logsapi.ValidateAndApply(o.Logs, nil); err != nil {
				return err
			}
			cliflag.PrintFlags(cmd.Flags())
			cfg, err := o.Validate()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return run(ctx, o, cfg)
		},
		Args: cobra.NoArgs,
	}
	fss := o.Flags()
	verflag.AddFlags(fss.FlagSet("global"))
	globalflag.AddGlobalFlags(fss.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	for _, fs := range fss.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, fss, cols)
	return cmd
}

func run(ctx context.Context, o *Options, cfg extender.Config) error {
	logger := klog.FromContext(ctx)
	logger.Info("Starting "+component, "version", version.Get(), "address", o.Address(), "urlPrefix", o.URLPrefix,
		"memoryResource", o.MemoryResource, "countResource", o.CountResource, "scoringStrategy", o.ScoringStrategy,
		"clientCertificates", o.ClientCAFile != "", "leaderElect", o.LeaderElection.LeaderElect)

	restConfig, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	restConfig.QPS, restConfig.Burst = o.KubeAPIQPS, o.KubeAPIBurst
	restConfig.UserAgent = component + "/" + version.Get().GitVersion
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}

	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, component)

	f := &front{}
	if o.Profiling {
		f.profiles = profilesHandler()
	}
	server, err := newServer(o, f, logger)
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() {
		if o.TLSCertFile != "" {
			served <- server.ListenAndServeTLS(o.TLSCertFile, o.TLSKeyFile)
		} else {
			served <- server.ListenAndServe()
		}
	}()

	// activate builds the GPU cache from a fresh list of pods and nodes and hands the verbs to it.
	// A replica that takes over calls it only once it holds the lease, so the list is read after
	// the last bind of the replica before it; until the cache has synced, /readyz fails and every
	// verb answers 503.
	activate := func(ctx context.Context) error {
		factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(stripManagedFields))
		ext, err := extender.New(client, factory, cfg, logger, gpu.Reporter(logger, recorder))
		if err != nil {
			return err
		}
		factory.Start(ctx.Done())
		f.activate(ext.Handler(o.URLPrefix, extender.Limits{MaxRequestBytes: o.MaxRequestBytes, MaxInFlightBytes: o.MaxInFlightBytes}))
		go func() {
			if toolscache.WaitForCacheSync(ctx.Done(), ext.HasSynced) {
				logger.Info("GPU cache synced; serving")
			}
		}()
		return nil
	}

	// The elector runs on its own context: on SIGTERM the server drains its requests first, and
	// only then is the lease released, so the next replica lists what the last bind wrote.
	electCtx, stopElecting := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer stopElecting()
	lost := make(chan error, 1)
	if o.LeaderElection.LeaderElect {
		if err := elect(electCtx, o, restConfig, recorder, f, activate, lost); err != nil {
			return err
		}
	} else if err := activate(electCtx); err != nil {
		return err
	}

	select {
	case err := <-served:
		return fmt.Errorf("serving on %s: %w", o.Address(), err)
	case err := <-lost:
		// Exit at once, as kube-scheduler does: a replica that may have lost the lease to another
		// must not bind another pod. Restarted, it comes back as a standby.
		f.deactivate()
		return err
	case <-ctx.Done():
	}
	logger.Info("Shutting down")
	f.deactivate()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if o.LeaderElection.LeaderElect {
		stopElecting()
		// Give the elector its chance to release the lease, so that a standby takes over at once.
		select {
		case <-lost:
			logger.Info("Released the lease")
		case <-shutdownCtx.Done():
		}
	}
	return nil
}

// newServer serves f, over HTTPS when there is a certificate, and with --client-ca-file only to
// clients with a certificate from that CA.
func newServer(o *Options, f *front, logger klog.Logger) (*http.Server, error) {
	var handler http.Handler = f
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.ClientCAFile != "" {
		pool, err := o.ClientCAs()
		if err != nil {
			return nil, err
		}
		tlsConfig.ClientCAs = pool
		tlsConfig.ClientAuth = tls.VerifyClientCertIfGiven
		handler = requireClientCert(f)
	}
	return &http.Server{
		Addr:              o.Address(),
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// A body of --max-request-bytes arrives well within this; a slower client is not a scheduler.
		ReadTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return klog.NewContext(context.Background(), logger) },
		TLSConfig:   tlsConfig,
	}, nil
}

// stripManagedFields drops what the extender never reads from the pods and nodes it caches.
func stripManagedFields(obj any) (any, error) {
	switch o := obj.(type) {
	case *v1.Pod:
		o.ManagedFields = nil
	case *v1.Node:
		o.ManagedFields = nil
	}
	return obj, nil
}
