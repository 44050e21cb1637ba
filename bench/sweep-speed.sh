#!/usr/bin/env bash
# How much time --steady saves, and whether its points are right (issue 15).
#   bench/sweep-speed.sh [FIXED_SECONDS] [IOPS_CAP] [BYTES_CAP]
#   defaults: 5-s fixed points (1-s warm-up), a cap of 3000 IOPS and 150 MB/s
#
# 1. Capped: a loop device over RAM limited by blkio throttling (cgroup v1) to IOPS_CAP and
#    BYTES_CAP, where every point's true throughput is known: min(IOPS_CAP x bs, BYTES_CAP).
#    A 12-point sweep (randread 4k,16k,64k,256k x QD 1,4,16) at fixed points, then with
#    --steady (2 %, the default) and --steady=5. Prints the time ratio steady/fixed, each
#    steady point's distance from its known value, and how many known values lie inside the
#    points' reported 95 % intervals.
# 2. Uncapped: the same loop device without limits, two fixed sweeps and one --steady sweep.
#    Prints the time ratio, how often the steady point lies between the two fixed ones, and
#    how far the two fixed sweeps are apart (run-to-run noise).
# Needs root. Removes the loop device, the cgroup and its files on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
FIXED=${1:-5}
IOPS=${2:-3000}
BYTES=${3:-150000000}
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_throttled sweep-speed 16m

# sweep NAME [flags...]: the 12 points in the cgroup; records wall seconds and the JSON.
sweep() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  rm -f "$OUT/$name.json" # halfpower refuses to replace a result without --force
  incg "$HP" sweep "$LOOP" \
    --rw randread --bs 4k,16k,64k,256k --qd 1,4,16 --quiet "$@" \
    --json "$OUT/$name.json" >/dev/null 2>"$OUT/$name.err"
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)" >"$OUT/$name.secs"
}

limit "$IOPS" "$BYTES"
sweep capped-fixed --time "${FIXED}s" --warmup 1s
sweep capped-steady --time "${FIXED}s" --steady
sweep capped-steady5 --time "${FIXED}s" --steady=5
python3 - "$OUT" "$IOPS" "$BYTES" <<'EOF'
import json, sys
out, iops, cap = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
secs = lambda n: float(open(f"{out}/{n}.secs").read())
tf = secs("capped-fixed")
for name, pct in (("capped-steady", 2), ("capped-steady5", 5)):
    pts = json.load(open(f"{out}/{name}.json"))["points"]
    devs = []
    for p in pts:
        known = min(iops * p["bs_bytes"], cap)
        ci = p.get("ci95_pct")
        inside = ci is not None and abs(p["bytes_per_s"] - known) <= ci / 100 * p["bytes_per_s"]
        devs.append((abs(p["bytes_per_s"] / known - 1), p["bs_bytes"], p["qd"], p["steady"], inside))
    ts = secs(name)
    worst = max(devs)
    print(f"capped ({iops:.0f} IOPS, {cap/1e6:.0f} MB/s), --steady={pct}: time {ts:.1f}s / {tf:.1f}s "
          f"= {ts/tf:.3f}; steady {sum(d[3] for d in devs)}/{len(devs)}; within 3 % of the known "
          f"value: {sum(d[0] <= 0.03 for d in devs)}/{len(devs)}; worst {worst[0]*100:.1f} % "
          f"(bs {worst[1]} QD{worst[2]}); known value inside the point's 95 % interval: "
          f"{sum(d[4] for d in devs)}/{len(devs)}")
EOF

limit 0 0
sweep uncapped-fixed --time "${FIXED}s" --warmup 1s
sweep uncapped-fixed-again --time "${FIXED}s" --warmup 1s
sweep uncapped-steady --time "${FIXED}s" --steady
python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
secs = lambda n: float(open(f"{out}/{n}.secs").read())
load = lambda n: {(p["bs_bytes"], p["qd"]): p for p in json.load(open(f"{out}/{n}.json"))["points"]}
a, b, s = load("uncapped-fixed"), load("uncapped-fixed-again"), load("uncapped-steady")
between = sum(min(a[k]["bytes_per_s"], b[k]["bytes_per_s"]) <= s[k]["bytes_per_s"]
              <= max(a[k]["bytes_per_s"], b[k]["bytes_per_s"]) for k in s)
apart = sorted(abs(a[k]["bytes_per_s"] / b[k]["bytes_per_s"] - 1) for k in a)
ci = sorted(p.get("ci95_pct") or 0 for p in s.values())
print(f"uncapped: time {secs('uncapped-steady'):.1f}s / {secs('uncapped-fixed'):.1f}s = "
      f"{secs('uncapped-steady')/secs('uncapped-fixed'):.3f}; steady point between the two fixed "
      f"ones: {between}/{len(s)}; the fixed sweeps apart by median {apart[len(apart)//2]*100:.1f} %, "
      f"worst {apart[-1]*100:.1f} %; steady points' within-run intervals median ±{ci[len(ci)//2]:.1f} %")
EOF
