#!/usr/bin/env bash
# Item 2 of issue 26 where the device allows it: how much time --steady saves on a target whose
# 1-s windows vary by about ±1 % or less, and whether its points are right.
#   bench/steady-speed-null.sh [IOPS] [FIXED_SECONDS]     (defaults 20000, 5)
# No device on these VMs is that steady (a blk-throttled loop device's 1-s windows swing by
# several % with its 100-ms slices: bench/throttle-noise.sh), so the target is the null engine
# paced at IOPS (--rate-iops), which still runs the whole stop rule; every point's known value
# is IOPS. 1. The 1-s windows of a 10-s paced run: their largest distance from their mean.
# 2. A 12-point sweep (read 4k,16k,64k x QD 1,2,4,8) at fixed points (FIXED_SECONDS, 1-s
# warm-up), then with --steady (±2 %) and at most FIXED_SECONDS: the time ratio and each
# point's distance from IOPS.
set -euo pipefail
cd "$(dirname "$0")/.."
IOPS=${1:-20000}
FIXED=${2:-5}
HP=${HALFPOWER_BIN:-target/release/halfpower}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

"$HP" run null --engine null --rw read --bs 4k --rate-iops "$IOPS" --time 10s --quiet \
  --json "$OUT/windows.json" >/dev/null
python3 - "$OUT/windows.json" <<'PY'
import json, sys
ts = json.load(open(sys.argv[1]))["results"]["timeseries"]
x = [w["iops"] for w in ts]
m = sum(x) / len(x)
print(f"1-s windows of the paced null engine: {len(x)}, mean {m:.1f} IOPS, "
      f"largest distance {100 * max(abs(v / m - 1) for v in x):.3f} %")
PY

sweep() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$HP" sweep null --engine null --rw read --bs 4k,16k,64k --qd 1,2,4,8 \
    --rate-iops "$IOPS" --quiet "$@" --json "$OUT/$name.json" >/dev/null 2>"$OUT/$name.err"
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)" >"$OUT/$name.secs"
}
sweep fixed --time "${FIXED}s" --warmup 1s
sweep steady --time "${FIXED}s" --steady
python3 - "$OUT" "$IOPS" <<'PY'
import json, sys
out, iops = sys.argv[1], float(sys.argv[2])
secs = lambda n: float(open(f"{out}/{n}.secs").read())
for name in ("fixed", "steady"):
    pts = json.load(open(f"{out}/{name}.json"))["points"]
    d = [abs(p["iops"] / iops - 1) for p in pts]
    print(f"{name}: {len(pts)} points in {secs(name):.1f} s; steady {sum(bool(p['steady']) for p in pts)}; "
          f"within 3 % of {iops:.0f}: {sum(x <= 0.03 for x in d)}/{len(d)}; worst {100 * max(d):.2f} %")
print(f"time ratio steady / fixed: {secs('steady') / secs('fixed'):.3f}")
PY
