#!/usr/bin/env bash
# berth's benchmarks (docs/benchmarks.md): berth against the stock kube-scheduler on upstream's
# scheduler_perf harness (test/bench), in interleaved rounds (plain pods, shared GPUs under node
# status churn, the extender, gangs, gangs under contention, quotas), the GPU placement
# simulations (test/placement) and the deep backlog (test/backlog); prints one table.
#
# The harness runs the scheduler in the test binary's process, so stock is stock only in a binary
# built without berth's fixes of vendored Kubernetes: each round runs the stock test cases (Stock,
# and the stock scheduler calling berth-extender) from a binary built with
# hack/patches/overlay-compile-only.json, then berth's from one built with hack/patches/overlay.json.
#
#   ROUNDS   rounds; each runs every test case once, so stock and berth interleave (default 3)
#   FILTER   -perf-scheduling-label-filter: performance (full sizes, the default) or short
#   BENCH    -test.bench of each binary (default .: BenchmarkPerfScheduling, the placement
#            benchmarks and BenchmarkBacklog); e.g. 'BenchmarkPerfScheduling/(Basic_Berth|Quota_)' runs
#            only those test cases
#   OUT      where results, logs and the table go (default _output/bench/<UTC time>)
#   TIMEOUT  -test.timeout of each round (default 45m)
#   DISABLED_METRICS  metrics to leave out, comma separated, as kube-scheduler's --disabled-metrics
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
GO=${GO:-go}
ROUNDS=${ROUNDS:-3}
FILTER=${FILTER:-performance}
BENCH=${BENCH:-.}
OUT=${OUT:-$root/_output/bench/$(date -u +%Y%m%dT%H%M%SZ)}
TIMEOUT=${TIMEOUT:-45m}
export BERTH_BIN_DIR=${BERTH_BIN_DIR:-$root/bin}

if [ ! -x "$BERTH_BIN_DIR/etcd" ]; then
  echo "bench: $BERTH_BIN_DIR/etcd not found: run 'make binaries'" >&2
  exit 1
fi
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)

# The overlay without the fixes holds what lets Gang and GPUShare compile, nothing else.
if ! cmp -s <(sed 's/[{}]//g; s/"Replace"://; s/,/\n/g' hack/patches/overlay.json | grep -v '^"vendor/') \
  <(sed 's/[{}]//g; s/"Replace"://; s/,/\n/g' hack/patches/overlay-compile-only.json); then
  echo "bench: hack/patches/overlay-compile-only.json is not overlay.json's entries outside vendor/" >&2
  exit 1
fi

# The stock binary runs BenchmarkPerfScheduling's stock test cases that BENCH selects; everything
# else (berth's test cases, the simulations, BenchmarkBacklog, whose schedulers are processes from
# bin/) runs in berth's.
case "$BENCH" in
  .) stock_bench='^BenchmarkPerfScheduling$' ;;
  *BenchmarkPerfScheduling*) stock_bench=$BENCH ;;
  *) stock_bench= ;;
esac

# Compile once, then run the binaries: the compiles take minutes and must not overlap the runs.
if [ -n "$stock_bench" ]; then
  "$GO" test -mod=vendor -trimpath -overlay=hack/patches/overlay-compile-only.json -c -o "$OUT/stock.test" ./test/bench
fi
for pkg in bench placement backlog; do
  "$GO" test -mod=vendor -trimpath -overlay=hack/patches/overlay.json -c -o "$OUT/$pkg.test" ./test/$pkg
done

# run PACKAGE BINARY CASES BENCH: one run of a binary, in its package's directory, into this
# round's directory. scheduler_perf's harness (test/bench) reads its workloads and templates
# relative to it; with ARTIFACTS set it writes each workload's log to a file there and removes it
# when the workload passes. The placement benchmarks write their figures to -data-items-dir too;
# BenchmarkBacklog runs tiny with the short filter.
run() {
  local flags=()
  case "$1" in
    bench) flags=(-perf-scheduling-label-filter="$FILTER" -data-items-dir="$OUT/round-$round") ;;
    placement) flags=(-data-items-dir="$OUT/round-$round") ;;
    backlog) flags=(-perf-scheduling-label-filter="$FILTER") ;;
  esac
  (
    cd "test/$1"
    ARTIFACTS="$OUT/logs" BERTH_BENCH_CASES="$3" BERTH_BENCH_DISABLED_METRICS="${DISABLED_METRICS:-}" "$2" -test.run='^$' -test.bench="$4" \
      -test.benchtime=1x -test.timeout="$TIMEOUT" "${flags[@]}"
  ) 2>&1 | tee -a "$OUT/bench.txt"
}

# One run of each binary per round: -test.count would repeat each workload back to back (stock,
# stock, ..., berth, berth, ...) where the rounds must interleave to share the machine's drift.
# cmd/benchtable reads each round-N directory as one round.
for round in $(seq "$ROUNDS"); do
  echo "bench: round $round of $ROUNDS"
  if [ -n "$stock_bench" ]; then
    run bench "$OUT/stock.test" stock "$stock_bench"
  fi
  for pkg in bench placement backlog; do
    run "$pkg" "$OUT/$pkg.test" berth "$BENCH"
  done
done

{
  echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(free -g | awk '/^Mem:/ {print $2}') GiB; $(uname -sr); $("$GO" version | cut -d' ' -f3)"
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Results: $OUT"
  echo
  "$GO" run -mod=vendor ./test/bench/cmd/benchtable "$OUT"
} | tee "$OUT/table.txt"
