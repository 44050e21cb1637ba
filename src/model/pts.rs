//! The SNIA PTS document (`kind: "pts"`): one test of the Solid State Storage Performance Test
//! Specification v2.0.2 (IOPS, throughput, latency or write saturation) on one target: how it
//! was purged and preconditioned, every round of the test's matrix with its tracking variable,
//! the steady-state measurement window and its fit, and the matrix averaged over that window.

use super::{Header, TargetInfo};
use crate::stats::summary::LatencySummary;
use serde::{Deserialize, Serialize};

/// Which PTS test ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PtsTest {
    /// Random I/O over block sizes × read/write mixes; tracks 4 KiB 100 % write IOPS.
    Iops,
    /// Sequential 128 KiB and 1 MiB reads and writes; tracks write throughput per size.
    Throughput,
    /// Random 0.5, 4 and 8 KiB at one thread and QD1; tracks 4 KiB 100 % write mean latency.
    Latency,
    /// Write saturation: random 4 KiB writes from the purged state over time.
    Wsat,
}

impl PtsTest {
    /// The name as typed on the command line and written in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            PtsTest::Iops => "iops",
            PtsTest::Throughput => "throughput",
            PtsTest::Latency => "latency",
            PtsTest::Wsat => "wsat",
        }
    }
}

/// A read/write mix: the share of reads in percent (PTS writes it R/W, e.g. 65/35).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Mix {
    /// Reads, % of requests (the rest are writes).
    pub read_pct: u8,
}

impl std::fmt::Display for Mix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.read_pct, 100 - self.read_pct)
    }
}

/// What a track's steady state is judged on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackFigure {
    /// I/Os per second.
    Iops,
    /// Bytes per second.
    BytesPerS,
    /// Mean latency, µs.
    MeanLatencyUs,
}

/// The tracking variable: one cell of the matrix and the figure of it that must settle.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tracking {
    /// The cell's request size.
    pub bs_bytes: u64,
    /// The cell's mix.
    pub mix: Mix,
    /// The figure.
    pub figure: TrackFigure,
}

/// Whether the purge happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PurgeState {
    /// The target took the purge over its whole region.
    Done,
    /// The target refused it (no discard, no hole punching): the test ran from whatever
    /// state the target was in.
    NotSupported,
}

/// How the purge was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PurgeMethod {
    /// BLKDISCARD over the region of a block device.
    Discard,
    /// fallocate(PUNCH_HOLE) over the region of a file: its blocks go back to the file
    /// system, which may or may not discard them on the device.
    PunchHole,
    /// Nothing to ask: the null engine opens no target.
    None,
}

/// The purge before a track.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Purge {
    /// Whether it happened.
    pub state: PurgeState,
    /// How it was asked for.
    pub method: PurgeMethod,
    /// Bytes of the region it covered (or was asked to cover).
    pub bytes: u64,
    /// The operating system's answer when it was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Workload-independent preconditioning: sequential 128 KiB writes over the region.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Precondition {
    /// Bytes asked for (PTS: twice the capacity; `--precondition` overrides).
    pub asked_bytes: u64,
    /// Bytes written.
    pub written_bytes: u64,
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// How long it took, s.
    pub seconds: f64,
}

/// One cell of one round: a request size at a mix for the round's time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Request size.
    pub bs_bytes: u64,
    /// Mix.
    pub mix: Mix,
    /// Measured window, s.
    pub seconds: f64,
    /// I/Os per second, reads and writes.
    pub iops: f64,
    /// Bytes per second, reads and writes.
    pub bytes_per_s: f64,
    /// Bytes written in the cell.
    pub written_bytes: u64,
    /// Latency of every I/O, µs.
    pub latency_us: LatencySummary,
    /// Failed I/Os.
    pub errors: u64,
    /// What the host did meanwhile, and which figures it could have moved (absent in older
    /// files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<super::host::HostNoise>,
}

/// One round: every cell of the matrix once, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// 1 for the first round.
    pub round: u32,
    /// When it began, s from the track's first round.
    pub start_s: f64,
    /// When it ended, likewise.
    pub end_s: f64,
    /// Bytes written since the track's purge when the round ended (preconditioning included).
    pub written_bytes: u64,
    /// The tracking variable's value in this round.
    pub tracking: f64,
    /// The cells, in the order they ran.
    pub cells: Vec<Cell>,
}

/// A measurement window of five rounds and PTS's steady-state rule over it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Its first round.
    pub first_round: u32,
    /// Its last round.
    pub last_round: u32,
    /// Mean of the tracking variable over it.
    pub mean: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Data excursion: (max − min) / mean, % (PTS: at most 20).
    pub range_pct: f64,
    /// Least-squares slope of the tracking variable against the round number, per round.
    pub slope: f64,
    /// The fitted line's value at the first round.
    pub intercept: f64,
    /// Slope excursion: how far the fitted line moves across the window, |slope| × (rounds −
    /// 1) / mean, % (PTS: at most 10).
    pub excursion_pct: f64,
    /// Whether both excursions are within PTS's bounds over five rounds.
    pub steady: bool,
}

/// How the track ended.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// Whether a window met the rule.
    pub reached: bool,
    /// The round that completed it (absent when none did).
    pub round: Option<u32>,
    /// The measurement window: the steady one, else the last five rounds (absent with fewer
    /// than five rounds).
    pub window: Option<Window>,
}

/// One cell averaged over the measurement window (PTS's tabular report).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellAverage {
    /// Request size.
    pub bs_bytes: u64,
    /// Mix.
    pub mix: Mix,
    /// Mean IOPS over the window's rounds.
    pub iops: f64,
    /// Mean bytes per second.
    pub bytes_per_s: f64,
    /// Mean of the rounds' mean latencies, µs.
    pub mean_latency_us: f64,
    /// Largest latency in the window, µs.
    pub max_latency_us: f64,
}

/// One steady-state determination: a purge, preconditioning, and rounds of a matrix until its
/// tracking variable settles (the throughput test has one per request size).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Track {
    /// What must settle.
    pub tracking: Tracking,
    /// Whether the cells run sequential (else random) offsets.
    pub sequential: bool,
    /// The matrix: request sizes, in the order they run within a mix.
    pub bs_bytes: Vec<u64>,
    /// The matrix: mixes, in the order they run.
    pub mixes: Vec<Mix>,
    /// The purge before it.
    pub purge: Purge,
    /// Preconditioning (absent for WSAT, which starts from the purged state).
    pub precondition: Option<Precondition>,
    /// The rounds, in order.
    pub rounds: Vec<Round>,
    /// Steady state.
    pub steady: SteadyState,
    /// The matrix averaged over the measurement window.
    pub window_matrix: Vec<CellAverage>,
}

/// The document `halfpower pts --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The machine.
    pub host: crate::oscounters::host::Host,
    /// The target as given.
    pub target: String,
    /// The target as opened.
    pub target_info: TargetInfo,
    /// The test.
    pub test: PtsTest,
    /// The region tested (PTS's user capacity, its active range 100 %), bytes.
    pub capacity_bytes: u64,
    /// Threads.
    pub threads: u32,
    /// I/Os in flight per thread.
    pub qd: u32,
    /// Each cell's time in a round, s (PTS: 60).
    pub round_s: f64,
    /// The most rounds a track runs (PTS: 25; WSAT: none, it runs to `wsat_bytes`).
    pub max_rounds: Option<u32>,
    /// WSAT: the bytes it writes before it ends (PTS: four times the capacity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wsat_bytes: Option<u64>,
    /// The tracks, in order.
    pub tracks: Vec<Track>,
    /// Whether Ctrl-C cut the test short.
    pub interrupted: bool,
    /// What the user should know.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for PtsReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.tracks.iter().all(|t| t.rounds.is_empty())).then_some("the PTS test has no rounds")
    }
}

impl crate::units::Choice for PtsTest {
    const ALL: &'static [Self] = &[
        PtsTest::Iops,
        PtsTest::Throughput,
        PtsTest::Latency,
        PtsTest::Wsat,
    ];

    fn name(self) -> &'static str {
        PtsTest::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            PtsTest::Iops => {
                "Random I/O over block sizes × read/write mixes; tracks 4 KiB 100 % write IOPS"
            }
            PtsTest::Throughput => {
                "Sequential 128 KiB and 1 MiB reads and writes; tracks write throughput per size"
            }
            PtsTest::Latency => {
                "Random 0.5, 4 and 8 KiB at one thread and QD1; tracks 4 KiB 100 % write mean latency"
            }
            PtsTest::Wsat => {
                "Write saturation: random 4 KiB writes from the purged state over time"
            }
        }
    }
}
