#!/usr/bin/env bash
# Soak: a long mixed workload with verification on a loop device, its resident memory sampled
# every minute; memory must stay flat. docs/performance.md records a run.
#   bench/soak.sh [DURATION] [RATE_IOPS]     (default 1h at 5000 IOPS; needs root)
# The workload: random 70 % reads / 30 % writes, 4k/50:16k/30:64k/20, QD 16, two threads,
# every read judged as it completes (--verify-while), the record kept in a state file, and
# every written block read back at the end. The rate cap keeps the 2-core VM usable meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-1h}
RATE=${2:-5000}
cargo build --release -q
HP=$PWD/target/release/halfpower
IMG=/dev/shm/halfpower-soak.img
OUT=$(mktemp -d)
LOOP=""
cleanup() {
  [ -n "${PID:-}" ] && kill "$PID" 2>/dev/null || true
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  rm -f "$IMG"
  rm -rf "$OUT"
}
trap cleanup EXIT
truncate -s 256M "$IMG"
LOOP=$(losetup -f --show "$IMG")
"$HP" run "$LOOP" --rw randrw --read-pct 70 --bs 4k/50:16k/30:64k/20 --qd 16 --threads 2 \
  --time "$DUR" --warmup 0 --rate-iops "$RATE" --allow-write --verify-while \
  --verify-state "$OUT/state" --json "$OUT/soak.json" --quiet >"$OUT/soak.txt" 2>"$OUT/soak.err" &
PID=$!
echo "minute rss_kib"
m=0
while kill -0 "$PID" 2>/dev/null; do
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$m $rss"
  sleep 60 & wait $! || true
  m=$((m + 1))
done
wait "$PID" || echo "halfpower exit status $?"
PID=""
cat "$OUT/soak.txt"
python3 - "$OUT/soak.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]; v = r["verify"]; d = v.get("during_run") or {}
print(f"ios {r['total']['ios']}  iops {r['total']['iops']:.0f}  errors {r['errors']['count']}")
print(f"verified at the end: {v['blocks_checked']} blocks, bad {len(v['bad'])}; "
      f"during the run: {d.get('blocks_checked', 0)} blocks, bad {len(d.get('bad', []))}")
PY
