//! The diagnosis in words, for text and HTML alike: each verdict's rule with its source and the
//! strategies that address it, each finding and each fact that decided a device's class as a
//! sentence, the expectation's origin, and the M/M/1 projection's note.

use crate::model::change::ChangeCause;
use crate::model::diagnosis::{Evidence, ExpectationSource, ExpectedService, Finding, Verdict};
use crate::model::{ClassEvidence, DeviceClass};

/// The cause of a change in the time series, with what decided it (none: the counters do not
/// tell).
pub fn change_cause(cause: Option<ChangeCause>) -> &'static str {
    match cause {
        Some(ChangeCause::Cap) => "cause cap: the added time was spent waiting above the device",
        Some(ChangeCause::DeviceSlower) => {
            "cause device-slower: the device itself took longer per I/O"
        }
        Some(ChangeCause::BurstEnded) => {
            "cause burst-ended: an uneven higher rate, then a flat lower one"
        }
        None => "no cause the counters tell",
    }
}

/// What the M/M/1 projection assumes.
pub const PROJECTION_NOTE: &str = "M/M/1: valid for open arrivals only (requests arrive \
     independently of completions); a closed workload with a fixed number of outstanding \
     requests queues less";

/// The rule of a verdict in words and where it comes from.
pub fn rule(v: Verdict) -> &'static str {
    match v {
        Verdict::Invalid => {
            "utilization, throughput, service and response time must agree (U ≤ N by Little's law, S ≤ R, 0 ≤ U ≤ 100 %) — 004 Friedman, 'Comparing actual measurements to expected results'"
        }
        Verdict::MemoryBound => {
            "a busy disk while hard paging exceeds 5 pages/s is a memory shortage, not a disk bottleneck — 003 NT Resource Kit ch. 14, 'Recognizing Disk Bottlenecks' and 'Disk Bottlenecks and Memory'"
        }
        Verdict::Overloaded => {
            "queue time above service time means the disk is overloaded (004 Friedman, 'Disk performance improvement strategies'); on a disk that serves one request at a time, busy above 85 % with more than 2 queued per disk is a bottleneck (003 NT Resource Kit ch. 14, 'Recognizing Disk Bottlenecks'); on a device that serves requests in parallel, where neither U/X nor %util applies, a response time well above the expected service time with more than 2 requests in the system per disk"
        }
        Verdict::CpuBound => {
            "interrupt or processor time saturated: the processor, not the disk, limits I/O — 003 NT Resource Kit ch. 14, 'Interrupts and Disk Use'"
        }
        Verdict::Slow => {
            "service time (or, on a device serving requests in parallel without a measured service time, response time with little queued) above the expectation for this request size and read/write mix — 004 Friedman, 'Comparing actual measurements to expected results'"
        }
        Verdict::Healthy => {
            "service time within expectations and little queuing: tuning brings little — 004 Friedman, 'Comparing actual measurements to expected results'"
        }
        Verdict::Idle => "fewer than one I/O per second",
    }
}

/// The strategies that address a verdict (004 Table 6, plus 000's larger requests and deeper
/// queues).
pub fn advice(v: Verdict) -> &'static [&'static str] {
    match v {
        Verdict::Overloaded => &[
            "load balancing: move I/O from this disk to idle ones (directly reduces queuing; 004 Table 6)",
            "more disks or striping (disk arrays): spread the load (directly reduces queuing; 004 Table 6)",
            "host memory caching: fewer physical I/Os reach the disk (004 Table 6)",
            "faster disks: lower service time, and queuing with it (004 Table 6)",
            "larger requests: the same bytes in fewer I/Os (000)",
        ],
        Verdict::Slow => &[
            "faster disks (directly improves service time; 004 Table 6)",
            "cached disks or controllers (directly improves service time; 004 Table 6)",
            "defragmentation: more sequential access (directly improves service time; 004 Table 6)",
            "larger requests: the per-request overhead is paid fewer times (000)",
            "deeper queues on devices that serve requests in parallel (000)",
        ],
        Verdict::MemoryBound => &[
            "host memory: add RAM or reduce the working set — fix memory, not disks (003; 004 Table 6)",
            "find the process that pages (major faults, swap) before buying disks (003)",
        ],
        Verdict::CpuBound => &[
            "larger requests: fewer interrupts per byte (000, 003)",
            "interrupt coalescing, polled or batched completion (io_uring), spreading interrupts over CPUs",
            "a controller that moves data by DMA rather than programmed I/O (003)",
        ],
        Verdict::Invalid => &[
            "check the counter source: a virtual or stacked device, a counter wrap, or a clock change can make figures disagree",
        ],
        Verdict::Healthy | Verdict::Idle => &[],
    }
}

/// Where an expectation comes from: `profile, 8 KiB requests` or `typical for hdd, 8 KiB
/// requests`.
pub fn expectation(source: ExpectationSource, class: DeviceClass, request_kib: f64) -> String {
    match source {
        ExpectationSource::Profile => format!("profile, {request_kib:.0} KiB requests"),
        ExpectationSource::Class => format!("typical for {class}, {request_kib:.0} KiB requests"),
    }
}

fn from(e: &ExpectedService) -> String {
    expectation(e.source, e.class, e.request_kib)
}

/// A piece of evidence as a sentence, led by the interval it was found in.
pub fn evidence(e: &Evidence) -> String {
    match &e.at {
        Some(at) => format!("at {at}: {}", finding(&e.finding)),
        None => finding(&e.finding),
    }
}

/// A finding as a sentence.
pub fn finding(f: &Finding) -> String {
    against_limits(f)
        .or_else(|| against_expectation(f))
        .or_else(|| over_the_log(f))
        .unwrap_or_default()
}

/// The findings that compare a figure with a fixed limit, or with another figure.
fn against_limits(f: &Finding) -> Option<String> {
    Some(match *f {
        Finding::UtilizationOutOfRange { utilization_pct: u } => {
            format!("utilization {u:.1} % outside 0..100 %")
        }
        Finding::BusyBeyondPopulation {
            utilization_pct: u,
            queue_length: n,
        } => format!(
            "busy {:.2} of the time but only {n:.2} in the system on average (U > N)",
            u / 100.0
        ),
        Finding::ServiceAboveResponse {
            service_ms: s,
            response_ms: r,
        } => format!("service time {s:.3} ms above response time {r:.3} ms (S > R)"),
        Finding::InterruptSaturated {
            interrupt_pct: i,
            limit_pct,
        } => format!("interrupt time {i:.1} % ≥ {limit_pct} %"),
        Finding::ProcessorSaturated {
            cpu_pct: c,
            limit_pct,
        } => format!("processor busy {c:.1} % ≥ {limit_pct} %"),
        Finding::LittleIo { iops } => format!("{iops:.2} I/O per second"),
        Finding::HardPaging {
            paging_s: p,
            limit_s,
        } => {
            format!("hard paging {p:.1} pages/s > {limit_s}")
        }
        Finding::DiskBusy { utilization_pct: u } => format!("disk busy {u:.1} %"),
        Finding::QueueAboveService {
            queue_ms: q,
            service_ms: s,
        } => format!("queue time {q:.3} ms > service time {s:.3} ms"),
        Finding::BusyAboveLimit {
            utilization_pct: u,
            limit_pct,
        } => format!("busy {u:.1} % > {limit_pct} %"),
        Finding::QueuedPerDisk {
            queue_per_disk: q,
            limit,
        } => format!("{q:.2} in the system per disk > {limit}"),
        Finding::Load {
            iops,
            utilization_pct: u,
        } => format!("{iops:.1} I/O per second at {u:.1} % busy"),
        Finding::QuietInterval {
            utilization_pct: u,
            limit_pct,
        } => format!(
            "busy {u:.1} % of the interval: idle most of it, so queue time against service time \
             is not judged (that reading needs a device busy more than {limit_pct} % of the \
             time); its response time decides"
        ),
        Finding::FewIos { ios, min_ios } => format!(
            "only {ios:.0} I/Os completed: too few for their mean response time to call the \
             device slow (at least {min_ios})"
        ),
        Finding::BusyIsNotSaturation { utilization_pct: u } => format!(
            "busy {u:.1} %, which does not measure saturation on a device that serves requests \
             in parallel (it only says at least one request was in flight)"
        ),
        _ => return None,
    })
}

/// The findings that compare a time with the expectation.
fn against_expectation(f: &Finding) -> Option<String> {
    Some(match f {
        Finding::ResponseQueued {
            response_ms: r,
            expected: e,
            queue_per_disk,
        } => format!(
            "response time {r:.3} ms > {} × {:.3} ms expected ({}) with {queue_per_disk:.1} in \
             the system per disk: requests wait for the device",
            e.factor,
            e.ms,
            from(e)
        ),
        Finding::ServiceSlow {
            service_ms: s,
            expected: e,
        } => format!(
            "service time {s:.3} ms > {} × {:.3} ms expected ({})",
            e.factor,
            e.ms,
            from(e)
        ),
        Finding::ResponseSlow {
            response_ms: r,
            expected: e,
        } => format!(
            "response time {r:.3} ms > {} × {:.3} ms expected ({}) with little queued: the \
             device itself is slow",
            e.factor,
            e.ms,
            from(e)
        ),
        Finding::ServiceAsExpected {
            service_ms: s,
            expected: e,
        } => format!(
            "service time {s:.3} ms, expected {:.3} ms ({})",
            e.ms,
            from(e)
        ),
        Finding::ResponseAsExpected {
            response_ms: r,
            expected: e,
        } => format!(
            "response time {r:.3} ms, expected service {:.3} ms ({})",
            e.ms,
            from(e)
        ),
        _ => return None,
    })
}

/// The findings over a whole log's intervals.
fn over_the_log(f: &Finding) -> Option<String> {
    Some(match *f {
        Finding::Intervals {
            count,
            active,
            verdict,
        } => format!(
            "{count} of {active} active intervals are {}",
            verdict.name()
        ),
        Finding::ResponseGrowth {
            slope_ms,
            intercept_ms,
            r2,
            queue_min: lo,
            queue_max: hi,
            completions_per_s,
        } => format!(
            "response time grows {slope_ms:.4} ms per request in the system (R = \
             {intercept_ms:.3} + {slope_ms:.4}·N, R² {r2:.2}, N {lo:.1}–{hi:.1}): the device \
             completes about {completions_per_s:.0} requests/s however many wait"
        ),
        _ => return None,
    })
}

/// The observed workload's busiest interval against the device's measured curve, in one
/// sentence (diagnose).
pub fn headroom(h: &crate::model::diagnosis::WorkloadHeadroom) -> String {
    placed(h, &format!("at its busiest ({})", h.at))
}

/// One interval's load against the device's measured curve, in one sentence (monitor).
pub fn interval_headroom(h: &crate::model::diagnosis::WorkloadHeadroom) -> String {
    placed(h, "this interval")
}

/// A load placed on a curve, introduced by `when`.
fn placed(h: &crate::model::diagnosis::WorkloadHeadroom, when: &str) -> String {
    let load = format!(
        "{when}: {:.0} IOPS of {:.1} KiB, {:.0} % reads",
        h.observed_iops,
        h.observed_request_bytes / 1024.0,
        h.observed_read_pct
    );
    let Some(c) = &h.curve else {
        return format!("{load}: no measured curve has this direction of I/O");
    };
    let source = match c.source {
        crate::model::profile::CurveSource::Sweep => "the sweep's",
        crate::model::profile::CurveSource::Profile => "the profile's",
    };
    let size = if c.size_matches {
        String::new()
    } else {
        " (the nearest size measured; the workload's differs by more than 1.5×)".into()
    };
    let knee = match (c.knee_iops, c.knee_inflight, c.to_knee) {
        (Some(k), Some(at), Some(x)) if beyond(x) => format!(
            "beyond the knee, {:.2}× its {k:.0} IOPS with {at} in flight (where more depth stops \
             adding throughput)",
            1.0 / x
        ),
        (Some(k), Some(at), Some(x)) => format!(
            "{x:.1}× to the knee ({k:.0} IOPS with {at} in flight, where more depth stops adding \
             throughput)"
        ),
        _ => match c.source {
            crate::model::profile::CurveSource::Profile => {
                "the knee lies beyond depth 4, the deepest the profile measured".to_string()
            }
            crate::model::profile::CurveSource::Sweep => {
                "no knee within the depths the sweep measured".to_string()
            }
        },
    };
    let response = match (c.curve_latency_ms, h.observed_response_ms) {
        (Some(on), Some(seen)) => {
            format!("; the curve answers this rate in {on:.3} ms, the log saw {seen:.3} ms")
        }
        _ => String::new(),
    };
    format!(
        "{load}: {source} {} {} curve{size} peaks at {:.0} IOPS ({} in flight): {}, \
         {knee}{response}",
        c.rw,
        crate::units::ByteSize(c.bs_bytes),
        c.peak_iops,
        c.peak_inflight,
        to_the_peak(c.to_peak)
    )
}

/// Whether a load lies beyond a point of its curve, `to` being the point's IOPS ÷ the load's
/// (`to_peak`, `to_knee`): below 1, the load already exceeds the point.
fn beyond(to: f64) -> bool {
    to > 0.0 && to < 1.0
}

/// How far a load is from its curve's peak: how many times it could grow to reach it, or how
/// many times the peak it already is.
fn to_the_peak(to: f64) -> String {
    if beyond(to) {
        format!("beyond the peak, {:.2}× it", 1.0 / to)
    } else {
        format!("{to:.1}× to the peak")
    }
}

/// A fact that decided a device's class and service as a sentence.
pub fn class_evidence(c: &ClassEvidence) -> String {
    match c {
        ClassEvidence::Recorded { class, serving } => format!(
            "class {class} and {} service as the monitor recorded them",
            serving.name()
        ),
        ClassEvidence::Name { name, class } => format!("class {class} from the name {name}"),
        ClassEvidence::ServedInParallel {
            at,
            utilization_pct: util,
            iops,
            busy_per_io_ms: s,
            queue_length: aqu,
            serial_min_ms,
        } => format!(
            "at {at}: busy {util:.1} % at {iops:.0} I/O/s is U/X = {s:.3} ms per request with \
             {aqu:.1} in the system; one request at a time cannot take under {serial_min_ms} \
             ms, so they were served in parallel"
        ),
        ClassEvidence::TakenAsSsd => {
            "taken as an SSD (or an array, SAN or virtual volume that serves like one)".into()
        }
        ClassEvidence::LogRecorded { serving } => {
            format!("{} service as the log recorded it", serving.name())
        }
        ClassEvidence::Seek {
            at,
            busy_per_io_ms: s,
            request_kib,
            utilization_pct: util,
        } => {
            let of = request_kib.map_or(String::new(), |k| format!(" of {k:.0} KiB"));
            format!(
                "at {at}: U/X = {s:.2} ms per request{of} at {util:.1} % busy: the time of a \
                 seek, as one disk arm serving one request at a time shows"
            )
        }
        ClassEvidence::TakenAsRotating => "taken as a rotating disk".into(),
        ClassEvidence::Undecided { name, busy_pct } => format!(
            "neither the name {name} nor a busy interval (≥ {busy_pct} %) tells how the device \
             serves requests; no service time is taken from U/X except in intervals that held \
             one request at a time"
        ),
    }
}

#[cfg(test)]
#[path = "words_tests.rs"]
mod tests;
