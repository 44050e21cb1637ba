//! The closing text of each subcommand's `--help` (clap's `after_help`): how its figures are
//! defined and which units it takes.

/// The units every command reads and prints, and the exit status (after the top-level, `run`
/// and `quick` help).
pub(super) const UNITS: &str = "Units: sizes take k, m, g, t suffixes and are powers of two (4k = 4096 bytes, \
1m = 1 MiB). Durations take us, ms, s, m (minutes) or h (a bare number is seconds). Throughput is \
printed in MB/s = 10^6 bytes per second, and a typed rate (--rate, --pap) reads the same: 40, 40m \
and 40MB/s are 40 MB/s; MiB/s and GB/s as written. Latency runs from the submission of each I/O to its \
completion. Exit status: 0 success; 1 a failure, any failed I/O included (then a warning on stderr, \
in the JSON and on the HTML page); 2 a usage error or refusal (two outputs naming one file \
included); 130 interrupted.";

/// After `halfpower monitor --help`.
pub(super) const MONITOR_HELP: &str = "Figures: r/s w/s are completions per second; MB/s = 10^6 bytes per \
second; await is the mean time from the start of a request's accounting to its completion (ms); \
aqu-sz the mean number of requests in the system; %util the share of time with at least one in \
flight. S (service time) is U/X for a device serving one request at a time, measured by the block \
tracer with --trace, or estimated from sampled in-flight by Little's law otherwise (src column: \
util, trace, est). Wq = await - S. Durations take us, ms, s, m (minutes) or h. Ctrl-C ends monitoring \
normally (exit 0) after printing the interval so far.";

/// After `halfpower diagnose --help`.
pub(super) const DIAGNOSE_HELP: &str = "Inputs: halfpower monitor logs (.csv or JSON lines), `iostat -x -t` \
text (the first report, averages since boot, is left out), and perfmon CSV from typeperf or relog \
(English counter names). Service time is taken from the log, or by the Utilization Law S = U/X for \
devices that serve one request at a time; queue time = response - service. Rules: queue time > \
service time or busy > 85 % with > 2 queued per disk = overloaded; hard paging > 5 pages/s on a \
busy disk = memory-bound; service time > 1.5x the profile's expectation (2x the class's typical \
value without --profile) = slow. Times in ms; MB/s = 10^6 bytes/s.";

/// After `halfpower sweep --help`.
pub(super) const SWEEP_HELP: &str = "Each point is one run (same engine and figures as `halfpower run`) on \
one prepared target; points run in the order rw, threads, request size, queue depth. The \
plateau is the mean of the points within 5 % of the best; the half-power point is the smallest \
request size (per queue depth) and the smallest depth (per size) reaching 50 % of the reference \
(--pap, else the plateau); the knee is where each doubling adds < 10 % throughput while p99 \
rises. Sizes take k, m, g suffixes (powers of two); throughput is MB/s = 10^6 bytes/s; \
durations take us, ms, s, m or h.";

/// After `halfpower scale --help`.
pub(super) const SCALE_HELP: &str = "Each target runs the same workload alone, then the first 2..N run \
together (step 1 is the first target's run alone). Efficiency is a step's MB/s over the sum of \
its targets alone; the total saturates at the first step below 90 %, and the limit is the mean \
of the steps from there. Shared components are block devices beneath more than one target (the \
disk under partitions, a loop device's backing device, dm/md members) with their MB/s and %util \
at the limit, and the CPUs when busy at least 90 %. Sequential large requests show a bus best, \
e.g. --rw read --bs 1m --qd 8. Sizes take k, m, g (powers of two); MB/s = 10^6 bytes/s; \
durations take us, ms, s, m or h.";

/// After `halfpower experiment --help`.
pub(super) const EXPERIMENT_HELP: &str = "Every experiment keeps to --size, the region: the \
scratch file's size, or the bytes from the start of a given file or device that it may read or \
write (the rest is never touched). --time is each point's measured time after its --warmup, in \
passes over the region. buffering: direct vs buffered sequential reads and writes at 4k..1m, \
QD1: MB/s and CPU per MB (the file's page cache is dropped before each point, and before each \
pass of a buffered read, never the system's). allocation (TARGET a directory): sequential writes \
of --bs into a written file, an empty file extended by each write and a sparse one, at QD1 and \
QD8, the latter two given their blocks back after each pass so every write allocates. \
alignment: random reads of --bs at QD4 at aligned offsets and shifted by 512, 4k and half of \
--bs (buffered when direct I/O refuses 512-byte offsets). cache: re-reads of the first 1 MiB, \
sequential and random reads at 4k..64k, then random 4k reads over regions of 256k, 1m, 4m... up \
to --size: the cache size is where latency jumps past 2x. writecache: sequential writes with and \
without O_DSYNC at QD1 and QD8, 4k..1m, with the device's queue/write_cache. burst: --rw \
(randread) of --bs (4k) at --qd (16) with no warm-up until the rate has held a flat baseline for \
--hold (5s) below 0.8 of a burst (or --time, 300s, has passed), a rest of --rest (60s), then the \
same again: the burst, the baseline and the credits (I/Os done above the baseline) of each drain, \
and the refill, the second drain's credits per second of rest (a lower bound when the rest \
refilled the bucket to the first drain's credits). Each ratio a verdict \
rests on shows its 95 % interval; a cost is named only when the interval excludes none, and a \
point shorter than two 100-ms windows has none (nothing is judged). A directory TARGET gets a \
scratch file, removed at the end; a file or device needs --allow-write for the writing \
experiments. Sizes are powers of two (KiB, MiB); MB/s = 10^6 bytes/s; durations take us, ms, s, \
m or h. docs/experiments.md.";

/// After `halfpower compare --help`.
pub(super) const COMPARE_HELP: &str = "Figures: total.iops, total.bytes_per_s, read/write.latency_us.p50 \
and .p99, cpu.us_per_io. With repetitions on both sides (run --repeat N), the interval of B/A is \
Welch's; with one run each, the delta method on each run's within-run interval (throughput from \
100-ms windows, percentiles from order statistics), which says nothing about run-to-run \
variation: repeat runs to compare them honestly. Significant: the interval excludes 1 and the \
change exceeds --threshold.";

/// After `halfpower verify --help`.
pub(super) const VERIFY_HELP: &str = "Kinds: corrupt (checksum fails, sectors of one write), misdirected (a \
valid block of another offset), torn (sectors of two writes), stale (older than the last flushed \
write: a lost write the device had promised), unwritten (zeros where a flushed write was). Not \
bad: lost-unflushed (a write after its last flush, lost: allowed after a power cut), unsealed (no \
seal of halfpower's, without a state). Exit status: 0 when no block is bad, 1 when any is bad or \
unreadable, 2 for a usage error or when blocks were sealed at another block length than --bs. \
docs/verify.md.";

/// After `halfpower replay --help`.
pub(super) const REPLAY_HELP: &str = "Each request is issued at its due time (its time in the trace \
divided by the speed) whether or not earlier ones have completed, and its response time runs \
from that due time; a request issued over 1 ms late is counted. Sizes: k/m/g = KiB/MiB/GiB; \
MB/s = 10^6 bytes/s. Formats: '# halfpower trace v1' (time_us dir offset bytes per line) or fio \
iolog v2/v3 (v3 times in µs). docs/replay.md.";

/// After `halfpower capture --help`.
pub(super) const CAPTURE_HELP: &str = "Reads the block layer's tracepoints through a tracefs instance of \
its own (root): each request's issue and completion on the device, matched into one line: time \
since the first request, direction, offset, size, flags, OS queue time and device time. The \
trace is halfpower's ('# halfpower trace v1', time_us dir offset bytes per line) or fio's iolog \
v3 (--format fio); `replay` replays either. Sizes: k/m/g = KiB/MiB/GiB; MB/s = 10^6 bytes/s. \
docs/replay.md.";

/// After `halfpower profile --help`.
pub(super) const PROFILE_HELP: &str = "Friedman's matrix (004 Tables 2-4): reads and writes x sequential, \
random and cache-hit (the first 1 MiB, re-read or re-written) x request sizes 4k 16k 64k 256k \
1m (4k 16k 64k with --quick); sequential and cache-hit at QD1, random at QD1 and QD4. Service \
time S = 1/IOPS from the QD1 runs (Utilization Law, the device 100 % busy); per column a \
least-squares line S = overhead + ms_per_KiB x size fitted from the smallest sizes up, with the \
points off the line (> 15 % from it) left out and marked. Sizes are powers of two (KiB); MB/s \
= 10^6 bytes/s.";

/// After `halfpower report --help`.
pub(super) const REPORT_HELP: &str = "Charts per kind: run/quick: MB/s and IOPS per test, latency \
percentiles on a nines axis, the latency histogram, per-second IOPS, MB/s and p99 with the \
disk's %util and queue size, CPU us per I/O. sweep: MB/s against request size (one line per \
queue depth) and against depth, with the half-power line and the H(alf-power), K(nee), \
P(lateau) and best (*) points; the size x depth heatmap; p99 against MB/s. profile: 004 Table 4 \
and service time against request size with the fitted line. path: 000 Figure 1, the components \
as boxes from the application to the host bus with each limit (and measured rate), the tightest \
marked. monitor/diagnose: utilization, IOPS \
and response time = service + queue time over time per device, paging and CPU, verdicts and \
advice. MB/s = 10^6 bytes/s; sizes 4k, 1m are KiB, MiB.";

/// After `halfpower path --help`.
pub(super) const PATH_HELP: &str = "Limits: a link's signalling rate x lanes x its line code's share of data \
bits / 8: PCIe 2.5 and 5 GT/s 8b/10b, 8-32 GT/s 128b/130b (3.0 x4 = 3938 MB/s); SATA and SAS up to \
12 Gbit/s 8b/10b (6 Gbit/s = 600 MB/s); USB 5 Gbit/s 8b/10b (500 MB/s), 10 and 20 Gbit/s \
128b/132b; a NIC's speed. Stripes add their members, mirrors add reads and write at the slowest, \
a component several members share caps their sum; the PAP is the tightest limit over the share \
each component carries. HALFPOWER_SYSFS=DIR reads DIR instead of /sys (a --capture unpacked; \
DIR/proc/self/mountinfo places files). MB/s = 10^6 bytes/s. docs/path.md.";

/// After `halfpower pts --help`.
pub(super) const PTS_HELP: &str = "SNIA PTS v2.0.2: purge (BLKDISCARD on a device, hole punching on a \
file; recorded as not-supported when refused), preconditioning (twice the capacity in \
sequential 128k writes; not for wsat), then rounds of the test's matrix, each cell --round \
long, until steady state: 5 rounds whose tracking variable has max - min <= 20 % of their mean \
and whose least-squares line moves <= 10 % of it across them; at most 25 rounds. wsat runs \
random 4k writes until 4 x the capacity is written. Sizes are powers of two (KiB, MiB); MB/s = \
10^6 bytes/s; durations take us, ms, s, m or h. docs/pts.md.";

/// After `halfpower selftest --help`.
pub(super) const SELFTEST_HELP: &str = "The statement: latencies above X are measured within +-10 %, where X is ten times the 99th percentile of a sleeping thread's lateness (rounded up to 1, 2 or 5 x 10^n); rates within +-Z %, Z the share of the time the host stalled halfpower or stole its CPU, at least 0.1 %. Each known answer is held to it (the throttled device's caps within 2 %); exit 1 when one is not. MB/s = 10^6 bytes/s. docs/figures.md, \"Self-test\".";
