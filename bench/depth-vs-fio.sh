#!/usr/bin/env bash
# halfpower against fio at QD1, QD8 and QD32 on a loop device over RAM (4k random reads, io_uring,
# direct), alternating runs: each tool's median and spread (min-max) of IOPS, p50 and p99
# latency (fio's `lat`, submission to completion, as halfpower's) and CPU ns per I/O, and the
# ratios. At QD1 fio is pinned to the CPU halfpower's worker uses (its first allowed CPU).
#   bench/depth-vs-fio.sh [RUNS] [SECONDS]    (default 5 runs of 3 s after 1 s of warm-up; root)
#   FIO=PATH bench/depth-vs-fio.sh ...         another fio build
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SECS=${2:-3}
FIO=${FIO:-fio}
command -v "$FIO" >/dev/null || { apt-get update -qq && apt-get install -y -qq fio >/dev/null; }
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_targets depth 64m
CPU=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
echo "halfpower $("$HP" --version | cut -d' ' -f2) vs $("$FIO" --version); $RUNS alternating runs of ${SECS}s; kernel $(uname -r), $(nproc) CPUs"
for qd in 1 8 32; do
  pin=""
  [ "$qd" = 1 ] && pin="--cpus_allowed=$CPU"
  for i in $(seq "$RUNS"); do
    "$FIO" --name=j --filename="$LOOP" --rw=randread --bs=4k --iodepth="$qd" --ioengine=io_uring \
      --direct=1 --time_based --runtime="$SECS" --ramp_time=1 --norandommap --randrepeat=0 \
      --lat_percentiles=1 $pin --output-format=json --output="$OUT/f.$qd.$i.json" >/dev/null
    "$HP" run "$LOOP" --rw randread --bs 4k --qd "$qd" --time "${SECS}s" --warmup 1s --quiet \
      --json "$OUT/h.$qd.$i.json" >/dev/null
  done
done
python3 - "$OUT" "$RUNS" <<'E'
import json, sys, statistics as st
d, runs = sys.argv[1], int(sys.argv[2])
def fio(p):
    j = json.load(open(p))["jobs"][0]; r = j["read"]; pc = r["lat_ns"]["percentile"]
    cpu = (j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000
    return r["iops"], pc["50.000000"] / 1e3, pc["99.000000"] / 1e3, cpu / r["total_ios"] * 1e9
def hp(p):
    r = json.load(open(p))["results"]; t = r["total"]; l = t["latency_us"]
    return t["iops"], l["p50"], l["p99"], r["cpu"]["us_per_io"] * 1e3
print(f"{'':<6} {'figure':<12} {'halfpower median [min-max]':>32} {'fio median [min-max]':>32} {'hp/fio':>7}")
for qd in (1, 8, 32):
    f = [fio(f"{d}/f.{qd}.{i}.json") for i in range(1, runs + 1)]
    h = [hp(f"{d}/h.{qd}.{i}.json") for i in range(1, runs + 1)]
    for k, name, fmt in ((0, "IOPS", ".0f"), (1, "p50 us", ".1f"), (2, "p99 us", ".1f"), (3, "CPU ns/IO", ".0f")):
        hv, fv = [x[k] for x in h], [x[k] for x in f]
        s = lambda v: f"{st.median(v):{fmt}} [{min(v):{fmt}}-{max(v):{fmt}}]"
        print(f"QD{qd:<4} {name:<12} {s(hv):>32} {s(fv):>32} {st.median(hv)/st.median(fv):>7.3f}")
E
