#!/usr/bin/env bash
# Runs upstream's own tests of each vendored package that hack/patches changes, against the patched
# files. vendor/ holds no _test.go files and none of the packages only tests import, so this works
# in a scratch copy of go.mod, go.sum, vendor/ and hack/: it adds the package's tests from the
# module cache, then each package they need that vendor/ lacks (and lists it in vendor/modules.txt),
# and runs them with -race. Needs the Kubernetes module in the module cache (`go mod download
# k8s.io/kubernetes@VERSION`, VERSION as vendor/modules.txt gives it), and the modules only its tests
# need (testify) at the versions its go.mod gives; it downloads them when missing. See
# hack/patches/README.md.
#
# A patch whose fault has a reproduction, hack/patches/upstream/<patch>_repro_test.go.in (the test
# its upstream report offers), has it run with upstream's tests, and once more against upstream's
# unpatched file, where it must fail: a reproduction that passes there shows nothing.
# A change that fixes no fault but makes upstream's code cheaper has tests of its own,
# hack/patches/upstream/<patch>_berth_test.go.in, run with upstream's, against the patched files only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
GO=${GO:-go}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/go.mod" "$root/go.sum" "$root/vendor" "$root/hack" "$work/"
cd "$work"
chmod -R u+w vendor
modcache=$("$GO" env GOMODCACHE)

# version of a module as vendor/modules.txt records it
modver() { awk -v m="$1" '$1 == "#" && $2 == m { print $3; exit }' vendor/modules.txt; }
# the module cache spells upper-case letters as !lower-case
escape() { sed 's/[A-Z]/!\L&/g' <<<"$1"; }
# the longest module path in vendor/modules.txt that is pkg or a prefix of it
moduleof() {
  awk -v p="$1" '$1 == "#" && (p == $2 || index(p, $2 "/") == 1) && length($2) > length(best) { best = $2 } END { print best }' vendor/modules.txt
}

kver=$(modver k8s.io/kubernetes)
ksrc=$modcache/k8s.io/kubernetes@$kver
if [ ! -d "$ksrc" ]; then
  GOFLAGS=-mod=mod "$GO" mod download "k8s.io/kubernetes@$kver"
fi

vfiles=$(sed 's/[{}]//g; s/"Replace"://; s/,/\n/g' hack/patches/overlay.json | sed -n 's/^"\(vendor\/[^"]*\)":.*/\1/p')
patchof() { sed -n 's|.*"'"$1"'":"\([^"]*\)".*|\1|p' hack/patches/overlay.json; }
reproof() { echo "hack/patches/upstream/$(basename "$(patchof "$1")" .go.in)_repro_test.go.in"; }
fail=0
declare -A tested
for vfile in $vfiles; do
  pkgdir=$(dirname "$vfile")
  pkg=${pkgdir#vendor/}
  patch=$(patchof "$vfile")
  repro=$(reproof "$vfile")
  # a package with several patched files is tested once, with all of them and their reproductions
  if [ -z "${tested[$pkgdir]:-}" ]; then
    tested[$pkgdir]=1
    patches=
    cp "$ksrc/${pkg#k8s.io/kubernetes/}"/*_test.go "$pkgdir/"
    for f in $vfiles; do
      [ "$(dirname "$f")" = "$pkgdir" ] || continue
      patches="$patches $(basename "$(patchof "$f")")"
      # its reproduction, and the tests of berth's own changes to it (must pass, patched only)
      for t in "$(reproof "$f")" "hack/patches/upstream/$(basename "$(patchof "$f")" .go.in)_berth_test.go.in"; do
        if [ -f "$t" ]; then
          cp "$t" "$pkgdir/$(basename "$t" .in)"
        fi
      done
    done
    for _ in $(seq 1 50); do
      if out=$("$GO" test -mod=vendor -trimpath -overlay=hack/patches/overlay.json -race -c -o "$work/patched.test" "./$pkgdir" 2>&1); then
        break
      fi
      missing=$(sed -n 's/.*cannot find module providing package \([^:]*\):.*/\1/p' <<<"$out" | sort -u)
      if [ -z "$missing" ]; then
        echo "$out" >&2
        exit 1
      fi
      for m in $missing; do
        mod=$(moduleof "$m")
        if [ -z "$mod" ]; then
          # a module only upstream's tests need (testify): require it at the version Kubernetes does
          read -r mod ver < <(awk -v p="$m" '($1 == "require" ? $2 : $1) ~ /\./ { n = ($1 == "require" ? $2 : $1); v = ($1 == "require" ? $3 : $2); if ((p == n || index(p, n "/") == 1) && length(n) > length(best)) { best = n; bv = v } } END { if (best != "") print best, bv }' "$ksrc/go.mod")
          [ -n "$mod" ] || { echo "cannot find the module of $m in Kubernetes' go.mod" >&2; exit 1; }
          echo "require $mod $ver" >>go.mod
          printf '# %s %s\n## explicit\n' "$mod" "$ver" >>vendor/modules.txt
        fi
        src=$modcache/$(escape "$mod")@$(modver "$mod")${m#"$mod"}
        if [ ! -d "$src" ]; then
          # a new machine: the module cache holds what the build needs, not what only tests need
          GOFLAGS=-mod=mod "$GO" mod download "$mod@$(modver "$mod")"
        fi
        [ -n "$mod" ] && [ -d "$src" ] || { echo "cannot find $m in the module cache" >&2; exit 1; }
        mkdir -p "vendor/$m"
        find "$src" -maxdepth 1 -name '*.go' ! -name '*_test.go' -exec cp {} "vendor/$m/" \;
        chmod u+w "vendor/$m"/*.go
        # list the package right after its module's header lines
        awk -v mod="$mod" -v p="$m" '
          done != 1 && $1 == "#" && $2 == mod { print; header = 1; next }
          header && /^## / { print; next }
          header { print p; header = 0; done = 1 }
          { print }
          END { if (header) print p }' vendor/modules.txt >vendor/modules.txt.new
        mv vendor/modules.txt.new vendor/modules.txt
      done
    done
    echo "== upstream's tests of $pkg, with$patches"
    if ! (cd "$pkgdir" && "$work/patched.test" -test.count=1); then
      fail=1
    fi
  fi
  tests=
  if [ -f "$repro" ]; then
    tests=$(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(.*/\1/p' "$repro" | paste -sd'|')
  fi
  if [ -n "$tests" ]; then
    # the overlay without this patch's entry
    sed 's|"'"$vfile"'":"[^"]*",\{0,1\}||; s|,}|}|' hack/patches/overlay.json >"$work/unpatched.json"
    "$GO" test -mod=vendor -trimpath -overlay="$work/unpatched.json" -race -c -o "$work/unpatched.test" "./$pkgdir"
    echo "== $(basename "$repro" .in) against upstream's unpatched $(basename "$vfile"): must fail"
    if (cd "$pkgdir" && "$work/unpatched.test" -test.count=1 -test.run="^($tests)\$"); then
      echo "$repro passes without $patch: it does not reproduce the fault" >&2
      fail=1
    fi
  fi
done
exit $fail
