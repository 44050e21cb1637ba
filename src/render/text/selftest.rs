//! The self-test in words: the clock, the wake-ups, the engine's floor, each known answer with
//! its error and bound, and the statement the figures support.

use super::table::{Table, figures, words};
use crate::model::selftest::{
    Check, CheckKind, Known, Phase, SelftestReport, SkipReason, SkippedCheck,
};
use crate::units::fmt_latency_ns;
use std::fmt::Write;

/// A phase as a reader names it.
pub fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Floor => "the null engine's floor",
        Phase::Paced => "the paced null engine",
        Phase::ThrottledIops => "the IOPS-capped loop device",
        Phase::ThrottledBandwidth => "the MB/s-capped loop device",
    }
}

/// A check's name and the unit of its figures.
pub fn check_name(k: CheckKind) -> (&'static str, &'static str) {
    match k {
        CheckKind::PacedRate => ("paced null engine, rate", "IOPS"),
        CheckKind::PacedLatency => ("paced null engine, p99 error", "µs"),
        CheckKind::ThrottledIops => ("loop device capped, IOPS", "IOPS"),
        CheckKind::ThrottledBandwidth => ("loop device capped, MB/s", "MB/s"),
        CheckKind::KernelIops => ("same device, IOPS vs the kernel's", "IOPS"),
        CheckKind::KernelBandwidth => ("same device, MB/s vs the kernel's", "MB/s"),
    }
}

fn skip_words(what: SkippedCheck, why: SkipReason) -> String {
    let what = match what {
        SkippedCheck::ThrottledDevice => "the throttled loop device",
    };
    let why = match why {
        SkipReason::NotRoot => "it needs root",
        SkipReason::NoLoopDevice => "no loop device could be made",
        SkipReason::NoThrottle => "no throttling cgroup could be made",
        SkipReason::LeftOut => "--no-device",
    };
    format!("{what} did not run: {why}")
}

/// The statement in one sentence.
pub fn statement(r: &SelftestReport) -> String {
    let s = &r.statement;
    format!(
        "on this machine latencies above {} are measured within ±{:.0} %, rates within ±{:.1} %{}",
        fmt_latency_ns(s.latency_above_us * 1e3),
        s.latency_within_pct,
        s.rates_within_pct,
        if s.held {
            " (every known answer held)"
        } else {
            " — a known answer broke it (FAILED above)"
        }
    )
}

/// A check's known and measured figures in its unit (MB/s, not bytes/s), a ceiling marked as
/// one (`≤ 200.0 µs`).
pub fn check_figures(k: &Check) -> (String, String) {
    let (_, unit) = check_name(k.kind);
    let scale = if unit == "MB/s" { 1e-6 } else { 1.0 };
    let f = |v: f64| format!("{:.1} {unit}", v * scale);
    let known = match k.kind.known_is() {
        Known::Answer => f(k.known),
        Known::Ceiling => format!("≤ {}", f(k.known)),
    };
    (known, f(k.measured))
}

/// A check's error and bound as they read: a signed share of the answer, or, for a ceiling,
/// the measured error's share of the statement's smallest latency (`1.64 % of 2.00ms`).
pub fn check_error(k: &Check, r: &SelftestReport) -> (String, String) {
    let bound = format!("{:.1} %", k.bound_pct);
    match k.kind.known_is() {
        Known::Answer => (format!("{:+.2} %", k.error_pct), bound),
        Known::Ceiling => {
            let of = fmt_latency_ns(r.statement.latency_above_us * 1e3);
            (
                format!("{:.2} % of {of}", k.error_pct),
                format!("{bound} of {of}"),
            )
        }
    }
}

/// The whole report.
pub fn selftest_text(r: &SelftestReport) -> String {
    let mut out = facts(r);
    let mut table = Table::new(vec![
        words("KNOWN ANSWER", 36),
        figures("KNOWN", 14),
        figures("MEASURED", 14),
        figures("ERROR", 9),
        figures("BOUND", 8),
    ]);
    for k in &r.checks {
        let (known, measured) = check_figures(k);
        let (error, bound) = check_error(k, r);
        let cells = vec![
            check_name(k.kind).0.to_string(),
            known,
            measured,
            error,
            bound,
        ];
        table.row_noted(cells, if k.held { "ok" } else { "FAILED" }.to_string());
    }
    out.push_str(&table.render());
    for s in skipped(r) {
        let _ = writeln!(out, "{s}");
    }
    let _ = writeln!(out, "{}", statement(r));
    out
}

/// The checks that did not run, a sentence each.
pub fn skipped(r: &SelftestReport) -> Vec<String> {
    r.skipped
        .iter()
        .map(|s| skip_words(s.what, s.why))
        .collect()
}

/// The clock, wake-up and engine-floor lines.
pub fn facts(r: &SelftestReport) -> String {
    let mut out = String::new();
    let c = &r.clock;
    let _ = writeln!(
        out,
        "clock: {} (CLOCK_MONOTONIC), resolution {} ns, smallest step {} ns, {:.0} ns a read",
        c.source.as_deref().unwrap_or("unknown source"),
        c.resolution_ns,
        c.step_ns,
        c.read_ns
    );
    let w = &r.wake;
    let _ = writeln!(
        out,
        "wake-ups (a thread sleeping to deadlines 1 ms apart, {}): late p50 {}, p99 {}, max {}, \
         {:.2} % over 1 ms",
        w.wakeups,
        fmt_latency_ns(w.late_p50_us * 1e3),
        fmt_latency_ns(w.late_p99_us * 1e3),
        fmt_latency_ns(w.late_max_us * 1e3),
        100.0 * w.over_1ms_share
    );
    let f = &r.floor;
    let _ = writeln!(
        out,
        "engine floor (null engine, QD1): {:.0} ns of CPU per I/O, {:.0} IOPS, p50 {}",
        f.cpu_ns_per_io,
        f.iops,
        fmt_latency_ns(f.latency_p50_us * 1e3)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::selftest::Statement;

    fn report(checks: Vec<Check>) -> SelftestReport {
        let statement = Statement {
            latency_above_us: 2000.0,
            latency_within_pct: 10.0,
            rates_within_pct: 0.1,
            held: true,
        };
        SelftestReport::for_tests(checks, statement)
    }

    /// Issue 48: the paced latency check's known figure is a ceiling and reads as one, its error
    /// as a share of the statement's smallest latency ("KNOWN 200.0 µs, MEASURED 32.9 µs, ERROR
    /// +1.64 %" read as a contradiction); an answer keeps its signed error.
    #[test]
    fn a_ceiling_reads_as_a_ceiling() {
        let paced = Check {
            kind: CheckKind::PacedLatency,
            known: 200.0,
            known_is: Known::Ceiling,
            measured: 32.9,
            error_pct: 1.645,
            bound_pct: 10.0,
            held: true,
        };
        let rate = Check {
            kind: CheckKind::PacedRate,
            known: 20000.0,
            known_is: Known::Answer,
            measured: 19990.0,
            error_pct: -0.05,
            bound_pct: 0.1,
            held: true,
        };
        let r = report(vec![paced.clone(), rate.clone()]);
        assert_eq!(
            check_figures(&paced),
            ("≤ 200.0 µs".to_string(), "32.9 µs".to_string())
        );
        assert_eq!(
            check_error(&paced, &r),
            (
                "1.65 % of 2.00ms".to_string(),
                "10.0 % of 2.00ms".to_string()
            )
        );
        assert_eq!(
            check_error(&rate, &r),
            ("-0.05 %".to_string(), "0.1 %".to_string())
        );
        let text = selftest_text(&r);
        let row = text.lines().find(|l| l.contains("p99 error")).unwrap();
        assert!(
            row.contains("≤ 200.0 µs") && row.contains("1.65 % of 2.00ms"),
            "{row}"
        );
    }
}
