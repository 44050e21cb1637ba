//! The replay's text: what the trace holds, one row per speed, and the headroom in words.

use crate::model::replay::{Headroom, HeadroomLimit, ReplayReport};
use crate::units::fmt_latency_ns;
use std::fmt::Write;

/// The headroom in one sentence.
pub fn headroom_sentence(h: &Headroom) -> String {
    let speed = |s: Option<f64>| s.map_or("not reached".to_string(), |s| format!("{s:.2}×"));
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
    format!(
        "headroom: the mean response time doubles at {} the trace's pace, the 99th percentile at {} (each within {:.1} %); limited by {why}",
        speed(h.speed_at_double_mean),
        speed(h.speed_at_double_p99),
        100.0 * h.precision,
    )
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
    let _ = writeln!(
        out,
        "{:>7} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>10} {:>6} {:>9}",
        "SPEED", "ASKED", "ACHIEVED", "MEAN", "p50", "p99", "max", "LATE p99", "LATE", "INFLIGHT"
    );
    for p in &r.points {
        let _ = writeln!(
            out,
            "{:>6.3}× {:>10.0} {:>10.0} {:>9} {:>9} {:>9} {:>9} {:>10} {:>6} {:>9}",
            p.speed,
            p.asked_iops,
            p.achieved_iops,
            us(p.latency_us.mean),
            us(p.latency_us.p50),
            us(p.latency_us.p99),
            us(p.latency_us.max),
            us(p.late_us.p99),
            p.late,
            p.max_inflight,
        );
    }
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
