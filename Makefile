# berth: a kube-scheduler for shared GPUs and gangs. Everything builds from vendor/.
SHELL := /usr/bin/env bash
GO ?= go
BIN := $(CURDIR)/bin
K8S_VERSION := v1.37.2
GIT_SHA := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# Semver build metadata: kube-scheduler parses its own version, and "+berth..." keeps it
# $(K8S_VERSION) to every version comparison while saying which berth build this is.
VERSION ?= $(K8S_VERSION)+berth.$(GIT_SHA)
LDFLAGS := -X k8s.io/component-base/version.gitVersion=$(VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 \
	-X k8s.io/component-base/version.gitCommit=$(GIT_SHA) -X k8s.io/component-base/version.gitTreeState=clean
UPSTREAM_LDFLAGS := -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37
# hack/patches: vendored upstream files replaced at build time (see its README).
# -trimpath: no compiled package depends on the checkout's folder, so another checkout on the same
# machine reuses the build cache.
GOFLAGS_UPSTREAM := -mod=vendor -trimpath
GOFLAGS_BUILD := $(GOFLAGS_UPSTREAM) -overlay=hack/patches/overlay.json
# Every binary is static (CGO_ENABLED=0): the image has no libc, and upstream's release binaries are
# built so too. One setting for all lets etcd, kube-apiserver and kube-scheduler reuse the vendored
# packages berth's binaries compiled: cgo changes package net, and so every package above it.
# (Tests keep cgo: the race detector needs it.)
STATIC := CGO_ENABLED=0
# One test (or one whole unit package) may take this long.
TEST_TIMEOUT ?= 15m
# Tests run side by side, each split test in its own process (hack/testrun). On 2 cores four keep
# both busy where three left a sixth idle (make test 14 min 32 s against 16 min 4 s, one quiet run
# each); the soak run, whose ten tries under a time bound hunt races, keeps the three it passes with.
TEST_WORKERS ?= 4
SOAK_WORKERS ?= 3
# A test in hack/testrun/quarantine.txt shows a known open fault: its failure is printed, not counted.
# The runner is built as etcd and kube-apiserver are (static), so it reuses the client libraries
# they compiled; it starts the control planes its workers share (test/testplane).
TESTRUN := $(STATIC) $(GO) build $(GOFLAGS_UPSTREAM) -o $(BIN)/testrun ./hack/testrun && $(BIN)/testrun \
	-timeout $(TEST_TIMEOUT) -build-flags "$(GOFLAGS_BUILD) -race" -quarantine hack/testrun/quarantine.txt
# kwok (which plays the kubelet of the demo's simulated nodes) and helm (for the chart's tests) are
# not in go.mod: they would double its dependency graph. They build in a module of their own,
# hack/tools, whose requirements are berth's (hack/update-tools.sh): with -trimpath and static as
# berth's binaries, every library they share with berth comes from the build cache (the figures
# are in hack/update-tools.sh).
TOOLS_BUILD := cd hack/tools && GOFLAGS= $(STATIC) $(GO) build -trimpath

export BERTH_BIN_DIR := $(BIN)

.PHONY: all build binaries kwok helm image test soak unit integration demo bench verify test-patches bump-kubernetes codegen clean

all: build

## build: bin/berth-scheduler, bin/berth-extender, the node annotator bin/berth-gpu-links and
## the kubectl plugin bin/kubectl-berth.
## Static, as the image needs them.
build:
	$(STATIC) $(GO) build $(GOFLAGS_BUILD) -ldflags "$(LDFLAGS)" -o $(BIN)/ \
		./cmd/berth-scheduler ./cmd/berth-extender ./cmd/berth-gpu-links ./cmd/kubectl-berth

## binaries: berth plus the upstream parts the tests and the demo run as real processes:
## etcd, kube-apiserver and the stock kube-scheduler, all from vendor/ without berth's patches (stock
## is stock), and kwok.
binaries: build kwok
	$(STATIC) $(GO) build $(GOFLAGS_UPSTREAM) -o $(BIN)/etcd go.etcd.io/etcd/server/v3
	$(STATIC) $(GO) build $(GOFLAGS_UPSTREAM) -ldflags "$(UPSTREAM_LDFLAGS)" -o $(BIN)/ \
		k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler

## kwok: bin/kwok at hack/tools' version, for the demo and its tests. After `build`, whose
## compiled libraries it reuses.
kwok: $(BIN)/kwok
$(BIN)/kwok: hack/tools/go.mod
	$(TOOLS_BUILD) -o $(BIN)/kwok sigs.k8s.io/kwok/cmd/kwok

## helm: bin/helm at hack/tools' version, for the chart's tests.
helm: $(BIN)/helm
$(BIN)/helm: hack/tools/go.mod
	$(TOOLS_BUILD) -ldflags "-X helm.sh/helm/v3/internal/version.version=$$(GOFLAGS= $(GO) list -m -f '{{.Version}}' helm.sh/helm/v3)" \
		-o $(BIN)/helm helm.sh/helm/v3/cmd/helm

## image: bin/berth-image, an OCI image layout with berth-scheduler, berth-extender and
## berth-gpu-links on no base image, running as a non-root user; push it with `crane push bin/berth-image REF` or `skopeo copy oci:bin/berth-image ...`.
image: build
	$(STATIC) $(GO) run $(GOFLAGS_BUILD) ./hack/image --bin-dir $(BIN) --out $(BIN)/berth-image \
		--ref berth-scheduler:$(subst +,-,$(VERSION)) --version $(VERSION)

## test: every unit and integration test, with the race detector, each behaviour tried enough
## times to show it; ends with the slowest tests and one count. See docs/testing.md.
test: binaries $(BIN)/helm
	$(TESTRUN) -workers $(TEST_WORKERS) -json $(BIN)/test.json -durations $(BIN)/test-durations.json \
		-seed-durations hack/testrun/test-durations.json ./...

## soak: the tests that repeat a behaviour, ten tries and more, to catch a race; the simulations
## and the benchmark harness's short workloads; upstream's tests of the patched packages.
soak: binaries $(BIN)/helm
	$(TESTRUN) -workers $(SOAK_WORKERS) -soak -json $(BIN)/soak.json -durations $(BIN)/soak-durations.json \
		-seed-durations hack/testrun/soak-durations.json ./...
	hack/test-patches.sh

unit:
	$(GO) test $(GOFLAGS_BUILD) -race ./pkg/... ./internal/... ./cmd/... ./hack/...

## integration RUN=regexp: the tests of test/... that match, e.g. make integration RUN=TestGang
integration: binaries $(BIN)/helm
	$(TESTRUN) -workers $(TEST_WORKERS) -run '$(RUN)' -json $(BIN)/integration.json ./test/...

## demo: a throwaway control plane on loopback, berth-scheduler, a small workload, a report.
demo: binaries
	$(STATIC) $(GO) run $(GOFLAGS_BUILD) ./cmd/berth-demo --bin-dir $(BIN)

## bench: berth against the stock kube-scheduler on upstream's scheduler_perf workloads in interleaved
## rounds (ROUNDS=3; FILTER=short for a smoke run); prints one table. See docs/benchmarks.md.
bench: binaries
	hack/bench.sh

## codegen: regenerate deepcopy, conversion and defaults for the plugin args.
codegen:
	hack/update-codegen.sh

## verify: fails when go.mod, vendor/, generated code or formatting are out of date.
verify:
	hack/verify.sh

## bump-kubernetes VERSION=v1.37.2: moves berth to that Kubernetes release (hack/bump-kubernetes.sh):
## modules, vendor/, each patch redone, version stamps, generated code, upstream's tests of the patches.
bump-kubernetes:
	hack/bump-kubernetes.sh $(VERSION)

## test-patches: upstream's own tests of the vendored packages hack/patches changes, run against
## the patched files, and the must-fail reproductions against the unpatched ones (about 7 minutes; needs k8s.io/kubernetes in the module cache).
test-patches:
	hack/test-patches.sh

clean:
	rm -rf $(BIN)
