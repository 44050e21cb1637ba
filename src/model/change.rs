//! Changes over time: a step found in a run's per-second series (`results.changes`) or in a
//! monitored device's intervals — where it is, in which figure, from which level to which,
//! and its cause when the counters tell, with the numbers that decided it
//! (`analysis::changes` finds them; docs/figures.md says how).

use serde::{Deserialize, Serialize};

/// The series a change was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeFigure {
    /// I/Os per second (a run's `timeseries[].iops`, a device's r/s + w/s).
    Iops,
    /// A run's 99th percentile latency per second, µs (`timeseries[].p99_us`).
    P99Us,
    /// A device's mean response time per interval, ms (iostat's await, `response_ms`).
    ResponseMs,
}

/// Why the level changed, where the device's counters tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeCause {
    /// Throughput moved to a flat level from a flat level while the device's own time per
    /// I/O moved by less than half of what halfpower's latency did: the requests wait outside
    /// the device (a throttle, a cloud volume's limit).
    Cap,
    /// The device's own time per I/O grew by at least half of what halfpower's latency grew:
    /// the device itself got slower (an SSD's cache full, thermal throttling).
    DeviceSlower,
    /// A higher, uneven rate, then a lower flat one, without the device's time per I/O
    /// growing: credit spent, then the volume's baseline.
    BurstEnded,
}

/// The numbers behind a change and its cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeEvidence {
    /// Seconds the level before lasted (from the run's start or the change before).
    pub seconds_before: f64,
    /// Seconds the level after lasted (to the run's end or the next change).
    pub seconds_after: f64,
    /// Spread of the figure within the level before: 1.4826 × the median absolute deviation,
    /// % of the level (a flat level is within [`FLAT_PCT`]).
    pub spread_before_pct: f64,
    /// Likewise after.
    pub spread_after_pct: f64,
    /// The series' noise the detector's penalty was scaled to: the standard deviation of its
    /// logarithm, from the median absolute difference of successive values, % (about).
    pub noise_pct: f64,
    /// The device's time per I/O over the level before, µs (Little's law on its queue: aqu-sz
    /// over the I/Os per second, the median of the level's seconds; absent without a disk).
    pub device_us_before: Option<f64>,
    /// Likewise after.
    pub device_us_after: Option<f64>,
    /// halfpower's own mean latency over the level before, µs (the median of its seconds):
    /// the device's time per I/O and any wait above the device (a throttle's queue).
    pub latency_us_before: Option<f64>,
    /// Likewise after.
    pub latency_us_after: Option<f64>,
    /// For a throughput change, the latency figure's level before (a run's p99, µs; a
    /// device's response time, ms) when it moved with it; for a latency change, the I/Os per
    /// second before.
    pub other_before: Option<f64>,
    /// Likewise after.
    pub other_after: Option<f64>,
}

/// The widest spread (% of its level) of a level taken as flat: the seconds of a loop device
/// held by blkio throttling vary by up to 8 % on a 2-CPU VM in the seconds after its limit
/// changes (the throttle's slices restart), a spending burst by 15 % and more.
pub const FLAT_PCT: f64 = 10.0;

/// A step in one of the series.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// When, s since the start of the measured window (or of the monitor's first interval).
    pub at_s: f64,
    /// The series it is in.
    pub figure: ChangeFigure,
    /// The level before (median of its seconds), in the figure's unit.
    pub before: f64,
    /// The level after.
    pub after: f64,
    /// The cause, where the counters tell (absent otherwise).
    pub cause: Option<ChangeCause>,
    /// The numbers behind it.
    pub evidence: ChangeEvidence,
}
