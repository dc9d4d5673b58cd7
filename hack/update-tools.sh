#!/usr/bin/env bash
# Writes hack/tools/go.mod and go.sum: kwok and helm at the versions below, on berth's own
# requirements and replacements, so that the libraries they share with berth (client-go,
# apimachinery, golang.org/x/...) are the versions vendor/ holds. Built with -trimpath and
# CGO_ENABLED=0 as berth's binaries are, those libraries then come from the build cache: on a new
# machine, after berth's binaries, kwok compiled in 30 s and helm in 20 s, where each `go install`ed
# with its own go.mod took 166 s and 96 s. Run after any change of go.mod (make verify fails until
# then; hack/bump-kubernetes.sh runs it).
#
# A version is one whose own requirements berth's do not have to move: kwok v0.8.0 is the first
# built for k8s.io/cri-streaming (v0.7.0 does not compile against 1.37's kubelet module), and helm
# v3.21.4 needs nothing newer than berth has (v3.22.0 moves golang.org/x/text, under every client).
set -euo pipefail
KWOK=sigs.k8s.io/kwok@v0.8.0
HELM=helm.sh/helm/v3@v3.21.4
cd "$(dirname "$0")/.."
{
  printf 'module github.com/berth-sched/berth/hack/tools\n\n'
  sed -n 's/^go .*/&\n/p' go.mod
  sed -n '/^require (/,$p' go.mod
} > hack/tools/go.mod
cd hack/tools
# What go get moves (kwok's requirements above berth's) is expected; say it only if it fails.
out=$(GOFLAGS=-mod=mod go get "$KWOK" "$HELM" 2>&1) || { echo "$out" >&2; exit 1; }
GOFLAGS=-mod=mod go mod tidy
