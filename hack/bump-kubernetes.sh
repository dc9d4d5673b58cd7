#!/usr/bin/env bash
# Moves berth to another Kubernetes release in one command (`make bump-kubernetes VERSION=v1.37.2`):
# k8s.io/kubernetes and every staging module it replaces, vendor/, each patch of hack/patches redone
# on its new vendored original, the version stamps, generated code; then upstream's own tests of the
# patched packages (hack/test-patches.sh). It stops with a message at the first step that needs a
# person: a patch that no longer applies, or one that upstream's release already carries.
# After it: `make verify test soak`, then commit go.mod, go.sum and hack/ apart from vendor/.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
new=${1:-}
if [[ ! $new =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "usage: hack/bump-kubernetes.sh v1.MINOR.PATCH (a Kubernetes release, e.g. v1.37.2)" >&2
  exit 2
fi
minor=${BASH_REMATCH[1]}
staging=v0.$minor.${BASH_REMATCH[2]}
old=$(awk '$1 == "#" && $2 == "k8s.io/kubernetes" { print $3 }' vendor/modules.txt)
echo "k8s.io/kubernetes $old -> $new (staging modules $staging)"

# Each patch is redone as a three-way merge: the new original plus what the patch changed in the old.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
patched=$(sed 's/[{}]//g; s/"Replace"://; s/,/\n/g' hack/patches/overlay.json | sed -n 's/^"\(vendor\/[^"]*\)":"\([^"]*\)"$/\1 \2/p')
while read -r orig in; do
  [ -n "$orig" ] || continue
  mkdir -p "$tmp/$(dirname "$orig")"
  cp "$orig" "$tmp/$orig"
done <<<"$patched"

# The staging modules Kubernetes replaces with its own ./staging/src: the same set, at $staging.
kmod=$(GOFLAGS=-mod=mod "$GO" mod download -json "k8s.io/kubernetes@$new" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
[ -f "$kmod" ] || { echo "k8s.io/kubernetes@$new: no go.mod from the module proxy" >&2; exit 1; }
mods=$(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "$kmod")
args=(-require="k8s.io/kubernetes@$new")
for m in $mods; do
  args+=(-replace="$m=$m@$staging")
  if grep -q "^[[:space:]]$m v" go.mod; then
    args+=(-require="$m@$staging")
  fi
done
"$GO" mod edit "${args[@]}"
GOFLAGS=-mod=mod "$GO" mod tidy
"$GO" mod vendor
echo "vendored files changed: $(git diff --name-only -- vendor | wc -l)"

status=0
while read -r orig in; do
  [ -n "$orig" ] || continue
  diffFile=${in%.go.in}.diff
  if cmp -s "$tmp/$orig" "$orig"; then
    echo "$in: its original did not change"
    continue
  fi
  merged=$tmp/merged.go
  cp "$in" "$merged"
  if ! git merge-file -q -p "$orig" "$tmp/$orig" "$in" >"$merged"; then
    echo "$in: the patch no longer applies to the new $orig; redo it by hand (hack/patches/README.md)" >&2
    status=1
    continue
  fi
  if cmp -s "$merged" "$orig"; then
    echo "$in: upstream's $new already has this change; delete the patch and its overlay entry" >&2
    status=1
    continue
  fi
  cp "$merged" "$in"
  diff "$orig" "$in" >"$diffFile" || true
  echo "$in: redone on the new original"
done <<<"$patched"
[ "$status" = 0 ] || exit 1

# Version stamps: the binaries' --version, and the image's default.
sed -i "s/^K8S_VERSION := .*/K8S_VERSION := $new/; s/gitMinor=[0-9]*/gitMinor=$minor/g" Makefile
sed -i "s/^ARG VERSION=v[0-9.]*+/ARG VERSION=$new+/; s/gitMinor=[0-9]*/gitMinor=$minor/g" Dockerfile
hack/update-codegen.sh
hack/test-patches.sh
echo "done: now make verify test soak, and commit vendor/ apart from the rest"
