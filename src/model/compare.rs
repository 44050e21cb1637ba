//! The comparison document (`kind: "compare"`): per figure, the ratio of run B to run A with
//! its 95 % interval and whether the difference is significant (`analysis::compare`).

use super::Header;
use crate::access::RequestSize;
use crate::plan::{EngineKind, RwMode};
use serde::{Deserialize, Serialize};

/// A setting of the workload the two compared runs ran differently: A's value, then B's.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadDifference {
    /// Direction and pattern.
    Rw(RwMode, RwMode),
    /// The read share of one mixed mode, %.
    ReadPct(u8, u8),
    /// Request size or mix.
    Bs(RequestSize, RequestSize),
    /// I/Os in flight per thread.
    Qd(u32, u32),
    /// Threads per target.
    Threads(u32, u32),
    /// Targets.
    Targets(usize, usize),
    /// The engine that ran.
    Engine(EngineKind, EngineKind),
    /// Through the page cache (buffered) or not.
    Buffered(bool, bool),
    /// Writes that wait for stable storage (O_DSYNC or O_SYNC).
    WriteThrough(bool, bool),
    /// Of two write-through runs: O_SYNC (the file's metadata too) against O_DSYNC.
    SyncMetadata(bool, bool),
    /// The access settings (`access::Access`) that differ.
    Access(Vec<AccessSetting>),
}

/// One of the access settings two compared runs may set differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessSetting {
    /// Where random offsets fall (`--dist`).
    Distribution,
    /// The share of random offsets, or the sequential requests after each (`--random-pct`).
    RandomShare,
    /// A sequential stride.
    Stride,
    /// A rate cap in bytes or I/Os per second.
    Rate,
    /// Closed or open loop, and an open loop's bound on requests in flight.
    Arrivals,
    /// Think time.
    Think,
    /// fsync, fdatasync or the end fsync.
    Flushes,
    /// Dropping the page cache every pass (`--invalidate`).
    Invalidate,
    /// Blocks given back every pass (`experiment allocation`).
    Reallocate,
}

/// Where a ratio's interval comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareMethod {
    /// Welch, from the repetitions of both runs (`--repeat`).
    Repetitions,
    /// One side repeated, the other a single run: the repeated side's run-to-run spread for
    /// both (the single run's within-run interval when wider); a single run within the range of
    /// the other side's runs is never significant.
    RepeatedSide,
    /// The delta method, from each single run's within-run interval.
    WithinRun,
    /// No interval: a figure without one on some side (CPU µs/IO of single runs).
    None,
}

/// One figure compared.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FigureComparison {
    /// The figure (written as its path in a run's `results`).
    pub figure: super::run::RunFigure,
    /// Its value in A (the mean of A's repetitions).
    pub a: f64,
    /// Its value in B.
    pub b: f64,
    /// B / A.
    pub ratio: f64,
    /// The 95 % interval of the ratio (absent without one).
    pub ci95_low: Option<f64>,
    /// Its upper end.
    pub ci95_high: Option<f64>,
    /// Whether the interval excludes 1, the change exceeds the threshold, and (one side
    /// repeated) the single run lies outside the range of the other side's runs.
    pub significant: bool,
    /// Where the interval comes from.
    pub method: CompareMethod,
}

/// The document `halfpower compare --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CompareReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The file of run A.
    pub a: String,
    /// The file of run B.
    pub b: String,
    /// The smallest change that counts, as a share (0.02 = 2 %).
    pub threshold: f64,
    /// Each figure both runs have.
    pub figures: Vec<FigureComparison>,
    /// Warnings (the two runs ran different workloads; absent in older files).
    #[serde(default)]
    pub warnings: Vec<super::Warning>,
}

impl super::Report for CompareReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }
}
