//! The workload: every option of a run as one typed struct, lowered into from the CLI's flags
//! (`cli::WorkloadArgs`), fio's job files and the JSON `workload` object (serde), and its
//! validation; and the plan made of it ([`RunPlan`], with its [`Schedule`]), which is all the
//! layers below the commands take; and how `scale --ranks` places its targets on the ranks
//! ([`ranks::Placement`]). No I/O happens here, and no command-line crate is used.

mod choices;
pub mod ranks;
mod run_plan;
pub mod schedule;

pub use crate::engine::payload::Payload;
pub use crate::engine::{EngineCaps, EngineKind};
pub use run_plan::RunPlan;
pub use schedule::Schedule;

use crate::access::{Access, RequestSize};
use crate::affinity::Affinity;
use crate::error::{Error, Result};
use crate::units::{ByteSize, Dur};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Access pattern and direction, named as fio names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Uniform random reads.
    Randread,
    /// Uniform random writes.
    Randwrite,
    /// Sequential mix of reads and writes (`--read-pct`, default 50).
    Rw,
    /// Random mix of reads and writes (`--read-pct`, default 50).
    Randrw,
}

impl RwMode {
    /// Whether offsets are random (else sequential).
    pub fn is_random(self) -> bool {
        matches!(self, RwMode::Randread | RwMode::Randwrite | RwMode::Randrw)
    }

    /// Whether the mode mixes reads and writes.
    pub fn is_mixed(self) -> bool {
        matches!(self, RwMode::Rw | RwMode::Randrw)
    }

    /// The share of reads in percent that this mode implies when `--read-pct` is not given.
    pub fn default_read_pct(self) -> u8 {
        match self {
            RwMode::Read | RwMode::Randread => 100,
            RwMode::Write | RwMode::Randwrite => 0,
            RwMode::Rw | RwMode::Randrw => 50,
        }
    }

    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::Randread => "randread",
            RwMode::Randwrite => "randwrite",
            RwMode::Rw => "rw",
            RwMode::Randrw => "randrw",
        }
    }
}

impl std::fmt::Display for RwMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// How a workload deeper than its engine can queue runs on that engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthOnEngine {
    /// At the engine's depth: fewer I/Os in flight (`run`, `scale`, `sweep`, `experiment`).
    Lower,
    /// The same I/Os in flight as more threads (`quick`, `profile`: QD 32 becomes 32 threads
    /// of one I/O each on the sync engine).
    AsThreads,
}

/// What a run does when I/Os fail (`--on-error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Go on for one second after the first failure (to see whether it is a burst), then stop.
    #[default]
    Stop,
    /// Run to the end whatever fails.
    Continue,
    /// Run to the end whatever reads fail; stop one second after the first failed write.
    #[serde(rename = "continue-reads")]
    ContinueReads,
    /// Run to the end whatever writes fail; stop one second after the first failed read.
    #[serde(rename = "continue-writes")]
    ContinueWrites,
}

impl OnError {
    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OnError::Stop => "stop",
            OnError::Continue => "continue",
            OnError::ContinueReads => "continue-reads",
            OnError::ContinueWrites => "continue-writes",
        }
    }

    /// Whether failures of `dir` start the stop.
    pub fn stops_on(self, dir: crate::engine::IoDir) -> bool {
        use crate::engine::IoDir;
        match self {
            OnError::Stop => true,
            OnError::Continue => false,
            OnError::ContinueReads => dir == IoDir::Write,
            OnError::ContinueWrites => dir == IoDir::Read,
        }
    }
}

/// How long `--on-error stop` lets errors go on before the run stops, ns.
pub const ERROR_GRACE_NS: u64 = 1_000_000_000;

/// How halfpower creates a missing file (`--create`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Create {
    /// Written with incompressible data before any I/O (every block is allocated and holds
    /// data, so reads reach the device).
    #[default]
    Filled,
    /// Its size set without writing (a sparse file: the filesystem allocates blocks as they
    /// are first written). Write-only workloads.
    Sparse,
    /// Zero length: every write extends it (appending). Write-only workloads.
    Empty,
    /// Its blocks reserved with fallocate(2) and not written (unwritten extents: the first
    /// write of each converts it, as in a file fio lays out for a job that only writes).
    /// Write-only workloads.
    Allocated,
}

impl Create {
    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Create::Filled => "filled",
            Create::Sparse => "sparse",
            Create::Empty => "empty",
            Create::Allocated => "allocated",
        }
    }
}

/// Default size of a file halfpower creates, and of the null engine's pretend target.
pub const DEFAULT_FILE_SIZE: u64 = 1 << 30;
/// Default seed of the random offsets (`--seed`): "half" in ASCII.
pub const DEFAULT_SEED: u64 = 0x6861_6c66;
/// Default measured time when neither `--time` nor `--bytes` is given.
pub const DEFAULT_TIME: Duration = Duration::from_secs(10);
/// Largest queue depth accepted (io_uring's ring limit).
pub const MAX_QD: u32 = crate::engine::MAX_DEPTH;
/// Largest thread count per target accepted.
pub const MAX_THREADS: u32 = 1024;
/// Longest `--spin` accepted.
pub const MAX_SPIN: Duration = Duration::from_secs(1);
/// Largest request size accepted.
pub const MAX_BS: u64 = 256 << 20;

/// A workload as its options give it (the flags of `cli::WorkloadArgs`, a fio job's options,
/// a document's record): its shape and its [`Setup`]. Runs only as a [`RunPlan`] ([`Workload::plan`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Direction and pattern.
    pub rw: RwMode,
    /// `--read-pct` as given; none: the mode's share ([`RunPlan::read_pct`] resolves it).
    pub read_pct: Option<u8>,
    /// Request size (k/m/g = KiB/MiB/GiB), or a mix drawn per request such as
    /// 4k/50:16k/30:64k/20 (percent of requests: they add up to 100, or blanks share what
    /// is left, 4k/50:16k/:64k/).
    pub bs: RequestSize,
    /// I/Os in flight per thread.
    pub qd: u32,
    /// Threads per target, each with its own io_uring ring.
    pub threads: u32,
    /// The rest of its options (`cli::SetupArgs`).
    #[serde(flatten)]
    pub setup: Setup,
}

/// The options of a run besides its shape (`cli::SetupArgs`'s flags): timing, region, engine,
/// open flags, write permissions, access; shared by every point of a sweep or profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// Measured time after the warm-up [default: 10s].
    pub time: Option<Dur>,
    /// `--bytes`: a run of this many bytes in all instead of a time.
    pub bytes: Option<ByteSize>,
    /// Warm-up before measuring; its I/Os are not counted.
    pub warmup: Dur,
    /// Region size per target; a created file gets this size [default: 1g for a new file, else
    /// the file or device size minus --offset].
    pub size: Option<ByteSize>,
    /// Start of the region on each target.
    pub offset: ByteSize,
    /// `--engine`: the engine asked for (a plan's is the one that runs).
    pub engine: EngineKind,
    /// `--buffered`: opened without O_DIRECT.
    pub buffered: bool,
    /// `--write-through`: opened with O_DSYNC (O_SYNC with `sync_metadata`).
    pub write_through: bool,
    /// With `write_through`, open with O_SYNC instead: each write also waits for the file's
    /// metadata, its modification time among it (fio's `sync=1`; its `dsync` is O_DSYNC).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sync_metadata: bool,
    /// `--seed`: of the offsets and the data.
    pub seed: u64,
    /// `--allow-write` and `--destroy-data`.
    #[serde(flatten)]
    pub safety: Safety,
    /// `--keep`: a file the run created stays.
    pub keep: bool,
    /// `--create`: how a missing file is made.
    #[serde(default)]
    pub create: Create,
    /// Where worker threads run: spread (worker k on the k-th CPU this process may use, round
    /// robin), none (the scheduler places them) or a CPU list such as 0-3,8.
    #[serde(default = "unpinned")]
    pub affinity: Affinity,
    /// `--spin`: how long a worker polls for completions before it sleeps (zero on an engine
    /// that cannot poll, in a plan).
    #[serde(default)]
    pub spin: Dur,
    /// `--on-error`: what a failed I/O does to the run.
    #[serde(default)]
    pub on_error: OnError,
    /// What the writes carry: halfpower's stamped data, or a pattern.
    #[serde(default, skip_serializing_if = "Payload::is_stamped")]
    pub payload: Payload,
    /// Where offsets fall and how requests are paced (`cli::AccessArgs`).
    #[serde(flatten)]
    pub access: Access,
}

/// The write permissions (`cli::SafetyArgs`): checked by `storage::open` before any target is
/// opened for writing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Safety {
    /// `--allow-write`.
    pub allow_write: bool,
    /// `--destroy-data`.
    pub destroy_data: bool,
}

/// Files written before `--affinity` existed ran unpinned.
fn unpinned() -> Affinity {
    Affinity::None
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            time: None,
            bytes: None,
            warmup: Dur(Duration::from_secs(1)),
            size: None,
            offset: ByteSize(0),
            engine: EngineKind::Uring,
            buffered: false,
            write_through: false,
            sync_metadata: false,
            seed: DEFAULT_SEED,
            safety: Safety::default(),
            keep: false,
            create: Create::Filled,
            affinity: Affinity::Spread,
            spin: Dur(Duration::ZERO),
            on_error: OnError::Stop,
            payload: Payload::Stamped,
            access: Access::default(),
        }
    }
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            rw: RwMode::Read,
            read_pct: None,
            bs: RequestSize::fixed(4096),
            qd: 1,
            threads: 1,
            setup: Setup::default(),
        }
    }
}

impl Workload {
    /// Checks the options that do not depend on a target and fills in the defaults that
    /// depend on other options (`read_pct`, `time`), so the result states every effective value.
    pub fn validated(&self) -> Result<Workload> {
        let mut w = self.clone();
        w.check_shape()?;
        w.resolve_read_pct()?;
        w.resolve_ending()?;
        w.setup
            .access
            .check(w.rw.is_random(), w.bs.max(), w.writes())?;
        if w.setup.access.invalidate && !w.setup.buffered {
            return Err(Error::invalid(
                "--invalidate",
                "on",
                "--invalidate with --buffered (direct I/O never reads the page cache)",
            ));
        }
        w.check_reallocate()?;
        w.check_region()?;
        Ok(w)
    }

    /// `reallocate` (no flag: `experiment allocation` sets it) needs a file created empty or
    /// sparse, one thread writing it in a closed loop: the blocks go back between passes.
    fn check_reallocate(&self) -> Result<()> {
        let s = &self.setup;
        if s.access.reallocate
            && (!matches!(s.create, Create::Empty | Create::Sparse)
                || self.threads != 1
                || !s.access.arrivals.is_closed()
                || self.reads())
        {
            return Err(Error::invalid(
                "experiment allocation's block release between passes",
                "on",
                "a file created empty or sparse (--create), written by one thread (--threads 1) \
                 in a closed loop",
            ));
        }
        Ok(())
    }

    /// Refuses a depth, thread count, request size or spin out of range, or one the engine
    /// cannot do.
    fn check_shape(&self) -> Result<()> {
        if self.qd == 0 || self.qd > MAX_QD {
            return Err(Error::invalid(
                "--qd",
                self.qd,
                format!("a queue depth from 1 to {MAX_QD}"),
            ));
        }
        if self.threads == 0 || self.threads > MAX_THREADS {
            return Err(Error::invalid(
                "--threads",
                self.threads,
                format!("a thread count from 1 to {MAX_THREADS}"),
            ));
        }
        if self.bs.min() == 0 || self.bs.max() > MAX_BS {
            return Err(Error::invalid(
                "--bs",
                &self.bs,
                "a request size from 1 byte to 256m (a multiple of the device's block size, e.g. 4k)",
            ));
        }
        let caps = self.setup.engine.caps();
        if !self.setup.spin.0.is_zero() && (!caps.spin || self.setup.spin.0 > MAX_SPIN) {
            return Err(Error::invalid(
                "--spin",
                self.setup.spin,
                "a duration up to 1s with --engine uring (sync blocks in the kernel, null never \
             waits), e.g. --spin 20us",
            ));
        }
        if !self.setup.access.arrivals.is_closed() {
            if self.qd != 1 {
                return Err(Error::invalid(
                    "--qd",
                    self.qd,
                    "no --qd with --arrivals: an open loop's depth follows its arrivals (bound it \
                     with --max-inflight)",
                ));
            }
            if caps.max_qd == 1 {
                return Err(Error::invalid(
                    "--engine",
                    self.setup.engine,
                    "uring or null with --arrivals: an open loop keeps many requests in flight",
                ));
            }
        }
        if self.qd > caps.max_qd {
            return Err(Error::invalid(
                "--qd",
                self.qd,
                format!(
                    "at most {} with --engine {} (one I/O in flight per thread); use --threads for more, or --engine uring",
                    caps.max_qd, self.setup.engine
                ),
            ));
        }
        Ok(())
    }

    /// Refuses a read share out of range or given to a one-direction mode; fills in the mode's
    /// own when none was given.
    fn resolve_read_pct(&mut self) -> Result<()> {
        let w = self;
        match (w.read_pct, w.rw.is_mixed()) {
            (Some(p), _) if p > 100 => {
                return Err(Error::invalid(
                    "--read-pct",
                    p,
                    "a percentage from 0 to 100",
                ));
            }
            (Some(p), false) if p != w.rw.default_read_pct() => {
                return Err(Error::invalid(
                    "--read-pct",
                    p,
                    format!(
                        "no --read-pct with --rw {} (it is {} % reads); use --rw rw or randrw for a mix",
                        w.rw.name(),
                        w.rw.default_read_pct()
                    ),
                ));
            }
            (None, _) => w.read_pct = Some(w.rw.default_read_pct()),
            _ => {}
        }
        Ok(())
    }

    /// Refuses a zero `--time` and a `--bytes` that is no whole number of requests of one
    /// size; a run with neither gets the default time.
    fn resolve_ending(&mut self) -> Result<()> {
        let w = self;
        if let Some(t) = w.setup.time {
            if t.0.is_zero() {
                return Err(Error::invalid(
                    "--time",
                    t,
                    "a duration above zero, e.g. 10s",
                ));
            }
        }
        match (w.setup.bytes, w.bs.single()) {
            (Some(b), None) => {
                return Err(Error::invalid(
                    "--bytes",
                    b,
                    format!(
                        "--time with a mix of request sizes (--bs {}); --bytes counts requests of one size",
                        w.bs
                    ),
                ));
            }
            (Some(b), Some(bs)) if b.0 == 0 || b.0 % bs != 0 => {
                return Err(Error::invalid(
                    "--bytes",
                    b,
                    format!("a positive multiple of --bs {}", w.bs),
                ));
            }
            (Some(_), _) => {}
            (None, _) if w.setup.time.is_none() => w.setup.time = Some(Dur(DEFAULT_TIME)),
            (None, _) => {}
        }
        Ok(())
    }

    /// Refuses `--create` other than filled for a workload that reads, and a `--size` smaller
    /// than one request.
    fn check_region(&self) -> Result<()> {
        if self.setup.create != Create::Filled && self.reads() {
            return Err(Error::invalid(
                "--create",
                self.setup.create.name(),
                "filled with a workload that reads: never-written blocks read as zeros without \
             reaching the disk (sparse, empty and allocated are for write-only workloads)",
            ));
        }
        if let Some(s) = self.setup.size {
            if s.0 < self.bs.max() {
                return Err(Error::invalid(
                    "--size",
                    s,
                    format!(
                        "at least the largest request, {}",
                        crate::units::ByteSize(self.bs.max())
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Whether this workload issues any writes.
    pub fn writes(&self) -> bool {
        self.read_pct.unwrap_or_else(|| self.rw.default_read_pct()) < 100
    }

    /// Whether this workload issues any reads.
    pub fn reads(&self) -> bool {
        self.read_pct.unwrap_or_else(|| self.rw.default_read_pct()) > 0
    }

    /// The number of measured I/Os in `--bytes` mode.
    pub fn io_budget(&self) -> Option<u64> {
        match (self.setup.bytes, self.bs.single()) {
            (Some(b), Some(bs)) => Some(b.0 / bs),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
