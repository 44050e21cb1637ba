#!/usr/bin/env bash
# Two halfpower builds on the hot path, alternately: CPU ns per I/O on the null engine at QD1,
# and IOPS, p50, p99 and CPU ns per I/O on a loop device over RAM at QD1 and QD32 (4k random
# reads). Run it before and after any change to the engine or the worker's loop.
#   bench/hot-path-ab.sh OLD_BINARY [RUNS] [SECONDS]   (default 5 runs of 5 s; needs root)
# Prints the medians of both builds, new/old ratios, and each build's spread (min-max) over its
# runs; docs/performance.md records runs of it.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1")
RUNS=${2:-5}
SECS=${3:-5}
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_targets hot-path 64m
NEW=$HP
# The figures of one run's JSON: iops p50 p99 cpu_ns_per_io.
fig() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; t=r["total"]; l=t["latency_us"]
print(t["iops"], l["p50"], l["p99"], r["cpu"]["us_per_io"]*1000)' "$1"
}
for r in $(seq "$RUNS"); do
  for side in new old; do
    bin=$NEW; [[ $side == old ]] && bin=$OLD
    rm -f "$OUT"/*.json
    "$bin" run null --engine null --qd 1 --time "${SECS}s" --warmup 1s --quiet --json "$OUT/n.json" >/dev/null
    fig "$OUT/n.json" >>"$OUT/$side.null"
    for qd in 1 32; do
      "$bin" run "$LOOP" --rw randread --bs 4k --qd "$qd" --time "${SECS}s" --warmup 1s --quiet \
        --json "$OUT/l.json" >/dev/null
      fig "$OUT/l.json" >>"$OUT/$side.qd$qd"
      rm -f "$OUT/l.json"
    done
  done
done
python3 - "$OUT" <<'E'
import sys, statistics as st
d = sys.argv[1]
def col(side, cell, k): return [float(l.split()[k]) for l in open(f"{d}/{side}.{cell}")]
def line(name, cell, k, fmt):
    n, o = col("new", cell, k), col("old", cell, k)
    mn, mo = st.median(n), st.median(o)
    print(f"{name:<22} new {mn:{fmt}} [{min(n):{fmt}}-{max(n):{fmt}}]  old {mo:{fmt}} [{min(o):{fmt}}-{max(o):{fmt}}]  ratio {mn/mo:.3f}")
line("null QD1 CPU ns/IO", "null", 3, ".1f")
for qd in (1, 32):
    line(f"loop QD{qd} IOPS", f"qd{qd}", 0, ".0f")
    line(f"loop QD{qd} p50 us", f"qd{qd}", 1, ".1f")
    line(f"loop QD{qd} p99 us", f"qd{qd}", 2, ".1f")
    line(f"loop QD{qd} CPU ns/IO", f"qd{qd}", 3, ".0f")
E
