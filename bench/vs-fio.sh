#!/usr/bin/env bash
# halfpower next to fio on identical jobs, alternating runs, medians and ratios.
#   bench/vs-fio.sh [RUNS] [SECONDS]      (default 3 runs of 5 s each; needs root for the loop device)
#   ONLY=PATTERN bench/vs-fio.sh ...      runs only the scenarios whose name contains PATTERN
# A scenario called as HP_ARGS="..." scenario ... passes those options to halfpower only.
# Prints one line per scenario; docs/performance.md records a run of it.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
SECS=${2:-5}
command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio >/dev/null; }
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_targets bench 2g

py() { python3 -c "$1" "${@:2}"; }
# fio's figures from its JSON: iops, MB/s, CPU ns per I/O, clat p50/p99 in µs.
fio_fig() {
  py 'import json,sys
d=json.load(open(sys.argv[1])); j=d["jobs"][0]; k=sys.argv[2]
r=j[k]; ios=r["total_ios"]; rt=j["job_runtime"]/1000
cpu=(j["usr_cpu"]+j["sys_cpu"])/100*rt
p=r["lat_ns"].get("percentile",{})
print(r["iops"], r["bw_bytes"]/1e6, cpu/ios*1e9 if ios else 0, p.get("50.000000",0)/1e3, p.get("99.000000",0)/1e3)' "$@"
}
hp_fig() {
  py 'import json,sys
d=json.load(open(sys.argv[1])); r=d["results"]; k=sys.argv[2]
x=r[k]; print(x["iops"], x["mb_per_s"], r["cpu"]["us_per_io"]*1000, x["latency_us"]["p50"], x["latency_us"]["p99"])' "$@"
}
# halfpower pins its one worker to the first CPU it may use (--affinity spread); the
# "pinned like hp" lines give fio the same CPU, the others compare both tools' defaults.
FIRST_CPU=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# scenario NAME TARGET RW BS QD ENGINE_FIO ENGINE_HP DIRKEY [fio extra...]
scenario() {
  local name=$1 target=$2 rw=$3 bs=$4 qd=$5 fio_engine=$6 hp_engine=$7 key=$8; shift 8
  [[ $name == *"${ONLY:-}"* ]] || return 0
  local allow=""
  case $rw in *write*) allow="--allow-write" ;; esac
  for i in $(seq "$RUNS"); do
    fio --name=job --filename="$target" --rw="$rw" --bs="$bs" --iodepth="$qd" --ioengine="$fio_engine" \
        --direct=1 --time_based --runtime="$SECS" --ramp_time=1 --size=1g --norandommap --randrepeat=0 --lat_percentiles=1 \
        "$@" --output-format=json --output="$OUT/fio.json" >/dev/null
    fio_fig "$OUT/fio.json" "$key" >>"$OUT/$name.fio"
    rm -f "$OUT/hp.json" # halfpower refuses to replace a result without --force
    "$HP" run "$target" --rw "$rw" --bs "$bs" --qd "$qd" --engine "$hp_engine" --time "${SECS}s" \
        --warmup 1s --size 1g $allow ${HP_ARGS:-} --quiet --json "$OUT/hp.json" >/dev/null
    hp_fig "$OUT/hp.json" "$key" >>"$OUT/$name.hp"
  done
  local col
  for col in 1 2 3 4 5; do
    eval "f$col=\$(cut -d' ' -f$col \"$OUT/$name.fio\" | median)"
    eval "h$col=\$(cut -d' ' -f$col \"$OUT/$name.hp\" | median)"
  done
  printf '%-34s IOPS hp %10.0f fio %10.0f ratio %5.3f | MB/s ratio %5.3f | CPU ns/IO hp %7.0f fio %7.0f ratio %5.3f | p50 µs hp %8.1f fio %8.1f | p99 µs hp %8.1f fio %8.1f\n' \
    "$name" "$h1" "$f1" "$(py "print($h1/$f1)")" "$(py "print($h2/$f2)")" "$h3" "$f3" "$(py "print($h3/$f3 if $f3 else 0)")" "$h4" "$f4" "$h5" "$f5"
}

echo "halfpower $("$HP" --version | cut -d' ' -f2) vs $(fio --version); $RUNS runs of ${SECS}s each, medians; kernel $(uname -r), $(nproc) CPUs"
scenario "loop 4k randread QD32 uring" "$LOOP" randread 4k 32 io_uring uring read
scenario "loop 4k randread QD32 uring (fio fixedbufs+registerfiles)" "$LOOP" randread 4k 32 io_uring uring read --fixedbufs --registerfiles
HP_ARGS="--spin 2us" scenario "loop 4k randread QD32 uring (hp --spin 2us)" "$LOOP" randread 4k 32 io_uring uring read
scenario "null 4k read QD1" "$LOOP" randread 4k 1 null null read
scenario "file 1m read QD8 uring" "$FILE" read 1m 8 io_uring uring read
scenario "file 1m write QD8 uring" "$FILE" write 1m 8 io_uring uring write
scenario "loop 4k randread QD32 uring (fio pinned like hp)" "$LOOP" randread 4k 32 io_uring uring read --cpus_allowed="$FIRST_CPU"
scenario "loop 4k randread QD1 uring" "$LOOP" randread 4k 1 io_uring uring read
scenario "loop 4k randread QD1 uring (fio pinned like hp)" "$LOOP" randread 4k 1 io_uring uring read --cpus_allowed="$FIRST_CPU"
HP_ARGS="--spin 2us" scenario "loop 4k randread QD1 uring (hp --spin 2us)" "$LOOP" randread 4k 1 io_uring uring read
