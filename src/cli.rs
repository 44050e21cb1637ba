//! The command line: clap derive structs and nothing else. Workload options come from
//! [`crate::spec::Workload`], so flags, job files and JSON share one definition.

use crate::spec::{RwMode, Setup, Workload};
use crate::units::{ByteSize, Dur, Rate};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const UNITS: &str = "Units: sizes take k, m, g, t suffixes and are powers of two (4k = 4096 bytes, \
1m = 1 MiB). Durations take us, ms, s, m (minutes) or h (a bare number is seconds). Throughput is \
printed in MB/s = 10^6 bytes per second. Latency runs from the submission of each I/O to its \
completion.";

const MONITOR_HELP: &str = "Figures: r/s w/s are completions per second; MB/s = 10^6 bytes per \
second; await is the mean time from the start of a request's accounting to its completion (ms); \
aqu-sz the mean number of requests in the system; %util the share of time with at least one in \
flight. S (service time) is U/X for a device serving one request at a time, measured by the block \
tracer with --trace, or estimated from sampled in-flight by Little's law otherwise (src column: \
util, trace, est). Wq = await - S. Durations take us, ms, s, m (minutes) or h. Ctrl-C ends monitoring \
normally (exit 0) after printing the interval so far.";

const DIAGNOSE_HELP: &str = "Inputs: halfpower monitor logs (.csv or JSON lines), `iostat -x -t` \
text (the first report, averages since boot, is left out), and perfmon CSV from typeperf or relog \
(English counter names). Service time is taken from the log, or by the Utilization Law S = U/X for \
devices that serve one request at a time; queue time = response - service. Rules: queue time > \
service time or busy > 85 % with > 2 queued per disk = overloaded; hard paging > 5 pages/s on a \
busy disk = memory-bound; service time > 1.5x the profile's expectation (2x the class's typical \
value without --profile) = slow. Times in ms; MB/s = 10^6 bytes/s.";

const SWEEP_HELP: &str = "Each point is one run (same engine and figures as `halfpower run`) on \
one prepared target; points run in the order rw, threads, request size, queue depth. The \
plateau is the mean of the points within 5 % of the best; the half-power point is the smallest \
request size (per queue depth) and the smallest depth (per size) reaching 50 % of the reference \
(--pap, else the plateau); the knee is where each doubling adds < 10 % throughput while p99 \
rises. Sizes take k, m, g suffixes (powers of two); throughput is MB/s = 10^6 bytes/s; \
durations take us, ms, s, m or h.";

const PROFILE_HELP: &str = "Friedman's matrix (004 Tables 2-4): reads and writes x sequential, \
random and cache-hit (the first 1 MiB, re-read or re-written) x request sizes 4k 16k 64k 256k \
1m (4k 16k 64k with --quick); sequential and cache-hit at QD1, random at QD1 and QD4. Service \
time S = 1/IOPS from the QD1 runs (Utilization Law, the device 100 % busy); per column a \
least-squares line S = overhead + ms_per_KiB x size fitted from the smallest sizes up, with the \
points off the line (> 15 % from it) left out and marked. Sizes are powers of two (KiB); MB/s \
= 10^6 bytes/s.";

const REPORT_HELP: &str = "Charts per kind: run/quick: MB/s and IOPS per test, latency \
percentiles on a nines axis, the latency histogram, per-second IOPS, MB/s and p99 with the \
disk's %util and queue size, CPU us per I/O. sweep: MB/s against request size (one line per \
queue depth) and against depth, with the half-power line and the H(alf-power), K(nee), \
P(lateau) and best (*) points; the size x depth heatmap; p99 against MB/s. profile: 004 Table 4 \
and service time against request size with the fitted line. monitor/diagnose: utilization, IOPS \
and response time = service + queue time over time per device, paging and CPU, verdicts and \
advice. MB/s = 10^6 bytes/s; sizes 4k, 1m are KiB, MiB.";

/// halfpower: what can this storage really do, how far is a workload from it, and why.
///
/// Without a subcommand, runs the quick suite on a scratch file in the current directory.
#[derive(Parser, Debug)]
#[command(name = "halfpower", version, after_help = UNITS, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run one workload against files or block devices and measure it.
    #[command(after_help = UNITS)]
    Run(RunArgs),
    /// The quick suite: sequential 1 MiB and random 4 KiB reads and writes at QD 1 and deep
    /// queues (CrystalDiskMark's matrix) on a scratch file.
    #[command(after_help = UNITS)]
    Quick(QuickArgs),
    /// Watch the OS disk counters every interval: iostat's figures per device, response time
    /// split into service time and queue time, flags for busy, queued and paging systems.
    #[command(after_help = MONITOR_HELP)]
    Monitor(MonitorArgs),
    /// Diagnose monitor logs, `iostat -x -t` output or Windows perfmon CSV: per device a
    /// verdict (idle, healthy, overloaded, slow, memory-bound, cpu-bound, invalid) with its
    /// evidence, the rule it comes from and tuning advice.
    #[command(after_help = DIAGNOSE_HELP)]
    Diagnose(DiagnoseArgs),
    /// Sweep request size x queue depth (x threads) and find the plateau, the half-power point
    /// and the knee for each rw mode.
    #[command(after_help = SWEEP_HELP)]
    Sweep(SweepArgs),
    /// Friedman's characterization matrix: service time per read/write x sequential/random/
    /// cache-hit x request size, fitted lines, and the expectations file diagnose reads.
    #[command(after_help = PROFILE_HELP)]
    Profile(ProfileArgs),
    /// Draw results as one self-contained HTML file (inline SVG charts, no scripts, light and
    /// dark schemes): run, quick, sweep, profile or diagnose JSON, or monitor logs. Several
    /// files of one kind share the axes, one series each.
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
}

/// Where results go.
#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Write the results as one JSON document to PATH, or to stdout with `-` (then no table).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
    /// Also write a self-contained HTML report with charts to PATH (as `halfpower report`
    /// draws it); an existing file is refused before anything runs.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
}

/// `halfpower run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Files or block devices. A missing file is created, filled with incompressible data and
    /// removed at the end (unless --keep). With --engine null, only a name.
    #[arg(value_name = "TARGET", required = true)]
    pub targets: Vec<PathBuf>,
    /// The workload.
    #[command(flatten)]
    pub workload: Workload,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower quick`.
#[derive(Args, Debug)]
pub struct QuickArgs {
    /// Directory for the scratch file `halfpower.tst` [default: .]
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Size of the scratch file.
    #[arg(long, value_name = "SIZE", default_value = "1g")]
    pub size: ByteSize,
    /// Measured time per test.
    #[arg(long, value_name = "DUR", default_value = "5s")]
    pub time: Dur,
    /// Warm-up before each test; its I/Os are not counted.
    #[arg(long, value_name = "DUR", default_value = "1s")]
    pub warmup: Dur,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower monitor`.
#[derive(Args, Debug)]
pub struct MonitorArgs {
    /// Devices to report every interval: kernel names (sda, nvme0n1), /dev/NAME, or any path on
    /// a block device. Default: every whole disk that did anything in the interval.
    #[arg(value_name = "DEVICE")]
    pub devices: Vec<String>,
    /// Length of one interval.
    #[arg(long, value_name = "DUR", default_value = "1s")]
    pub interval: Dur,
    /// Stop after this many intervals (default: until Ctrl-C).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Also write every record to PATH: CSV for a .csv name, JSON lines for .jsonl/.ndjson/.json.
    #[arg(long, value_name = "PATH")]
    pub log: Option<PathBuf>,
    /// Print JSON lines on stdout (one object per device per interval and one `_system`
    /// object) instead of tables.
    #[arg(long)]
    pub json: bool,
    /// With no DEVICE, report partitions as well as whole disks.
    #[arg(long)]
    pub partitions: bool,
    /// Measure OS queue time and device time per request from the kernel's block tracepoints
    /// (root; mounts tracefs if needed and removes what it creates).
    #[arg(long)]
    pub trace: bool,
}

/// `halfpower diagnose`.
#[derive(Args, Debug)]
pub struct DiagnoseArgs {
    /// Log files: monitor CSV/JSONL, `iostat -x -t` text, perfmon CSV.
    #[arg(value_name = "LOG", required = true)]
    pub logs: Vec<PathBuf>,
    /// Service-time expectations from `halfpower profile` (schema: docs/profile.md).
    #[arg(long, value_name = "PROFILE.json")]
    pub profile: Option<PathBuf>,
    /// Print the diagnosis as one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options shared by `sweep` and `profile`: how each point is run and stopped.
#[derive(Args, Debug, Clone)]
pub struct PointArgs {
    /// End a point once its throughput in each of the last three windows (--steady-window,
    /// 1 s) lies within +-PCT % of their mean (default 2), or at --time, whichever comes first.
    #[arg(long, value_name = "PCT", num_args = 0..=1, default_missing_value = "2",
          require_equals = true)]
    pub steady: Option<f64>,
    /// Length of each of the three windows --steady compares (fio's ss_dur / 3).
    #[arg(long, value_name = "DUR", default_value = "1s", requires = "steady")]
    pub steady_window: Dur,
    /// Timing, region, engine, open flags and write permissions of every point.
    #[command(flatten)]
    pub setup: Setup,
}

/// `halfpower sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Files or block devices (a missing file is created and filled once for all points).
    #[arg(value_name = "TARGET", required_unless_present = "from")]
    pub targets: Vec<PathBuf>,
    /// Re-analyse a sweep instead of running one: a sweep JSON, or a CSV with the columns
    /// rw,bs,qd,threads,mb_per_s (bs with units, e.g. 64k; p99_us optional).
    #[arg(long, value_name = "FILE", conflicts_with = "targets")]
    pub from: Option<PathBuf>,
    /// rw modes, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "read,randread,write,randwrite"
    )]
    pub rw: Vec<RwMode>,
    /// Request sizes, comma-separated (k/m = KiB/MiB).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "4k,16k,64k,256k,1m"
    )]
    pub bs: Vec<ByteSize>,
    /// Queue depths (I/Os in flight per thread), comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "1,4,16,64"
    )]
    pub qd: Vec<u32>,
    /// Threads per target, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "LIST", default_value = "1")]
    pub threads: Vec<u32>,
    /// Peak advertised performance: half-power is half of this instead of the measured
    /// plateau, and real/advertised is reported (e.g. 550MB/s; a bare number is MB/s).
    #[arg(long, value_name = "RATE")]
    pub pap: Option<Rate>,
    /// How each point runs.
    #[command(flatten)]
    pub point: PointArgs,
    /// Also write one CSV row per point to PATH.
    #[arg(long, value_name = "PATH")]
    pub csv: Option<PathBuf>,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower profile`.
#[derive(Args, Debug)]
pub struct ProfileArgs {
    /// A file or block device (a missing file is created and filled once).
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// Request sizes 4k, 16k, 64k only (else also 256k and 1m).
    #[arg(long)]
    pub quick: bool,
    /// Reads only: profile a device without writing to it.
    #[arg(long)]
    pub reads_only: bool,
    /// How each point runs.
    #[command(flatten)]
    pub point: PointArgs,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Result files, all of one kind: JSON from run, quick, sweep, profile or diagnose; a
    /// monitor log (JSON lines or CSV), `iostat -x -t` text or perfmon CSV.
    #[arg(value_name = "RESULT", required = true)]
    pub results: Vec<PathBuf>,
    /// Where to write the report [default: halfpower-report.html next to the first RESULT].
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}
