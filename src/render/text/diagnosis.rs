//! The diagnosis as text: one line per device, then each active device's rule, evidence,
//! expectation, advice and (serial devices only) M/M/1 projection.

use crate::model::diagnosis::{Diagnosis, ExpectationSource, ProfileMatch, Verdict};
use crate::render::words;
use std::fmt::Write as _;

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.3}"))
}

/// The diagnosis as text: a table of devices, then each non-idle device's evidence and advice.
pub fn diagnosis_text(d: &Diagnosis) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<28} {:<8} {:<9} {:<13} {:>7} {:>10} {:>9} {:>9} {:>9} {:>7}  S from",
        "Device", "class", "serves", "verdict", "%util", "IOPS", "R ms", "S ms", "Wq ms", "queue"
    );
    for dev in &d.devices {
        let _ = writeln!(
            out,
            "{:<28} {:<8} {:<9} {:<13} {:>7} {:>10.1} {:>9} {:>9} {:>9} {:>7}  {}",
            dev.device,
            dev.class.name(),
            dev.serving.name(),
            dev.verdict.name(),
            dev.utilization_pct
                .map_or("-".into(), |u| format!("{u:.1}")),
            dev.iops,
            ms(dev.response_ms),
            ms(dev.service_ms),
            ms(dev.queue_ms),
            dev.queue_length.map_or("-".into(), |q| format!("{q:.2}")),
            dev.service_source.name()
        );
    }
    for dev in d.devices.iter().filter(|x| x.verdict != Verdict::Idle) {
        let _ = writeln!(out, "\n{} — {}", dev.device, dev.verdict.name());
        for c in &dev.class_evidence {
            let _ = writeln!(out, "  device: {}", words::class_evidence(c));
        }
        let _ = writeln!(out, "  rule: {}", words::rule(dev.verdict));
        for e in &dev.evidence {
            let _ = writeln!(out, "  evidence: {}", words::evidence(e));
        }
        if let (Some(e), Some(kib)) = (dev.expected_service_ms, dev.expected_request_kib) {
            let from = words::expectation(dev.expectation_source, dev.class, kib);
            let _ = writeln!(out, "  expected service time: {e:.3} ms ({from})");
        }
        if let (Some(p), ExpectationSource::Class) = (&d.profile, dev.expectation_source) {
            let _ = writeln!(
                out,
                "  the profile describes {} only: this device is judged by its class",
                p.devices.join(" or ")
            );
        }
        if let Some(h) = &dev.headroom {
            let _ = writeln!(out, "  headroom: {}", words::headroom(h));
        }
        super::run::change_lines(&mut out, &dev.changes);
        for a in words::advice(dev.verdict) {
            let _ = writeln!(out, "  advice: {a}");
        }
        if let Some(p) = &dev.projection {
            let cells: Vec<String> = p
                .iter()
                .map(|x| {
                    format!(
                        "×{:.2} load → {:.0} % busy, Wq {}",
                        x.load_factor,
                        x.utilization_pct,
                        x.queue_ms
                            .map_or("unbounded".into(), |q| format!("{q:.2} ms"))
                    )
                })
                .collect();
            let _ = writeln!(out, "  M/M/1 projection: {}", cells.join("; "));
            let _ = writeln!(out, "    ({})", words::PROJECTION_NOTE);
        }
    }
    if let Some(p) = &d.profile {
        let how = match p.how {
            ProfileMatch::Measured => "the disk it was measured on",
            ProfileMatch::Named => "named with --profile-device",
            ProfileMatch::OnlyDevice => "the profile names no disk; the logs' only device",
        };
        let found = if p.found {
            ""
        } else {
            "; no log holds it, so every device is judged by its class"
        };
        let _ = writeln!(
            out,
            "\nprofile: applies to {} ({how}){found}",
            p.devices.join(" or ")
        );
    }
    if d.system.paging_intervals > 0 {
        let _ = writeln!(
            out,
            "\nsystem: hard paging above 5 pages/s in {} of {} intervals (peak {:.1} pages/s)",
            d.system.paging_intervals,
            d.system.intervals,
            d.system.paging_s_max.unwrap_or(0.0)
        );
    }
    out
}
