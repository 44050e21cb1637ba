#!/usr/bin/env bash
# Jobs that sync as they write, in `halfpower fio` and in fio, on the same job files: fsync every
# 8 writes, O_SYNC, direct with fsync every 16, fdatasync every 4 (64k writes to a 128 MiB file,
# psync), and a buffered 512 MiB write with one fsync at the end, also as `halfpower run
# --end-fsync` on the same layout (fio's default reserves the file: `--create allocated`; with
# fallocate=none it is empty and the writes extend it: `--create empty`). Each run starts with
# the file absent, so both tools lay it out as they do for a new file; runs alternate, and each
# tool's median MB/s (10^6 bytes/s) and the ratio are printed.
#   bench/sync-vs-fio.sh [RUNS] [END_RUNS]   (default 5 runs of the sync jobs, 3 of the end flush)
# BENCH_DIR=DIR puts the file elsewhere (default: the repository's filesystem).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
END_RUNS=${2:-3}
FIO=${FIO:-fio}
if [ -n "${HALFPOWER_BIN:-}" ]; then HP=$(realpath "$HALFPOWER_BIN"); else
  cargo build --release -q
  HP=$PWD/target/release/halfpower
fi
OUT=$(mktemp -d)
F=${BENCH_DIR:-$PWD}/halfpower-sync-bench.dat
trap 'rm -rf "$OUT"; rm -f "$F"' EXIT
echo "halfpower $("$HP" --version | cut -d' ' -f2) vs $("$FIO" --version); kernel $(uname -r); $(df -T "$(dirname "$F")" | awk 'NR==2{print $2" on "$1}')"

job() { # NAME OPTIONS...: a job file in $OUT/NAME.fio
  local name=$1; shift
  { echo "[$name]"; echo "filename=$F"; printf '%s\n' "$@"; } >"$OUT/$name.fio"
}
common=(size=128m rw=write bs=64k ioengine=psync)
job fsync8 "${common[@]}" fsync=8
job osync "${common[@]}" sync=1
job direct-fsync16 "${common[@]}" direct=1 fsync=16
job fdatasync4 "${common[@]}" fdatasync=4
job end-fsync size=512m rw=write bs=1m ioengine=psync direct=0 end_fsync=1
job end-fsync-empty size=512m rw=write bs=1m ioengine=psync direct=0 end_fsync=1 fallocate=none

mbps() { jq '(.jobs[0].write.bw_bytes) / 1e6' "$1"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

compare() { # NAME RUNS [CREATE]: with CREATE, `halfpower run --create CREATE` too
  local name=$1 runs=$2 create=${3:-} i
  : >"$OUT/$name.fio.mbps"; : >"$OUT/$name.hp.mbps"; : >"$OUT/$name.run.mbps"
  for i in $(seq "$runs"); do
    rm -f "$F" "$OUT/f.json"; "$FIO" "$OUT/$name.fio" --output-format=json --output="$OUT/f.json" >/dev/null
    mbps "$OUT/f.json" >>"$OUT/$name.fio.mbps"
    rm -f "$F" "$OUT/h.json"; "$HP" fio "$OUT/$name.fio" --allow-write --quiet --output-format=json \
      --output="$OUT/h.json" >/dev/null
    mbps "$OUT/h.json" >>"$OUT/$name.hp.mbps"
    if [ -n "$create" ]; then
      rm -f "$F" "$OUT/r.json"
      "$HP" run "$F" --rw write --bs 1m --qd 1 --size 512m --bytes 512m --buffered --end-fsync \
        --create "$create" --warmup 0 --allow-write --quiet --json "$OUT/r.json" >/dev/null
      jq '.results.total.mb_per_s' "$OUT/r.json" >>"$OUT/$name.run.mbps"
    fi
  done
  local f h
  f=$(median <"$OUT/$name.fio.mbps"); h=$(median <"$OUT/$name.hp.mbps")
  printf '%-16s fio %8.1f MB/s  halfpower fio %8.1f MB/s  ratio %.3f   (fio: %s; halfpower: %s)\n' \
    "$name" "$f" "$h" "$(echo "$h / $f" | bc -l)" "$(paste -sd' ' "$OUT/$name.fio.mbps")" \
    "$(paste -sd' ' "$OUT/$name.hp.mbps")"
  if [ -n "$create" ]; then
    h=$(median <"$OUT/$name.run.mbps")
    printf '%-16s fio %8.1f MB/s  run --create %-9s %8.1f MB/s  ratio %.3f   (run: %s)\n' \
      "$name" "$f" "$create" "$h" "$(echo "$h / $f" | bc -l)" "$(paste -sd' ' "$OUT/$name.run.mbps")"
  fi
}
for name in fsync8 osync direct-fsync16 fdatasync4; do compare "$name" "$RUNS"; done
compare end-fsync "$END_RUNS" allocated
compare end-fsync-empty "$END_RUNS" empty
