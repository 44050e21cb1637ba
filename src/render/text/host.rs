//! The host in words, once per document: quiet, or which figures the host could have moved and
//! what it did (stalls, steal), from `results.host` (`analysis::host` sets the flags).

use crate::model::Results;
use crate::model::host::{HostCause, HostFigure, HostFlag, HostNoise};
use crate::model::places::{HostOf, Place};
use crate::units::{ByteSize, fmt_latency_ns};

/// The document's host lines: nothing without a host record, else one sentence.
pub fn lines(hosts: &[HostOf<'_>]) -> String {
    match hosts {
        [] => String::new(),
        [one] => format!("{}\n", single(one)),
        many => format!("{}\n", several(many)),
    }
}

/// One record: quiet, or what the host did and which figures it could have moved.
fn single(h: &HostOf<'_>) -> String {
    let n = h.noise;
    if !n.interfered() {
        return format!("host: quiet: {}", quiet_facts(n));
    }
    let figures: Vec<String> = n.flags.iter().map(|f| flagged(f, h.results)).collect();
    format!(
        "host: {}: {} {} the host's as much as the device's",
        what_it_did(n),
        join(&figures),
        if figures.len() == 1 && !figures[0].starts_with("the throughput") {
            "is"
        } else {
            "are"
        }
    )
}

/// Many records (points, cells, steps): how many the host disturbed, and which figures.
fn several(hosts: &[HostOf<'_>]) -> String {
    let disturbed: Vec<&HostOf<'_>> = hosts.iter().filter(|h| h.noise.interfered()).collect();
    let late_max = hosts
        .iter()
        .map(|h| h.noise.probe.late_max_us)
        .fold(0.0, f64::max);
    let steal_max = hosts
        .iter()
        .filter_map(|h| h.noise.steal_pct)
        .fold(0.0, f64::max);
    if disturbed.is_empty() {
        let clock = hosts[0]
            .noise
            .clocksource
            .as_deref()
            .map_or(String::new(), |c| format!("; clock {c}"));
        return format!(
            "host: quiet in all {} runs: steal at most {steal_max:.1} %, the probe's latest \
             wake-up {} late{clock}",
            hosts.len(),
            fmt_latency_ns(late_max * 1e3),
        );
    }
    let each: Vec<String> = disturbed
        .iter()
        .map(|h| {
            let names: Vec<String> = h.noise.flags.iter().map(short).collect();
            format!("{} ({})", place(&h.place), names.join(", "))
        })
        .collect();
    format!(
        "host: it disturbed {} of {} runs (stalls up to {}, steal up to {steal_max:.1} %): {}; \
         those figures are the host's as much as the device's",
        disturbed.len(),
        hosts.len(),
        fmt_latency_ns(late_max * 1e3),
        each.join("; ")
    )
}

/// Steal, pressure, the probe's lateness and its cost, and the clock source.
fn quiet_facts(n: &HostNoise) -> String {
    let mut parts = Vec::new();
    if let Some(s) = n.steal_pct {
        parts.push(format!("steal {s:.1} %"));
    }
    if let Some(p) = n.cpu_pressure_pct {
        parts.push(format!("CPU pressure {p:.1} %"));
    }
    parts.push(format!(
        "a sleeping probe woke at most {} late (p99 {}; {:.2} % of a CPU)",
        fmt_latency_ns(n.probe.late_max_us * 1e3),
        fmt_latency_ns(n.probe.late_p99_us * 1e3),
        n.probe.cpu_pct
    ));
    let mut s = parts.join(", ");
    if let Some(c) = &n.clocksource {
        s.push_str(&format!("; clock {c}"));
    }
    s
}

/// What the host did: the stalls and their time, and the steal.
fn what_it_did(n: &HostNoise) -> String {
    let steal = n
        .steal_pct
        .map_or(String::new(), |s| format!("steal {s:.1} %"));
    let stalled = n.flags.iter().any(|f| f.cause == HostCause::Stalled);
    if stalled && n.probe.stalls > 0 {
        format!(
            "this process was stalled {} {}, up to {}, {:.2} s of {:.2} s in all ({steal})",
            n.probe.stalls,
            if n.probe.stalls == 1 { "time" } else { "times" },
            fmt_latency_ns(n.probe.late_max_us * 1e3),
            n.probe.stalled_ms / 1e3,
            n.seconds
        )
    } else {
        format!("the hypervisor stole CPU time ({steal})")
    }
}

/// A flagged figure with its value where the results are at hand.
fn flagged(f: &HostFlag, r: Option<&Results>) -> String {
    let value = r.and_then(|r| value_us(f, r));
    match (f.figure, value) {
        (HostFigure::Throughput, _) => "the throughput".to_string(),
        (HostFigure::Steady, _) => "the steady-state verdict".to_string(),
        (HostFigure::Changes, _) => "the steps found over time".to_string(),
        (_, Some(v)) => format!("{} {}", short(f), fmt_latency_ns(v * 1e3)),
        (_, None) => short(f),
    }
}

/// A latency flag's value in `r`, µs.
fn value_us(f: &HostFlag, r: &Results) -> Option<f64> {
    let d = match f.direction? {
        crate::model::Direction::Read => r.read.as_ref()?,
        crate::model::Direction::Write => r.write.as_ref()?,
    };
    let l = &d.latency_us;
    Some(match f.figure {
        HostFigure::P50 => l.p50,
        HostFigure::P90 => l.p90,
        HostFigure::P99 => l.p99,
        HostFigure::P99_9 => l.p99_9,
        HostFigure::P99_99 => l.p99_99,
        HostFigure::Max => l.max,
        HostFigure::Throughput | HostFigure::Steady | HostFigure::Changes => return None,
    })
}

/// A figure's short name: `read p99`, `throughput`.
fn short(f: &HostFlag) -> String {
    let name = match f.figure {
        HostFigure::Throughput => "throughput",
        HostFigure::P50 => "p50",
        HostFigure::P90 => "p90",
        HostFigure::P99 => "p99",
        HostFigure::P99_9 => "p99.9",
        HostFigure::P99_99 => "p99.99",
        HostFigure::Max => "max",
        HostFigure::Steady => "steady state",
        HostFigure::Changes => "changes",
    };
    match f.direction {
        Some(d) => format!("{d} {name}"),
        None => name.to_string(),
    }
}

/// Where a record belongs, as a reader names it.
pub fn place(p: &Place) -> String {
    match p {
        Place::Run => "the run".to_string(),
        Place::Repetition(n) => format!("repetition {n}"),
        Place::Test(name) => name.clone(),
        Place::Point {
            rw,
            bs_bytes,
            qd,
            threads,
        } => format!("{rw} {} QD{qd} T{threads}", ByteSize(*bs_bytes)),
        Place::Cell {
            rw,
            pattern,
            bs_bytes,
            qd,
        } => format!("{rw} {pattern} {} QD{qd}", ByteSize(*bs_bytes)),
        Place::Alone(t) => format!("{t} alone"),
        Place::Step(k) => format!("{k} targets"),
        Place::Ranks(k) => format!("{k} ranks"),
        Place::Row(v, bs) => format!("{} {}", v.name(), ByteSize(*bs)),
        Place::Speed(s) => format!("speed {s}"),
        Place::Phase(p) => crate::render::text::selftest::phase_name(*p).to_string(),
        Place::Round {
            round,
            bs_bytes,
            mix,
        } => {
            format!("round {round} {} {mix}", ByteSize(*bs_bytes))
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Direction;
    use crate::model::host::Probe;

    fn noise(flags: Vec<HostFlag>) -> HostNoise {
        HostNoise {
            seconds: 4.0,
            steal_pct: Some(0.2),
            cpu_pressure_pct: Some(7.0),
            clocksource: Some("tsc".into()),
            probe: Probe {
                period_us: 20_000.0,
                wakeups: 112,
                late_p50_us: 21.0,
                late_p99_us: 53_600.0,
                late_max_us: 53_800.0,
                over_1ms_share: 0.36,
                stalls: 40,
                stalled_ms: 2169.0,
                cpu_pct: 0.07,
            },
            workers_waited_ms: Some(2808.0),
            workers: 1,
            flags,
        }
    }

    #[test]
    fn a_stalled_run_names_its_figures_with_their_values() {
        let flags = vec![
            HostFlag {
                figure: HostFigure::Throughput,
                direction: None,
                cause: HostCause::Stalled,
            },
            HostFlag {
                figure: HostFigure::Max,
                direction: Some(Direction::Read),
                cause: HostCause::Stalled,
            },
        ];
        let n = noise(flags);
        let mut r = Results::default();
        let mut d = crate::stats::summary::DirSummary::default();
        d.latency_us.max = 56_024.0;
        r.read = Some(d);
        let one = HostOf {
            place: Place::Run,
            noise: &n,
            results: Some(&r),
        };
        assert_eq!(
            lines(&[one]),
            "host: this process was stalled 40 times, up to 53.80ms, 2.17 s of 4.00 s in all \
             (steal 0.2 %): the throughput and read max 56.02ms are the host's as much as the \
             device's\n"
        );
    }

    #[test]
    fn a_quiet_run_says_so_with_the_probe_and_the_clock() {
        let mut n = noise(Vec::new());
        n.probe.late_max_us = 39.0;
        n.probe.late_p99_us = 36.0;
        let one = HostOf {
            place: Place::Run,
            noise: &n,
            results: None,
        };
        let s = lines(&[one]);
        assert!(
            s.starts_with("host: quiet: steal 0.2 %, CPU pressure 7.0 %"),
            "{s}"
        );
        assert!(
            s.contains("at most 39.0µs late") && s.ends_with("clock tsc\n"),
            "{s}"
        );
    }
}
