//! The replay document (`kind: "replay"`): a trace replayed open-loop at several speeds, per
//! speed what was asked and what was achieved, and the headroom: the speed at which the
//! response time doubles against the trace's own pace.

use super::Header;
use super::open::Lateness;
use crate::access::replay::TraceFormat;
use crate::model::TargetInfo;
use crate::oscounters::diskstats::DeviceDelta;
use crate::stats::summary::LatencySummary;
use serde::{Deserialize, Serialize};

/// What a trace holds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TraceSummary {
    /// The trace file.
    pub path: String,
    /// Its format.
    pub format: TraceFormat,
    /// The file or device it was taken on, when it names one.
    pub file: Option<String>,
    /// Reads and writes replayed.
    pub requests: u64,
    /// Of those, reads (as recorded, before `--reads-only`).
    pub reads: u64,
    /// Bytes of all requests.
    pub bytes: u64,
    /// From the first request's time to the last's, s (0 for a trace without times).
    pub span_s: f64,
    /// Requests per second over that span (absent without times).
    pub iops: Option<f64>,
    /// Syncs and flushes in the trace, not replayed.
    pub syncs: u64,
    /// Trims and discards in the trace, not replayed.
    pub trims: u64,
    /// Whether the requests carry times (else they were issued as fast as `depth` allowed).
    pub timed: bool,
}

/// One replay of the trace.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ReplayPoint {
    /// The speed: the trace's times were divided by it.
    pub speed: f64,
    /// The rate the trace asks at this speed, requests per second.
    pub asked_iops: f64,
    /// The rate achieved: requests completed over the measured window.
    pub achieved_iops: f64,
    /// The measured window, s.
    pub seconds: f64,
    /// Response time from each request's due time, µs.
    pub latency_us: LatencySummary,
    /// Submission to completion, µs.
    pub service_us: LatencySummary,
    /// Issue time minus due time, µs.
    pub late_us: Lateness,
    /// Requests issued more than 1 ms after their due time.
    pub late: u64,
    /// Requests issued.
    pub issued: u64,
    /// The most requests in flight at once.
    pub max_inflight: u32,
    /// Failed I/Os.
    pub errors: u64,
    /// OS counters of the disks underneath, over the same window.
    pub devices: Vec<DeviceDelta>,
    /// What the host did meanwhile, and which figures it could have moved (absent in older
    /// files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<super::host::HostNoise>,
}

/// What stopped the response time from staying within double the trace's own.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HeadroomLimit {
    /// The device: requests were issued on time and waited for it.
    Device,
    /// The bound on requests in flight (`--max-inflight`) was reached, so requests waited for
    /// a slot (raise it to see the device's own limit).
    QueueLimit,
    /// The replayer could not issue requests on time (CPU): no figure beyond is trusted.
    Replayer,
    /// Not reached up to the fastest speed tried.
    NotReached,
}

/// The headroom of the trace on this target.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Headroom {
    /// The speed at which the mean response time reaches double that of speed 1 (absent when
    /// not reached).
    pub speed_at_double_mean: Option<f64>,
    /// Likewise for the 99th percentile.
    pub speed_at_double_p99: Option<f64>,
    /// What limited it.
    pub limit: HeadroomLimit,
    /// The fastest speed tried.
    pub fastest_tried: f64,
    /// The bracket's width the search stopped at, a share of its lower speed
    /// (`--headroom-precision`; 0.02 in files written before it was asked).
    #[serde(default = "two_percent")]
    pub precision: f64,
    /// The figures searched (`--headroom-of`; both in files written before it was asked).
    #[serde(default)]
    pub of: HeadroomOf,
}

/// Which figures' doubling the headroom search looks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HeadroomOf {
    /// The mean and the 99th percentile.
    #[default]
    Both,
    /// The mean response time only.
    Mean,
    /// The 99th percentile only.
    P99,
}

impl HeadroomOf {
    /// Whether the mean is searched.
    pub fn mean(self) -> bool {
        self != HeadroomOf::P99
    }

    /// Whether the 99th percentile is searched.
    pub fn p99(self) -> bool {
        self != HeadroomOf::Mean
    }
}

impl crate::units::Choice for HeadroomOf {
    const ALL: &'static [Self] = &[HeadroomOf::Both, HeadroomOf::Mean, HeadroomOf::P99];

    fn name(self) -> &'static str {
        match self {
            HeadroomOf::Both => "both",
            HeadroomOf::Mean => "mean",
            HeadroomOf::P99 => "p99",
        }
    }

    fn help(self) -> &'static str {
        match self {
            HeadroomOf::Both => "The mean and the 99th percentile",
            HeadroomOf::Mean => "The mean response time only (fewer replays)",
            HeadroomOf::P99 => "The 99th percentile only (fewer replays)",
        }
    }
}

/// The precision of a search written before `--headroom-precision`.
fn two_percent() -> f64 {
    0.02
}

/// The document `halfpower replay --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ReplayReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The machine.
    pub host: crate::oscounters::host::Host,
    /// The trace.
    pub trace: TraceSummary,
    /// The target it was replayed on.
    pub target: TargetInfo,
    /// Writes were replayed as reads of the same blocks (`--reads-only`).
    pub reads_only: bool,
    /// Offsets beyond the target wrapped around it (`--wrap`).
    pub wrapped: bool,
    /// One point per speed, in the order they ran.
    pub points: Vec<ReplayPoint>,
    /// With `--headroom`: the speeds at which the response time doubles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<Headroom>,
    /// Whether Ctrl-C cut the replay short.
    pub interrupted: bool,
    /// What the user should know (trace notes, failed I/Os).
    pub warnings: Vec<super::Warning>,
}

impl super::Report for ReplayReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }
}
