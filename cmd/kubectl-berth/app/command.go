// Package app is the kubectl-berth command: `kubectl berth gpus|gangs|quotas|why`, a kubectl plugin
// that prints what berth recorded in a cluster (internal/inspect), with kubectl's own connection flags.
package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/berth-sched/berth/internal/inspect"
	"github.com/berth-sched/berth/pkg/gpu"
	"github.com/berth-sched/berth/pkg/topology"
)

// options are the flags every subcommand shares.
type options struct {
	config        *genericclioptions.ConfigFlags
	streams       genericiooptions.IOStreams
	output        string
	allNamespaces bool
}

// NewCommand is `kubectl berth` writing to streams.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	o := &options{config: genericclioptions.NewConfigFlags(true), streams: streams}
	cmd := &cobra.Command{
		Use:   "kubectl-berth",
		Short: "Show how berth shares GPUs, places gangs and lends quota, and why a pod is pending",
		Long: `kubectl berth reads what berth (or the gpushare scheduler extender, or scheduler-plugins) recorded
on nodes, pods, PodGroups and ElasticQuotas, and prints it per GPU, per gang and per quota.
It needs only read access to those objects.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl berth"},
	}
	// kubectl completes plugins' flags itself; a plugin's own completion command is noise.
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	o.config.AddFlags(cmd.PersistentFlags())
	cmd.PersistentFlags().StringVarP(&o.output, "output", "o", "", "output format: one of "+strings.Join(inspect.Formats, ", ")+"; a table if not set")
	cmd.PersistentFlags().Var(featureGates{utilfeature.DefaultMutableFeatureGate}, "feature-gates",
		"the scheduler's --feature-gates, key=value pairs, so that why and gangs judge nodes as it does (TaintTolerationComparisonOperators: whether a Gt or Lt toleration tolerates a taint)")
	cmd.AddCommand(o.gpusCommand(), o.gangsCommand(), o.quotasCommand(), o.whyCommand())
	return cmd
}

func (o *options) gpusCommand() *cobra.Command {
	res := gpu.DefaultResourceNames()
	cmd := &cobra.Command{
		Use:   "gpus [NODE]",
		Short: "Per node and GPU: memory used and free, and the pods sharing it",
		Long: `Per node and GPU: memory used and free, and the pods sharing it, with totals per node and for the
cluster. A pod's GPUs are read from its annotations: berth.dev/gpu-devices, or the gpushare extender's
ALIYUN_COM_GPU_MEM_IDX and ALIYUN_COM_GPU_MEM_POD. Memory is in the unit the nodes report it in.
GPUs a DRA driver publishes (gpu.nvidia.com ResourceSlices) follow in their own table, with the
allocated ResourceClaims on each and the pods they are reserved for.`,
		Args: cobra.MaximumNArgs(1),
		RunE: o.run(func(ctx context.Context, c *clients, args []string) (inspect.Report, error) {
			node := ""
			if len(args) == 1 {
				node = args[0]
			}
			return inspect.ListGPUs(ctx, c.core, res, node)
		}),
	}
	cmd.Flags().Var(resourceName{&res.Memory}, "memory-resource", "the extended resource that carries GPU memory, as GPUShare's memoryResource")
	cmd.Flags().Var(resourceName{&res.Count}, "count-resource", "the extended resource that carries the number of GPUs, as GPUShare's countResource")
	return cmd
}

func (o *options) gangsCommand() *cobra.Command {
	levels := topologyLevels{levels: topology.DefaultLevels()}
	cmd := &cobra.Command{
		Use:   "gangs",
		Short: "PodGroups: phase, members placed and waiting, and why they wait",
		Long: `PodGroups (scheduling.x-k8s.io/v1alpha1, and scheduling.k8s.io/v1beta1 where the cluster serves them,
named scheduling.k8s.io/NAME) with their phase and members placed, running, finished and waiting, then
each waiting member with the scheduler's latest reason: its newest FailedScheduling or
GangWaiting event, or its PodScheduled condition. A group annotated berth.dev/topology-required or
-preferred gets a TOPOLOGY column: the domain its members are in, or the level it waits for and the
most members any one domain has room for, domains read by --topology-levels. Native PodGroups you may
not list are left out, with a warning on standard error.`,
		Args: cobra.NoArgs,
		RunE: o.run(func(ctx context.Context, c *clients, _ []string) (inspect.Report, error) {
			return inspect.ListGangsByLevels(ctx, c.core, c.groups, c.namespace, levels.levels)
		}),
	}
	o.allNamespacesFlag(cmd)
	cmd.Flags().Var(&levels, "topology-levels", "the node label keys of the topology levels, outermost first, as Gang's topologyLevels in the scheduler's configuration")
	return cmd
}

// topologyLevels is a pflag.Value for Gang's topologyLevels: comma-separated node label keys,
// checked as the scheduler checks its args.
type topologyLevels struct{ levels topology.Levels }

func (l *topologyLevels) String() string { return strings.Join(l.levels, ",") }

func (l *topologyLevels) Set(s string) error {
	levels := strings.Split(s, ",")
	if errs := topology.ValidateLevels(field.NewPath("topologyLevels"), levels); len(errs) > 0 {
		return errs.ToAggregate()
	}
	l.levels = levels
	return nil
}

func (l *topologyLevels) Type() string { return "strings" }

func (o *options) quotasCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "quotas",
		Short: "ElasticQuotas: min, max, used and borrowed, per resource",
		Long: `ElasticQuotas (scheduling.x-k8s.io/v1alpha1) per resource: min (guaranteed), max (the limit), used,
and borrowed, what is used above min.`,
		Args: cobra.NoArgs,
		RunE: o.run(func(ctx context.Context, c *clients, _ []string) (inspect.Report, error) {
			return inspect.ListQuotas(ctx, c.groups, c.namespace)
		}),
	}
	o.allNamespacesFlag(cmd)
	return cmd
}

func (o *options) whyCommand() *cobra.Command {
	res := gpu.DefaultResourceNames()
	levels := topologyLevels{levels: topology.DefaultLevels()}
	cmd := &cobra.Command{
		Use:   "why POD",
		Short: "Why a pod is pending: the one thing that blocks it, and what would unblock it",
		Long: `The one thing that keeps a pod from being placed, with its numbers, and what would let it in: a quota
on its namespace's path (used and max, and which of the quota's pods would have to end), its pod group
(members bound, placeable now and missing), the topology domain a group requires (the level, the
members to place, and the largest room any domain of the level has, read by --topology-levels), GPU fragmentation (which GPU, how much, which pod's end
would make room), node constraints (selectors, affinity, taints, cordons, counted), room, and what
preemption would do. It reads API objects only: the pod and its events and PodScheduled condition,
nodes, pods, ElasticQuotas and PodGroups. A cause outside berth is named as such.`,
		Args: cobra.ExactArgs(1),
		RunE: o.run(func(ctx context.Context, c *clients, args []string) (inspect.Report, error) {
			return inspect.ExplainPodByLevels(ctx, c.core, c.groups, res, levels.levels, c.namespace, args[0])
		}),
	}
	cmd.Flags().Var(&levels, "topology-levels", "the node label keys of the topology levels, outermost first, as Gang's topologyLevels in the scheduler's configuration")
	cmd.Flags().Var(resourceName{&res.Memory}, "memory-resource", "the extended resource that carries GPU memory, as GPUShare's memoryResource")
	cmd.Flags().Var(resourceName{&res.Count}, "count-resource", "the extended resource that carries the number of GPUs, as GPUShare's countResource")
	return cmd
}

func (o *options) allNamespacesFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "list across all namespaces")
}

// clients are what a subcommand reads the cluster with.
type clients struct {
	core   kubernetes.Interface
	groups versioned.Interface
	// namespace is the one to list in: the flag's, the kubeconfig context's, or all with -A.
	namespace string
}

// run is a subcommand's RunE: it checks the output format before reading anything, so that a
// typo costs no API calls, then reads the report and prints it.
func (o *options) run(read func(context.Context, *clients, []string) (inspect.Report, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if o.output != "" && !slices.Contains(inspect.Formats, o.output) {
			return fmt.Errorf("unknown output format %q: use one of %s", o.output, strings.Join(inspect.Formats, ", "))
		}
		cfg, err := o.config.ToRESTConfig()
		if err != nil {
			return err
		}
		c := &clients{}
		if c.core, err = kubernetes.NewForConfig(cfg); err != nil {
			return err
		}
		if c.groups, err = versioned.NewForConfig(cfg); err != nil {
			return err
		}
		if !o.allNamespaces {
			if c.namespace, _, err = o.config.ToRawKubeConfigLoader().Namespace(); err != nil {
				return err
			}
		}
		r, err := read(cmd.Context(), c, args)
		if err != nil {
			return err
		}
		if w, ok := r.(inspect.Warner); ok {
			for _, s := range w.Warnings() {
				fmt.Fprintf(o.streams.ErrOut, "Warning: %s\n", s)
			}
		}
		return inspect.Print(o.streams.Out, r, o.output)
	}
}

// resourceName is a pflag.Value for a resource name.
type resourceName struct{ name *v1.ResourceName }

func (r resourceName) String() string {
	if r.name == nil {
		return ""
	}
	return string(*r.name)
}

func (r resourceName) Set(s string) error {
	if s == "" {
		return fmt.Errorf("must not be empty")
	}
	*r.name = v1.ResourceName(s)
	return nil
}

func (r resourceName) Type() string { return "resource" }

// featureGates is a pflag.Value that sets this process's feature gates, which pkg/why and
// internal/inspect read as the scheduler reads its own (noderoom.ComparisonOperators): the same
// value as the scheduler's --feature-gates makes kubectl berth judge a node as the scheduler does.
// It is not featuregate's AddFlag, which closes the gate to new features and lists every gate in
// the help.
type featureGates struct {
	gate featuregate.MutableVersionedFeatureGate
}

func (f featureGates) String() string { return "" }

// Set tries s on a copy first: a gate that refuses a value keeps it for the next Set all the same.
func (f featureGates) Set(s string) error {
	if err := f.gate.DeepCopy().Set(s); err != nil {
		return err
	}
	return f.gate.Set(s)
}

func (f featureGates) Type() string { return "mapStringBool" }
