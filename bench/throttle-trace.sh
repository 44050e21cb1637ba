#!/usr/bin/env bash
# Where a throttled closed loop loses I/O (issue 44's "lost second"): the iolog test's workload
# (randrw 4k QD4, blkio caps of 2000 IOPS each way, 3 s after 500 ms) run N times on a loop
# device over /dev/shm, with the kernel's tracepoints of every hop on its path: the device's
# requests (block_bio_queue, rq_issue, rq_complete), the loop device's worker (loop_workfn) and
# the throttle's timer and dispatch work (throtl_pending_timer_fn, blk_throtl_dispatch_work_fn),
# queued and started. A run that reads fewer than 95 % of its cap keeps its trace, and a line
# says: halfpower's and the kernel's counts, the kernel's per second, and the mean waits from
# a completion to the next submission, of the loop worker, and of the throttle's dispatch work.
#   bench/throttle-trace.sh [RUNS] [OUT]     (default 20 runs, traces in a temporary directory)
# Load the machine meanwhile (the test suite, builds) to see the loss. Needs root and tracefs.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20}
# shellcheck source=bench/targets.sh
source bench/targets.sh
bench_throttled throttle-trace 16m
limit 2000 0
KEEP=${2:-$(mktemp -d /tmp/throttle-trace.XXXXXX)}
mkdir -p "$KEEP"
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T
addr() { grep -E " $1\$" /proc/kallsyms | cut -d' ' -f1; }
MM=$(lsblk -no MAJ:MIN "$LOOP" | tr -d ' ')
DEV=$(( (${MM%:*} << 20) | ${MM#*:} ))
trace_off() {
  echo 0 >$T/tracing_on
  echo 0 >$T/events/enable
  for e in timer/timer_start timer/timer_expire_entry workqueue/workqueue_queue_work \
    workqueue/workqueue_execute_start workqueue/workqueue_execute_end block/block_bio_queue \
    block/block_rq_issue block/block_rq_complete; do echo 0 >$T/events/$e/filter; done
  bench_cleanup
}
trap trace_off EXIT
echo mono >$T/trace_clock
echo 65536 >$T/buffer_size_kb
for e in timer_start timer_expire_entry; do
  echo "function == 0x$(addr throtl_pending_timer_fn)" >$T/events/timer/$e/filter
  echo 1 >$T/events/timer/$e/enable
done
for e in workqueue_queue_work workqueue_execute_start workqueue_execute_end; do
  echo "function == 0x$(addr blk_throtl_dispatch_work_fn) || function == 0x$(addr loop_workfn)" \
    >$T/events/workqueue/$e/filter
  echo 1 >$T/events/workqueue/$e/enable
done
for e in block_bio_queue block_rq_issue block_rq_complete; do
  echo "dev == $DEV" >$T/events/block/$e/filter
  echo 1 >$T/events/block/$e/enable
done
for i in $(seq "$RUNS"); do
  echo >$T/trace
  echo 1 >$T/tracing_on
  incg "$HP" run "$LOOP" --rw randrw --bs 4k --qd 4 --time 3s --warmup 500ms --allow-write \
    --quiet --json "$KEEP/r$i.json" >/dev/null
  echo 0 >$T/tracing_on
  r=$(jq '.results.read.ios' "$KEEP/r$i.json")
  w=$(jq '.results.write.ios' "$KEEP/r$i.json")
  if [ "$r" -ge 5700 ] && [ "$w" -ge 5700 ]; then
    echo "run $i: reads $r writes $w"
    rm -f "$KEEP/r$i.json"
    continue
  fi
  cp $T/trace "$KEEP/trace$i.txt"
  python3 - "$KEEP/trace$i.txt" "$KEEP/r$i.json" "$i" <<'E'
import json, re, sys
trace, result, run = sys.argv[1], json.load(open(sys.argv[2]))["results"], sys.argv[3]
ev = []
for line in open(trace):
    m = re.search(r"\s([\d.]+): (\w+): (.*)", line)
    if m:
        ev.append((float(m.group(1)), m.group(2), m.group(3)))
done = [t for t, e, _ in ev if e == "block_rq_complete"]
end = done[-1]
per_s = [sum(1 for t in done if end - 3 + k < t <= end - 2 + k) for k in range(3)]
waits = {"completion -> next submission": [], "loop worker": [], "throttle dispatch": []}
queued, last_done = {}, None
for t, e, rest in ev:
    if e == "block_rq_complete":
        last_done = t
    elif e == "block_bio_queue" and last_done is not None:
        waits["completion -> next submission"].append(t - last_done)
        last_done = None
    elif e in ("workqueue_queue_work", "workqueue_execute_start"):
        m = re.search(r"work struct[= ](\S+?):? function[= ](\S+)", rest)
        key = (m.group(1), m.group(2))
        kind = "loop worker" if "loop_workfn" in m.group(2) else "throttle dispatch"
        if e == "workqueue_queue_work":
            queued[key] = t
        elif key in queued:
            waits[kind].append(t - queued.pop(key))
mean = lambda v: f"{1e3 * sum(v) / len(v):.2f} ms ({len(v)})" if v else "none"
dev = result["devices"][0]
print(f"run {run}: LOSS halfpower r/w {result['read']['ios']}/{result['write']['ios']}, "
      f"the kernel {dev['reads']}/{dev['writes']}, the kernel per second {per_s} (cap 4000); "
      + "; ".join(f"{k} {mean(v)}" for k, v in waits.items())
      + f"; worker waited for a CPU {result['host'].get('workers_waited_ms', 0):.0f} ms")
E
done
echo "kept: $KEEP"
