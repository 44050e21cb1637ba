#!/usr/bin/env bash
# fio-plot (PyPI `fio-plot`) reads halfpower's fio JSON as it reads fio's: the same job at queue
# depths 1..16 is run by fio and by `halfpower fio` on the same loop device, each tool's files
# go in their own directory, named and shaped as fio-plot's bench_fio writes them, and fio-plot
# draws its IOPS/latency-by-queue-depth chart (-l) from each. Prints the figures fio-plot plots
# (IOPS and mean latency per depth) for both tools and their ratio, and where the two PNGs are.
# Then fio's logs: one QD4 job per tool writes bw, IOPS and latency logs averaged per second
# (`log_avg_msec=1000`, named as bench_fio names them), fio-plot draws its over-time chart
# (-g) from each tool's files, and the per-second values of both are printed side by side.
#   bench/fio-plot.sh [RUNTIME_S] [RESULTS_DIR]
# Needs root (loop device), fio, and fio-plot on PATH (else it is installed into a scratch venv
# with pip, which needs the network). Not a CI test: fio-plot is not a Debian package.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNTIME=${1:-3}
RESULTS=${2:-$PWD/target/fio-plot}
source bench/targets.sh
bench_targets fioplot 16m
FIOPLOT=$(command -v fio-plot || true)
if [ -z "$FIOPLOT" ]; then
  python3 -m venv "$OUT/venv"
  "$OUT/venv/bin/pip" install -q fio-plot
  FIOPLOT=$OUT/venv/bin/fio-plot
fi
rm -rf "$RESULTS"
DEPTHS="1 2 4 8 16"
for tool in fio halfpower; do
  dir=$RESULTS/$tool/4k
  mkdir -p "$dir"
  for qd in $DEPTHS; do
    cmd=(fio)
    [ $tool = halfpower ] && cmd=("$HP" fio --quiet)
    "${cmd[@]}" --name=randread --filename="$LOOP" --rw=randread --bs=4k --iodepth="$qd" \
      --numjobs=1 --ioengine=libaio --direct=1 --time_based --runtime="$RUNTIME" \
      --size=1g --group_reporting --output-format=json \
      --output="$dir/randread-$qd-1.json" >/dev/null
  done
  "$FIOPLOT" -i "$dir" -T "4k randread by $tool" -l -r randread -d $DEPTHS -n 1 \
    -o "$RESULTS/$tool.png" >"$RESULTS/$tool.log" 2>&1 || {
      echo "fio-plot failed on $tool's files:"; cat "$RESULTS/$tool.log"; exit 1; }
  [ -s "$RESULTS/$tool.png" ] || { echo "fio-plot drew nothing for $tool"; exit 1; }
done
for tool in fio halfpower; do
  dir=$RESULTS/$tool/logs
  mkdir -p "$dir"
  stem=$dir/randread-iodepth-4-numjobs-1
  cmd=(fio)
  [ $tool = halfpower ] && cmd=("$HP" fio --quiet)
  "${cmd[@]}" --name=randread --filename="$LOOP" --rw=randread --bs=4k --iodepth=4 \
    --ioengine=libaio --direct=1 --time_based --runtime="$((RUNTIME + 2))" --size=1g \
    --write_bw_log="$stem" --write_iops_log="$stem" --write_lat_log="$stem" \
    --log_avg_msec=1000 --output-format=json --output="$dir/randread-4-1.json" >/dev/null
  "$FIOPLOT" -i "$dir" -T "4k randread QD4 over time by $tool" -g -t bw iops lat \
    -r randread -d 4 -n 1 -o "$RESULTS/$tool-2d.png" >"$RESULTS/$tool-2d.log" 2>&1 || {
      echo "fio-plot -g failed on $tool's logs:"; cat "$RESULTS/$tool-2d.log"; exit 1; }
  [ -s "$RESULTS/$tool-2d.png" ] || { echo "fio-plot -g drew nothing for $tool"; exit 1; }
done
python3 - "$RESULTS" <<'PY'
import sys
res = sys.argv[1]
def col(tool, kind):
    rows = open(f"{res}/{tool}/logs/randread-iodepth-4-numjobs-1_{kind}.1.log").read().split("\n")
    return [int(r.split(",")[1]) for r in rows if r.strip()]
print("per second, fio / halfpower (from each tool's log files):")
for kind, unit in [("iops", "IOPS"), ("bw", "KiB/s"), ("lat", "mean lat ns")]:
    f, h = col("fio", kind), col("halfpower", kind)
    print(f"  {unit:>11}: fio {f}  halfpower {h}")
print(f"over-time charts: {res}/fio-2d.png {res}/halfpower-2d.png")
PY
python3 - "$RESULTS" $DEPTHS <<'PY'
import json, sys
res, depths = sys.argv[1], sys.argv[2:]
def fig(tool, qd):
    j = json.load(open(f"{res}/{tool}/4k/randread-{qd}-1.json"))["jobs"][0]
    return j["read"]["iops"], j["read"]["lat_ns"]["mean"] / 1000
print(f"{'QD':>3} {'fio IOPS':>10} {'hp IOPS':>10} {'ratio':>6} {'fio lat us':>10} {'hp lat us':>10}")
for qd in depths:
    (fi, fl), (hi, hl) = fig("fio", qd), fig("halfpower", qd)
    print(f"{qd:>3} {fi:>10.0f} {hi:>10.0f} {hi/fi:>6.3f} {fl:>10.1f} {hl:>10.1f}")
print(f"charts: {res}/fio.png {res}/halfpower.png")
PY
