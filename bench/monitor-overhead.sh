#!/usr/bin/env bash
# CPU cost of `halfpower monitor` at 1 s over all devices, over SECS seconds, as a share of one
# core: getrusage of the child (user + sys, tick-sampled by the kernel) and the scheduler's
# exact on-CPU time from /proc/PID/schedstat (read each second; the last < 1 s is extrapolated).
#   bench/monitor-overhead.sh [SECS] [extra monitor args]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-60}; shift || true
cargo build --release -q
python3 - "$SECS" "$@" <<'PY'
import resource, subprocess, sys, time
secs = int(sys.argv[1]); extra = sys.argv[2:]
t0 = time.monotonic()
p = subprocess.Popen(["target/release/halfpower", "monitor", "--interval", "1s", "--count", str(secs), "--json", *extra],
                     stdout=subprocess.DEVNULL)
on_cpu, seen = 0, t0
while p.poll() is None:
    try:
        on_cpu = int(open(f"/proc/{p.pid}/schedstat").read().split()[0]); seen = time.monotonic()
    except (OSError, ValueError, IndexError):
        pass
    time.sleep(0.5)
wall = time.monotonic() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
ru = r.ru_utime + r.ru_stime
sched = on_cpu / 1e9 * wall / max(seen - t0, 1e-9)
print(f"monitor {' '.join(extra) or '(all devices)'}: {secs} intervals, wall {wall:.1f} s; "
      f"getrusage user {r.ru_utime:.3f} s + sys {r.ru_stime:.3f} s = {ru/wall*100:.3f} % of one core; "
      f"schedstat on-CPU {sched:.4f} s = {sched/wall*100:.3f} % of one core ({sched/secs*1e3:.3f} ms per interval)")
PY
