#!/usr/bin/env bash
# Regenerates deepcopy, conversion and defaulting code for berth's plugin args, with the
# code-generator vendored at the Kubernetes version berth builds on.
set -euo pipefail
cd "$(dirname "$0")/.."

gen=bin/codegen
mkdir -p "$gen"
for g in deepcopy-gen conversion-gen defaulter-gen; do
  go build -mod=vendor -trimpath -o "$gen/$g" "k8s.io/code-generator/cmd/$g"
done

header=hack/boilerplate.go.txt
"$gen/deepcopy-gen" --go-header-file "$header" --output-file zz_generated.deepcopy.go \
  ./pkg/apis/config ./pkg/apis/config/v1
"$gen/defaulter-gen" --go-header-file "$header" --output-file zz_generated.defaults.go \
  ./pkg/apis/config/v1
"$gen/conversion-gen" --go-header-file "$header" --output-file zz_generated.conversion.go \
  ./pkg/apis/config/v1
