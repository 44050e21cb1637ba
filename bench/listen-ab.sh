#!/usr/bin/env bash
# The cost of being scraped: one build, a QD32 loop run (4k random reads on a loop device over
# RAM) with `--listen` and a scraper asking for /metrics ten times a second, against the same
# run without `--listen` while the same scraper (curl, started ten times a second: its own CPU
# is most of a scrape's cost on a small machine) knocks on a closed port, alternately. Prints the medians, their ratio (scraped / plain) and each
# side's spread over its runs, for IOPS and CPU ns per I/O; docs/performance.md records runs.
#   bench/listen-ab.sh [RUNS] [SECONDS]   (default 5 runs of 5 s; needs root and curl)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SECS=${2:-5}
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_targets listen-ab 64m
fig() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]
print(r["total"]["iops"], r["cpu"]["us_per_io"]*1000)' "$1"
}
for r in $(seq "$RUNS"); do
  for side in scraped plain; do
    rm -f "$OUT"/l.json "$OUT"/err
    listen=(--listen 0)
    [[ $side == plain ]] && listen=()
    "$HP" run "$LOOP" --rw randread --bs 4k --qd 32 --time "${SECS}s" --warmup 1s --quiet \
      --json "$OUT/l.json" "${listen[@]}" 2>"$OUT/err" >/dev/null &
    pid=$!
    url=http://127.0.0.1:1/metrics
    if [[ $side == scraped ]]; then
      until grep -q http "$OUT/err" 2>/dev/null; do sleep 0.05; done
      url=$(grep -o 'http://[^ ]*' "$OUT/err")
    fi
    scraped=0
    while kill -0 "$pid" 2>/dev/null; do
      curl -s -o /dev/null "$url" && scraped=$((scraped + 1))
      sleep 0.1
    done
    wait "$pid"
    echo "run $r $side: $scraped scrapes answered" >&2
    fig "$OUT/l.json" >>"$OUT/$side"
  done
done
python3 - "$OUT" <<'E'
import sys, statistics as st
d = sys.argv[1]
def col(side, k): return [float(l.split()[k]) for l in open(f"{d}/{side}")]
for name, k in [("loop QD32 IOPS", 0), ("loop QD32 CPU ns/IO", 1)]:
    s, p = col("scraped", k), col("plain", k)
    print(f"{name:22} scraped {st.median(s):.1f} [{min(s):.1f}-{max(s):.1f}]  plain "
          f"{st.median(p):.1f} [{min(p):.1f}-{max(p):.1f}]  ratio {st.median(s)/st.median(p):.3f}")
E
