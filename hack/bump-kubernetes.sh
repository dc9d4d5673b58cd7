#!/usr/bin/env bash
# Moves berth to another Kubernetes release in one command (`make bump-kubernetes VERSION=v1.37.2`):
# k8s.io/kubernetes and every staging module it replaces, vendor/, each patch of hack/patches redone
# on its new vendored original, the version stamps, generated code; then upstream's own tests of the
# patched packages (hack/test-patches.sh). It stops with a message at the first step that needs a
# person: a patch that no longer applies, or one that upstream's release already carries. Once that
# person has redone or deleted the patch, running it again finishes the move.
# After it: `make verify test soak`, then commit go.mod, go.sum and hack/ (hack/tools too) apart from vendor/.
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
# The merge's base is the vendored original each patch was made on: it must be that (what
# hack/verify.sh checks), or the merge would carry a stale patch over in silence (a second run after
# one that stopped at a patch: vendor/ is new by then, the patch still old).
stale=0
while read -r orig in; do
  [ -n "$orig" ] || continue
  if ! cmp -s <(diff "$orig" "$in") "${in%.go.in}.diff"; then
    echo "$in is not $orig plus ${in%.go.in}.diff: finish redoing it on that original (no conflict markers left), write its .diff (diff $orig $in >${in%.go.in}.diff), then run this again" >&2
    stale=1
  fi
  mkdir -p "$tmp/$(dirname "$orig")"
  cp "$orig" "$tmp/$orig"
done <<<"$patched"
[ "$stale" = 0 ] || exit 1

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
# Added and deleted files too (git diff alone leaves out new ones), and not vendor/modules.txt.
changed=$(git status --porcelain --untracked-files=all -- vendor ':!vendor/modules.txt')
echo "vendored files changed: $(grep -c . <<<"$changed" || true)"
[ -z "$changed" ] || sed 's/^/  /' <<<"$changed"

status=0
while read -r orig in; do
  [ -n "$orig" ] || continue
  diffFile=${in%.go.in}.diff
  if cmp -s "$tmp/$orig" "$orig"; then
    echo "$in: its original did not change"
    continue
  fi
  merged=$tmp/merged.go
  if ! git merge-file -q -p -L "$new" -L "$old" -L patched "$orig" "$tmp/$orig" "$in" >"$merged"; then
    # The merge, conflict markers and all, is where the person starts.
    cp "$merged" "$in"
    echo "$in: the patch no longer applies to the new $orig; its conflicts are marked in it: redo it by hand (hack/patches/README.md), write its .diff, and run this again" >&2
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

# Version stamps: the binaries' --version, the image's default, the chart's appVersion.
stamped=$(sed -n 's/^K8S_VERSION := //p' Makefile)
sed -i "s/^K8S_VERSION := .*/K8S_VERSION := $new/; s/gitMinor=[0-9]*/gitMinor=$minor/g" Makefile
sed -i "s/^ARG VERSION=v[0-9.]*+/ARG VERSION=$new+/; s/gitMinor=[0-9]*/gitMinor=$minor/g" Dockerfile
sed -i "s/^appVersion: v1\.[0-9.]*$/appVersion: $new/" manifests/charts/berth/Chart.yaml
# The docs say which release berth is on in prose; a person reads what moved.
# (The release the Makefile stamped before: on a second run, after one that stopped at a patch,
# vendor/ has moved already.)
if [ "$stamped" != "$new" ]; then
  mentions=$(git grep -l -E "(^|[^0-9.])$(sed 's/\./\\./g' <<<"${stamped#v}")([^0-9]|\$)" -- . ':!vendor' ':!go.sum' ':!docs/history.md' || true)
  [ -z "$mentions" ] || { echo "still naming ${stamped#v} (keep what is history, move what says current):"; sed 's/^/  /' <<<"$mentions"; }
fi
hack/update-codegen.sh
# kwok and helm on the new requirements; a version of either that does not build on them is a step
# for a person (hack/update-tools.sh says how one is chosen).
hack/update-tools.sh
hack/test-patches.sh
echo "done: now make verify test soak, and commit vendor/ apart from the rest"
