//! The evidence of a diagnosis as data: each finding behind a verdict with the numbers it
//! compared (`render::words` says it in words). Filled by `analysis::rules` and
//! `analysis::diagnose`.

use super::device::DeviceClass;
use serde::{Deserialize, Deserializer, Serialize};

/// The one-word diagnosis of a device over an interval or a whole log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Counters contradict each other.
    Invalid,
    /// Disk busy while the system pages hard: fix memory, not disks.
    MemoryBound,
    /// Queue time above service time, or busy and queued beyond the seed's thresholds.
    Overloaded,
    /// Interrupt or processor time saturated.
    CpuBound,
    /// Service time above expectation.
    Slow,
    /// Doing work within expectations.
    Healthy,
    /// Nothing to speak of.
    Idle,
}

impl Verdict {
    /// The name as written in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Invalid => "invalid",
            Verdict::MemoryBound => "memory-bound",
            Verdict::Overloaded => "overloaded",
            Verdict::CpuBound => "cpu-bound",
            Verdict::Slow => "slow",
            Verdict::Healthy => "healthy",
            Verdict::Idle => "idle",
        }
    }
}

/// Where a device's expected service time comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExpectationSource {
    /// The typical figures of its class (`analysis::expect::typical`).
    #[default]
    Class,
    /// The `--profile` measured on it (or named for it with `--profile-device`).
    Profile,
}

impl ExpectationSource {
    /// The name as written in JSON.
    pub fn name(self) -> &'static str {
        match self {
            ExpectationSource::Class => "class",
            ExpectationSource::Profile => "profile",
        }
    }
}

/// The figure a finding is about, as the evidence table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Utilization, %.
    UtilPct,
    /// Mean number in the system (or per member disk).
    QueueLength,
    /// Service time, ms.
    ServiceMs,
    /// Response time, ms.
    ResponseMs,
    /// Queue time, ms.
    QueueMs,
    /// I/Os per second.
    Iops,
    /// I/Os completed in the interval.
    IntervalIos,
    /// Interrupt time, %.
    InterruptPct,
    /// Processor busy, %.
    CpuPct,
    /// Hard paging, pages/s.
    PagingS,
    /// Growth of response time per request in the system, ms.
    ResponseMsPerQueued,
    /// Active intervals counted.
    Intervals,
}

impl Figure {
    /// The name as in the JSON of the figures (`util_pct`, `queue_ms`, …).
    pub fn name(self) -> &'static str {
        match self {
            Figure::UtilPct => "util_pct",
            Figure::QueueLength => "queue_length",
            Figure::ServiceMs => "service_ms",
            Figure::ResponseMs => "response_ms",
            Figure::QueueMs => "queue_ms",
            Figure::Iops => "iops",
            Figure::IntervalIos => "interval_ios",
            Figure::InterruptPct => "interrupt_pct",
            Figure::CpuPct => "cpu_pct",
            Figure::PagingS => "paging_s",
            Figure::ResponseMsPerQueued => "response_ms_per_queued",
            Figure::Intervals => "intervals",
        }
    }
}

/// What a request should take, where that comes from, and how far above it is too far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExpectedService {
    /// Expected service time, ms.
    pub ms: f64,
    /// Times the expectation beyond which a figure is judged too slow.
    pub factor: f64,
    /// Where it comes from: the profile of the device, or the typical figures of its class.
    pub source: ExpectationSource,
    /// The device's class (the class's figures apply when `source` is `class`).
    pub class: DeviceClass,
    /// The mean request size the expectation is for, KiB.
    pub request_kib: f64,
}

/// One finding behind a verdict, with the numbers it compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Finding {
    /// Utilization outside 0..100 %.
    UtilizationOutOfRange {
        /// Utilization, %.
        utilization_pct: f64,
    },
    /// Busy a larger share of the time than the mean number in the system (U > N).
    BusyBeyondPopulation {
        /// Utilization, %.
        utilization_pct: f64,
        /// Mean number in the system.
        queue_length: f64,
    },
    /// Service time above the response time that contains it (S > R).
    ServiceAboveResponse {
        /// Service time, ms.
        service_ms: f64,
        /// Response time, ms.
        response_ms: f64,
    },
    /// Interrupt time at or above its limit.
    InterruptSaturated {
        /// Interrupt time, %.
        interrupt_pct: f64,
        /// The limit, %.
        limit_pct: f64,
    },
    /// Processor busy at or above its limit.
    ProcessorSaturated {
        /// Processor busy, %.
        cpu_pct: f64,
        /// The limit, %.
        limit_pct: f64,
    },
    /// Fewer than one I/O per second: idle.
    LittleIo {
        /// I/Os per second.
        iops: f64,
    },
    /// Hard paging above its limit while the disk is busy or queued.
    HardPaging {
        /// Hard paging, pages/s.
        paging_s: f64,
        /// The limit, pages/s.
        limit_s: f64,
    },
    /// How busy the disk was while the system paged.
    DiskBusy {
        /// Utilization, %.
        utilization_pct: f64,
    },
    /// Queue time above service time.
    QueueAboveService {
        /// Queue time, ms.
        queue_ms: f64,
        /// Service time, ms.
        service_ms: f64,
    },
    /// A serial device busy above the bottleneck limit.
    BusyAboveLimit {
        /// Utilization, %.
        utilization_pct: f64,
        /// The limit, %.
        limit_pct: f64,
    },
    /// More in the system per member disk than the bottleneck limit.
    QueuedPerDisk {
        /// Mean number in the system per member disk.
        queue_per_disk: f64,
        /// The limit.
        limit: f64,
    },
    /// Response time beyond the expectation with requests waiting: overload.
    ResponseQueued {
        /// Response time, ms.
        response_ms: f64,
        /// The expectation.
        expected: ExpectedService,
        /// Mean number in the system per member disk.
        queue_per_disk: f64,
    },
    /// Service time beyond the expectation: slow.
    ServiceSlow {
        /// Service time, ms.
        service_ms: f64,
        /// The expectation.
        expected: ExpectedService,
    },
    /// Response time beyond the expectation with little queued: slow.
    ResponseSlow {
        /// Response time, ms.
        response_ms: f64,
        /// The expectation.
        expected: ExpectedService,
    },
    /// The load of a healthy interval.
    Load {
        /// I/Os per second.
        iops: f64,
        /// Utilization, % (0 when not known).
        utilization_pct: f64,
    },
    /// Service time against its expectation, within it.
    ServiceAsExpected {
        /// Service time, ms.
        service_ms: f64,
        /// The expectation.
        expected: ExpectedService,
    },
    /// Response time against the expected service time, within the allowance.
    ResponseAsExpected {
        /// Response time, ms.
        response_ms: f64,
        /// The expectation.
        expected: ExpectedService,
    },
    /// A device busy less than the quiet limit: queue time against service time is not judged.
    QuietInterval {
        /// Utilization, %.
        utilization_pct: f64,
        /// The quiet limit, %.
        limit_pct: f64,
    },
    /// Too few completions for their mean response time to call the device slow.
    FewIos {
        /// I/Os completed in the interval.
        ios: f64,
        /// The completions needed.
        min_ios: f64,
    },
    /// A device serving requests in parallel busy above the bottleneck limit, which does not
    /// measure saturation there.
    BusyIsNotSaturation {
        /// Utilization, %.
        utilization_pct: f64,
    },
    /// How many active intervals of a log hold its verdict.
    Intervals {
        /// Intervals with the verdict.
        count: usize,
        /// Active intervals.
        active: usize,
        /// The verdict.
        verdict: Verdict,
    },
    /// Response time grows in step with the number in the system (R = a + b·N): the device
    /// holds one completion rate however many wait.
    ResponseGrowth {
        /// b, ms per request in the system.
        slope_ms: f64,
        /// a, ms.
        intercept_ms: f64,
        /// R² of the line.
        r2: f64,
        /// Lowest number in the system fitted.
        queue_min: f64,
        /// Highest number in the system fitted.
        queue_max: f64,
        /// 1000 / b: completions per second.
        completions_per_s: f64,
    },
}

impl Finding {
    /// The figure it is about.
    pub fn figure(&self) -> Figure {
        match self {
            Finding::UtilizationOutOfRange { .. }
            | Finding::DiskBusy { .. }
            | Finding::BusyAboveLimit { .. }
            | Finding::QuietInterval { .. }
            | Finding::BusyIsNotSaturation { .. } => Figure::UtilPct,
            Finding::BusyBeyondPopulation { .. } | Finding::QueuedPerDisk { .. } => {
                Figure::QueueLength
            }
            Finding::ServiceAboveResponse { .. }
            | Finding::ServiceSlow { .. }
            | Finding::ServiceAsExpected { .. } => Figure::ServiceMs,
            Finding::ResponseQueued { .. }
            | Finding::ResponseSlow { .. }
            | Finding::ResponseAsExpected { .. } => Figure::ResponseMs,
            Finding::QueueAboveService { .. } => Figure::QueueMs,
            Finding::LittleIo { .. } | Finding::Load { .. } => Figure::Iops,
            Finding::FewIos { .. } => Figure::IntervalIos,
            Finding::InterruptSaturated { .. } => Figure::InterruptPct,
            Finding::ProcessorSaturated { .. } => Figure::CpuPct,
            Finding::HardPaging { .. } => Figure::PagingS,
            Finding::ResponseGrowth { .. } => Figure::ResponseMsPerQueued,
            Finding::Intervals { .. } => Figure::Intervals,
        }
    }

    /// The value of its figure.
    pub fn value(&self) -> f64 {
        match *self {
            Finding::UtilizationOutOfRange { utilization_pct }
            | Finding::DiskBusy { utilization_pct }
            | Finding::BusyAboveLimit {
                utilization_pct, ..
            }
            | Finding::QuietInterval {
                utilization_pct, ..
            }
            | Finding::BusyIsNotSaturation { utilization_pct } => utilization_pct,
            Finding::BusyBeyondPopulation { queue_length, .. } => queue_length,
            Finding::QueuedPerDisk { queue_per_disk, .. } => queue_per_disk,
            Finding::ServiceAboveResponse { service_ms, .. }
            | Finding::ServiceSlow { service_ms, .. }
            | Finding::ServiceAsExpected { service_ms, .. } => service_ms,
            Finding::ResponseQueued { response_ms, .. }
            | Finding::ResponseSlow { response_ms, .. }
            | Finding::ResponseAsExpected { response_ms, .. } => response_ms,
            Finding::QueueAboveService { queue_ms, .. } => queue_ms,
            Finding::LittleIo { iops } | Finding::Load { iops, .. } => iops,
            Finding::FewIos { ios, .. } => ios,
            Finding::InterruptSaturated { interrupt_pct, .. } => interrupt_pct,
            Finding::ProcessorSaturated { cpu_pct, .. } => cpu_pct,
            Finding::HardPaging { paging_s, .. } => paging_s,
            Finding::ResponseGrowth { slope_ms, .. } => slope_ms,
            Finding::Intervals { count, .. } => count as f64,
        }
    }
}

/// One finding behind a verdict, and the interval it was found in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// The end of the interval it was found in, when it is evidence of a whole log taken from
    /// its worst interval (absent: the interval or log it belongs to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// What was found.
    pub finding: Finding,
}

impl Evidence {
    /// A finding of the interval or log it belongs to.
    pub fn new(finding: Finding) -> Self {
        Evidence { at: None, finding }
    }
}

/// An entry of a list as this version writes it, or as an older one did.
#[derive(Deserialize)]
#[serde(untagged)]
enum Written<T, Old> {
    /// As written now.
    Now(T),
    /// As an older version wrote it.
    Before(#[allow(dead_code)] Old),
}

/// An evidence entry of files before the findings were data: the finding in words only.
#[derive(Deserialize)]
struct WordsOnly {
    #[allow(dead_code)]
    text: String,
}

/// The entries of a list this version writes; those an older version wrote in words only
/// (`Old`) are left out: they hold nothing to show but their words.
fn current<'de, D, T, Old>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
    Old: Deserialize<'de>,
{
    let all = Vec::<Written<T, Old>>::deserialize(d)?;
    Ok(all
        .into_iter()
        .filter_map(|w| match w {
            Written::Now(t) => Some(t),
            Written::Before(_) => None,
        })
        .collect())
}

/// Reads an evidence list; entries of older files (`figure`, `value` and `text`, the finding in
/// words) are left out.
pub(super) fn evidence_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Evidence>, D::Error> {
    current::<D, Evidence, WordsOnly>(d)
}

/// Reads a list of what decided a device's class; the sentences of older files are left out.
pub(super) fn class_evidence_list<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<super::device::ClassEvidence>, D::Error> {
    current::<D, super::device::ClassEvidence, String>(d)
}
