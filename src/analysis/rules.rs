//! The seeds' rules as verdicts: each with the findings that triggered it, as data (the rule,
//! where it comes from and the tuning strategies that address it are said by `render::words`).
//!
//! The seeds' rules assume a disk arm. On a device that serves requests in parallel there is no
//! service time from U/X and %util does not measure saturation, so without a measured service
//! time the rules judge response time against the expectation instead: a response time well
//! above it with requests queued is overload, without a queue it is a slow device.

pub use super::limits::{BUSY_PCT, PAGING_PER_S, QUEUE_PER_DISK};
use super::limits::{busy_beyond_population, service_beyond_response};
use crate::model::Serving;
use crate::model::diagnosis::{Evidence, ExpectedService, Finding, Verdict};

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
    pub expected_ms: Option<ExpectedService>,
}

/// Figures that cannot all be true (on any device: N ≥ U is Little's law, S ≤ R).
fn contradictions(f: &Figures) -> Vec<Evidence> {
    let mut out = Vec::new();
    if let Some(u) = f.util_pct {
        if !(-0.5..=100.5).contains(&u) {
            out.push(Evidence::new(Finding::UtilizationOutOfRange {
                utilization_pct: u,
            }));
        }
        if let Some(n) = f.queue_length {
            if busy_beyond_population(u / 100.0, n) {
                out.push(Evidence::new(Finding::BusyBeyondPopulation {
                    utilization_pct: u,
                    queue_length: n,
                }));
            }
        }
    }
    if let (Some(s), Some(r)) = (f.service_ms, f.response_ms) {
        if f.iops > 0.0 && service_beyond_response(s, r, f.interval_ios) {
            out.push(Evidence::new(Finding::ServiceAboveResponse {
                service_ms: s,
                response_ms: r,
            }));
        }
    }
    out
}

/// Interrupt or processor time at saturation, as evidence.
fn processor(f: &Figures) -> Vec<Evidence> {
    let mut out = Vec::new();
    if let Some(i) = f.interrupt_pct.filter(|i| *i >= INTERRUPT_PCT) {
        out.push(Evidence::new(Finding::InterruptSaturated {
            interrupt_pct: i,
            limit_pct: INTERRUPT_PCT,
        }));
    }
    if let Some(c) = f.cpu_pct.filter(|c| *c >= CPU_PCT) {
        out.push(Evidence::new(Finding::ProcessorSaturated {
            cpu_pct: c,
            limit_pct: CPU_PCT,
        }));
    }
    out
}

/// The evidence of a healthy verdict: the load, the time against the expectation, the
/// processor figures that did not decide (`busy_cpu`), and why a quiet or short interval was
/// judged as it was.
fn healthy_evidence(f: &Figures, busy_cpu: Vec<Evidence>, quiet: bool, few: bool) -> Vec<Evidence> {
    let util = f.util_pct.unwrap_or(0.0);
    let serial = f.serving == Serving::Serial;
    let mut healthy = vec![Evidence::new(Finding::Load {
        iops: f.iops,
        utilization_pct: util,
    })];
    match (f.service_ms, f.response_ms, f.expected_ms.as_ref()) {
        (Some(s), _, Some(e)) => healthy.push(Evidence::new(Finding::ServiceAsExpected {
            service_ms: s,
            expected: e.clone(),
        })),
        (None, Some(r), Some(e)) => healthy.push(Evidence::new(Finding::ResponseAsExpected {
            response_ms: r,
            expected: e.clone(),
        })),
        _ => {}
    }
    healthy.extend(busy_cpu);
    if quiet {
        healthy.push(Evidence::new(Finding::QuietInterval {
            utilization_pct: util,
            limit_pct: QUIET_UTIL_PCT,
        }));
    }
    if let (true, Some(n)) = (few, f.interval_ios) {
        healthy.push(Evidence::new(Finding::FewIos {
            ios: n,
            min_ios: MIN_JUDGED_IOS,
        }));
    }
    if !serial && util > BUSY_PCT {
        healthy.push(Evidence::new(Finding::BusyIsNotSaturation {
            utilization_pct: util,
        }));
    }
    healthy
}

/// The overload rules (queue time above service time on a busy device; a serial disk busy and
/// queued; a response time beyond the expectation with requests waiting) as evidence, and the
/// response time beyond the expectation, when the response time is what judges the interval
/// (a parallel device without a service time, or a quiet interval, over enough completions).
fn overload(
    f: &Figures,
    quiet: bool,
    few: bool,
) -> (Vec<Evidence>, Option<(f64, &ExpectedService)>) {
    let mut out = Vec::new();
    let util = f.util_pct.unwrap_or(0.0);
    let per_disk = f.queue_length.map(|q| q / f.disks.max(1) as f64);
    let queued = per_disk.is_some_and(|q| q > QUEUE_PER_DISK);
    if let (Some(s), Some(q), false) = (f.service_ms, f.queue_ms, quiet) {
        if q > s && q >= 0.05 {
            out.push(Evidence::new(Finding::QueueAboveService {
                queue_ms: q,
                service_ms: s,
            }));
        }
    }
    let serial = f.serving == Serving::Serial;
    if serial && util > BUSY_PCT && queued {
        let q = per_disk.unwrap_or(0.0);
        out.push(Evidence::new(Finding::BusyAboveLimit {
            utilization_pct: util,
            limit_pct: BUSY_PCT,
        }));
        out.push(Evidence::new(Finding::QueuedPerDisk {
            queue_per_disk: q,
            limit: QUEUE_PER_DISK,
        }));
    }
    // A parallel device without a service time, or a quiet interval: response time against
    // the expectation, over enough completions to mean something.
    let by_response = (quiet || (!serial && f.service_ms.is_none())) && !few;
    let slow_response = match (by_response, f.response_ms, &f.expected_ms) {
        (true, Some(r), Some(e)) if r > e.ms * e.factor => Some((r, e)),
        _ => None,
    };
    if let (Some((r, e)), true) = (slow_response, queued) {
        out.push(Evidence::new(Finding::ResponseQueued {
            response_ms: r,
            expected: e.clone(),
            queue_per_disk: per_disk.unwrap_or(0.0),
        }));
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
            vec![Evidence::new(Finding::LittleIo { iops: f.iops })],
        );
    }
    let per_disk = f.queue_length.map(|q| q / f.disks.max(1) as f64);
    let queued = per_disk.is_some_and(|q| q > QUEUE_PER_DISK);
    if let Some(p) = f.paging_s {
        if p > PAGING_PER_S && (util > PAGING_BUSY_PCT || queued) {
            return (
                Verdict::MemoryBound,
                vec![
                    Evidence::new(Finding::HardPaging {
                        paging_s: p,
                        limit_s: PAGING_PER_S,
                    }),
                    Evidence::new(Finding::DiskBusy {
                        utilization_pct: util,
                    }),
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
                vec![Evidence::new(Finding::ServiceSlow {
                    service_ms: s,
                    expected: e.clone(),
                })],
            );
        }
    }
    if let Some((r, e)) = slow_response {
        return (
            Verdict::Slow,
            vec![Evidence::new(Finding::ResponseSlow {
                response_ms: r,
                expected: e.clone(),
            })],
        );
    }
    let healthy = healthy_evidence(f, busy_cpu, quiet, few);
    (Verdict::Healthy, healthy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DeviceClass;
    use crate::model::diagnosis::{ExpectationSource, Figure};

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

    fn expected(ms: f64, factor: f64) -> Option<ExpectedService> {
        Some(ExpectedService {
            ms,
            factor,
            source: ExpectationSource::Class,
            class: DeviceClass::Ssd,
            request_kib: 4.0,
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
            e.iter().any(|x| x.finding
                == Finding::BusyIsNotSaturation {
                    utilization_pct: 99.9
                }),
            "{e:?}"
        );
        // Ten times the expectation with a deep queue: the device is saturated.
        let (v, e) = judge(&Figures {
            response_ms: Some(3.5),
            ..ssd.clone()
        });
        assert_eq!(v, Verdict::Overloaded, "{e:?}");
        assert_eq!(e[0].finding.figure(), Figure::ResponseMs);
        // The same response time without a queue: a slow device.
        let (v, _) = judge(&Figures {
            response_ms: Some(3.5),
            queue_length: Some(1.0),
            util_pct: Some(60.0),
            ..ssd
        });
        assert_eq!(v, Verdict::Slow);
    }
}
