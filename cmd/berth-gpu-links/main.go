// berth-gpu-links writes its node's GPU link matrix, as `nvidia-smi topo -m` prints it, into
// the node's berth.dev/gpu-topology annotation, where berth's scheduler and extender read it to
// give multi-GPU pods their best-linked GPUs. It runs on every GPU node, as a DaemonSet
// (manifests/gpu-links/daemonset.yaml), with the node's name from the downward API.
//
// It never writes a matrix that berth could not read: the output is parsed first, and a failure
// leaves the annotation as it was.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/version"
	"k8s.io/klog/v2"

	"github.com/berth-sched/berth/pkg/gpu"
)

type options struct {
	kubeconfig string
	nodeName   string
	file       string
	nvidiaSMI  string
	interval   time.Duration
	dryRun     bool
}

func main() {
	o := options{nodeName: os.Getenv("NODE_NAME"), nvidiaSMI: "nvidia-smi"}
	fs := flag.NewFlagSet("berth-gpu-links", flag.ExitOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Empty: the in-cluster service account.")
	fs.StringVar(&o.nodeName, "node-name", o.nodeName, "The node to annotate. Default: $NODE_NAME, which the DaemonSet sets from spec.nodeName.")
	fs.StringVar(&o.file, "file", "", "Read the matrix from this file (- for stdin) instead of running nvidia-smi topo -m.")
	fs.StringVar(&o.nvidiaSMI, "nvidia-smi", o.nvidiaSMI, "The nvidia-smi binary to run.")
	fs.DurationVar(&o.interval, "interval", 0, "Read and write the matrix again this often (a GPU replaced or a driver upgraded); 0: once, then exit.")
	fs.BoolVar(&o.dryRun, "dry-run", false, "Print the annotation's value instead of writing it.")
	showVersion := fs.Bool("version", false, "Print the version and exit.")
	klog.InitFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: berth-gpu-links [flags]\n\nWrites the node's GPU link matrix (nvidia-smi topo -m) into its %s annotation.\n\n", gpu.NodeGPULinksAnnotation)
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	if *showVersion {
		fmt.Println(version.Get().GitVersion)
		return
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	if err := o.run(ctx); err != nil {
		klog.ErrorS(err, "berth-gpu-links failed")
		os.Exit(1)
	}
}

func (o options) run(ctx context.Context) error {
	read := func() (string, error) { return readMatrix(ctx, o.file, o.nvidiaSMI) }
	if o.dryRun {
		value, err := matrix(read)
		if err == nil {
			fmt.Println(value)
		}
		return err
	}
	if o.nodeName == "" {
		return errors.New("no node to annotate: set --node-name or $NODE_NAME")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for {
		err := annotate(ctx, client, o.nodeName, read)
		if o.interval <= 0 {
			return err
		}
		if err != nil {
			// A passing failure (the API server restarting, the driver being upgraded) is tried
			// again at the next interval; the node keeps what it had.
			klog.ErrorS(err, "Annotating the node's GPU links", "node", o.nodeName)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.interval):
		}
	}
}

// readMatrix runs nvidia-smi topo -m, or reads file if given.
func readMatrix(ctx context.Context, file, nvidiaSMI string) (string, error) {
	switch file {
	case "":
		cmd := exec.CommandContext(ctx, nvidiaSMI, "topo", "-m")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s topo -m: %w: %s", nvidiaSMI, err, strings.TrimSpace(stderr.String()))
		}
		return string(out), nil
	case "-":
		b, err := io.ReadAll(os.Stdin)
		return string(b), err
	default:
		b, err := os.ReadFile(file)
		return string(b), err
	}
}

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// matrix is the annotation's value: the matrix as read, without terminal escapes and trailing
// blank lines, once berth has parsed it.
func matrix(read func() (string, error)) (string, error) {
	out, err := read()
	if err != nil {
		return "", err
	}
	value := strings.TrimRight(ansiEscape.ReplaceAllString(out, ""), " \t\r\n")
	if _, err := gpu.ParseLinks(value); err != nil {
		return "", fmt.Errorf("the GPU link matrix is not one berth can read, the node is left as it was: %w", err)
	}
	return value, nil
}

// annotate writes the matrix read into the node's berth.dev/gpu-topology annotation, unless the
// node has it already.
func annotate(ctx context.Context, client kubernetes.Interface, nodeName string, read func() (string, error)) error {
	value, err := matrix(read)
	if err != nil {
		return err
	}
	node, err := client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if node.Annotations[gpu.NodeGPULinksAnnotation] == value {
		klog.V(2).InfoS("The node's GPU links are up to date", "node", nodeName)
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{gpu.NodeGPULinksAnnotation: value}}})
	if err != nil {
		return err
	}
	if _, err := client.CoreV1().Nodes().Patch(ctx, nodeName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "berth-gpu-links"}); err != nil {
		return fmt.Errorf("annotating node %s: %w", nodeName, err)
	}
	klog.InfoS("Annotated the node's GPU links", "node", nodeName, "annotation", gpu.NodeGPULinksAnnotation)
	return nil
}
