//! The profile document (`kind: "profile"`, docs/profile.md): Friedman's matrix of measured
//! cells and the fitted service-time lines per column, which `diagnose --profile` reads back.

use super::run::TargetInfo;
use super::{Direction, Header, Kind};
use crate::oscounters::host::Host;
use crate::plan::EngineKind;
use serde::{Deserialize, Serialize};

/// An access pattern of Friedman's matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Consecutive offsets.
    Sequential,
    /// Uniform random offsets over the target.
    Random,
    /// Random offsets within the first 1 MiB: re-read or re-written, a cache's hits.
    CacheHit,
}

impl Pattern {
    /// The three patterns in table order.
    pub const ALL: [Pattern; 3] = [Pattern::Sequential, Pattern::Random, Pattern::CacheHit];

    /// The name as written in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Sequential => "sequential",
            Pattern::Random => "random",
            Pattern::CacheHit => "cache-hit",
        }
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Why a fitted line has a negative slope, which no transfer can have (more bytes cannot take
/// less time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NegativeSlope {
    /// Through two sizes: the line is their difference, and the noise of two cells is enough.
    TooFewPoints,
    /// Through three or more sizes, but the slope's 95 % interval reaches 0: the service time
    /// does not change with size beyond the cells' noise.
    Noise,
    /// Through three or more sizes and below 0 beyond its 95 % interval: larger requests really
    /// were served faster, by something other than the device's transfer (a cache, read-ahead,
    /// or merging).
    Cache,
}

/// Version of the profile layout this halfpower reads and writes.
pub const PROFILE_SCHEMA_VERSION: u32 = 1;

/// One fitted column of Friedman's matrix: service_ms = overhead_ms + ms_per_kib × size_kib.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// `read` or `write`.
    pub rw: Direction,
    /// `sequential`, `random` or `cache-hit`.
    pub pattern: Pattern,
    /// Intercept: the per-request overhead, ms.
    pub overhead_ms: f64,
    /// Slope: transfer time per KiB, ms.
    pub ms_per_kib: f64,
    /// Goodness of fit; absent for a line through two points, which always fits exactly.
    #[serde(default)]
    pub r2: Option<f64>,
    /// The transfer rate the slope implies, MB/s (10^6 bytes/s).
    #[serde(default)]
    pub transfer_mb_per_s: Option<f64>,
    /// The line's projection at 32 KiB, ms.
    #[serde(default)]
    pub projected_32k_ms: Option<f64>,
    /// Request sizes (bytes) the line was fitted to.
    #[serde(default)]
    pub fitted_bs_bytes: Vec<u64>,
    /// Request sizes (bytes) whose service time fell off the line (left out of the fit).
    #[serde(default)]
    pub off_line_bs_bytes: Vec<u64>,
    /// Set when `ms_per_kib` is below 0, with the likely reason; such a line is no service-time
    /// model and `diagnose` takes no expectation from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negative_slope: Option<NegativeSlope>,
}

impl Fit {
    /// Whether the line can describe a transfer: its slope is not below 0.
    pub fn usable(&self) -> bool {
        self.ms_per_kib >= 0.0 && self.negative_slope.is_none()
    }

    /// Expected service time for a request of `kib` KiB, ms.
    pub fn at(&self, kib: f64) -> f64 {
        self.overhead_ms + self.ms_per_kib * kib
    }
}

/// The disk a profile was measured on, as `target_info` of a profile document names it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfiledDisk {
    /// The disk underneath the target (kernel name).
    #[serde(default)]
    pub device: Option<String>,
    /// The partition the target lives on, if any.
    #[serde(default)]
    pub partition: Option<String>,
}

/// The parts of a profile document diagnose needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Layout version.
    pub schema_version: u32,
    /// Always `profile`.
    pub kind: Kind,
    /// What was profiled.
    #[serde(default)]
    pub target: Option<String>,
    /// The disk it was measured on (absent in hand-written profiles).
    #[serde(default)]
    pub target_info: Option<ProfiledDisk>,
    /// The fitted lines.
    pub fits: Vec<Fit>,
    /// The device's measured curves of throughput and response time against load (from the
    /// profile's random cells, or from a sweep given as the profile): not in the document's
    /// own keys, filled in by `input::profile`.
    #[serde(skip)]
    pub curves: Vec<Curve>,
}

/// Where a device's curve was measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CurveSource {
    /// A `sweep` of queue depths.
    #[default]
    Sweep,
    /// A `profile`'s random cells (queue depths 1 and 4 only).
    Profile,
}

/// One load of a curve: what the device did with so many requests in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Requests in flight (queue depth × threads).
    pub inflight: u32,
    /// I/Os per second.
    pub iops: f64,
    /// Mean response time, ms (absent when the source has none, as a CSV without it).
    pub latency_ms: Option<f64>,
}

/// A device's throughput and response time against load at one rw mode and request size:
/// the curve an observed workload is placed on (`diagnose --profile`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// Where it was measured.
    pub source: CurveSource,
    /// The rw mode.
    pub rw: crate::plan::RwMode,
    /// The request size, bytes.
    pub bs_bytes: u64,
    /// Its loads, fewest in flight first.
    pub points: Vec<CurvePoint>,
    /// The knee: the depth from which more depth adds less than 10 % per doubling (the sweep's
    /// analysis); none when the curve never bends within what was measured.
    pub knee_inflight: Option<u32>,
}

impl Profile {
    /// The device names a log may give the disk this profile was measured on: the disk and its
    /// partition from `target_info`, else the NAME of a `target` that is `/dev/NAME`. Empty
    /// when the profile does not say.
    pub fn measured_on(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(t) = &self.target_info {
            out.extend(t.device.iter().chain(&t.partition).cloned());
        }
        if out.is_empty() {
            let named = self.target.as_deref().and_then(|t| t.strip_prefix("/dev/"));
            out.extend(named.filter(|n| !n.is_empty()).map(str::to_string));
        }
        out
    }
}

/// One measured cell: direction × pattern × request size × queue depth.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProfileCell {
    /// `read` or `write`.
    pub rw: Direction,
    /// `sequential`, `random` or `cache-hit`.
    pub pattern: Pattern,
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// I/Os in flight per thread.
    pub qd: u32,
    /// Threads (1, or the depth when the sync engine stood in for io_uring: it keeps one I/O
    /// in flight per thread).
    #[serde(default = "one")]
    pub threads: u32,
    /// The engine that ran the cell.
    #[serde(default = "uring")]
    pub engine: EngineKind,
    /// I/Os per second.
    pub iops: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// Service time by the Utilization Law with the device 100 % busy, S = 1/IOPS, ms; only for
    /// cells with one I/O in flight (with more, a device serving several at once makes 1/IOPS
    /// busy time per I/O, not a service time).
    pub service_ms: Option<f64>,
    /// Mean latency, submission to completion, ms.
    pub mean_latency_ms: f64,
    /// 99th percentile latency, ms.
    pub p99_ms: f64,
    /// %util of the disk underneath over the cell, when there is exactly one.
    pub device_util_pct: Option<f64>,
    /// Service time the disk's own counters give, U/X, ms (checks the 100 % busy assumption);
    /// only for cells with one I/O in flight, as `service_ms`.
    pub device_service_ms: Option<f64>,
    /// Whether the cell ended on the steady-state rule.
    pub steady: bool,
    /// Measured seconds.
    pub seconds: f64,
    /// What the host did meanwhile, and which figures it could have moved (absent in older
    /// files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<super::host::HostNoise>,
    /// Under MPI (a job of several ranks) only: the cell's results as every other command's
    /// points carry them, the job's with each rank's own in `results.ranks[]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Box<super::Results>>,
}

/// The document `halfpower profile --json` writes; `diagnose --profile` reads its `fits`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProfileReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The host.
    pub host: Host,
    /// What was profiled (path).
    pub target: String,
    /// The target as the runs saw it.
    pub target_info: TargetInfo,
    /// The measured cells in the order they ran.
    pub cells: Vec<ProfileCell>,
    /// One line per column (read/write × pattern) through the QD1 service times.
    pub fits: Vec<Fit>,
    /// Whether Ctrl-C cut the profile short.
    pub interrupted: bool,
    /// Warnings printed during the profile.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for ProfileReport {
    const SCHEMA: Option<u32> = Some(PROFILE_SCHEMA_VERSION);

    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.cells.is_empty()).then_some("the profile has no cells")
    }
}

impl ProfileReport {
    /// 004 Table 4's cell: the QD1 service time (ms) of `rw` × `pattern` × `bs_bytes`, and
    /// whether that size fell off its column's fitted line.
    pub fn service_cell(
        &self,
        rw: Direction,
        pattern: Pattern,
        bs_bytes: u64,
    ) -> (Option<f64>, bool) {
        let service = self
            .cells
            .iter()
            .find(|c| {
                c.rw == rw
                    && c.pattern == pattern
                    && c.qd == 1
                    && c.threads == 1
                    && c.bs_bytes == bs_bytes
            })
            .and_then(|c| c.service_ms);
        let off = self
            .fits
            .iter()
            .any(|f| f.rw == rw && f.pattern == pattern && f.off_line_bs_bytes.contains(&bs_bytes));
        (service, off)
    }
}

fn one() -> u32 {
    1
}

fn uring() -> EngineKind {
    EngineKind::Uring
}
