#!/usr/bin/env bash
# Does the steady-state rule's interval cover the known value (issue 26, item 1)?
#   bench/steady-coverage.sh [TIME_S] [STEADY_PCT]
#   defaults: points of at most 4 s, --steady (2 %)
#
# Known-answer devices: a loop device over RAM limited by blkio throttling (cgroup v1) to four
# caps in turn (IOPS, bytes/s): 4000/80 MB/s, 2000/40 MB/s, 3000/150 MB/s, 1000/100 MB/s. Each
# point's true throughput is min(IOPS x bs, bytes cap). At each cap a 12-point `sweep --steady`
# (randread 4k,16k,64k,256k x QD 1,4,16): 48 points in all. Prints, per cap and in total, how
# many points the rule marked steady, and in how many the known value lies inside the point's
# reported 95 % interval (bytes_per_s +- ci95_pct), over all points and over the steady ones,
# and the worst distance from the known value.
# Needs root. Removes the loop device, the cgroup and its files on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
TIME=${1:-4}
PCT=${2:-2}
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_throttled steady-coverage 4k
for cap in "4000 80000000" "2000 40000000" "3000 150000000" "1000 100000000"; do
  set -- $cap
  limit "$1" "$2"
  incg "$HP" sweep "$LOOP" --rw randread --bs 4k,16k,64k,256k --qd 1,4,16 --quiet \
    --time "${TIME}s" --steady="$PCT" --json "$OUT/cap-$1-$2.json" >/dev/null 2>"$OUT/cap-$1.err"
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
rows = []
for f in sorted(glob.glob(f"{sys.argv[1]}/cap-*.json")):
    iops, cap = (float(x) for x in os.path.basename(f)[4:-5].split("-"))
    pts = json.load(open(f))["points"]
    got = []
    for p in pts:
        known = min(iops * p["bs_bytes"], cap)
        ci = p.get("ci95_pct")
        inside = ci is not None and abs(p["bytes_per_s"] - known) <= ci / 100 * p["bytes_per_s"]
        got.append((p["steady"], inside, p["bytes_per_s"] / known - 1, ci or 0.0))
    rows += got
    st = [g for g in got if g[0]]
    print(f"cap {iops:.0f} IOPS / {cap/1e6:.0f} MB/s: {len(st)}/{len(got)} steady; known value "
          f"inside the interval {sum(g[1] for g in got)}/{len(got)} (steady {sum(g[1] for g in st)}/{len(st)}); "
          f"worst {max(abs(g[2]) for g in got)*100:.1f} %; intervals median ±{sorted(g[3] for g in got)[len(got)//2]:.1f} %")
st = [g for g in rows if g[0]]
cov = sum(g[1] for g in rows) / len(rows)
print(f"all: {len(rows)} points, {len(st)} steady; coverage {sum(g[1] for g in rows)}/{len(rows)} = {cov*100:.1f} %"
      + (f"; steady points {sum(g[1] for g in st)}/{len(st)} = {sum(g[1] for g in st)/len(st)*100:.1f} %" if st else ""))
PY
