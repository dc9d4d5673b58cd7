#!/usr/bin/env bash
# Fails when go.mod/go.sum, vendor/, generated code or gofmt are out of date. It works on a copy of
# the tree's state and restores nothing by hand: every generator writes, then git says what moved.
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0
unformatted=$(gofmt -l $(git ls-files '*.go' | grep -v '^vendor/'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:"; echo "$unformatted"; fail=1
fi

# berth-extender and kubectl-berth share the GPU core with the scheduler, not its configuration:
# pkg/apis/config's init registers into kube-scheduler's scheme.
linked=$(go list -mod=vendor -deps ./cmd/berth-extender ./cmd/kubectl-berth ./pkg/gpu | grep '/pkg/apis/config' || true)
if [ -n "$linked" ]; then
  echo "pkg/gpu, berth-extender or kubectl-berth link the scheduler's configuration:"; echo "$linked"; fail=1
fi

# Three levels (docs/developing.md, Layout): the plugins and the extender import cores, never each other, and
# no core imports a plugin.
mod=github.com/berth-sched/berth/pkg
plugins="qossort gpushare gang elasticquota preemption allocatable podstate extender"
plugin_re="^$mod/($(echo $plugins | tr ' ' '|'))\$"
for pkg in $(go list -mod=vendor ./pkg/...); do
  up=$(go list -mod=vendor -f '{{join .Imports "\n"}}' "$pkg" | grep -E "$plugin_re" | grep -v -x "$pkg" || true)
  if [ -n "$up" ]; then
    echo "$pkg imports a plugin's package (plugins import cores, never each other; cores import no plugin):"; echo "$up"; fail=1
  fi
done

# Gang's group state knows neither PodGroup API: the adapters in pkg/podgroup do (docs/developing.md).
apis=$(go list -mod=vendor -f '{{join .Imports "\n"}}' ./pkg/gangcore | grep -E 'scheduler-plugins/apis|k8s.io/api/scheduling/|/pkg/podgroup$' || true)
if [ -n "$apis" ]; then
  echo "pkg/gangcore imports a PodGroup API or its adapters:"; echo "$apis"; fail=1
fi

go mod tidy
go mod vendor
hack/update-tools.sh
# hack/patches: each patched copy is its vendored original plus the recorded difference.
for d in hack/patches/*.diff; do
  in=${d%.diff}.go.in
  orig=$(sed -n 's|.*"\(vendor/[^"]*\)":"'"$in"'".*|\1|p' hack/patches/overlay.json)
  if [ -z "$orig" ] || ! cmp -s <(diff "$orig" "$in") "$d"; then
    echo "$in no longer matches ${orig:-its vendored original} plus $d: see hack/patches/README.md"; fail=1
  fi
done
hack/update-codegen.sh >/dev/null 2>&1
if ! git diff --quiet -- go.mod go.sum vendor pkg hack/tools; then
  echo "go.mod, vendor/, hack/tools or generated code is out of date; run 'go mod tidy && go mod vendor && hack/update-tools.sh && make codegen' and commit:"
  git diff --stat -- go.mod go.sum vendor pkg hack/tools | tail -20
  fail=1
fi
untracked=$(git ls-files --others --exclude-standard -- vendor pkg hack/tools)
if [ -n "$untracked" ]; then
  echo "generated or vendored files not committed:"; echo "$untracked"; fail=1
fi
exit $fail
