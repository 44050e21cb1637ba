//! The doctor's document (`kind: "doctor"`): each host and device setting that shapes a figure,
//! the file it was read from, its value, the value a measurement wants, a verdict and the fix
//! (docs/doctor.md). Plain data: `analysis::doctor` judges, `render` says why.

use super::Header;
use crate::oscounters::host::Host;
use serde::{Deserialize, Serialize};

/// `halfpower doctor --json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DoctorReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The host.
    pub host: Host,
    /// The run the checks were made for (run's workload flags).
    pub asked: Asked,
    /// Each target and the block devices along its path.
    #[serde(default)]
    pub targets: Vec<DoctorTarget>,
    /// Every check made: host first, then each device and mount.
    pub checks: Vec<Check>,
    /// Checks this kernel offers no file for.
    #[serde(default)]
    pub absent: Vec<Absent>,
    /// With `--price`: each flagged queue setting, measured both ways.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<Priced>,
}

impl super::Report for DoctorReport {}

/// A flagged setting and what it costs the run (`doctor --price`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Priced {
    /// Which setting.
    pub kind: CheckKind,
    /// The device whose queue holds it.
    pub device: String,
    /// The file changed.
    pub file: String,
    /// Its value as found.
    pub as_found: String,
    /// The value it was set to for the other half of the runs.
    pub wanted: String,
    /// The target the runs were made on.
    pub target: String,
    /// The price, or why there is none.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A price, or why a flagged setting has none.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// Measured both ways.
    Measured(Price),
    /// The setting shapes writes, and the run only reads.
    ReadsOnly,
    /// The setting shapes buffered reads, and the run reads direct.
    Direct,
    /// Its fix is not a file of the device's queue (a cgroup's cap: `results.limits`).
    NotQueue,
    /// Ctrl-C came before it was measured both ways.
    Interrupted,
    /// A run measured no I/O (each failed), so no ratio could be formed.
    NoFigure,
}

/// What a setting costs: the figure in runs with it as found and as wanted, alternated.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Price {
    /// The figure compared.
    pub figure: PriceFigure,
    /// I/Os in flight per target the runs kept (the run's depth).
    pub depth: u32,
    /// Each run's figure with the setting as found, in order.
    pub as_found_runs: Vec<f64>,
    /// Each run's figure with the setting as wanted, run after the same-numbered as-found run.
    pub wanted_runs: Vec<f64>,
    /// Mean as found over mean as wanted.
    pub ratio: f64,
    /// The ratio's 95 % interval (Welch's), low end.
    pub low: f64,
    /// The ratio's 95 % interval, high end.
    pub high: f64,
}

impl Price {
    /// Whether the interval holds 1: no measurable cost here.
    pub fn measurable(&self) -> bool {
        !(self.low <= 1.0 && 1.0 <= self.high)
    }
}

/// The figure a price compares.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PriceFigure {
    /// I/Os per second (random runs).
    Iops,
    /// Bytes per second (sequential runs).
    BytesPerS,
}

/// The run a doctor's checks are made for.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Asked {
    /// I/Os in flight per target (`--qd` × `--threads`).
    pub depth: u32,
    /// Workers per target.
    pub threads: u32,
    /// The largest request, bytes.
    pub bs_bytes: u64,
    /// Whether the run reads through the page cache.
    pub buffered: bool,
    /// Whether the run reads.
    pub reads: bool,
    /// Whether the run writes.
    pub writes: bool,
    /// Whether it is sequential.
    pub sequential: bool,
    /// The CPUs its workers may use.
    pub worker_cpus: Vec<usize>,
}

/// One target and the block devices under it, top first.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DoctorTarget {
    /// As given.
    pub target: String,
    /// Kernel names of the block devices along its path, top first.
    pub devices: Vec<String>,
}

/// One setting judged.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Check {
    /// Which setting.
    pub kind: CheckKind,
    /// What it belongs to.
    #[serde(flatten)]
    pub scope: Scope,
    /// The file it was read from.
    pub file: String,
    /// Its value as read (trimmed; the active one of a bracketed list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// What a measurement wants: a value, `>=N`, `<=N` or `A|B`.
    pub wanted: String,
    /// A figure the check measured or derived (ns a clock read, steal %, CPUs of a quota,
    /// dirty limit bytes, µs to leave the deepest idle state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// How to set it to what is wanted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// What a check belongs to.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "scope", rename_all = "kebab-case")]
pub enum Scope {
    /// The host (CPUs, clock, memory, the process's cgroups).
    Host,
    /// A block device, by kernel name.
    Device {
        /// Kernel name.
        device: String,
    },
    /// A mounted file system.
    Mount {
        /// Where it is mounted.
        mount_point: String,
    },
}

/// A check's verdict.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// As a measurement wants it.
    Ok,
    /// Worth knowing; the figure may still be the device's.
    Info,
    /// Shapes the figure: a measurement here measures the setting.
    Warn,
}

/// Each setting the doctor reads.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// The clock source and what a read of it costs.
    ClockSource,
    /// The CPU frequency governor of the workers' CPUs.
    CpuGovernor,
    /// The deepest idle state the workers' CPUs may enter.
    CpuIdle,
    /// Simultaneous multithreading.
    Smt,
    /// Time the hypervisor took from this machine.
    Steal,
    /// A CPU quota on this process's cgroup.
    CpuQuota,
    /// The CPUs this process may run on.
    Cpuset,
    /// Transparent huge pages (the I/O buffers ask for them).
    TransparentHugepages,
    /// Dirty-page limits (what a buffered write run is absorbed by).
    DirtyLimits,
    /// The queue's I/O scheduler.
    Scheduler,
    /// Request merging.
    Nomerges,
    /// The kernel's per-device accounting.
    Iostats,
    /// Which CPU completes a request.
    RqAffinity,
    /// Read-ahead.
    ReadAhead,
    /// Requests the queue holds at once.
    NrRequests,
    /// The write cache mode.
    WriteCache,
    /// Writeback throttling.
    WritebackThrottling,
    /// Entropy gathered per completion.
    AddRandom,
    /// The largest request the queue sends.
    MaxSectors,
    /// Whether the queue says it rotates.
    Rotational,
    /// Polled completion.
    PollQueues,
    /// Which CPU the interrupt of a worker's hardware queue fires on.
    IrqAffinity,
    /// The device's NUMA node against the workers'.
    NumaNode,
    /// An I/O cap of this process's cgroup on the device.
    CgroupIo,
    /// Inline discard on a mount.
    MountDiscard,
    /// Access-time updates on a mount.
    MountAtime,
    /// Journal and sync modes on a mount.
    MountJournal,
}

/// How to set a check to what is wanted.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Fix {
    /// Write `value` to each file.
    Write {
        /// The files.
        files: Vec<String>,
        /// The value.
        value: String,
    },
    /// Remount with an option.
    Remount {
        /// The mount point.
        mount_point: String,
        /// The option.
        option: String,
    },
    /// A halfpower flag.
    Flag {
        /// The flag, with its dashes.
        flag: String,
        /// Its value.
        value: String,
    },
    /// A command to run.
    Command(String),
}

/// A check whose file this kernel or host does not have.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Absent {
    /// Which check.
    pub kind: CheckKind,
    /// The file looked for.
    pub file: String,
}

impl DoctorReport {
    /// How many checks have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.checks.iter().filter(|c| c.verdict == verdict).count()
    }
}
