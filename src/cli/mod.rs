//! The command line: clap derive structs and nothing else, the only place clap is used below
//! `main`. A workload's flags are declared once in [`workload`] and lowered into
//! [`crate::plan::Workload`], which job files and the JSON share.

mod argv;
mod capture;
mod common;
mod help;
mod iolog;
mod path;
mod point;
mod pts;
mod replay;
mod tailor;
pub mod workload;
pub use argv::{Typed, command, optional_value, parse, parse_typed};
pub use capture::{CaptureArgs, TraceFileFormat};
pub use common::{
    CurveArgs, ForceArg, FromArg, JsonArg, JsonDest, LimitArg, ListenArg, MAX_REPEAT, OutputArgs,
    OutputFileArg, PromArg, ReadsOnlyArg, RepeatArg, StateArg, ThresholdArg,
};
pub use iolog::IoLogArg;
pub use path::PathArgs;
pub use point::{PointArgs, SteadyArg, SteadyArgs};
pub use pts::PtsArgs;
pub use replay::ReplayArgs;
pub use workload::{
    AccessArgs, BsArg, EngineArg, MaxInflightArg, OffsetArg, QdArg, RwArg, SafetyArgs, SetupArgs,
    SizeArg, ThreadsArg, TimeArg, WarmupArg, WorkloadArgs, choice, list, one,
};

use crate::units::{ByteSize, Dur, Rate};
use clap::{Args, Parser, Subcommand};
use help::{
    CAPTURE_HELP, COMPARE_HELP, DIAGNOSE_HELP, EXPERIMENT_HELP, MONITOR_HELP, PATH_HELP,
    PROFILE_HELP, PTS_HELP, REPLAY_HELP, REPORT_HELP, SCALE_HELP, SELFTEST_HELP, SWEEP_HELP, UNITS,
    VERIFY_HELP,
};
use std::path::PathBuf;

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
    /// Add targets one by one until the total stops growing (000: "3 disks saturate a bus"):
    /// each target alone, then the first 1..N together, and what they share that caps them.
    #[command(after_help = SCALE_HELP)]
    Scale(ScaleArgs),
    /// One of 000's pitfalls measured on a target, with its verdict: buffering, allocation,
    /// alignment, cache or writecache.
    #[command(after_help = EXPERIMENT_HELP)]
    Experiment(ExperimentArgs),
    /// Friedman's characterization matrix: service time per read/write x sequential/random/
    /// cache-hit x request size, fitted lines, and the expectations file diagnose reads.
    #[command(after_help = PROFILE_HELP)]
    Profile(ProfileArgs),
    /// Compare two run results figure by figure: the ratio B/A with its 95 % interval and
    /// whether the difference is significant.
    #[command(after_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// Follow runs of one workload over time: each run against the one before it and the last
    /// against the first, figure by figure, each change judged as compare judges it.
    #[command(after_help = COMPARE_HELP)]
    Trend(TrendArgs),
    /// Draw results as one self-contained HTML file (inline SVG charts, no scripts, light and
    /// dark schemes): run, quick, sweep, profile or diagnose JSON, or monitor logs. Several
    /// files of one kind share the axes, one series each.
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
    /// Run fio job files and fio command-line jobs on halfpower's engine and answer in fio's
    /// shapes (normal, json, json+); `halfpower fio --help` for the details, docs/fio.md for
    /// the options taken.
    Fio(FioArgs),
    /// Read written blocks back and judge each one: good, corrupt, misdirected, torn, stale
    /// (a lost write) or unwritten, against the record of a `run --verify-state`.
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// Replay a trace (halfpower's own, or a fio iolog) open-loop at its own times and faster:
    /// per speed the rate asked and achieved, how late requests were issued, the response time
    /// from each due time; with --headroom, the speed at which it doubles.
    #[command(after_help = REPLAY_HELP)]
    Replay(ReplayArgs),
    /// Record every request the block layer sees on a device (tracefs): time, direction,
    /// offset, size, flags, OS queue and device time, as a trace `replay` (or fio, with
    /// --format fio) replays; and the workload in figures.
    #[command(after_help = CAPTURE_HELP)]
    Capture(CaptureArgs),
    /// The data path of each target from the file system down to the device and out to the
    /// host bus (partition, dm, md, loop, disk, NVMe, PCIe, SATA, SAS, USB, virtio, network),
    /// each component's advertised limit from sysfs, and the PAP: the tightest, and where.
    #[command(after_help = PATH_HELP)]
    Path(PathArgs),
    /// SNIA's Solid State Storage Performance Test Specification: purge, precondition, and
    /// rounds of the IOPS, throughput, latency or write-saturation matrix until PTS steady
    /// state; the measurement window, its matrix, and WSAT's IOPS over time and bytes written.
    #[command(after_help = PTS_HELP)]
    Pts(PtsArgs),
    /// What this machine lets halfpower measure, and how well, in under a minute: the clock,
    /// how late a sleeping thread wakes, the engine's own floor, known answers (a paced null
    /// engine; with root, a loop device over RAM throttled to known IOPS and MB/s) and the
    /// bounds they support.
    #[command(after_help = SELFTEST_HELP)]
    Selftest(SelftestArgs),
    /// Every host and queue setting that shapes a figure, for the run the workload flags
    /// describe (run's defaults: sequential 4k reads at QD1): the file read, its value, the
    /// value wanted, a verdict (ok, info, warn), why it matters and the command that fixes it.
    /// With TARGETs, each device and mount along their paths too. Changes nothing, unless
    /// --price --allow-change measures each flagged queue setting both ways.
    Doctor(DoctorArgs),
}

/// `halfpower doctor`.
#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Files or directories (their file system, then the devices beneath), block devices
    /// (/dev/sda, /dev/mapper/NAME) or kernel names (nvme0n1); none checks the host only.
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// The run the checks are for (its depth, request size, threads, CPUs, buffering).
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Measure what each flagged queue setting costs: the run the workload flags describe
    /// (--time 1s and --warmup 300ms unless given), on each target, 3 times with the setting
    /// as found and 3 times as wanted, alternated; the price is the ratio of the means with
    /// its 95 % interval. Needs root and --allow-change; every setting is put back afterwards,
    /// also after an error or Ctrl-C.
    #[arg(long, requires = "allow_change")]
    pub price: bool,
    /// Let --price write the targets' queue settings (/sys/block/NAME/queue/*) for its runs.
    #[arg(long)]
    pub allow_change: bool,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower selftest`.
#[derive(Args, Debug)]
pub struct SelftestArgs {
    /// Leave out the throttled loop device (it needs root, the loop driver and a cgroup).
    #[arg(long)]
    pub no_device: bool,
    /// `--prom`.
    #[command(flatten)]
    pub prom: PromArg,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `run --verify` and `--verify-state`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct VerifyOpts {
    /// Seal every block written (block = the smallest request size) with a header and a
    /// CRC-32C, and read every written block back at the end; a bad block makes the exit
    /// status 1.
    #[arg(long)]
    pub verify: bool,
    /// `--verify-state`: keep the record (implies --verify).
    #[command(flatten)]
    pub verify_state: StateArg,
    /// Implies --verify: also judge every block the run reads while it runs, when no write of
    /// it was in flight or completed while the read was (results.verify.during_run).
    #[arg(long)]
    pub verify_while: bool,
}

impl VerifyOpts {
    /// Whether the run verifies.
    pub fn on(&self) -> bool {
        self.verify || self.verify_state.path.is_some() || self.verify_while
    }

    /// The flags lowered into how the run verifies (None: it does not).
    pub fn policy(&self) -> Option<crate::measure::verified::Policy> {
        self.on().then(|| crate::measure::verified::Policy {
            state: self.verify_state.path.clone(),
            while_running: self.verify_while,
        })
    }
}

/// `halfpower verify`: a state or a block size, one of the two.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("source").args(["verify_state", "bs"]).required(true)))]
pub struct VerifyArgs {
    /// Files or block devices to read back [default: every target of the state].
    #[arg(value_name = "TARGET")]
    pub targets: Vec<PathBuf>,
    /// `--verify-state`: the record to judge by.
    #[command(flatten)]
    pub verify_state: StateArg,
    /// `--bs`: without a state, read each whole target in blocks of this size and judge every
    /// block that holds one of halfpower's.
    #[command(flatten)]
    pub bs: BsArg,
    /// Output (verify writes no HTML report: --html is refused).
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower fio`: fio's own arguments, read by `commands::fio` with fio's grammar.
#[derive(Args, Debug)]
#[command(disable_help_flag = true)]
pub struct FioArgs {
    /// Job files and fio options (--name=x --rw=randread ...), --output-format=normal|json|json+,
    /// --output=FILE, --section=NAME, --ignore-unknown, --allow-write, --destroy-data, --quiet.
    #[arg(allow_hyphen_values = true, trailing_var_arg = true, num_args = 0.., value_name = "ARGS")]
    pub args: Vec<String>,
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
    pub workload: WorkloadArgs,
    /// Data verification.
    #[command(flatten)]
    pub verify: VerifyOpts,
    /// Under MPI: every rank runs on the same targets, each in its own region of --size bytes
    /// at --offset + rank × --size (a missing file is created by rank 0, N regions long).
    #[arg(long, requires = "size")]
    pub shared: bool,
    /// `--steady`.
    #[command(flatten)]
    pub steady: point::SteadyArgs,
    /// Repetitions.
    #[command(flatten)]
    pub repeat: RepeatArg,
    /// `--io-log`.
    #[command(flatten)]
    pub io_log: IoLogArg,
    /// `--limit`: each held to the run's figures.
    #[command(flatten)]
    pub limit: LimitArg,
    /// `--listen`.
    #[command(flatten)]
    pub listen: ListenArg,
    /// `--prom`.
    #[command(flatten)]
    pub prom: PromArg,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower quick`.
#[derive(Args, Debug, PartialEq)]
pub struct QuickArgs {
    /// Directory for the scratch file `halfpower.tst` [default: .]
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// `--size` of the scratch file.
    #[command(flatten)]
    pub size: SizeArg,
    /// `--time` of each test.
    #[command(flatten)]
    pub time: TimeArg,
    /// `--warmup` before each test.
    #[command(flatten)]
    pub warmup: WarmupArg,
    /// Repetitions.
    #[command(flatten)]
    pub repeat: RepeatArg,
    /// `--limit`: each test held to them, and the PAP follows the tightest.
    #[command(flatten)]
    pub limit: LimitArg,
    /// `--prom`.
    #[command(flatten)]
    pub prom: PromArg,
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
    #[arg(
        long,
        value_name = "DUR",
        allow_hyphen_values = true,
        default_value = "1s"
    )]
    pub interval: Dur,
    /// Stop after this many intervals (default: until Ctrl-C).
    #[arg(long, value_name = "N", value_parser = crate::units::count::<u64>)]
    pub count: Option<u64>,
    /// Also write every record to PATH: CSV for a .csv name, JSON lines for .jsonl/.ndjson/.json.
    #[arg(long, value_name = "PATH")]
    pub log: Option<PathBuf>,
    /// `--json`: JSON lines.
    #[command(flatten)]
    pub json: JsonArg,
    /// `--force`.
    #[command(flatten)]
    pub force: ForceArg,
    /// With no DEVICE, report partitions as well as whole disks.
    #[arg(long)]
    pub partitions: bool,
    /// Measure OS queue time and device time per request from the kernel's block tracepoints
    /// (root; mounts tracefs if needed and removes what it creates).
    #[arg(long)]
    pub trace: bool,
    /// `--profile` and `--profile-device`.
    #[command(flatten)]
    pub curve: CurveArgs,
    /// `--listen`.
    #[command(flatten)]
    pub listen: ListenArg,
}

/// `halfpower diagnose`.
#[derive(Args, Debug)]
pub struct DiagnoseArgs {
    /// Log files: monitor CSV/JSONL, `iostat -x -t` text, perfmon CSV.
    #[arg(value_name = "LOG", required = true)]
    pub logs: Vec<PathBuf>,
    /// `--profile` and `--profile-device`.
    #[command(flatten)]
    pub curve: CurveArgs,
    /// Output: --json PATH|- (one JSON document; `-` prints it instead of text), --html PATH.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower sweep`.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("sweep_source").args(["from", "targets"]).multiple(false)))]
pub struct SweepArgs {
    /// Files or block devices (a missing file is created and filled once for all points).
    #[arg(value_name = "TARGET", required_unless_present = "from")]
    pub targets: Vec<PathBuf>,
    /// `--from` a sweep's JSON or CSV, re-analysed instead of measured.
    #[command(flatten)]
    pub from: FromArg,
    /// `--rw`: a list.
    #[command(flatten)]
    pub rw: RwArg,
    /// `--bs`: a list.
    #[command(flatten)]
    pub bs: BsArg,
    /// `--qd`: a list.
    #[command(flatten)]
    pub qd: QdArg,
    /// `--threads`: a list.
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Peak advertised performance: half-power is half of this instead of the measured
    /// plateau, and real/advertised is reported (e.g. 550MB/s; a bare number is MB/s).
    /// Without it, the PAP of the targets' path (`halfpower path`), when it has one.
    #[arg(long, value_name = "RATE")]
    pub pap: Option<Rate>,
    /// With --from: take the PAP from the path of TARGET (the device the points were measured
    /// on; a kernel name, a device or a file, under HALFPOWER_SYSFS a captured machine's).
    #[arg(long, value_name = "TARGET", requires = "from", value_delimiter = ',')]
    pub path_of: Vec<String>,
    /// `--limit`: the PAP follows the tightest, and each point is held to them.
    #[command(flatten)]
    pub limit: LimitArg,
    /// How each point runs.
    #[command(flatten)]
    pub point: PointArgs,
    /// Repetitions.
    #[command(flatten)]
    pub repeat: RepeatArg,
    /// Also write one CSV row per point to PATH.
    #[arg(long, value_name = "PATH")]
    pub csv: Option<PathBuf>,
    /// `--prom`.
    #[command(flatten)]
    pub prom: PromArg,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower scale`.
#[derive(Args, Debug)]
pub struct ScaleArgs {
    /// Two or more files or block devices, in the order they are added (one or more with
    /// --ranks: each rank runs all of them; '{rank}' in a path gives each rank its own; with
    /// --targets-per-rank N, ranks × N of them, dealt out N per rank).
    #[arg(value_name = "TARGET", required = true, num_args = 1..)]
    pub targets: Vec<PathBuf>,
    /// Scale across the ranks of an MPI job (under mpirun or srun) instead of across targets:
    /// each rank alone, then the first 2, 3, … ranks together while the others wait. With
    /// counts (--ranks=2,4,8 or --ranks 2,4,8): rank 0 alone, then the first 2, 4, 8 ranks,
    /// each against that many times rank 0 alone.
    #[arg(
        long,
        value_name = "COUNTS",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "all",
        conflicts_with = "stripe"
    )]
    pub ranks: Option<crate::plan::ranks::RankCounts>,
    /// With --ranks: deal the targets out N per rank, in order (rank r takes the list's
    /// targets r·N+1 … r·N+N), so that each step adds N disks with each rank: clients and
    /// disks scale together. The list must hold exactly ranks × N targets, none with '{rank}'
    /// or '{host}'.
    #[arg(
        long,
        value_name = "N",
        requires = "ranks",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub targets_per_rank: Option<u32>,
    /// Run each step as one logical target striped across its targets in chunks of SIZE (000's
    /// stripe sets, RAID 0), instead of the targets side by side; a multiple of --bs.
    #[arg(long, value_name = "SIZE")]
    pub stripe: Option<ByteSize>,
    /// `--limit`: each run alone and each step held to them, and the PAP follows the tightest.
    #[command(flatten)]
    pub limit: LimitArg,
    /// The workload each target runs.
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower experiment`.
#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// Which experiment.
    #[arg(value_parser = choice::<crate::model::experiment::ExperimentKind>(), value_name = "NAME")]
    pub name: crate::model::experiment::ExperimentKind,
    /// A directory (a scratch file is made there and removed at the end), a file or a block
    /// device.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// `--size`: the region every point keeps to (the scratch file's size, or the bytes from
    /// the start of a file or device).
    #[command(flatten)]
    pub size: SizeArg,
    /// `--bs` of `alignment`, `allocation` and `burst`.
    #[command(flatten)]
    pub bs: BsArg,
    /// `--rw` of `burst`.
    #[command(flatten)]
    pub rw: RwArg,
    /// `--qd` of `burst`.
    #[command(flatten)]
    pub qd: QdArg,
    /// burst: the rest between its two drains, while the bucket refills [default: 60s].
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    pub rest: Option<Dur>,
    /// burst: how long the baseline must hold before a drain ends (the drain ends at --time
    /// otherwise) [default: 5s].
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    pub hold: Option<Dur>,
    /// `--time`: each point's measured time, in every experiment (burst: each drain's
    /// longest).
    #[command(flatten)]
    pub time: TimeArg,
    /// `--warmup` before each point.
    #[command(flatten)]
    pub warmup: WarmupArg,
    /// What it may write to.
    #[command(flatten)]
    pub safety: SafetyArgs,
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
    /// `--reads-only`.
    #[command(flatten)]
    pub reads_only: ReadsOnlyArg,
    /// How each point runs.
    #[command(flatten)]
    pub point: PointArgs,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The baseline: a `halfpower run --json` document.
    #[arg(value_name = "A.json")]
    pub a: PathBuf,
    /// The one compared with it.
    #[arg(value_name = "B.json")]
    pub b: PathBuf,
    /// `--threshold`.
    #[command(flatten)]
    pub threshold: ThresholdArg,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower trend`.
#[derive(Args, Debug)]
pub struct TrendArgs {
    /// Two or more `halfpower run --json` documents of one workload, taken in time order
    /// (each document's date; as given when equal).
    #[arg(value_name = "RUN.json", num_args = 2.., required = true)]
    pub runs: Vec<PathBuf>,
    /// `--threshold`.
    #[command(flatten)]
    pub threshold: ThresholdArg,
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
    /// `-o`/`--output`: the report's file.
    #[command(flatten)]
    pub output: OutputFileArg,
    /// `--force`.
    #[command(flatten)]
    pub force: ForceArg,
}

impl QuickArgs {
    /// What `halfpower` without arguments runs: `halfpower quick` with the flags' own defaults
    /// (so each default is defined once, in the flag).
    pub fn default_for_main() -> Self {
        match Cli::try_parse_from(["halfpower", "quick"]) {
            Ok(Cli {
                command: Some(Command::Quick(q)),
            }) => q,
            // `halfpower quick` has no required argument; the unit test below proves it parses.
            other => unreachable!("`halfpower quick` did not parse: {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Setup;

    fn command(args: &[&str]) -> Command {
        Cli::try_parse_from(args).unwrap().command.unwrap()
    }

    /// `--json` is parsed once: `-` is stdout, anything else a file, empty refused by name.
    #[test]
    fn json_destinations_are_parsed_once() {
        assert_eq!(JsonDest::parse("-"), Ok(JsonDest::Stdout));
        assert_eq!(
            JsonDest::parse("r.json").unwrap().file(),
            Some(std::path::Path::new("r.json"))
        );
        assert!(JsonDest::parse("").unwrap_err().contains("empty path"));
        let Command::Run(run) = command(&["halfpower", "run", "x", "--json", "-"]) else {
            panic!("not run");
        };
        assert_eq!(run.output.json.dest, Some(JsonDest::Stdout));
    }

    /// Each default is defined once: the flags' defaults are the `Default` impls that library
    /// callers and JSON readers get (the flags' workload comes checked, its defaults filled,
    /// as the default's does once validated).
    #[test]
    fn flag_defaults_are_the_default_impls() {
        let Command::Run(run) = command(&["halfpower", "run", "x"]) else {
            panic!("not run");
        };
        assert_eq!(
            crate::plan::Workload::try_from(run.workload).unwrap(),
            crate::plan::Workload::default().validated().unwrap()
        );
        let Command::Sweep(sweep) = command(&["halfpower", "sweep", "x"]) else {
            panic!("not sweep");
        };
        assert_eq!(Setup::from(sweep.point.setup), Setup::default());
        let q = QuickArgs::default_for_main();
        assert_eq!(
            (q.size.given, q.time.given, q.warmup.given),
            (None, None, None)
        );
    }
}
