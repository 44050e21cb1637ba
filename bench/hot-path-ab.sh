#!/usr/bin/env bash
# Two halfpower builds on the hot path, alternately: CPU ns per I/O on the null engine at QD1 and
# IOPS on a loop device over RAM at QD32 (4k random reads). For a before/after check of a change
# that touches the worker's loop (issue 24's "hot path unchanged or faster").
#   bench/hot-path-ab.sh OLD_BINARY [RUNS] [SECONDS]   (default 5 runs of 5 s; needs root)
# Prints the medians of both builds and new/old ratios; docs/performance.md records a run.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1")
RUNS=${2:-5}
SECS=${3:-5}
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_targets hot-path 64m
NEW=$HP
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
fig() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(r["cpu"]["us_per_io"]*1000 if sys.argv[2]=="cpu" else r["total"]["iops"])' "$@"; }
for r in $(seq "$RUNS"); do
  for side in new old; do
    bin=$NEW; [[ $side == old ]] && bin=$OLD
    rm -f "$OUT/n.json" "$OUT/l.json"
    "$bin" run null --engine null --qd 1 --time "${SECS}s" --warmup 1s --quiet --json "$OUT/n.json" >/dev/null
    fig "$OUT/n.json" cpu >>"$OUT/$side.null"
    "$bin" run "$LOOP" --rw randread --bs 4k --qd 32 --time "${SECS}s" --warmup 1s --quiet --json "$OUT/l.json" >/dev/null
    fig "$OUT/l.json" iops >>"$OUT/$side.loop"
  done
done
nn=$(median <"$OUT/new.null"); no=$(median <"$OUT/old.null")
ln=$(median <"$OUT/new.loop"); lo=$(median <"$OUT/old.loop")
printf 'null QD1 CPU ns/IO: new %.1f old %.1f ratio %.3f\n' "$nn" "$no" "$(echo "$nn / $no" | bc -l)"
printf 'loop QD32 IOPS:     new %.0f old %.0f ratio %.3f\n' "$ln" "$lo" "$(echo "$ln / $lo" | bc -l)"
