//! The self-test document (`kind: "selftest"`): what this machine lets halfpower measure and
//! how well: the clock, how late a sleeping thread wakes, the engine's own floor, known
//! answers (a paced null engine, a throttled loop device) with their errors, and the statement
//! the figures support (docs/figures.md, "Self-test").

use super::Header;
use super::host::HostNoise;
use crate::oscounters::host::Host;
use serde::{Deserialize, Serialize};

/// `halfpower selftest --json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SelftestReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The host.
    pub host: Host,
    /// How long the self-test took, s.
    pub seconds: f64,
    /// The monotonic clock.
    pub clock: ClockFacts,
    /// How late a thread sleeping to deadlines wakes.
    pub wake: Wake,
    /// halfpower's own cost: the null engine at one I/O in flight.
    pub floor: Floor,
    /// Known answers run, each with its error and the bound it is held to.
    pub checks: Vec<Check>,
    /// Known answers that could not run, and why.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// What the figures support.
    pub statement: Statement,
    /// The host over each measured phase.
    #[serde(default)]
    pub hosts: Vec<PhaseHost>,
    /// What was warned while it measured (absent from documents written before it was kept).
    #[serde(default)]
    pub warnings: Vec<super::Warning>,
}

impl super::Report for SelftestReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }
}

#[cfg(test)]
impl SelftestReport {
    /// A report of `checks` and `statement` written at 2026-11-30T08:00:00Z, the rest empty:
    /// for the renderers' tests.
    pub fn for_tests(checks: Vec<Check>, statement: Statement) -> Self {
        SelftestReport {
            header: super::Header::new(
                super::Kind::Selftest,
                vec![],
                "2026-11-30T08:00:00Z".into(),
            ),
            host: crate::oscounters::host::read(),
            seconds: 30.0,
            clock: Default::default(),
            wake: Default::default(),
            floor: Default::default(),
            checks,
            skipped: Vec::new(),
            statement,
            hosts: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// The host over one phase of the self-test.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PhaseHost {
    /// Which phase.
    pub phase: Phase,
    /// What the host did meanwhile.
    pub host: HostNoise,
}

/// The self-test's measured phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The null engine at one I/O in flight.
    Floor,
    /// The null engine paced at a known rate.
    Paced,
    /// The loop device capped in IOPS.
    ThrottledIops,
    /// The loop device capped in bytes per second.
    ThrottledBandwidth,
}

/// The monotonic clock.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ClockFacts {
    /// The kernel's clock source.
    pub source: Option<String>,
    /// The resolution the kernel states for CLOCK_MONOTONIC, ns.
    pub resolution_ns: f64,
    /// The smallest step seen between two reads in a row, ns.
    pub step_ns: f64,
    /// What one read costs, ns (mean over a million).
    pub read_ns: f64,
}

/// A thread sleeping to deadlines 1 ms apart.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Wake {
    /// Wake-ups.
    pub wakeups: u64,
    /// Median lateness, µs.
    pub late_p50_us: f64,
    /// 99th percentile, µs.
    pub late_p99_us: f64,
    /// The 99th percentile's one-sided 95 % upper confidence bound from this many wake-ups,
    /// µs: the quantile 0.99 + 1.645 √(0.99 × 0.01 / n) (p99.37 from 2000).
    #[serde(default)]
    pub late_p99_upper_us: f64,
    /// Latest, µs.
    pub late_max_us: f64,
    /// Share over 1 ms late (0–1).
    pub over_1ms_share: f64,
}

/// The null engine at one I/O in flight: what halfpower itself costs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Floor {
    /// CPU per I/O, ns.
    pub cpu_ns_per_io: f64,
    /// I/Os per second.
    pub iops: f64,
    /// Median latency (submission to completion of a request that does nothing), µs.
    pub latency_p50_us: f64,
}

/// One known answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Check {
    /// What was checked.
    pub kind: CheckKind,
    /// The answer known beforehand (or the independent figure it is compared with), or the
    /// ceiling the figure must stay under ([`Known::Ceiling`]).
    pub known: f64,
    /// What `known` is, for readers of the JSON: always `kind.known_is()` (documents written
    /// before it was said lack it; readers here go by the kind).
    #[serde(default)]
    pub known_is: Known,
    /// halfpower's figure.
    pub measured: f64,
    /// (measured − known) / known, %; for a ceiling, the measured error as a share of the
    /// statement's smallest latency (`statement.latency_above_us`).
    pub error_pct: f64,
    /// The bound it is held to, %.
    pub bound_pct: f64,
    /// Whether it held.
    pub held: bool,
}

impl CheckKind {
    /// What this check's `known` figure is: a ceiling for the paced latency check (its figure
    /// is itself an error), an answer for every other.
    pub fn known_is(self) -> Known {
        match self {
            CheckKind::PacedLatency => Known::Ceiling,
            _ => Known::Answer,
        }
    }
}

/// What a check's `known` figure is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Known {
    /// The answer the figure should equal: the error is (measured − known) ÷ known.
    #[default]
    Answer,
    /// A ceiling the figure (itself an error, in µs) must stay under; the error is the figure
    /// as a share of the statement's smallest latency.
    Ceiling,
}

/// The known answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// The null engine paced at a known rate (open loop, even gaps): its achieved rate.
    PacedRate,
    /// The paced null engine's requests complete the instant they are issued, so their
    /// latency from the due time is the measuring error alone: its p99 against the stated
    /// latency bound at the stated smallest latency.
    PacedLatency,
    /// A loop device over RAM throttled to a known IOPS (4k random reads): its IOPS.
    ThrottledIops,
    /// The same device throttled to a known MB/s (1m sequential reads): its MB/s.
    ThrottledBandwidth,
    /// halfpower's IOPS on the throttled device against the kernel's count of the same
    /// window (/proc/diskstats).
    KernelIops,
    /// halfpower's bytes per second on the throttled device against the kernel's.
    KernelBandwidth,
}

/// A known answer that could not run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Skipped {
    /// Which.
    pub what: SkippedCheck,
    /// Why.
    pub why: SkipReason,
    /// The system's own words, where there are some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The checks that can be skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkippedCheck {
    /// The throttled loop device.
    ThrottledDevice,
}

/// Why a check did not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// It needs root.
    NotRoot,
    /// No loop device could be made (no loop driver, no /dev/loop-control).
    NoLoopDevice,
    /// No throttling cgroup could be made.
    NoThrottle,
    /// `--no-device` asked to leave it out.
    LeftOut,
}

/// What the figures support, in one sentence: latencies above `latency_above_us` are measured
/// within ±`latency_within_pct` %, rates within ±`rates_within_pct` %.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Statement {
    /// The smallest latency measured within the bound, µs: the latency at which a measuring
    /// error as large as the wake-ups' 99th percentile lateness is `latency_within_pct` of it.
    pub latency_above_us: f64,
    /// The bound on a latency's error, %.
    pub latency_within_pct: f64,
    /// The bound on a rate's error, %: the share of the self-test's time the host stalled this
    /// process or stole CPU, at least the paced clock's 0.1 %.
    pub rates_within_pct: f64,
    /// Whether every known answer held within these bounds.
    pub held: bool,
}
