//! The capture document (`kind: "capture"`): what `halfpower capture` recorded of one device's
//! requests, summarised, and what the recording cost.

use super::Header;
use crate::stats::summary::LatencySummary;
use serde::{Deserialize, Serialize};

/// What a captured request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CapturedOp {
    /// A read.
    Read,
    /// A write.
    Write,
    /// A cache flush without data.
    Flush,
    /// A discard (trim).
    Discard,
}

impl CapturedOp {
    /// The letter of halfpower's trace format.
    pub fn letter(self) -> char {
        match self {
            CapturedOp::Read => 'R',
            CapturedOp::Write => 'W',
            CapturedOp::Flush => 'F',
            CapturedOp::Discard => 'D',
        }
    }
}

/// One request the block layer saw on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapturedRequest {
    /// When it entered the block layer, ns from the capture's first request.
    pub at_ns: u64,
    /// What it did.
    pub op: CapturedOp,
    /// Byte offset on the device.
    pub offset: u64,
    /// Bytes (0 for a flush).
    pub bytes: u64,
    /// Forced unit access.
    pub fua: bool,
    /// Marked synchronous.
    pub sync: bool,
    /// In the OS queue (block layer start to driver), ns.
    pub queue_ns: u64,
    /// At the device (driver to completion), ns.
    pub device_ns: u64,
}

/// One request size's share of the requests.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SizeShare {
    /// Bytes.
    pub bytes: u64,
    /// Share of the reads and writes, %.
    pub pct: f64,
}

/// A captured workload in figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CaptureSummary {
    /// Reads and writes.
    pub requests: u64,
    /// Of those, reads.
    pub reads: u64,
    /// Flushes without data.
    pub flushes: u64,
    /// Discards.
    pub discards: u64,
    /// Reads and writes per second over the capture's time.
    pub iops: f64,
    /// From the first read or write to the last one's start, s.
    pub span_s: f64,
    /// Reads and writes per second over that span (the workload's own rate when it ran for
    /// part of the capture).
    pub span_iops: f64,
    /// Share of reads, %.
    pub read_pct: f64,
    /// Bytes per second read and written (MB/s = 10^6 bytes/s: divide by 10^6).
    pub bytes_per_s: f64,
    /// The most common request sizes (at most 8), largest share first.
    pub sizes: Vec<SizeShare>,
    /// Share of reads and writes that start where the previous one of the same direction
    /// ended, %.
    pub sequential_pct: f64,
    /// The busiest 100 ms against the mean 100 ms (requests): 1 for an even load.
    pub peak_to_mean_100ms: f64,
    /// Requests in flight (started, not completed), time-weighted mean.
    pub inflight_mean: f64,
    /// The most in flight at once.
    pub inflight_max: u32,
    /// Block layer start to completion, µs.
    pub latency_us: LatencySummary,
    /// Driver to completion, µs.
    pub device_us: LatencySummary,
}

/// What the capture cost.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CaptureOverhead {
    /// CPU time of halfpower itself (reading and matching the events) over the capture's
    /// wall time, % of one CPU.
    pub cpu_pct: f64,
    /// Events the tracer's buffers lost: requests may be missing when above 0.
    pub lost_events: u64,
    /// Events read.
    pub events: u64,
}

/// The document `halfpower capture --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CaptureReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The machine.
    pub host: crate::oscounters::host::Host,
    /// The device captured (its /dev name).
    pub device: String,
    /// How long it was captured, s.
    pub seconds: f64,
    /// Where the trace was written, and in which format.
    pub trace: Option<String>,
    /// The trace's format: halfpower's, or fio's iolog v3.
    pub format: crate::access::replay::TraceFormat,
    /// The workload in figures.
    pub summary: CaptureSummary,
    /// What the capture cost.
    pub overhead: CaptureOverhead,
    /// Whether Ctrl-C ended it early.
    pub interrupted: bool,
    /// What the user should know.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for CaptureReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        Some("a capture's summary has no chart (replay its trace)")
    }
}
