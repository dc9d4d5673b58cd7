#!/usr/bin/env bash
# berth's benchmarks (test/bench, docs/benchmarks.md): berth against the stock kube-scheduler on
# upstream's scheduler_perf harness, in interleaved rounds (plain pods, shared GPUs under node
# status churn, the extender, gangs, gangs under contention, quotas), and the GPU placement
# simulations; prints one table.
#
#   ROUNDS   rounds; each runs every test case once, so stock and berth interleave (default 3)
#   FILTER   -perf-scheduling-label-filter: performance (full sizes, the default) or short
#   BENCH    -test.bench (default .: BenchmarkPerfScheduling, BenchmarkGPUPacking and
#            BenchmarkWholeNodePacking); e.g. 'BenchmarkPerfScheduling/(Basic_Berth|Quota_)' runs
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

# Compile once, then run the binary: the compile takes minutes and must not overlap the runs.
"$GO" test -mod=vendor -trimpath -overlay=hack/patches/overlay.json -c -o "$OUT/bench.test" ./test/bench

# One run of the binary per round: -test.count would repeat each workload back to back (stock,
# stock, ..., berth, berth, ...) where the rounds must interleave to share the machine's drift.
# The harness reads the workloads and templates relative to the working directory. With ARTIFACTS
# set it writes each workload's log to a file there and removes it when the workload passes.
for round in $(seq "$ROUNDS"); do
  echo "bench: round $round of $ROUNDS"
  (
    cd test/bench
    ARTIFACTS="$OUT/logs" BERTH_BENCH_DISABLED_METRICS="${DISABLED_METRICS:-}" "$OUT/bench.test" -test.run='^$' -test.bench="$BENCH" \
      -test.benchtime=1x -test.timeout="$TIMEOUT" \
      -perf-scheduling-label-filter="$FILTER" -data-items-dir="$OUT"
  ) 2>&1 | tee -a "$OUT/bench.txt"
done

{
  echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(free -g | awk '/^Mem:/ {print $2}') GiB; $(uname -sr); $("$GO" version | cut -d' ' -f3)"
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Results: $OUT"
  echo
  "$GO" run -mod=vendor ./test/bench/cmd/benchtable "$OUT"
} | tee "$OUT/table.txt"
