//! The seeds' rules as verdicts: each with the figures that triggered it, where the rule comes
//! from, and the tuning strategies (004 Table 6, 000) that address it.

use serde::{Deserialize, Serialize};

pub use crate::analysis::limits::{BUSY_PCT, PAGING_PER_S, QUEUE_PER_DISK};
use crate::analysis::limits::{busy_beyond_population, service_beyond_response};

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
                "queue time above service time means the disk is overloaded (004 Friedman, 'Disk performance improvement strategies'); busy above 85 % with more than 2 queued per disk is a bottleneck (003 NT Resource Kit ch. 14, 'Recognizing Disk Bottlenecks')"
            }
            Verdict::CpuBound => {
                "interrupt or processor time saturated: the processor, not the disk, limits I/O — 003 NT Resource Kit ch. 14, 'Interrupts and Disk Use'"
            }
            Verdict::Slow => {
                "service time above the expectation for this request size and read/write mix — 004 Friedman, 'Comparing actual measurements to expected results'"
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

/// One figure behind a verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Figure name, as in the JSON (`util_pct`, `queue_ms`, …).
    pub figure: String,
    /// Its value.
    pub value: f64,
    /// The comparison in words.
    pub text: String,
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
    /// Service time, ms.
    pub service_ms: Option<f64>,
    /// Queue time, ms.
    pub queue_ms: Option<f64>,
    /// Mean number in the system.
    pub queue_length: Option<f64>,
    /// Member disks.
    pub disks: u32,
    /// Serves one request at a time.
    pub serial: bool,
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
    pub expected_ms: Option<(f64, f64, String)>,
}

/// Applies the rules in order of precedence and returns the verdict with its evidence.
pub fn judge(f: &Figures) -> (Verdict, Vec<Evidence>) {
    let mut ev = Vec::new();
    let util = f.util_pct.unwrap_or(0.0);
    // Invalid: figures that cannot all be true.
    if let Some(u) = f.util_pct {
        if !(-0.5..=100.5).contains(&u) {
            ev.push(Evidence {
                figure: "util_pct".into(),
                value: u,
                text: format!("utilization {u:.1} % outside 0..100 %"),
            });
        }
        if let Some(n) = f.queue_length {
            if busy_beyond_population(u / 100.0, n) {
                ev.push(Evidence {
                    figure: "queue_length".into(),
                    value: n,
                    text: format!(
                        "busy {:.2} of the time but only {n:.2} in the system on average (U > N)",
                        u / 100.0
                    ),
                });
            }
        }
    }
    if let (Some(s), Some(r)) = (f.service_ms, f.response_ms) {
        if f.iops > 0.0 && service_beyond_response(s, r, f.interval_ios) {
            ev.push(Evidence {
                figure: "service_ms".into(),
                value: s,
                text: format!("service time {s:.3} ms above response time {r:.3} ms (S > R)"),
            });
        }
    }
    if !ev.is_empty() {
        return (Verdict::Invalid, ev);
    }
    if f.iops < 0.5 && util < 1.0 {
        return (
            Verdict::Idle,
            vec![Evidence {
                figure: "iops".into(),
                value: f.iops,
                text: format!("{:.2} I/O per second", f.iops),
            }],
        );
    }
    let per_disk = f.queue_length.map(|q| q / f.disks.max(1) as f64);
    if let Some(p) = f.paging_s {
        let busy = util > PAGING_BUSY_PCT || per_disk.is_some_and(|q| q > QUEUE_PER_DISK);
        if p > PAGING_PER_S && busy {
            return (
                Verdict::MemoryBound,
                vec![
                    Evidence {
                        figure: "paging_s".into(),
                        value: p,
                        text: format!("hard paging {p:.1} pages/s > {PAGING_PER_S}"),
                    },
                    Evidence {
                        figure: "util_pct".into(),
                        value: util,
                        text: format!("disk busy {util:.1} %"),
                    },
                ],
            );
        }
    }
    if let (Some(s), Some(q)) = (f.service_ms, f.queue_ms) {
        if q > s && q >= 0.05 {
            ev.push(Evidence {
                figure: "queue_ms".into(),
                value: q,
                text: format!("queue time {q:.3} ms > service time {s:.3} ms"),
            });
        }
    }
    if f.serial && util > BUSY_PCT && per_disk.is_some_and(|q| q > QUEUE_PER_DISK) {
        let q = per_disk.unwrap_or(0.0);
        ev.push(Evidence {
            figure: "util_pct".into(),
            value: util,
            text: format!("busy {util:.1} % > {BUSY_PCT} %"),
        });
        ev.push(Evidence {
            figure: "queue_length".into(),
            value: q,
            text: format!("{q:.2} in the system per disk > {QUEUE_PER_DISK}"),
        });
    }
    if !ev.is_empty() {
        return (Verdict::Overloaded, ev);
    }
    if let Some(i) = f.interrupt_pct.filter(|i| *i >= INTERRUPT_PCT) {
        ev.push(Evidence {
            figure: "interrupt_pct".into(),
            value: i,
            text: format!("interrupt time {i:.1} % ≥ {INTERRUPT_PCT} %"),
        });
    }
    if let Some(c) = f.cpu_pct.filter(|c| *c >= CPU_PCT) {
        ev.push(Evidence {
            figure: "cpu_pct".into(),
            value: c,
            text: format!("processor busy {c:.1} % ≥ {CPU_PCT} %"),
        });
    }
    if !ev.is_empty() {
        return (Verdict::CpuBound, ev);
    }
    if let (Some(s), Some((exp, factor, from))) = (f.service_ms, f.expected_ms.as_ref()) {
        if s > exp * factor {
            return (
                Verdict::Slow,
                vec![Evidence {
                    figure: "service_ms".into(),
                    value: s,
                    text: format!(
                        "service time {s:.3} ms > {factor} × {exp:.3} ms expected ({from})"
                    ),
                }],
            );
        }
    }
    let mut healthy = vec![Evidence {
        figure: "iops".into(),
        value: f.iops,
        text: format!("{:.1} I/O per second at {util:.1} % busy", f.iops),
    }];
    if let (Some(s), Some((exp, _, from))) = (f.service_ms, f.expected_ms.as_ref()) {
        healthy.push(Evidence {
            figure: "service_ms".into(),
            value: s,
            text: format!("service time {s:.3} ms, expected {exp:.3} ms ({from})"),
        });
    }
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
            serial: true,
            ..Default::default()
        }
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
        let (v, ev) = judge(&Figures {
            disks: 2,
            ..busy.clone()
        });
        assert_eq!(v, Verdict::Overloaded);
        assert_eq!(ev.len(), 1);
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
            expected_ms: Some((2.0, PROFILE_FACTOR, "profile".into())),
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
