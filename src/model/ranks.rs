//! The figures only a job of many ranks (MPI) has: the stonewall (first done), the spread
//! between ranks, per-host subtotals and what the coordination cost. Each rank's own results
//! are `run::RankRun`.

use serde::{Deserialize, Serialize};

/// The job up to the moment its first rank finished (IOR's and elbencho's stonewall figure):
/// every rank's I/Os until then.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FirstDone {
    /// When the first rank finished, s after the common start of the measured phase.
    pub seconds: f64,
    /// The rank that finished first.
    pub rank: u32,
    /// I/Os of all ranks until then: each rank's count at that instant, linear between its
    /// counts 100 ms apart (`Results::counts`; from its per-second series in older files).
    pub ios: f64,
    /// Bytes of all ranks until then.
    pub bytes: f64,
    /// `ios` / `seconds`.
    pub iops: f64,
    /// `bytes` / `seconds`.
    pub bytes_per_s: f64,
}

/// A rank's completed I/Os and bytes at one instant of its measured phase: what the stonewall
/// reads each rank's count at the first rank's end from.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Count {
    /// Seconds after the start of the measured phase.
    pub at_s: f64,
    /// I/Os completed by then.
    pub ios: u64,
    /// Bytes completed by then.
    pub bytes: u64,
}

/// How far apart the ranks were.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RankSpread {
    /// The slowest rank (lowest IOPS) and its IOPS.
    pub slowest_rank: u32,
    /// Its IOPS.
    pub slowest_iops: f64,
    /// The fastest rank and its IOPS.
    pub fastest_rank: u32,
    /// Its IOPS.
    pub fastest_iops: f64,
    /// fastest ÷ slowest (1: even).
    pub ratio: f64,
    /// The shortest and longest measured window of a rank, s.
    pub seconds: [f64; 2],
}

/// The ranks of one host together.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HostSubtotal {
    /// Host name.
    pub host: String,
    /// Its ranks.
    pub ranks: Vec<u32>,
    /// I/Os of its ranks.
    pub ios: u64,
    /// Bytes of its ranks.
    pub bytes: u64,
    /// Their I/Os over the job's window.
    pub iops: f64,
    /// Their bytes over the job's window.
    pub bytes_per_s: f64,
    /// Process CPU µs per I/O of its ranks.
    pub cpu_us_per_io: f64,
}

/// What a job of several ranks adds to `results`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Job {
    /// Ranks in the job.
    pub ranks: u32,
    /// The stonewall figure.
    pub first_done: FirstDone,
    /// Slowest and fastest rank.
    pub spread: RankSpread,
    /// Per host.
    pub hosts: Vec<HostSubtotal>,
    /// Rank 0's waits in the phase barriers (after setup, before the measured phase, after
    /// it), µs: the skew between ranks plus MPI's own cost.
    pub barrier_us: Vec<f64>,
    /// Rank 0's time to gather every rank's document, µs.
    pub gather_us: f64,
}
