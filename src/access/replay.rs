//! A trace's requests as a replay issues them ([`ReplayPlan`]): the requests with their times,
//! and how offsets beyond the target and writes are treated.
//! `input::trace` reads the trace; the worker's `Replay` source issues it.

use crate::engine::IoDir;
use std::sync::Arc;

/// Which format a trace was in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// halfpower's own, version 1.
    Halfpower,
    /// fio's iolog version 2: no times (except `wait` actions).
    FioV2,
    /// fio's iolog version 3: a time in µs on every line.
    FioV3,
}

/// One request of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracedRequest {
    /// Its time from the trace's start, ns (`None`: the trace has no times).
    pub at_ns: Option<u64>,
    /// Read or write.
    pub dir: IoDir,
    /// Byte offset.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
}

/// How one replay issues a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayPlan {
    /// The requests, in the trace's order.
    pub requests: Arc<[TracedRequest]>,
    /// Offsets beyond the target's region wrap around it (else the replay was refused).
    pub wrap: bool,
    /// Writes are issued as reads of the same blocks.
    pub reads_only: bool,
}
