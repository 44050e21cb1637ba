//! The JSON documents halfpower writes (`schema_version` 1). Field names are part of the
//! interface: scripts read `results.total.iops`, `results.read.latency_us.p99` and so on, and
//! docs/json-schema.md describes every key.

use crate::engine::IoDir;
use crate::oscounters::diskstats::DeviceDelta;
use crate::oscounters::host::Host;
use crate::runner::{Measurement, TargetMeasurement};
use crate::spec::Workload;
use crate::stats::cpu::CpuSummary;
use crate::stats::recorder::DirStats;
use crate::stats::summary::{DeviceSecond, DirSummary, TimePoint};
use crate::target::{Target, TargetKind};
use serde::{Deserialize, Serialize};

/// Version of the JSON layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// The program that wrote a document.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    /// Always `halfpower`.
    pub name: String,
    /// Its version.
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: "halfpower".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// A target as the run saw it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TargetInfo {
    /// Path as given.
    pub path: String,
    /// `file`, `block-device` or `null`.
    pub kind: String,
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
    pub direct_fallback: Option<String>,
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
    /// Whether the disk is rotational.
    pub rotational: Option<bool>,
    /// Active I/O scheduler of the disk.
    pub scheduler: Option<String>,
    /// Disk model, when reported.
    pub model: Option<String>,
}

impl TargetInfo {
    /// Describes an opened target.
    pub fn of(t: &Target) -> Self {
        let d = t.device.as_ref();
        TargetInfo {
            path: t.path.display().to_string(),
            kind: match t.kind {
                TargetKind::File => "file",
                TargetKind::BlockDevice => "block-device",
                TargetKind::Null => "null",
            }
            .into(),
            created: t.created(),
            capacity_bytes: t.capacity,
            offset_bytes: t.offset,
            size_bytes: t.size,
            direct: t.direct,
            direct_fallback: t.direct_fallback.clone(),
            dio_mem_align: t.mem_align,
            dio_offset_align: t.offset_align,
            device: d.map(|d| d.name.clone()),
            partition: d.and_then(|d| d.partition.clone()),
            logical_block_size: d.and_then(|d| d.logical_block_size),
            rotational: d.and_then(|d| d.rotational),
            scheduler: d.and_then(|d| d.scheduler.clone()),
            model: d.and_then(|d| d.model.clone()),
        }
    }
}

/// Failed I/Os of a run or target.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ErrorSummary {
    /// How many I/Os failed or came back short.
    pub count: u64,
    /// Byte offset of the first failure.
    pub first_offset: Option<u64>,
    /// Its error (`EIO`, `ENOSPC`, … or `short transfer`).
    pub first_error: Option<String>,
    /// Its direction.
    pub first_direction: Option<String>,
}

fn errno_name(errno: i32) -> String {
    match -errno {
        0 => "short transfer".into(),
        e => {
            let name = match e {
                libc::EIO => "EIO",
                libc::ENOSPC => "ENOSPC",
                libc::EINVAL => "EINVAL",
                libc::EBADF => "EBADF",
                libc::EFAULT => "EFAULT",
                libc::EROFS => "EROFS",
                libc::EAGAIN => "EAGAIN",
                libc::ENXIO => "ENXIO",
                libc::EOPNOTSUPP => "EOPNOTSUPP",
                _ => "",
            };
            let msg = std::io::Error::from_raw_os_error(e);
            if name.is_empty() {
                msg.to_string()
            } else {
                format!("{name} ({msg})")
            }
        }
    }
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

impl TargetResult {
    fn of(path: String, m: &TargetMeasurement, w: &Workload, seconds: f64) -> Self {
        let mut both = DirStats::default();
        both.merge(&m.read);
        both.merge(&m.write);
        let first = m.errors.first;
        TargetResult {
            path,
            total: DirSummary::of(&both, seconds),
            read: w.reads().then(|| DirSummary::of(&m.read, seconds)),
            write: w.writes().then(|| DirSummary::of(&m.write, seconds)),
            errors: ErrorSummary {
                count: m.errors.count,
                first_offset: first.map(|f| f.1),
                first_error: first.map(|f| errno_name(f.2)),
                first_direction: first.map(|f| match f.3 {
                    IoDir::Read => "read".into(),
                    IoDir::Write => "write".into(),
                }),
            },
        }
    }
}

/// The `results` object of a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Results {
    /// The engine that ran (`uring`, `sync`, `null`).
    pub engine: String,
    /// Why the requested engine was replaced, if it was.
    pub engine_fallback: Option<String>,
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
    /// A failure that stopped the run early, if any.
    pub fatal: Option<String>,
    /// All targets, both directions.
    pub total: DirSummary,
    /// All targets, reads.
    pub read: Option<DirSummary>,
    /// All targets, writes.
    pub write: Option<DirSummary>,
    /// Failed I/Os over all targets.
    pub errors: ErrorSummary,
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
}

impl Results {
    /// The process exit status these results call for: 130 when interrupted, 1 when I/Os
    /// failed or a worker stopped on an error, else 0.
    pub fn exit_status(&self) -> u8 {
        if self.interrupted {
            130
        } else if self.errors.count > 0 || self.fatal.is_some() {
            1
        } else {
            0
        }
    }

    /// Formats a measurement of workload `w` over `targets`.
    pub fn build(
        m: &Measurement,
        w: &Workload,
        targets: &[Target],
        engine_fallback: Option<String>,
    ) -> Self {
        let all = TargetResult::of("*".into(), &m.total, w, m.seconds);
        let mut r = Results {
            engine: m.engine.name().into(),
            engine_fallback,
            registered_file: m.registered.map(|r| r.0),
            registered_buffers: m.registered.map(|r| r.1),
            worker_cpus: m.worker_cpus.clone(),
            seconds: m.seconds,
            interrupted: m.interrupted,
            fatal: m.fatal.clone(),
            total: all.total,
            read: all.read,
            write: all.write,
            errors: all.errors,
            targets: targets
                .iter()
                .zip(&m.targets)
                .map(|(t, tm)| TargetResult::of(t.path.display().to_string(), tm, w, m.seconds))
                .collect(),
            cpu: m.cpu.clone(),
            devices: m.devices.clone(),
            timeseries: m.series.clone(),
            device_timeseries: m.device_series.clone(),
        };
        r.drop_repeated_histograms();
        r
    }

    /// Keeps each histogram once: a one-direction workload's total is that direction's, and
    /// a single target's entries are the run's. Their `histogram` is left empty.
    fn drop_repeated_histograms(&mut self) {
        let one_direction = self.read.is_some() != self.write.is_some();
        if one_direction {
            self.total.histogram.clear();
        }
        if let [only] = self.targets.as_mut_slice() {
            for d in [
                Some(&mut only.total),
                only.read.as_mut(),
                only.write.as_mut(),
            ]
            .into_iter()
            .flatten()
            {
                d.histogram.clear();
            }
        } else {
            for t in &mut self.targets {
                if one_direction {
                    t.total.histogram.clear();
                }
            }
        }
    }
}

/// The document `halfpower run --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunReport {
    /// Layout version ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Always `run`.
    pub kind: String,
    /// The writer.
    pub tool: Tool,
    /// The command line.
    pub command: Vec<String>,
    /// When the run ended (RFC 3339 UTC).
    pub date: String,
    /// Every effective option.
    pub workload: Workload,
    /// The host.
    pub host: Host,
    /// The targets.
    pub targets: Vec<TargetInfo>,
    /// What was measured.
    pub results: Results,
    /// Warnings printed during the run.
    pub warnings: Vec<String>,
}

/// One test of the quick suite.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QuickTest {
    /// CrystalDiskMark-style name, e.g. `SEQ1M Q8T1`.
    pub name: String,
    /// `read` or `write`.
    pub direction: String,
    /// The workload of this test.
    pub workload: Workload,
    /// What it measured.
    pub results: Results,
}

/// The document `halfpower quick --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QuickReport {
    /// Layout version.
    pub schema_version: u32,
    /// Always `quick`.
    pub kind: String,
    /// The writer.
    pub tool: Tool,
    /// The command line.
    pub command: Vec<String>,
    /// When the suite ended.
    pub date: String,
    /// The host.
    pub host: Host,
    /// The scratch file.
    pub target: TargetInfo,
    /// The tests run, in order.
    pub tests: Vec<QuickTest>,
    /// Whether Ctrl-C cut the suite short.
    pub interrupted: bool,
    /// Warnings printed during the suite.
    pub warnings: Vec<String>,
}
