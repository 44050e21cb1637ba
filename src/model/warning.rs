//! What halfpower warns about, as kinds with the data their sentences need. The sentences are
//! render's (`render/text/warning.rs` implements `Display` for [`Warning`], the one place a
//! warning is worded); the model names no render path. A document keeps its warnings as those
//! sentences (`"warnings": [string]`, unchanged since layout 1: docs/json-schema.md), so a
//! warning read back from a file is its sentence alone, [`Warning::Written`].

use super::Direction;
use super::cause::{DirectFallback, EngineFallback, Fatal, IoFailure};
use super::compare::WorkloadDifference;
use super::fio::FioNote;
use super::profile::{NegativeSlope, Pattern};
use super::pts::Purge;
use super::sweep::Support;
use super::verify::Verification;
use crate::plan::{Create, EngineKind, RwMode};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One warning: printed on stderr as `halfpower: warning: SENTENCE` when it is given, and kept
/// in its document's `warnings`.
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// A warning read back from a document: its sentence as the file holds it.
    Written(String),
    /// A host or queue setting that bears on what the run measures (the doctor's check).
    Setting(Box<super::doctor::Check>),
    /// One rank's warning under MPI (as rank 0 gathered it).
    OfRank {
        /// The rank.
        rank: u32,
        /// Its warning.
        warning: Box<Warning>,
    },
    /// One quick test's warning (`SEQ1M Q8T1 read: …`).
    OfTest {
        /// The test's name.
        test: String,
        /// Its direction.
        direction: Direction,
        /// Its warning.
        warning: Box<Warning>,
    },
    /// Direct I/O was asked for but fell back to buffered on `path`.
    DirectUnavailable {
        /// The target.
        path: String,
        /// Why.
        fallback: DirectFallback,
    },
    /// An existing target, so `--create` does not apply.
    CreateDoesNotApply {
        /// The target.
        path: String,
        /// The `--create` asked for.
        create: Create,
    },
    /// An existing file is sparse.
    Sparse {
        /// The file.
        path: String,
        /// Bytes allocated.
        allocated: u64,
        /// Its length.
        len: u64,
    },
    /// Points run buffered share the page cache.
    BufferedPoints,
    /// io_uring unavailable: every point of a session runs on the sync engine.
    PointsOnSync(EngineFallback),
    /// io_uring unavailable: a run's queue depth becomes one I/O per thread.
    RunOnSync {
        /// Why.
        fallback: EngineFallback,
        /// The depth asked for.
        qd: u32,
    },
    /// io_uring unavailable: quick's deep-queue tests run as threads.
    QuickOnSync(EngineFallback),
    /// An experiment's points run shallower than asked on another engine.
    ExperimentShallow {
        /// The depth they run at.
        qd: u32,
        /// The engine.
        engine: EngineKind,
    },
    /// An experiment ran buffered (direct I/O unavailable).
    ExperimentBuffered {
        /// The target.
        path: String,
    },
    /// A point of a list failed I/Os (or a worker stopped).
    PointFailed {
        /// The point's label.
        label: String,
        /// Failed I/Os.
        errors: u64,
        /// What stopped a worker, if one stopped.
        fatal: Option<Fatal>,
    },
    /// I/Os of a later repetition of a run failed (`--repeat`; the first's are `IoFailed`).
    RepetitionFailed {
        /// Which repetition, from 1.
        repetition: u32,
        /// Failed I/Os.
        errors: u64,
        /// What stopped a worker, if one stopped.
        fatal: Option<Fatal>,
    },
    /// A run's I/Os failed.
    IoFailed {
        /// How many.
        count: u64,
        /// What the first returned.
        first: Option<IoFailure>,
        /// Its offset.
        offset: u64,
    },
    /// Ctrl-C cut the run short.
    Interrupted,
    /// The disk read less than the application: a cache answered.
    ReadFromCache(Shortfall),
    /// The disk received less than the application wrote, in the window.
    WriteShortfall(Shortfall),
    /// Reads came back zeroed.
    ZeroedReads {
        /// The target.
        path: String,
        /// Share of sampled sectors that were zero, 0..1.
        share: f64,
        /// Zero sectors.
        zero_sectors: u64,
        /// Sectors sampled.
        sectors: u64,
        /// Reads checked.
        reads: u64,
    },
    /// Buffered reads without a disk's counters to tell: maybe the page cache.
    BufferedReads {
        /// The target.
        path: String,
        /// Median read latency, µs.
        p50_us: f64,
    },
    /// Random reads too fast for a rotating disk.
    TooFastForRotating {
        /// The target.
        path: String,
        /// Median read latency, µs.
        p50_us: f64,
        /// The disk.
        device: Option<String>,
    },
    /// Direct reads too fast for any block device.
    MemoryBacked {
        /// The target.
        path: String,
        /// Median read latency, µs.
        p50_us: f64,
    },
    /// A sweep's conclusion that does not stand as stated.
    Caveat {
        /// The rw mode of the analysis.
        rw: RwMode,
        /// Its threads.
        threads: u32,
        /// Which conclusion.
        conclusion: Conclusion,
        /// real/advertised, said with the peak.
        rap_pap: Option<f64>,
        /// What it rests on.
        support: Support,
    },
    /// PTS preconditioning wrote less than twice the capacity.
    ShortPrecondition {
        /// Bytes written.
        bytes: u64,
        /// The capacity.
        capacity: u64,
    },
    /// The target was not purged before a PTS test.
    NotPurged {
        /// The target.
        target: String,
        /// The purge asked for.
        purge: Purge,
    },
    /// Profile QD1 cells kept the disk less than 90 % busy.
    IdleDisk {
        /// How many cells.
        cells: usize,
        /// The least busy cell's direction.
        rw: Direction,
        /// Its pattern.
        pattern: Pattern,
        /// Its request size, bytes.
        bs_bytes: u64,
        /// Its %util.
        util_pct: f64,
    },
    /// A profile's fitted line with a negative slope.
    NegativeSlope {
        /// The line's direction.
        rw: Direction,
        /// Its pattern.
        pattern: Pattern,
        /// Its slope, ms/KiB.
        ms_per_kib: f64,
        /// Why.
        why: NegativeSlope,
    },
    /// The block tracer lost events.
    TracerLost(u64),
    /// selftest found no counters of its loop device.
    NoLoopCounters,
    /// A replayed trace addresses another file.
    OtherFile {
        /// The file the trace recorded.
        file: String,
        /// Where its requests went.
        target: String,
    },
    /// A trace's syncs and trims were not replayed.
    NotReplayed {
        /// Syncs and flushes.
        syncs: u64,
        /// Trims and discards.
        trims: u64,
    },
    /// A replay issued late for want of CPU, and is run again.
    IssuedLate {
        /// The speed.
        speed: f64,
        /// Mean lateness, µs.
        late_us: f64,
        /// The share of the mean response time that spoils it, 0..1.
        share: f64,
        /// Mean response time, µs.
        mean_us: f64,
        /// This retry.
        attempt: u32,
        /// Of how many.
        of: u32,
    },
    /// A fio option ignored under `--ignore-unknown`.
    FioIgnored {
        /// Where it was written.
        origin: String,
        /// The option.
        option: String,
    },
    /// Something halfpower does unlike fio for one job.
    Fio(FioNote),
    /// A fio job's verify found bad blocks.
    FioBadBlocks {
        /// The job.
        job: String,
        /// What reading back found.
        verification: Box<Verification>,
    },
    /// A fio job's `rate_min` or `rate_iops_min` not met.
    FioRateMin {
        /// The job.
        job: String,
        /// The direction.
        direction: Direction,
        /// `rate_iops_min` (else `rate_min`).
        iops: bool,
        /// The minimum.
        min: u64,
        /// The second's figure.
        value: f64,
        /// The second (from 1).
        second: usize,
    },
    /// A log line (or sample) skipped.
    LogLine {
        /// The log.
        path: String,
        /// The line, from 1.
        line: usize,
        /// Why.
        problem: LineProblem,
    },
    /// iostat's first report (averages since boot) left out.
    FirstReport {
        /// The log.
        path: String,
    },
    /// More warnings of one log than are printed one by one: how many more.
    MoreLines(usize),
    /// `compare` of two runs of different workloads: what differs.
    WorkloadsDiffer(Vec<WorkloadDifference>),
    /// `diagnose --profile` for devices no log holds.
    ProfileUnmatched {
        /// The profile's devices.
        devices: Vec<String>,
    },
    /// A perfmon disk without a counter the rules need.
    NoCounter {
        /// The log.
        path: String,
        /// The disk (`object(instance)`).
        disk: String,
        /// The counter.
        counter: String,
    },
}

/// A shortfall between the application's bytes and a disk's counters.
#[derive(Clone, Debug, PartialEq)]
pub struct Shortfall {
    /// The targets on the disk, comma-separated.
    pub paths: String,
    /// The disk.
    pub disk: String,
    /// Bytes the application moved.
    pub app: u64,
    /// Bytes the disk counted.
    pub device: u64,
    /// The share missing, %.
    pub pct: f64,
}

/// A conclusion of a sweep's analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conclusion {
    /// The peak (the plateau's 5 %).
    Peak,
    /// The half-power points.
    HalfPower,
    /// The knees.
    Knee,
}

/// Why a line of a log was skipped.
#[derive(Clone, Debug, PartialEq)]
pub enum LineProblem {
    /// A CSV row with another field count than its header (truncated?).
    CsvFields {
        /// Fields found.
        fields: usize,
        /// The header's.
        header: usize,
    },
    /// A CSV row the reader refused.
    UnreadableCsv(String),
    /// An iostat row with another field count than its header.
    Fields {
        /// Fields found.
        fields: usize,
        /// The header's.
        header: usize,
    },
    /// An iostat line outside any report.
    OutsideReport,
    /// An avg-cpu line without 6 values.
    AvgCpu,
    /// An iostat row without numeric r/s and w/s.
    NoRates,
    /// A zero-length interval.
    ZeroInterval,
    /// A perfmon time that does not parse.
    UnreadableTime(String),
    /// A perfmon disk without a transfer rate.
    NoTransferRate(String),
    /// A monitor line that is JSON but not an object.
    NotAnObject,
    /// A monitor line that is not JSON.
    MalformedJson(String),
    /// A record of a newer layout.
    NewerSchema {
        /// Its version.
        version: f64,
        /// The newest this halfpower reads.
        supported: u32,
    },
    /// A record without schema_version.
    NoSchemaVersion,
    /// A record without device or time.
    NoDeviceOrTime,
    /// A record without a positive interval_s.
    NoInterval,
    /// A device record without r_s/w_s.
    NoRecordRates(String),
}

/// Written as its sentence (`Display`, implemented in `render/text/warning.rs`).
impl Serialize for Warning {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read back as the sentence a file holds.
impl<'de> Deserialize<'de> for Warning {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Warning::Written)
    }
}
