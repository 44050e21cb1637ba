//! Which figures the host could have moved: the probe's record and the workers' waits turned
//! into `results.host`, and the rules that flag a figure (docs/figures.md, "The host").
//!
//! - **Throughput** (IOPS, MB/s) is flagged when this process was stalled for at least
//!   [`SHARE`] of the window (the probe's stalled time), or the hypervisor stole at least that
//!   share of all CPU time.
//! - **A latency percentile** q of value V is flagged when the host's stalls reach V/4 (the
//!   probe's latest wake-up) and could have hit at least half of the I/Os above q: in a closed
//!   loop each stall holds back the I/Os in flight (stalls × depth), in an open loop every
//!   arrival during a stall is late too (the stalled share of the window). The largest latency
//!   is flagged by one stall that reaches a quarter of it.
//! - **The steady-state verdict** is flagged with the throughput it judged.
//! - **Changes** are flagged when a stall or steal of [`SHARE`] fell within a second of one.

use crate::model::Direction;
use crate::model::change::Change;
use crate::model::host::{HostCause, HostFigure, HostFlag, HostNoise, Probe};
use crate::stats::host::{HostSample, HostSecond, STALL_NS};
use crate::stats::summary::DirSummary;

/// The share of the window (stalled, waited or stolen) from which the host could have moved a
/// throughput: 1 %.
pub const SHARE: f64 = 0.01;

/// A latency is flagged when the host's stalls reach this fraction of it.
pub const REACH: f64 = 0.25;

/// What the rules need of the run besides the probe.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunShape<'a> {
    /// I/Os in flight at most, over all workers (queue depth × workers).
    pub depth: u64,
    /// Whether requests arrive at due times (an open loop, or a replayed trace).
    pub open_loop: bool,
    /// Reads, when the run read.
    pub read: Option<&'a DirSummary>,
    /// Writes, when the run wrote.
    pub write: Option<&'a DirSummary>,
    /// Whether the run judged a steady state.
    pub steady: bool,
    /// The steps found in its per-second series.
    pub changes: &'a [Change],
}

/// `results.host` from the probe's record `s`, the workers' summed wait for a CPU (ns, None
/// where the kernel keeps no schedstat) and the run's shape.
pub fn noise(
    s: &HostSample,
    waited_ns: Option<u64>,
    workers: u32,
    clocksource: Option<String>,
    shape: &RunShape,
) -> HostNoise {
    let (c0, c1) = &s.counters;
    let wakeups = s.late.count();
    let us = |q: f64| s.late.quantile_ns(q) / 1e3;
    let mut n = HostNoise {
        seconds: s.seconds,
        steal_pct: c0.steal_pct(c1),
        cpu_pressure_pct: c0.pressure_pct(c1, s.seconds),
        clocksource,
        probe: Probe {
            period_us: s.period_ns as f64 / 1e3,
            wakeups,
            late_p50_us: us(0.5),
            late_p99_us: us(0.99),
            late_max_us: s.late.max_ns() as f64 / 1e3,
            over_1ms_share: if wakeups > 0 {
                s.stalls as f64 / wakeups as f64
            } else {
                0.0
            },
            stalls: s.stalls,
            stalled_ms: s.stalled_ns as f64 / 1e6,
            cpu_pct: if s.seconds > 0.0 {
                100.0 * s.cpu_ns as f64 / 1e9 / s.seconds
            } else {
                0.0
            },
        },
        workers_waited_ms: waited_ns.map(|w| w as f64 / 1e6),
        workers,
        flags: Vec::new(),
    };
    n.flags = flags(&n, &s.per_second, shape);
    n
}

/// The share of the window this process was stalled: the probe's stalled time over the
/// window. The workers' waits for a CPU are reported beside it but flag nothing: they include
/// waits behind the kernel's own share of the I/O path (a loop device's worker, softirqs on
/// the worker's CPU), which are part of what the run measures.
pub fn stalled_share(n: &HostNoise) -> f64 {
    if n.seconds <= 0.0 {
        return 0.0;
    }
    (n.probe.stalled_ms / 1e3 / n.seconds).min(1.0)
}

/// The flags of `n` for a run of `shape` whose host seconds are `seconds`.
pub fn flags(n: &HostNoise, seconds: &[HostSecond], shape: &RunShape) -> Vec<HostFlag> {
    let stalled = stalled_share(n);
    let steal = n.steal_pct.unwrap_or(0.0) / 100.0;
    let cause = if stalled >= SHARE || steal < SHARE {
        HostCause::Stalled
    } else {
        HostCause::Steal
    };
    let mut out = Vec::new();
    let throughput = stalled >= SHARE || steal >= SHARE;
    if throughput {
        out.push(HostFlag {
            figure: HostFigure::Throughput,
            direction: None,
            cause,
        });
        if shape.steady {
            out.push(HostFlag {
                figure: HostFigure::Steady,
                direction: None,
                cause,
            });
        }
    }
    for (dir, d) in [
        (Direction::Read, shape.read),
        (Direction::Write, shape.write),
    ] {
        let Some(d) = d else { continue };
        for figure in latency_flags(n, d, shape, stalled) {
            out.push(HostFlag {
                figure,
                direction: Some(dir),
                cause,
            });
        }
    }
    if changes_touched(shape.changes, seconds) {
        out.push(HostFlag {
            figure: HostFigure::Changes,
            direction: None,
            cause,
        });
    }
    out
}

/// The latency figures of `d` the host's stalls could have moved.
fn latency_flags(n: &HostNoise, d: &DirSummary, shape: &RunShape, stalled: f64) -> Vec<HostFigure> {
    if d.ios == 0 || n.probe.stalls == 0 && stalled < SHARE {
        return Vec::new();
    }
    let reach_us = n.probe.late_max_us / REACH;
    let per_stall = n.probe.stalls as f64 * shape.depth.max(1) as f64 / d.ios as f64;
    let hit = if shape.open_loop {
        per_stall.max(stalled)
    } else {
        per_stall
    };
    let l = &d.latency_us;
    let mut out = Vec::new();
    for (figure, q, v) in [
        (HostFigure::P50, 0.5, l.p50),
        (HostFigure::P90, 0.9, l.p90),
        (HostFigure::P99, 0.99, l.p99),
        (HostFigure::P99_9, 0.999, l.p99_9),
        (HostFigure::P99_99, 0.9999, l.p99_99),
    ] {
        if v <= reach_us && hit >= (1.0 - q) / 2.0 {
            out.push(figure);
        }
    }
    if n.probe.stalls > 0 && l.max <= reach_us {
        out.push(HostFigure::Max);
    }
    out
}

/// Whether a stall, or steal of [`SHARE`], fell within a second of a change.
fn changes_touched(changes: &[Change], seconds: &[HostSecond]) -> bool {
    changes.iter().any(|c| {
        seconds.iter().any(|s| {
            let mid = f64::from(s.t_s) + 0.5;
            (mid - c.at_s).abs() <= 1.5
                && (s.max_late_ns > STALL_NS || s.steal_pct.unwrap_or(0.0) / 100.0 >= SHARE)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Histogram;
    use crate::stats::host::{FORWARD_NS, HostCounters};

    fn sample(stalls: &[u64], quiet: u64, seconds: f64) -> HostSample {
        let mut late = Histogram::new();
        for _ in 0..quiet {
            late.record(50_000);
        }
        for &s in stalls {
            late.record(s);
        }
        let c = HostCounters {
            steal_s: 0.0,
            total_s: 100.0,
            cpu_some_us: None,
        };
        HostSample {
            seconds,
            period_ns: 20_000_000,
            late,
            stalls: stalls.len() as u64,
            stalled_ns: stalls.iter().map(|s| s + FORWARD_NS).sum(),
            cpu_ns: 0,
            counters: (
                c,
                HostCounters {
                    total_s: 200.0,
                    ..c
                },
            ),
            per_second: Vec::new(),
        }
    }

    fn dir(ios: u64, p50: f64, p99: f64, p999: f64, max: f64) -> DirSummary {
        let mut d = DirSummary {
            ios,
            ..DirSummary::default()
        };
        d.latency_us.p50 = p50;
        d.latency_us.p90 = p50;
        d.latency_us.p99 = p99;
        d.latency_us.p99_9 = p999;
        d.latency_us.p99_99 = p999;
        d.latency_us.max = max;
        d
    }

    fn figures(n: &HostNoise) -> Vec<HostFigure> {
        n.flags.iter().map(|f| f.figure).collect()
    }

    /// The throttled QD1 run: 40 stalls of ~20 ms in 4 s, 72 000 reads of ~20 µs.
    #[test]
    fn a_throttled_closed_loop_flags_throughput_and_the_tail_not_the_median() {
        let s = sample(&[20_000_000; 40], 160, 4.0);
        let d = dir(72_000, 20.0, 30.0, 60.0, 38_000.0);
        let shape = RunShape {
            depth: 1,
            read: Some(&d),
            ..RunShape::default()
        };
        let n = noise(&s, Some(800_000_000), 1, None, &shape);
        let f = figures(&n);
        assert!(f.contains(&HostFigure::Throughput), "{f:?}");
        assert!(f.contains(&HostFigure::Max), "{f:?}");
        assert!(f.contains(&HostFigure::P99_9), "{f:?}");
        // 40 stalls hold back 40 of 72 000 reads: not the 1 % above p99, nor the median.
        assert!(!f.contains(&HostFigure::P99), "{f:?}");
        assert!(!f.contains(&HostFigure::P50), "{f:?}");
        assert!((n.probe.stalled_ms - 40.0 * (20.0 + FORWARD_NS as f64 / 1e6)).abs() < 1e-6);
    }

    #[test]
    fn an_open_loop_is_late_for_the_stalled_share_of_its_arrivals() {
        let s = sample(&[20_000_000; 10], 190, 4.0);
        let d = dir(8_000, 300.0, 9_000.0, 15_000.0, 30_000.0);
        let shape = RunShape {
            depth: 8,
            open_loop: true,
            read: Some(&d),
            ..RunShape::default()
        };
        let f = figures(&noise(&s, None, 1, None, &shape));
        // 7.7 % of the window stalled: the p90 and up could have moved, not the median (whose
        // 300 µs the 20-ms stalls reach too: it is flagged once a quarter of arrivals could be
        // late).
        assert!(
            f.contains(&HostFigure::P90) && f.contains(&HostFigure::P99),
            "{f:?}"
        );
        assert!(!f.contains(&HostFigure::P50), "{f:?}");
    }

    #[test]
    fn a_quiet_host_flags_nothing() {
        let s = sample(&[], 200, 4.0);
        let d = dir(72_000, 20.0, 30.0, 60.0, 900.0);
        let shape = RunShape {
            depth: 32,
            read: Some(&d),
            steady: true,
            ..RunShape::default()
        };
        let n = noise(&s, Some(1_000_000), 1, Some("tsc".into()), &shape);
        assert!(n.flags.is_empty(), "{:?}", n.flags);
        assert_eq!(n.probe.stalls, 0);
    }

    #[test]
    fn one_short_stall_reaches_only_a_latency_within_four_times_it() {
        let s = sample(&[2_000_000], 199, 4.0);
        let d = dir(72_000, 20.0, 30.0, 60.0, 7_000.0);
        let shape = RunShape {
            depth: 1,
            read: Some(&d),
            ..RunShape::default()
        };
        let f = figures(&noise(&s, None, 1, None, &shape));
        assert_eq!(f, [HostFigure::Max]);
        let d = dir(72_000, 20.0, 30.0, 60.0, 9_000.0);
        let shape = RunShape {
            read: Some(&d),
            ..shape
        };
        assert!(figures(&noise(&s, None, 1, None, &shape)).is_empty());
    }

    #[test]
    fn steal_alone_flags_throughput_as_steal() {
        let mut s = sample(&[], 200, 4.0);
        s.counters.1.steal_s = 3.0; // 3 % of 100 s
        let n = noise(&s, None, 1, None, &RunShape::default());
        assert_eq!(
            n.flags,
            [HostFlag {
                figure: HostFigure::Throughput,
                direction: None,
                cause: HostCause::Steal
            }]
        );
    }
}
