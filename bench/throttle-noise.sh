#!/usr/bin/env bash
# How well a short window of a blkio-throttled loop device can know its own throughput (issue 15).
#   bench/throttle-noise.sh [SECONDS] [IOPS_CAP] [BYTES_CAP]
#   defaults: 30-s runs, a cap of 3000 IOPS and 150 MB/s (bench/sweep-speed.sh's device)
#
# fio (100-ms IOPS log) and halfpower (per-second series) each run 4k QD4 and 256k QD16 random
# reads on the capped device, where the true throughput is known: min(IOPS_CAP x bs, BYTES_CAP).
# For windows of 0.1, 1, 2 and 5 s, cut back to back out of each run, prints how far each
# window's own throughput is from the known value: the median and the worst |error|, and the
# share of windows more than 2 % off. A window's throughput is what a point that stopped after
# that window would have seen, so this is the floor under any honest interval of that length.
# Needs root and fio. Removes the loop device, the cgroup and its files on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-30}
IOPS=${2:-3000}
BYTES=${3:-150000000}
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_throttled throttle-noise 16m
limit "$IOPS" "$BYTES"

for job in "4k 4" "256k 16"; do
  read -r bs qd <<<"$job"
  incg fio --name=noise --filename="$LOOP" --rw=randread --bs="$bs" --iodepth="$qd" \
    --ioengine=io_uring --direct=1 --time_based --runtime="$SECS" --ramp_time=1 \
    --write_iops_log="$OUT/fio-$bs" --log_avg_msec=100 --output=/dev/null
  rm -f "$OUT/hp-$bs.json" # halfpower refuses to replace a result without --force
  incg "$HP" run "$LOOP" --rw randread --bs "$bs" --qd "$qd" --time "${SECS}s" --warmup 1s \
    --quiet --json "$OUT/hp-$bs.json" >/dev/null
done

python3 - "$OUT" "$IOPS" "$BYTES" <<'EOF'
import glob, json, sys
out, iops_cap, byte_cap = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def windows(series, per):  # back-to-back windows of `per` samples: their mean
    return [sum(series[i:i + per]) / per for i in range(0, len(series) - per + 1, per)]
def line(tool, bs, step, series, known):
    for secs in (0.1, 1, 2, 5):
        per = round(secs / step)
        if per < 1:
            continue
        errs = sorted(abs(w / known - 1) * 100 for w in windows(series, per))
        if not errs:
            continue
        over = sum(e > 2 for e in errs)
        print(f"{tool:9} {bs:>5} {secs:>4} s windows: {len(errs):3}, |error| median "
              f"{errs[len(errs) // 2]:5.2f} %, worst {errs[-1]:5.2f} %, over 2 %: {over}/{len(errs)}")
for bs, size in (("4k", 4096), ("256k", 262144)):
    known_iops = min(iops_cap, byte_cap / size)
    log = glob.glob(f"{out}/fio-{bs}_iops*.log")[0]
    # fio's averaged log: one line per 100 ms with that window's IOPS.
    series = [float(l.split(",")[1]) for l in open(log) if l.strip()]
    line("fio", bs, 0.1, series, known_iops)
    ts = json.load(open(f"{out}/hp-{bs}.json"))["results"]["timeseries"]
    line("halfpower", bs, 1.0, [p["iops"] for p in ts], known_iops)
EOF
