//! The replay's text: what the trace holds, one row per speed, and the headroom in words.

use super::table::{Table, figures};
use crate::model::replay::{Headroom, HeadroomLimit, HeadroomOf, ReplayReport};
use crate::units::fmt_latency_ns;
use std::fmt::Write;

/// Where the response time doubles, in words: each figure's speed when it was reached; a
/// figure that never doubled says so as a clause of its own.
fn doubling(h: &Headroom) -> String {
    let within = format!("within {:.1} %", 100.0 * h.precision);
    let tried = format!(
        "at any speed tried (up to {:.2}× the trace's pace)",
        h.fastest_tried
    );
    match (h.of, h.speed_at_double_mean, h.speed_at_double_p99) {
        (HeadroomOf::Mean, Some(m), _) => format!(
            "the mean response time doubles at {m:.2}× the trace's pace ({within}; the 99th \
             percentile not searched)"
        ),
        (HeadroomOf::Mean, None, _) => {
            format!(
                "the mean response time does not double {tried} (the 99th percentile not searched)"
            )
        }
        (HeadroomOf::P99, _, Some(p)) => format!(
            "the 99th percentile doubles at {p:.2}× the trace's pace ({within}; the mean not \
             searched)"
        ),
        (HeadroomOf::P99, _, None) => {
            format!("the 99th percentile does not double {tried} (the mean not searched)")
        }
        (_, Some(m), Some(p)) => format!(
            "the mean response time doubles at {m:.2}× the trace's pace, the 99th percentile \
             at {p:.2}× (each {within})"
        ),
        (_, Some(m), None) => format!(
            "the mean response time doubles at {m:.2}× the trace's pace ({within}); the 99th \
             percentile does not double {tried}"
        ),
        (_, None, Some(p)) => format!(
            "the 99th percentile doubles at {p:.2}× the trace's pace ({within}); the mean \
             response time does not double {tried}"
        ),
        (_, None, None) => {
            format!("neither the mean response time nor the 99th percentile doubles {tried}")
        }
    }
}

/// The headroom in one sentence.
pub fn headroom_sentence(h: &Headroom) -> String {
    let why = match h.limit {
        HeadroomLimit::Device => "the device: requests were issued on time and waited for it".to_string(),
        HeadroomLimit::QueueLimit => {
            "the bound on requests in flight (--max-inflight): requests waited for a slot; raise it to find the device's own limit".to_string()
        }
        HeadroomLimit::Replayer => {
            "the replayer, which could not issue requests on time beyond this speed (CPU); no figure beyond it is trusted".to_string()
        }
        HeadroomLimit::NotReached => format!(
            "nothing up to the fastest speed tried ({:.2}×)",
            h.fastest_tried
        ),
    };
    format!("headroom: {}; limited by {why}", doubling(h))
}

/// Renders a replay report.
pub fn replay_table(r: &ReplayReport) -> String {
    let t = &r.trace;
    let us = |v: f64| fmt_latency_ns(v * 1e3);
    let mut out = format!(
        "replay of {} ({} requests, {:.0} % reads, {:.1} MB over {:.2} s{}) on {}{}\n",
        t.path,
        t.requests,
        100.0 * t.reads as f64 / t.requests.max(1) as f64,
        t.bytes as f64 / 1e6,
        t.span_s,
        t.iops.map_or(String::new(), |i| format!(", {i:.0} IOPS")),
        r.target.path,
        if r.reads_only {
            ", writes replayed as reads"
        } else {
            ""
        },
    );
    let mut table = Table::new(vec![
        figures("SPEED", 7),
        figures("ASKED", 10),
        figures("ACHIEVED", 10),
        figures("MEAN", 9),
        figures("p50", 9),
        figures("p99", 9),
        figures("max", 9),
        figures("LATE p99", 10),
        figures("LATE", 6),
        figures("INFLIGHT", 9),
    ]);
    for p in &r.points {
        table.row(vec![
            format!("{:.3}×", p.speed),
            format!("{:.0}", p.asked_iops),
            format!("{:.0}", p.achieved_iops),
            us(p.latency_us.mean),
            us(p.latency_us.p50),
            us(p.latency_us.p99),
            us(p.latency_us.max),
            us(p.late_us.p99),
            p.late.to_string(),
            p.max_inflight.to_string(),
        ]);
    }
    out.push_str(&table.render());
    out.push_str("response times run from each request's due time (the trace's time divided by the speed); LATE counts requests issued more than 1 ms after it\n");
    if let Some(h) = &r.headroom {
        let _ = writeln!(out, "{}", headroom_sentence(h));
    }
    if !t.timed {
        out.push_str("the trace has no times: its requests were issued as fast as --depth allowed, so there is no pace to speed up\n");
    }
    if t.syncs + t.trims > 0 {
        let _ = writeln!(
            out,
            "not replayed: {} syncs/flushes, {} trims/discards",
            t.syncs, t.trims
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headroom(mean: Option<f64>, p99: Option<f64>, limit: HeadroomLimit) -> Headroom {
        Headroom {
            speed_at_double_mean: mean,
            speed_at_double_p99: p99,
            limit,
            fastest_tried: 8.0,
            precision: 0.02,
            of: HeadroomOf::Both,
        }
    }

    /// The issue's sentence: "doubles at not reached the trace's pace, the 99th percentile at
    /// not reached". A figure that never doubled reads as a clause of its own, naming the
    /// fastest speed tried.
    #[test]
    fn a_headroom_not_reached_reads_as_a_sentence() {
        let both = headroom_sentence(&headroom(Some(2.3), Some(1.8), HeadroomLimit::Device));
        assert!(
            both.starts_with(
                "headroom: the mean response time doubles at 2.30× the trace's pace, the 99th \
                 percentile at 1.80× (each within 2.0 %)"
            ),
            "{both}"
        );
        let none = headroom_sentence(&headroom(None, None, HeadroomLimit::NotReached));
        assert!(!none.contains("at not reached"), "{none}");
        assert!(
            none.contains(
                "neither the mean response time nor the 99th percentile doubles at any speed \
                 tried (up to 8.00× the trace's pace)"
            ),
            "{none}"
        );
        let p99 = headroom_sentence(&headroom(Some(2.3), None, HeadroomLimit::Replayer));
        assert!(!p99.contains("not reached"), "{p99}");
        assert!(
            p99.contains(
                "2.30× the trace's pace (within 2.0 %); the 99th percentile does not \
                 double at any speed tried (up to 8.00×"
            ),
            "{p99}"
        );
        let mean = headroom_sentence(&headroom(None, Some(1.5), HeadroomLimit::Device));
        assert!(
            mean.contains("the 99th percentile doubles at 1.50×")
                && mean.contains("the mean response time does not double at any speed tried"),
            "{mean}"
        );
    }
}
