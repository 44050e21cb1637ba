//! The run document (`kind: "run"`) and the results object every measured record carries.
//! Field names are part of the interface: scripts read `results.total.iops`,
//! `results.read.latency_us.p99` and so on, and docs/json-schema.md describes every key.

mod stored;

use super::cause::{DirectFallback, EngineFallback, Fatal, IoFailure};
use super::{DeviceClass, Direction, Header};
use crate::oscounters::diskstats::DeviceDelta;
use crate::oscounters::host::Host;
use crate::plan::{EngineKind, Workload};
use crate::stats::cpu::CpuSummary;
use crate::stats::series::TimePoint;
use crate::stats::summary::{Ci95, DeviceSecond, DirSummary};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What a target is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetKind {
    /// A regular file.
    File,
    /// A block device node.
    BlockDevice,
    /// Only a name: the null engine opens nothing.
    Null,
}

/// A target as the run saw it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TargetInfo {
    /// Path as given.
    pub path: String,
    /// `file`, `block-device` or `null`.
    pub kind: TargetKind,
    /// Whether halfpower created (and filled) the file for this run.
    pub created: bool,
    /// Size of the file or device, bytes.
    pub capacity_bytes: u64,
    /// Start of the addressed region, bytes.
    pub offset_bytes: u64,
    /// Length of the addressed region, bytes.
    pub size_bytes: u64,
    /// Whether I/O bypassed the page cache.
    pub direct: bool,
    /// Why direct I/O fell back to buffered, if it did.
    pub direct_fallback: Option<DirectFallback>,
    /// Direct-I/O memory alignment used, bytes.
    pub dio_mem_align: u32,
    /// Direct-I/O offset alignment used, bytes.
    pub dio_offset_align: u32,
    /// The disk underneath (kernel name), if any.
    pub device: Option<String>,
    /// The partition the target lives on, if any.
    pub partition: Option<String>,
    /// Logical block size of the disk, bytes.
    pub logical_block_size: Option<u32>,
    /// Whether the disk is rotational (as the kernel says; virtual disks often claim to be).
    pub rotational: Option<bool>,
    /// The disk's class (`analysis::device`), absent without a disk and in older files.
    #[serde(default)]
    pub class: Option<DeviceClass>,
    /// Active I/O scheduler of the disk.
    pub scheduler: Option<String>,
    /// Disk model, when reported.
    pub model: Option<String>,
}

/// Failed I/Os of a run or target.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ErrorSummary {
    /// How many I/Os failed or came back short.
    pub count: u64,
    /// Byte offset of the first failure.
    pub first_offset: Option<u64>,
    /// What it returned (an errno, or a short transfer).
    pub first_error: Option<IoFailure>,
    /// Its direction.
    pub first_direction: Option<Direction>,
    /// Of the failures, reads.
    #[serde(default)]
    pub reads: u64,
    /// Of the failures, writes.
    #[serde(default)]
    pub writes: u64,
    /// The earliest failures (at most 16), in the order they completed.
    #[serde(default)]
    pub first: Vec<ErrorAt>,
    /// The run stopped because errors went on for a second (`--on-error stop`).
    #[serde(default)]
    pub stopped: bool,
}

/// One failed I/O.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ErrorAt {
    /// Byte offset on the target.
    pub offset: u64,
    /// What it returned (an errno, or a short transfer).
    pub error: IoFailure,
    /// Direction.
    pub direction: Direction,
}

/// Results of one target (or all of them), per direction and in total.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TargetResult {
    /// The target's path (`*` for all together).
    pub path: String,
    /// Reads and writes together.
    pub total: DirSummary,
    /// Reads, when the workload reads.
    pub read: Option<DirSummary>,
    /// Writes, when the workload writes.
    pub write: Option<DirSummary>,
    /// Failures.
    pub errors: ErrorSummary,
}

/// One figure over independent repetitions (`--repeat N`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FigureStat {
    /// The figure (written as its path in a run's `results`: `total.iops`,
    /// `read.latency_us.p99`, `cpu.us_per_io`).
    pub figure: RunFigure,
    /// Its value in each repetition, in order.
    pub values: Vec<f64>,
    /// Their mean.
    pub mean: f64,
    /// Their sample standard deviation.
    pub sd: f64,
    /// The t-based 95 % interval of the mean.
    pub ci95: Ci95,
}

/// `--repeat N`: every repetition's results and the spread of each figure over them.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Repeat {
    /// Each repetition's results, in the order they ran (the document's `results` is the
    /// first of them).
    pub runs: Vec<Results>,
    /// The figures `compare` and the summary use, each over the repetitions.
    pub figures: Vec<FigureStat>,
}

/// A figure a repetition summary and `compare` report, named in documents by its path in
/// `results` (`total.iops`, `read.latency_us.p99`, `cpu.us_per_io`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunFigure {
    /// `total.iops`.
    #[default]
    #[serde(rename = "total.iops")]
    TotalIops,
    /// `total.bytes_per_s`.
    #[serde(rename = "total.bytes_per_s")]
    TotalBytesPerS,
    /// `read.latency_us.p50`.
    #[serde(rename = "read.latency_us.p50")]
    ReadP50,
    /// `read.latency_us.p99`.
    #[serde(rename = "read.latency_us.p99")]
    ReadP99,
    /// `write.latency_us.p50`.
    #[serde(rename = "write.latency_us.p50")]
    WriteP50,
    /// `write.latency_us.p99`.
    #[serde(rename = "write.latency_us.p99")]
    WriteP99,
    /// `cpu.us_per_io`.
    #[serde(rename = "cpu.us_per_io")]
    CpuUsPerIo,
}

/// The figures a repetition summary and `compare` report, in their order.
pub const FIGURES: [RunFigure; 7] = [
    RunFigure::TotalIops,
    RunFigure::TotalBytesPerS,
    RunFigure::ReadP50,
    RunFigure::ReadP99,
    RunFigure::WriteP50,
    RunFigure::WriteP99,
    RunFigure::CpuUsPerIo,
];

impl RunFigure {
    /// Its path in `results`, as documents name it.
    pub fn path(self) -> &'static str {
        match self {
            RunFigure::TotalIops => "total.iops",
            RunFigure::TotalBytesPerS => "total.bytes_per_s",
            RunFigure::ReadP50 => "read.latency_us.p50",
            RunFigure::ReadP99 => "read.latency_us.p99",
            RunFigure::WriteP50 => "write.latency_us.p50",
            RunFigure::WriteP99 => "write.latency_us.p99",
            RunFigure::CpuUsPerIo => "cpu.us_per_io",
        }
    }

    /// The direction whose summary holds it (None: the CPU's).
    fn summary(self, r: &Results) -> Option<Option<&DirSummary>> {
        match self {
            RunFigure::TotalIops | RunFigure::TotalBytesPerS => Some(Some(&r.total)),
            RunFigure::ReadP50 | RunFigure::ReadP99 => Some(r.read.as_ref()),
            RunFigure::WriteP50 | RunFigure::WriteP99 => Some(r.write.as_ref()),
            RunFigure::CpuUsPerIo => None,
        }
    }

    /// Its value in `r`, when `r` has it (a latency of a direction the run did not do has none).
    pub fn value(self, r: &Results) -> Option<f64> {
        let Some(d) = self.summary(r) else {
            return Some(r.cpu.us_per_io);
        };
        let d = d?;
        Some(match self {
            RunFigure::TotalIops => d.iops,
            RunFigure::TotalBytesPerS => d.bytes_per_s,
            RunFigure::ReadP50 | RunFigure::WriteP50 => d.latency_us.p50,
            RunFigure::ReadP99 | RunFigure::WriteP99 => d.latency_us.p99,
            RunFigure::CpuUsPerIo => r.cpu.us_per_io,
        })
    }

    /// The 95 % interval (low, high) `r` gives it by itself: the within-run interval of a
    /// throughput, the order-statistic interval of a percentile; None for the CPU's.
    pub fn interval(self, r: &Results) -> Option<(f64, f64)> {
        let d = self.summary(r)??;
        let around = |v: f64, c: Option<Ci95>| c.map(|c| (v - c.half, v + c.half));
        match self {
            RunFigure::TotalIops => around(d.iops, d.iops_ci95),
            RunFigure::TotalBytesPerS => around(d.bytes_per_s, d.bytes_per_s_ci95),
            RunFigure::ReadP50 | RunFigure::WriteP50 => d.latency_us.p50_ci95.map(|[a, b]| (a, b)),
            RunFigure::ReadP99 | RunFigure::WriteP99 => d.latency_us.p99_ci95.map(|[a, b]| (a, b)),
            RunFigure::CpuUsPerIo => None,
        }
    }
}

impl std::fmt::Display for RunFigure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.path())
    }
}

/// How a steady-state point ended (`--steady`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Steady {
    /// Whether the rule held (else the point ran to `--time`).
    pub reached: bool,
    /// The adaptive warm-up: how long the transient lasted before measuring began, s.
    pub transient_s: f64,
    /// The half-width of the interval of the rule's last look, % of its throughput
    /// (`look.bytes_per_s_ci95.pct`); absent when no look could be taken.
    pub ci95_pct: Option<f64>,
    /// The rule's last look: the one that stopped the point, or the one at its end (absent in
    /// files written before looks were spent, and when the phase held too few windows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look: Option<SteadyLook>,
}

/// One look of the steady-state rule (docs/uncertainty.md): the throughput over the measured
/// phase so far, its first 100-ms window left out, with a 95 % interval from batch means whose
/// error is spent over all the looks the point may take, so that the interval is valid at
/// whichever look stops the point. A steady point reports these figures and this interval.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SteadyLook {
    /// Which look this was (1-based).
    pub index: usize,
    /// How many looks the point could take (the error each spends is 5 % over this).
    pub of: usize,
    /// The measured phase's time of the look, s.
    pub at_s: f64,
    /// Where the windows it rests on begin, s (the first window, and any left over from equal
    /// batches, are left out).
    pub from_s: f64,
    /// The length of each batch of windows, s.
    pub window_s: f64,
    /// Batches (the interval's degrees of freedom are one fewer).
    pub batches: usize,
    /// Whether the batch means were still correlated at the longest batches the look
    /// allowed (then the look cannot hold: its interval may be too narrow).
    #[serde(default)]
    pub correlated: bool,
    /// The two-sided critical value of Student's t used (at 5 % / `of`).
    pub critical_t: f64,
    /// I/Os per second from `from_s` to `at_s`.
    pub iops: f64,
    /// Its interval.
    pub iops_ci95: Ci95,
    /// Bytes per second from `from_s` to `at_s`.
    pub bytes_per_s: f64,
    /// Its interval (the rule judges this one).
    pub bytes_per_s_ci95: Ci95,
}

/// The syncs of a run: how many, and how long each took (from the call to its return, with
/// nothing else in flight).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SyncSummary {
    /// fsync or fdatasync calls.
    pub count: u64,
    /// Their latency, µs.
    pub latency_us: crate::stats::summary::LatencySummary,
}

/// The `results` object of a run. Every histogram is whole in memory; a file keeps each once
/// (`stored`: the total's of a one-direction run and a single target's are written empty, as
/// they repeat another) and reading one fills them in again, so no reader finds a latency
/// figure empty because of how it was stored (files written before this included).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(remote = "Self")]
pub struct Results {
    /// The engine that ran (`uring`, `sync`, `null`).
    pub engine: EngineKind,
    /// Why the requested engine was replaced, if it was.
    pub engine_fallback: Option<EngineFallback>,
    /// io_uring: whether the file and the buffers were registered with the ring.
    pub registered_file: Option<bool>,
    /// io_uring: whether the buffers were registered (READ_FIXED/WRITE_FIXED).
    pub registered_buffers: Option<bool>,
    /// The CPU each worker thread was pinned to, in worker order (targets × threads); empty
    /// when the workers were not pinned (`--affinity none`, or files older than the option).
    #[serde(default)]
    pub worker_cpus: Vec<usize>,
    /// Length of the measured window, s.
    pub seconds: f64,
    /// Whether Ctrl-C cut the run short (figures cover what was measured until then).
    pub interrupted: bool,
    /// With `--steady`: how the point ended (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<Steady>,
    /// A failure that stopped the run early, if any.
    pub fatal: Option<Fatal>,
    /// All targets, both directions.
    pub total: DirSummary,
    /// All targets, reads.
    pub read: Option<DirSummary>,
    /// All targets, writes.
    pub write: Option<DirSummary>,
    /// Failed I/Os over all targets.
    pub errors: ErrorSummary,
    /// fsyncs and fdatasyncs (`--fsync`, `--fdatasync`, `--end-fsync`): absent without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncSummary>,
    /// With open-loop arrivals or a replayed trace: what was asked, how late requests were
    /// issued and their service times (absent for a closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<super::open::OpenLoop>,
    /// Under MPI with several ranks: the figures of the whole job (absent for one process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<super::ranks::Job>,
    /// Under MPI with several ranks: each rank's own results of this point, rank by rank (a
    /// `run` document holds them in its `ranks` instead; absent for one process).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RankRun>,
    /// Under MPI with several ranks, a rank's own: its completed I/Os and bytes every 100 ms of
    /// its measured phase (`stats::window::CI_WINDOW_S`, fewer past 409.6 s), from 0 at its
    /// start to its end, for the stonewall (`job.first_done`); dropped once the job's results
    /// are merged, so absent from every document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<super::ranks::Count>,
    /// With `--verify`: what reading the written blocks back found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<super::verify::Verification>,
    /// Per target.
    pub targets: Vec<TargetResult>,
    /// CPU cost.
    pub cpu: CpuSummary,
    /// OS counters of the disks underneath, over the same window.
    pub devices: Vec<DeviceDelta>,
    /// Per-second series.
    pub timeseries: Vec<TimePoint>,
    /// Per-second %util and queue size of the disks underneath (absent in older files).
    #[serde(default)]
    pub device_timeseries: Vec<DeviceSecond>,
    /// Steps found in the per-second series (`analysis::changes`), in time order: empty for
    /// a run that stayed at one level (and in older files).
    #[serde(default)]
    pub changes: Vec<super::change::Change>,
    /// What the host did meanwhile (steal, a sleeping probe's lateness, the workers' waits
    /// for a CPU) and which figures it could have moved (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<super::host::HostNoise>,
    /// The limits that are not the device's under which the window ran (a cgroup's I/O cap on
    /// a device under a target, a CPU quota), those that bind first; absent when none applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<super::policy::LimitReach>,
    /// The host and queue settings that bore on this window (the doctor's checks, each a
    /// warn; docs/doctor.md); absent when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<super::doctor::Check>,
    /// A credit bucket the per-second series shows (a burst, then a flat baseline; absent
    /// when none, and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<super::bucket::Bucket>,
}

impl Serialize for Results {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut once = self.clone();
        stored::keep_once(&mut once);
        Results::serialize(&once, s)
    }
}

impl<'de> Deserialize<'de> for Results {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut r = Results::deserialize(d)?;
        stored::fill_in(&mut r);
        Ok(r)
    }
}

impl Results {
    /// The process exit status these results call for: 130 when interrupted, 1 when I/Os
    /// failed, a worker stopped on an error or verification found a bad block, else 0.
    pub fn exit_status(&self) -> u8 {
        if self.interrupted {
            crate::signal::exit_status()
        } else if self.errors.count > 0
            || self.fatal.is_some()
            || self.verify.as_ref().is_some_and(|v| !v.clean())
        {
            1
        } else {
            0
        }
    }
}

/// The document `halfpower run --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// Every effective option.
    pub workload: Workload,
    /// The host.
    pub host: Host,
    /// The targets.
    pub targets: Vec<TargetInfo>,
    /// What was measured (with `--repeat`, the first repetition).
    pub results: Results,
    /// With `--repeat N`: every repetition and each figure's mean, spread and interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<Repeat>,
    /// Warnings printed during the run.
    pub warnings: Vec<crate::model::Warning>,
    /// Each rank's own results (one for a single process; under MPI, rank by rank, and
    /// `results` is then the whole job's).
    #[serde(default)]
    pub ranks: Vec<RankRun>,
}

impl crate::model::Report for RunReport {
    fn warnings(&self) -> &[crate::model::Warning] {
        &self.warnings
    }
}

/// One rank's own run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RankRun {
    /// The rank (0-based) in the MPI world.
    pub rank: u32,
    /// The host it ran on.
    pub host: String,
    /// What it measured on its own targets, as a single run reports it.
    pub results: Results,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each figure's typed value is what its path reads in the document's JSON, and its name
    /// in JSON is that path.
    #[test]
    fn each_figure_reads_what_its_path_names() {
        let mut r = Results::default();
        r.total.iops = 1234.0;
        r.total.bytes_per_s = 5e6;
        r.cpu.us_per_io = 7.5;
        let mut read = DirSummary::default();
        read.latency_us.p50 = 80.0;
        read.latency_us.p99 = 300.0;
        r.read = Some(read);
        let json = serde_json::to_value(&r).unwrap();
        for f in FIGURES {
            let by_path = json
                .pointer(&format!("/{}", f.path().replace('.', "/")))
                .and_then(serde_json::Value::as_f64);
            assert_eq!(f.value(&r), by_path, "{f}");
            assert_eq!(serde_json::to_value(f).unwrap(), f.path());
        }
        assert_eq!(
            RunFigure::WriteP99.value(&r),
            None,
            "no writes, no write latency"
        );
    }
}
