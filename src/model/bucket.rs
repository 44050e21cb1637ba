//! A credit bucket found in a run (`results.bucket`): a burst rate while credits lasted, the
//! baseline after, and the credits spent, each with its interval (`analysis::bucket` finds
//! it; docs/figures.md says how).

use crate::stats::summary::Ci95;
use serde::{Deserialize, Serialize};

/// A step down to a flat baseline at a constant offered load, with latency rising: what a
/// token bucket does when its credits run out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    /// When the burst had ended, s since the measured window's start: the first second at the
    /// baseline's level.
    pub ended_at_s: f64,
    /// The burst: I/Os per second over the seconds before `ended_at_s` at the burst's level
    /// (within 10 % of the step's level before: the second the burst ended in is left out).
    pub burst_iops: f64,
    /// Its interval.
    pub burst_iops_ci95: Ci95,
    /// The burst's bytes per second.
    pub burst_bytes_per_s: f64,
    /// The baseline: I/Os per second over the seconds from `ended_at_s` to the end.
    pub baseline_iops: f64,
    /// Its interval.
    pub baseline_iops_ci95: Ci95,
    /// The baseline's bytes per second.
    pub baseline_bytes_per_s: f64,
    /// The credits spent within the window, in I/Os: the I/Os done above the baseline in every
    /// second before `ended_at_s` (Σ (rate − baseline) × 1 s).
    pub credits_ios: f64,
    /// Its interval (the baseline's, over the burst's seconds).
    pub credits_ios_ci95: Ci95,
    /// Likewise in bytes.
    pub credits_bytes: f64,
    /// halfpower's mean latency over the burst's seconds, µs.
    pub burst_latency_us: f64,
    /// Over the baseline's, µs.
    pub baseline_latency_us: f64,
}

/// `experiment burst`: a bucket drained, rested and drained again. The first drain gives the
/// burst, the baseline and the credits the bucket held; the second, after the rest, the
/// credits the rest put back, and so the refill per second of rest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Refill {
    /// The first drain's bucket; None when it showed none (no burst, or no flat baseline
    /// held within its --time).
    pub first: Option<Bucket>,
    /// The second drain's, after the rest.
    pub second: Option<Bucket>,
    /// The time between the two drains' measured phases, s: the rest asked, plus what the
    /// second drain took to start beyond the first's start.
    pub rest_s: f64,
    /// Credits put back per second of rest, in I/Os: the second drain's credits ÷ `rest_s`
    /// (absent without both buckets). A lower bound when `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refill_ios_per_s: Option<f64>,
    /// Its interval (the second drain's credits', over `rest_s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refill_ios_per_s_ci95: Option<Ci95>,
    /// Likewise in bytes per second of rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refill_bytes_per_s: Option<f64>,
    /// The rest refilled the bucket: the second drain found as many credits as the first,
    /// within their intervals, so the bucket may have been full before the rest ended and the
    /// refill is at least `refill_ios_per_s` (a shorter --rest measures it).
    pub full: bool,
}
