#!/usr/bin/env bash
# How much time --steady saves, and what it costs in accuracy: the default `profile` matrix
# (40 cells) at fixed points vs the same matrix with --steady, on a loop device over RAM and on
# a file on the filesystem of BENCH_DIR (default: here).
#   bench/sweep-speed.sh [FIXED_SECONDS] [WARMUP] [STEADY_WINDOW...]
#   defaults: 10 s fixed points, 1s warm-up, windows 1s (the --steady default) and 500ms
# For each target and window it prints the total time ratio steady/fixed and how many cells
# lie within ±3 % of their fixed-time IOPS (plus the worst deviation). With NOISE=1 it first
# runs the fixed matrix twice and prints the same comparison between the two fixed runs: the
# run-to-run noise that any ±3 % claim must be read against. TARGETS (default "loop file")
# picks the targets. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
FIXED=${1:-10}
WARMUP=${2:-1s}
shift $(( $# > 2 ? 2 : $# )) || true
WINDOWS=("$@")
[ ${#WINDOWS[@]} -eq 0 ] && WINDOWS=(1s 500ms)
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_targets sweep-speed 1g

# profile NAME TARGET [flags...]: runs the default matrix, records wall seconds and the JSON.
profile() {
  local name=$1 target=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$HP" profile "$target" --allow-write --destroy-data --warmup "$WARMUP" --quiet "$@" \
      --json "$OUT/$name.json" >/dev/null 2>"$OUT/$name.err"
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)" >"$OUT/$name.secs"
}

compare() {
  python3 - "$OUT/$1.json" "$OUT/$2.json" "$(cat "$OUT/$1.secs")" "$(cat "$OUT/$2.secs")" "$3" <<'EOF'
import json, sys
fixed, steady = (json.load(open(p))["cells"] for p in sys.argv[1:3])
tf, ts, label = float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
key = lambda c: (c["rw"], c["pattern"], c["bs_bytes"], c["qd"])
f = {key(c): c for c in fixed}
devs = [(abs(c["iops"] / f[key(c)]["iops"] - 1), key(c)) for c in steady if key(c) in f]
within = sum(d <= 0.03 for d, _ in devs)
reached = sum(c["steady"] for c in steady)
worst = max(devs)
print(f"{label:<34} time {ts:7.1f}s / {tf:7.1f}s = {ts / tf:.3f}   "
      f"within ±3 %: {within}/{len(devs)}   steady {reached}/{len(steady)}   "
      f"worst {worst[0] * 100:.1f} % ({' '.join(map(str, worst[1]))})")
EOF
}

for name in ${TARGETS:-loop file}; do
  case $name in loop) target=$LOOP ;; file) target=$FILE ;; *) echo "unknown target $name" >&2; exit 2 ;; esac
  profile "$name-fixed" "$target" --time "${FIXED}s"
  if [ "${NOISE:-0}" = 1 ]; then
    profile "$name-fixed-again" "$target" --time "${FIXED}s"
    compare "$name-fixed" "$name-fixed-again" "$name fixed again (noise floor)"
  fi
  for w in "${WINDOWS[@]}"; do
    profile "$name-steady-$w" "$target" --time "${FIXED}s" --steady --steady-window "$w"
    compare "$name-fixed" "$name-steady-$w" "$name --steady (windows $w)"
  done
done
