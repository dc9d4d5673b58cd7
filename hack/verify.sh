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

go mod tidy
go mod vendor
hack/update-codegen.sh >/dev/null 2>&1
if ! git diff --quiet -- go.mod go.sum vendor pkg; then
  echo "go.mod, vendor/ or generated code is out of date; run 'go mod tidy && go mod vendor && make codegen' and commit:"
  git diff --stat -- go.mod go.sum vendor pkg | tail -20
  fail=1
fi
untracked=$(git ls-files --others --exclude-standard -- vendor pkg)
if [ -n "$untracked" ]; then
  echo "generated or vendored files not committed:"; echo "$untracked"; fail=1
fi
exit $fail
