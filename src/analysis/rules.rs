//! The seeds' rules as verdicts: each with the figures that triggered it, where the rule comes
//! from, and the tuning strategies (004 Table 6, 000) that address it.
//!
//! The seeds' rules assume a disk arm. On a device that serves requests in parallel there is no
//! service time from U/X and %util does not measure saturation, so without a measured service
//! time the rules judge response time against the expectation instead: a response time well
//! above it with requests queued is overload, without a queue it is a slow device.

pub use super::limits::{BUSY_PCT, PAGING_PER_S, QUEUE_PER_DISK};
use super::limits::{busy_beyond_population, service_beyond_response};
use crate::model::Serving;
use crate::model::diagnosis::{Evidence, ExpectationSource, Verdict};

/// Disk busy enough for the paging rule to apply, %.
pub const PAGING_BUSY_PCT: f64 = 50.0;
/// Processor time that counts as saturated, %.
pub const CPU_PCT: f64 = 95.0;
/// Interrupt time that counts as saturated, % (003's example: 91.5 %).
pub const INTERRUPT_PCT: f64 = 30.0;
/// Service time above the profile's expectation by this factor is slow.
pub const PROFILE_FACTOR: f64 = 1.5;
/// Service time above the class's typical value by this factor is slow.
pub const TYPICAL_FACTOR: f64 = 2.0;
/// Busy share below which an interval is quiet, %: the device was idle most of it. Friedman's
/// "queue time above service time" is, for one server with random arrivals, the mark of a
/// utilization above 50 % (M/M/1: Wq = S·u/(1−u) > S exactly when u > 0.5). Below it a queue
/// time above the service time comes from a burst or from the estimate's error, and the
/// response time against the expectation says whether it matters.
pub const QUIET_UTIL_PCT: f64 = 50.0;
/// Completions an interval needs before its mean response time may call a device slow or
/// overloaded: the mean of 20 exponentially distributed times exceeds twice its expectation
/// with probability 10^-5 (and 1.5 times it with about 2 %), so one slow request among a
/// handful cannot make a verdict.
pub const MIN_JUDGED_IOS: f64 = 20.0;

impl Verdict {
    /// The rule in words and where it comes from.
    pub fn rule(self) -> &'static str {
        match self {
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

    /// The strategies that address it (004 Table 6, plus 000's larger requests and deeper
    /// queues).
    pub fn advice(self) -> &'static [&'static str] {
        match self {
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
}

/// The figures the rules look at, for one interval or a whole log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Completions per second.
    pub iops: f64,
    /// Utilization, %.
    pub util_pct: Option<f64>,
    /// Response time, ms.
    pub response_ms: Option<f64>,
    /// Service time, ms: only where the device model allows one (`analysis::device`).
    pub service_ms: Option<f64>,
    /// Queue time, ms.
    pub queue_ms: Option<f64>,
    /// Mean number in the system.
    pub queue_length: Option<f64>,
    /// Member disks.
    pub disks: u32,
    /// How the device serves requests.
    pub serving: Serving,
    /// Hard paging, pages/s.
    pub paging_s: Option<f64>,
    /// Processor busy, %.
    pub cpu_pct: Option<f64>,
    /// Interrupt time, %.
    pub interrupt_pct: Option<f64>,
    /// Completions in the interval (for the whole-ms rounding allowance of S > R), when the
    /// interval length is known.
    pub interval_ios: Option<f64>,
    /// Expected service time, ms, and where the expectation comes from.
    pub expected_ms: Option<Expected>,
}

/// What a request should take, and how far above it is too far.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// Expected service time, ms.
    pub ms: f64,
    /// Times the expectation beyond which a figure is judged too slow.
    pub factor: f64,
    /// Where the expectation comes from, in words.
    pub from: String,
    /// Where it comes from.
    pub source: ExpectationSource,
}

fn ev(figure: &str, value: f64, text: String) -> Evidence {
    Evidence {
        figure: figure.into(),
        value,
        text,
    }
}

/// Figures that cannot all be true (on any device: N ≥ U is Little's law, S ≤ R).
fn contradictions(f: &Figures) -> Vec<Evidence> {
    let mut out = Vec::new();
    if let Some(u) = f.util_pct {
        if !(-0.5..=100.5).contains(&u) {
            out.push(ev(
                "util_pct",
                u,
                format!("utilization {u:.1} % outside 0..100 %"),
            ));
        }
        if let Some(n) = f.queue_length {
            if busy_beyond_population(u / 100.0, n) {
                out.push(ev(
                    "queue_length",
                    n,
                    format!(
                        "busy {:.2} of the time but only {n:.2} in the system on average (U > N)",
                        u / 100.0
                    ),
                ));
            }
        }
    }
    if let (Some(s), Some(r)) = (f.service_ms, f.response_ms) {
        if f.iops > 0.0 && service_beyond_response(s, r, f.interval_ios) {
            out.push(ev(
                "service_ms",
                s,
                format!("service time {s:.3} ms above response time {r:.3} ms (S > R)"),
            ));
        }
    }
    out
}

/// Interrupt or processor time at saturation, as evidence.
fn processor(f: &Figures) -> Vec<Evidence> {
    let mut out = Vec::new();
    if let Some(i) = f.interrupt_pct.filter(|i| *i >= INTERRUPT_PCT) {
        out.push(ev(
            "interrupt_pct",
            i,
            format!("interrupt time {i:.1} % ≥ {INTERRUPT_PCT} %"),
        ));
    }
    if let Some(c) = f.cpu_pct.filter(|c| *c >= CPU_PCT) {
        out.push(ev(
            "cpu_pct",
            c,
            format!("processor busy {c:.1} % ≥ {CPU_PCT} %"),
        ));
    }
    out
}

/// The evidence of a healthy verdict: the load, the time against the expectation, the
/// processor figures that did not decide (`busy_cpu`), and why a quiet or short interval was
/// judged as it was.
fn healthy_evidence(f: &Figures, busy_cpu: Vec<Evidence>, quiet: bool, few: bool) -> Vec<Evidence> {
    let util = f.util_pct.unwrap_or(0.0);
    let serial = f.serving == Serving::Serial;
    let mut healthy = vec![ev(
        "iops",
        f.iops,
        format!("{:.1} I/O per second at {util:.1} % busy", f.iops),
    )];
    match (f.service_ms, f.response_ms, f.expected_ms.as_ref()) {
        (Some(s), _, Some(e)) => healthy.push(ev(
            "service_ms",
            s,
            format!(
                "service time {s:.3} ms, expected {:.3} ms ({})",
                e.ms, e.from
            ),
        )),
        (None, Some(r), Some(e)) => healthy.push(ev(
            "response_ms",
            r,
            format!(
                "response time {r:.3} ms, expected service {:.3} ms ({})",
                e.ms, e.from
            ),
        )),
        _ => {}
    }
    healthy.extend(busy_cpu);
    if quiet {
        healthy.push(ev(
            "util_pct",
            util,
            format!(
                "busy {util:.1} % of the interval: idle most of it, so queue time against \
                 service time is not judged (that reading needs a device busy more than \
                 {QUIET_UTIL_PCT} % of the time); its response time decides"
            ),
        ));
    }
    if let (true, Some(n)) = (few, f.interval_ios) {
        healthy.push(ev(
            "interval_ios",
            n,
            format!(
                "only {n:.0} I/Os completed: too few for their mean response time to call the \
                 device slow (at least {MIN_JUDGED_IOS})"
            ),
        ));
    }
    if !serial && util > BUSY_PCT {
        healthy.push(ev(
            "util_pct",
            util,
            format!(
                "busy {util:.1} %, which does not measure saturation on a device that serves \
                 requests in parallel (it only says at least one request was in flight)"
            ),
        ));
    }
    healthy
}

/// The overload rules (queue time above service time on a busy device; a serial disk busy and
/// queued; a response time beyond the expectation with requests waiting) as evidence, and the
/// response time beyond the expectation, when the response time is what judges the interval
/// (a parallel device without a service time, or a quiet interval, over enough completions).
fn overload(f: &Figures, quiet: bool, few: bool) -> (Vec<Evidence>, Option<(f64, &Expected)>) {
    let mut out = Vec::new();
    let util = f.util_pct.unwrap_or(0.0);
    let per_disk = f.queue_length.map(|q| q / f.disks.max(1) as f64);
    let queued = per_disk.is_some_and(|q| q > QUEUE_PER_DISK);
    if let (Some(s), Some(q), false) = (f.service_ms, f.queue_ms, quiet) {
        if q > s && q >= 0.05 {
            out.push(ev(
                "queue_ms",
                q,
                format!("queue time {q:.3} ms > service time {s:.3} ms"),
            ));
        }
    }
    let serial = f.serving == Serving::Serial;
    if serial && util > BUSY_PCT && queued {
        let q = per_disk.unwrap_or(0.0);
        out.push(ev(
            "util_pct",
            util,
            format!("busy {util:.1} % > {BUSY_PCT} %"),
        ));
        out.push(ev(
            "queue_length",
            q,
            format!("{q:.2} in the system per disk > {QUEUE_PER_DISK}"),
        ));
    }
    // A parallel device without a service time, or a quiet interval: response time against
    // the expectation, over enough completions to mean something.
    let by_response = (quiet || (!serial && f.service_ms.is_none())) && !few;
    let slow_response = match (by_response, f.response_ms, &f.expected_ms) {
        (true, Some(r), Some(e)) if r > e.ms * e.factor => Some((r, e)),
        _ => None,
    };
    if let (Some((r, e)), true) = (slow_response, queued) {
        out.push(ev(
            "response_ms",
            r,
            format!(
                "response time {r:.3} ms > {} × {:.3} ms expected ({}) with {:.1} in the \
                 system per disk: requests wait for the device",
                e.factor,
                e.ms,
                e.from,
                per_disk.unwrap_or(0.0)
            ),
        ));
    }
    (out, slow_response)
}

/// Applies the rules in order of precedence and returns the verdict with its evidence.
pub fn judge(f: &Figures) -> (Verdict, Vec<Evidence>) {
    let util = f.util_pct.unwrap_or(0.0);
    let invalid = contradictions(f);
    if !invalid.is_empty() {
        return (Verdict::Invalid, invalid);
    }
    if f.iops < 0.5 && util < 1.0 {
        return (
            Verdict::Idle,
            vec![ev("iops", f.iops, format!("{:.2} I/O per second", f.iops))],
        );
    }
    let per_disk = f.queue_length.map(|q| q / f.disks.max(1) as f64);
    let queued = per_disk.is_some_and(|q| q > QUEUE_PER_DISK);
    if let Some(p) = f.paging_s {
        if p > PAGING_PER_S && (util > PAGING_BUSY_PCT || queued) {
            return (
                Verdict::MemoryBound,
                vec![
                    ev(
                        "paging_s",
                        p,
                        format!("hard paging {p:.1} pages/s > {PAGING_PER_S}"),
                    ),
                    ev("util_pct", util, format!("disk busy {util:.1} %")),
                ],
            );
        }
    }
    let quiet = f.util_pct.is_some_and(|u| u < QUIET_UTIL_PCT);
    let few = f.interval_ios.is_some_and(|n| n < MIN_JUDGED_IOS);
    let (overload, slow_response) = overload(f, quiet, few);
    let out = overload;
    if !out.is_empty() {
        return (Verdict::Overloaded, out);
    }
    // A disk idle most of the interval is not held back by the processor's load: the
    // processor figures stay evidence, not the verdict.
    let busy_cpu = processor(f);
    if !busy_cpu.is_empty() && !quiet {
        return (Verdict::CpuBound, busy_cpu);
    }
    if let (Some(s), Some(e)) = (f.service_ms, f.expected_ms.as_ref()) {
        if s > e.ms * e.factor {
            return (
                Verdict::Slow,
                vec![ev(
                    "service_ms",
                    s,
                    format!(
                        "service time {s:.3} ms > {} × {:.3} ms expected ({})",
                        e.factor, e.ms, e.from
                    ),
                )],
            );
        }
    }
    if let Some((r, e)) = slow_response {
        return (
            Verdict::Slow,
            vec![ev(
                "response_ms",
                r,
                format!(
                    "response time {r:.3} ms > {} × {:.3} ms expected ({}) with little queued: \
                     the device itself is slow",
                    e.factor, e.ms, e.from
                ),
            )],
        );
    }
    let healthy = healthy_evidence(f, busy_cpu, quiet, few);
    (Verdict::Healthy, healthy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Figures {
        Figures {
            iops: 100.0,
            util_pct: Some(50.0),
            response_ms: Some(6.0),
            service_ms: Some(5.0),
            queue_ms: Some(1.0),
            queue_length: Some(0.6),
            disks: 1,
            serving: Serving::Serial,
            ..Default::default()
        }
    }

    fn expected(ms: f64, factor: f64) -> Option<Expected> {
        Some(Expected {
            ms,
            factor,
            from: "test".into(),
            source: ExpectationSource::Class,
        })
    }

    #[test]
    fn precedence_and_thresholds() {
        assert_eq!(judge(&base()).0, Verdict::Healthy);
        assert_eq!(
            judge(&Figures {
                iops: 0.0,
                util_pct: Some(0.0),
                ..base()
            })
            .0,
            Verdict::Idle
        );
        // 003: busy > 85 % and queue > 2 per disk.
        let busy = Figures {
            util_pct: Some(95.0),
            queue_length: Some(3.0),
            response_ms: Some(30.0),
            service_ms: Some(9.5),
            queue_ms: Some(20.5),
            ..base()
        };
        assert_eq!(judge(&busy).0, Verdict::Overloaded);
        // The same with two member disks: 1.5 per disk, but queue time still above service.
        let (v, e) = judge(&Figures {
            disks: 2,
            ..busy.clone()
        });
        assert_eq!(v, Verdict::Overloaded);
        assert_eq!(e.len(), 1);
        // Paging rules the disk out first.
        assert_eq!(
            judge(&Figures {
                paging_s: Some(12.0),
                ..busy.clone()
            })
            .0,
            Verdict::MemoryBound
        );
        assert_eq!(
            judge(&Figures {
                paging_s: Some(4.0),
                ..busy
            })
            .0,
            Verdict::Overloaded
        );
        // 003's interrupt example: 91.5 % of processor time in interrupts.
        assert_eq!(
            judge(&Figures {
                interrupt_pct: Some(91.5),
                ..base()
            })
            .0,
            Verdict::CpuBound
        );
        // Slow against a profile's expectation.
        let slow = Figures {
            expected_ms: expected(2.0, PROFILE_FACTOR),
            ..base()
        };
        assert_eq!(judge(&slow).0, Verdict::Slow);
        // Contradictions.
        assert_eq!(
            judge(&Figures {
                service_ms: Some(9.0),
                ..base()
            })
            .0,
            Verdict::Invalid
        );
        assert_eq!(
            judge(&Figures {
                util_pct: Some(90.0),
                queue_length: Some(0.3),
                ..base()
            })
            .0,
            Verdict::Invalid
        );
    }

    /// A parallel device at 99.9 % busy with 31.5 queued is not overloaded for that: without
    /// a service time only its response time against the expectation can say so.
    #[test]
    fn parallel_devices_are_judged_by_response_time() {
        let ssd = Figures {
            iops: 90_000.0,
            util_pct: Some(99.9),
            response_ms: Some(0.35),
            service_ms: None,
            queue_ms: None,
            queue_length: Some(31.5),
            disks: 1,
            serving: Serving::Parallel,
            expected_ms: expected(0.31, TYPICAL_FACTOR),
            ..Default::default()
        };
        let (v, e) = judge(&ssd);
        assert_eq!(v, Verdict::Healthy, "{e:?}");
        assert!(
            e.iter()
                .any(|x| x.text.contains("does not measure saturation"))
        );
        // Ten times the expectation with a deep queue: the device is saturated.
        let (v, e) = judge(&Figures {
            response_ms: Some(3.5),
            ..ssd.clone()
        });
        assert_eq!(v, Verdict::Overloaded, "{e:?}");
        assert_eq!(e[0].figure, "response_ms");
        // The same response time without a queue: a slow device.
        let (v, _) = judge(&Figures {
            response_ms: Some(3.5),
            queue_length: Some(1.0),
            util_pct: Some(60.0),
            ..ssd
        });
        assert_eq!(v, Verdict::Slow);
    }

    #[test]
    fn every_actionable_verdict_has_advice_and_a_source() {
        for v in [
            Verdict::Overloaded,
            Verdict::Slow,
            Verdict::MemoryBound,
            Verdict::CpuBound,
            Verdict::Invalid,
        ] {
            assert!(!v.advice().is_empty());
            assert!(v.rule().contains("00"));
        }
    }
}
