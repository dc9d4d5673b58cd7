//go:build tools

// Package tools pins kwok and helm, the two programs berth's tests and demo run that are not built
// from vendor/: kwok plays the kubelet of simulated nodes, helm renders and lints the chart. The
// module's requirements are berth's own (hack/update-tools.sh writes them), so every library the
// three share is at berth's version, and a machine that built berth's binaries compiles only what
// is kwok's or helm's own (see the Makefile).
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
