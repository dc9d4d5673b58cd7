//go:build tools

// Package hack pins the upstream binaries that berth's tests, demo and benchmarks run as real
// processes, so that they build from vendor/ at exactly the Kubernetes version berth is built on.
package hack

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/code-generator/cmd/conversion-gen"
	_ "k8s.io/code-generator/cmd/deepcopy-gen"
	_ "k8s.io/code-generator/cmd/defaulter-gen"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
