//! The `results.open_loop` object of a run with open-loop arrivals (or a replayed trace): what
//! was asked, how faithfully it was issued, and the service time beside the latency.

use crate::access::Arrivals;
use crate::stats::Histogram;
use crate::stats::recorder::OpenStats;
use crate::stats::summary::LatencySummary;
use serde::{Deserialize, Serialize};

/// How late requests were issued after their due times, µs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Lateness {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

impl Lateness {
    /// The lateness figures of `h` (ns), in µs.
    pub fn of(h: &Histogram) -> Self {
        Lateness {
            mean: h.mean_ns() / 1e3,
            p50: h.quantile_ns(0.5) / 1e3,
            p99: h.quantile_ns(0.99) / 1e3,
            max: h.max_ns() as f64 / 1e3,
        }
    }
}

/// An open loop's figures besides the latency in `results.read`/`write`/`total`, which run
/// from each request's due time (docs/figures.md, open loop).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct OpenLoop {
    /// How the due times were drawn.
    pub arrivals: Arrivals,
    /// The rate asked for, requests per second (absent when only a byte rate was given).
    pub asked_iops: Option<f64>,
    /// Requests issued in the measured window.
    pub issued: u64,
    /// Of those, issued more than 1 ms after their due time.
    pub late: u64,
    /// Issue time minus due time, µs.
    pub late_us: Lateness,
    /// Submission to completion of each request, µs (what a closed loop calls latency).
    pub service_us: LatencySummary,
    /// The most requests in flight at once in one thread.
    pub max_inflight: u32,
    /// The bound on requests in flight per thread (`--max-inflight`).
    pub inflight_limit: u32,
}

impl OpenLoop {
    /// The figures of `stats` for arrivals `arrivals` at `asked_iops`, with at most
    /// `inflight_limit` in flight.
    pub fn of(
        stats: &OpenStats,
        arrivals: Arrivals,
        asked_iops: Option<f64>,
        inflight_limit: u32,
    ) -> Self {
        OpenLoop {
            arrivals,
            asked_iops,
            issued: stats.lateness.count(),
            late: stats.late,
            late_us: Lateness::of(&stats.lateness),
            service_us: LatencySummary::of(&stats.service),
            max_inflight: stats.max_inflight,
            inflight_limit,
        }
    }
}
