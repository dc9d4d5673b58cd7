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
		"memoryResource", o.MemoryResource, "countResource", o.CountResource, "scoringStrategy", o.ScoringStrategy)

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

	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(stripManagedFields))
	ext, err := extender.New(client, factory, cfg, logger, gpu.Reporter(logger, recorder))
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	go func() {
		if toolscache.WaitForCacheSync(ctx.Done(), ext.HasSynced) {
			logger.Info("GPU cache synced; serving")
		}
	}()

	server := &http.Server{
		Addr:              o.Address(),
		Handler:           ext.Handler(o.URLPrefix, o.MaxRequestBytes),
		ReadHeaderTimeout: 10 * time.Second,
		// A body of --max-request-bytes arrives well within this; a slower client is not a scheduler.
		ReadTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return klog.NewContext(context.Background(), logger) },
		TLSConfig:   &tls.Config{MinVersion: tls.VersionTLS12},
	}
	served := make(chan error, 1)
	go func() {
		if o.TLSCertFile != "" {
			served <- server.ListenAndServeTLS(o.TLSCertFile, o.TLSKeyFile)
		} else {
			served <- server.ListenAndServe()
		}
	}()
	select {
	case err := <-served:
		return fmt.Errorf("serving on %s: %w", o.Address(), err)
	case <-ctx.Done():
	}
	logger.Info("Shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
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
