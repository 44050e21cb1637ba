#!/usr/bin/env bash
# What verification costs: MB/s and CPU µs per I/O with and without it, halfpower next to fio,
# on the same jobs, alternating runs, medians and ratios.
#   bench/verify-cost.sh [RUNS] [SECONDS]     (default 3 runs of 5 s; needs root and fio)
# halfpower: --verify seals every block (header + CRC-32C) and reads the written blocks back
# after the measured window (not timed); --verify-while also judges every read as it completes.
# fio: verify=crc32c with do_verify=0 is the same write-side cost (fio's header + checksum per
# block); its read-back phase is not timed either.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
SECS=${2:-5}
command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio >/dev/null; }
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_targets verify 64m
CPU=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
hp() { # hp OUT ARGS...: MB/s and CPU µs/IO of one halfpower run
  local out=$1; shift
  rm -f "$out" # halfpower refuses to replace a result without --force
  "$HP" run "$LOOP" --time "${SECS}s" --warmup 1s --allow-write --json "$out" --quiet "$@" >/dev/null || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(r["total"]["mb_per_s"], r["cpu"]["us_per_io"])' "$out"
}
fio_run() { # fio_run OUT ARGS...: MB/s and CPU µs/IO of one fio run
  local out=$1; shift
  fio --name=j --filename="$LOOP" --direct=1 --ioengine=io_uring --runtime="$SECS" --ramp_time=1 \
    --time_based --cpus_allowed="$CPU" --output-format=json --output="$out" "$@" >/dev/null
  python3 -c 'import json,sys
j=json.load(open(sys.argv[1]))["jobs"][0]; ios=j["read"]["total_ios"]+j["write"]["total_ios"]
rt=j["job_runtime"]/1000; cpu=(j["usr_cpu"]+j["sys_cpu"])/100*rt
print((j["read"]["bw_bytes"]+j["write"]["bw_bytes"])/1e6, cpu/ios*1e6)' "$out"
}
# case NAME HP_ARGS FIO_ARGS [HP_VERIFY_FLAG]
case_() {
  local name=$1 hpa=$2 fioa=$3 flag=${4:---verify}
  local a b c d
  for r in $(seq "$RUNS"); do
    # shellcheck disable=SC2086
    hp "$OUT/h0.json" $hpa >>"$OUT/$name.h0"
    # shellcheck disable=SC2086
    hp "$OUT/h1.json" $hpa "$flag" >>"$OUT/$name.h1"
    # shellcheck disable=SC2086
    fio_run "$OUT/f0.json" $fioa >>"$OUT/$name.f0"
    # shellcheck disable=SC2086
    fio_run "$OUT/f1.json" $fioa --verify=crc32c --do_verify=0 --verify_state_save=0 >>"$OUT/$name.f1"
  done
  a=$(cut -d' ' -f1 "$OUT/$name.h0" | median); b=$(cut -d' ' -f1 "$OUT/$name.h1" | median)
  c=$(cut -d' ' -f1 "$OUT/$name.f0" | median); d=$(cut -d' ' -f1 "$OUT/$name.f1" | median)
  ca=$(cut -d' ' -f2 "$OUT/$name.h0" | median); cb=$(cut -d' ' -f2 "$OUT/$name.h1" | median)
  cc=$(cut -d' ' -f2 "$OUT/$name.f0" | median); cd_=$(cut -d' ' -f2 "$OUT/$name.f1" | median)
  python3 -c 'import sys
n,a,b,c,d,ca,cb,cc,cd=sys.argv[1],*map(float,sys.argv[2:])
print(f"{n:<22} halfpower {a:8.1f} -> {b:8.1f} MB/s ({b/a:.3f}), {ca:5.2f} -> {cb:5.2f} µs/IO | "
      f"fio {c:8.1f} -> {d:8.1f} MB/s ({d/c:.3f}), {cc:5.2f} -> {cd:5.2f} µs/IO")' \
    "$name" "$a" "$b" "$c" "$d" "$ca" "$cb" "$cc" "$cd_"
}
echo "job                    plain -> with verification (ratio), CPU per I/O"
case_ randwrite-4k-qd8 "--rw randwrite --bs 4k --qd 8" "--rw=randwrite --bs=4k --iodepth=8"
case_ write-1m-qd4 "--rw write --bs 1m --qd 4" "--rw=write --bs=1m --iodepth=4"
case_ randrw-4k-qd8 "--rw randrw --bs 4k --qd 8" "--rw=randrw --bs=4k --iodepth=8"
case_ randrw-4k-qd8-while "--rw randrw --bs 4k --qd 8" "--rw=randrw --bs=4k --iodepth=8" --verify-while
