#!/usr/bin/env bash
# halfpower next to fio on a machine's own disk and on a loop device over RAM, alternating runs,
# 4k random reads at QD 1-128 and 1-16 threads and 1m sequential reads; plus `selftest`, the
# disk's sysfs path as a fixture (`path --capture`) and the machine's facts. Written for a
# lent machine with no network: halfpower and fio come prebuilt in $BIN (default .device).
#   bench/device-vs-fio.sh OUT_DIR [RUNS] [SECONDS]      (needs root for the loop device)
# Prints one line per cell (medians of RUNS alternating runs, with each tool's min-max) and
# leaves every JSON in OUT_DIR/all.tar.gz.
set -uo pipefail
OUTD=${1:?OUT_DIR}
RUNS=${2:-3}
SECS=${3:-3}
BIN=${BIN:-$PWD/.device}
HP=$BIN/halfpower
FIO=$BIN/fio
export LD_LIBRARY_PATH=$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUTD/j"
J=$OUTD/j
log() { echo "$*" | tee -a "$OUTD/summary.txt"; }

{
  echo "## facts"; date -u; uname -a; nproc; grep -m1 "model name" /proc/cpuinfo
  free -g | head -2; cat /sys/devices/system/clocksource/clocksource0/current_clocksource
  mount | grep -E " / |cgroup" | head; lsblk -o NAME,SIZE,ROTA,TYPE,MOUNTPOINT,MODEL 2>/dev/null
  ls /sys/block; df -h / /tmp; "$FIO" --version; "$HP" --version
  for d in /sys/block/*; do echo "$d: $(cat "$d"/queue/scheduler 2>/dev/null) nr_requests=$(cat "$d"/queue/nr_requests 2>/dev/null) rot=$(cat "$d"/queue/rotational 2>/dev/null)"; done
} >"$OUTD/facts.txt" 2>&1

# The directory for the scratch file: the biggest real disk's file system (not tmpfs/overlay).
DIR=$(df --output=target,fstype,avail 2>/dev/null | awk 'NR>1 && $2!~/tmpfs|overlay|proc|sysfs/ {print $3, $1}' | sort -rn | head -1 | cut -d' ' -f2)
DIR=${DIR:-/}
log "scratch directory: $DIR ($(df -P --output=source,fstype "$DIR" | tail -1))"
"$HP" path "$DIR" --capture "$OUTD/path-capture.tar.gz" --json "$J/path.json" --quiet >"$OUTD/path.txt" 2>&1
cat "$OUTD/path.txt" >>"$OUTD/summary.txt"
timeout 90 "$HP" selftest --json "$OUTD/selftest.json" --quiet 2>&1
"$HP" report "$OUTD/selftest.json" -o "$J/selftest.html" >/dev/null 2>&1
python3 - "$OUTD/selftest.json" <<'E' | tee -a "$OUTD/summary.txt"
import json,sys
d=json.load(open(sys.argv[1])); s=d["statement"]
print("selftest:", d["seconds"], "s; clock", d["clock"], "; wake", d["wake"], "; floor", d["floor"])
for c in d["checks"]: print("  ", c["kind"], c["known"], c["measured"], "%+.3f%%" % c["error_pct"], "bound", c["bound_pct"], c["held"])
print("  skipped", d.get("skipped")); print("  statement", s)
E

FILE=$DIR/halfpower-device.dat
"$HP" run "$FILE" --size 4g --bytes 4k --warmup 0 --keep --quiet >/dev/null 2>&1
dd if=/dev/urandom of=/dev/shm/hp-dev.img bs=1M count=1024 status=none
LOOP=$(losetup -f --show /dev/shm/hp-dev.img)
trap 'losetup -d "$LOOP" 2>/dev/null; rm -f /dev/shm/hp-dev.img "$FILE"' EXIT
FIRST_CPU=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')

# cell NAME TARGET RW BS QD THREADS [HP_BIN [HP_ENV]]: RUNS alternating runs of fio then halfpower.
cell() {
  local name=$1 target=$2 rw=$3 bs=$4 qd=$5 th=$6 hp=${7:-$HP} env=${8:-}
  local pin=""
  [ "$th" = 1 ] && [ "$qd" = 1 ] && pin="--cpus_allowed=$FIRST_CPU"
  for i in $(seq "$RUNS"); do
    "$FIO" --name=j --filename="$target" --rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$th" \
      --group_reporting --ioengine=io_uring --direct=1 --time_based --runtime="$SECS" --ramp_time=1 \
      --size=1g --norandommap --randrepeat=0 --lat_percentiles=1 $pin \
      --output-format=json --output="$J/$name.fio.$i.json" >/dev/null 2>&1
    env $env "$hp" run "$target" --rw "$rw" --bs "$bs" --qd "$qd" --threads "$th" --time "${SECS}s" \
      --warmup 1s --size 1g --quiet --json "$J/$name.hp.$i.json" --force >/dev/null 2>&1
  done
  python3 - "$J" "$name" "$RUNS" <<'E' | tee -a "$OUTD/summary.txt"
import json,sys,statistics as st
d,name,runs=sys.argv[1],sys.argv[2],int(sys.argv[3])
f=[];h=[]
for i in range(1,runs+1):
    try:
        j=json.load(open(f"{d}/{name}.fio.{i}.json"))["jobs"][0]; r=j["read"]; ios=r["total_ios"]
        cpu=(j["usr_cpu"]+j["sys_cpu"])/100*j["job_runtime"]/1000
        p=r["lat_ns"]["percentile"]
        f.append((r["iops"], r["bw_bytes"]/1e6, cpu/ios*1e9, p["50.000000"]/1e3, p["99.000000"]/1e3))
    except Exception as e: print("fio", name, i, e)
    try:
        R=json.load(open(f"{d}/{name}.hp.{i}.json"))["results"]; x=R["total"]
        h.append((x["iops"], x["mb_per_s"], R["cpu"]["us_per_io"]*1000, x["latency_us"]["p50"], x["latency_us"]["p99"]))
    except Exception as e: print("hp", name, i, e)
if f and h:
    m=lambda a,k: st.median(v[k] for v in a)
    rng=lambda a,k: "%.0f-%.0f" % (min(v[k] for v in a), max(v[k] for v in a))
    print(f"{name:<30} IOPS hp {m(h,0):>9.0f} [{rng(h,0)}] fio {m(f,0):>9.0f} [{rng(f,0)}] ratio {m(h,0)/m(f,0):.3f} | MB/s {m(h,1):.0f}/{m(f,1):.0f} | CPU ns/IO hp {m(h,2):.0f} fio {m(f,2):.0f} | p50 us hp {m(h,3):.1f} fio {m(f,3):.1f} | p99 us hp {m(h,4):.1f} fio {m(f,4):.1f}")
E
}

log "## disk file $FILE: $RUNS alternating runs of ${SECS}s (+1 s warm-up) each"
for qd in 1 8 32 128; do cell "disk-4k-randread-qd$qd-t1" "$FILE" randread 4k "$qd" 1; done
for th in 4 16; do cell "disk-4k-randread-qd32-t$th" "$FILE" randread 4k 32 "$th"; done
cell "disk-1m-read-qd8-t1" "$FILE" read 1m 8 1
log "## loop device over RAM ($LOOP)"
for qd in 1 8 32; do cell "loop-4k-randread-qd$qd" "$LOOP" randread 4k "$qd" 1; done
if [ -x "$BIN/halfpower-x" ]; then
  log "## loop device: the COOP_TASKRUN build against DEFER_TASKRUN (HP_DEFER=1), same binary"
  for qd in 1 8 32; do cell "loop-qd$qd-defer" "$LOOP" randread 4k "$qd" 1 "$BIN/halfpower-x" HP_DEFER=1; done
fi
tar -C "$OUTD" -czf "$OUTD/all.tar.gz" j && rm -rf "$J"
