#!/usr/bin/env bash
# Replay fidelity, halfpower next to fio's read_iolog on the same traces and the same device.
#   bench/replay-vs-fio.sh            (needs root for the loop device; fio from Debian)
# Two traces of 10 s: 250 reads per second evenly spaced, and bursts of 48 reads every 200 ms.
# Each is written in halfpower's format and as fio's iolog v3, replayed by both tools on a loop
# device over RAM, alternately, three times; prints per tool the achieved rate and the
# duration as shares of the trace's, and (halfpower) lateness and burst depth.
# docs/performance.md records a run of it.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio >/dev/null; }
HP=${HALFPOWER_BIN:-target/release/halfpower}
[[ -x $HP ]] || cargo build --release -q
WORK=$(mktemp -d)
IMG=/dev/shm/halfpower-replay-bench.img
truncate -s 128M "$IMG"
LO=$(losetup -f --show "$IMG")
cleanup() { losetup -d "$LO" 2>/dev/null || true; rm -rf "$WORK" "$IMG"; }
trap cleanup EXIT

python3 - "$WORK" "$LO" <<'PY'
import sys
work, dev = sys.argv[1], sys.argv[2]
even = [i * 4000 for i in range(2500)]
bursts = [(i // 48) * 200000 for i in range(50 * 48)]
for name, times in (("even", even), ("bursts", bursts)):
    with open(f"{work}/{name}.trace", "w") as hp, open(f"{work}/{name}.iolog", "w") as fio:
        hp.write("# halfpower trace v1\n")
        fio.write(f"fio version 3 iolog\n0 {dev} add\n0 {dev} open\n")
        for i, t in enumerate(times):
            off = (i * 7919 % 16000) * 4096
            hp.write(f"{t} R {off} 4096\n")
            fio.write(f"{t} {dev} read {off} 4096\n")
        fio.write(f"{times[-1]} {dev} close\n")
PY

printf '%-7s %-10s %10s %10s %12s %10s %10s\n' trace tool "rate/asked" "time/span" "late p99 µs" "max depth" "mean µs"
for name in even bursts; do
  if [[ $name == even ]]; then span=9.996; n=2500; else span=9.8; n=2400; fi
  for run in 1 2 3; do
    "$HP" replay "$WORK/$name.trace" "$LO" --json "$WORK/hp.json" --force --quiet > /dev/null
    python3 - "$WORK/hp.json" "$span" "$n" "$name" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
span, n = float(sys.argv[2]), int(sys.argv[3])
print(f'{sys.argv[4]:<7} {"halfpower":<10} {p["achieved_iops"]/(n/span):10.4f} {p["seconds"]/span:10.4f} '
      f'{p["late_us"]["p99"]:12.1f} {p["max_inflight"]:10d} {p["latency_us"]["mean"]:10.1f}')
PY
    fio --name=replay --read_iolog="$WORK/$name.iolog" --ioengine=io_uring --direct=1 \
        --iodepth=64 --output-format=json > "$WORK/fio.json" 2>/dev/null
    python3 - "$WORK/fio.json" "$span" "$n" "$name" <<'PY'
import json, sys
t = open(sys.argv[1]).read(); j = json.loads(t[t.index("{"):])["jobs"][0]
span, n = float(sys.argv[2]), int(sys.argv[3])
r = j["read"]; secs = r["runtime"] / 1000
print(f'{sys.argv[4]:<7} {"fio":<10} {r["total_ios"]/secs/(n/span):10.4f} {secs/span:10.4f} '
      f'{"-":>12} {"-":>10} {r["lat_ns"]["mean"]/1e3:10.1f}')
PY
  done
done
