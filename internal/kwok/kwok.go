// Package kwok runs kwok (sigs.k8s.io/kwok) as the kubelet of simulated nodes, for the demo and
// the tests that need pods to run and finish: a bound pod starts at once, and one annotated with
// how long it runs (RunsFor) succeeds that long after it started, giving its room back.
package kwok

import (
	_ "embed"
	"os"
	"path/filepath"
	"time"
)

// Binary is kwok's binary name in the bin dir (`make kwok`, part of `make binaries`).
const Binary = "kwok"

// RunsForAnnotation makes a pod succeed that long after it started (a Go duration); pods without
// it run until they are deleted. kwok reads it (stages.yaml).
const RunsForAnnotation = "berth.dev/kwok-runs-for"

// stages is the pod lifecycle kwok plays: start at once, succeed after RunsForAnnotation.
//
//go:embed stages.yaml
var stages []byte

// WriteStages writes the pod lifecycle into dir, for Args.
func WriteStages(dir string) (string, error) {
	path := filepath.Join(dir, "kwok-stages.yaml")
	return path, os.WriteFile(path, stages, 0o600)
}

// Args is kwok's command line against the cluster of kubeconfig, managing every node with the
// stages WriteStages wrote.
func Args(kubeconfig, stagesPath string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--manage-all-nodes=true",
		"--config=" + stagesPath,
		// No kubelet API (logs, exec) is served: nothing here asks for it, and no port is taken.
		"--node-port=0",
	}
}

// RunsFor marks a pod to succeed that long after it starts.
func RunsFor(annotations map[string]string, d time.Duration) map[string]string {
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[RunsForAnnotation] = d.String()
	return annotations
}
