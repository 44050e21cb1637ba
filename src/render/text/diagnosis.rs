//! The diagnosis as text: one line per device, then each active device's rule, evidence,
//! expectation, advice and (serial devices only) M/M/1 projection.

use super::table::{Table, figures, words};
use crate::model::diagnosis::{
    DeviceDiagnosis, Diagnosis, ExpectationSource, ProfileApplied, ProfileMatch, Projection,
    SystemSummary, Verdict,
};
use crate::render::words;
use std::fmt::Write as _;

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.3}"))
}

/// The diagnosis as text: a table of devices, then each non-idle device's evidence and advice.
pub fn diagnosis_text(d: &Diagnosis) -> String {
    let mut out = String::new();
    device_table(&mut out, d);
    for dev in d.devices.iter().filter(|x| x.verdict != Verdict::Idle) {
        device_detail(&mut out, d, dev);
    }
    if let Some(p) = &d.profile {
        profile_line(&mut out, p);
    }
    system_line(&mut out, &d.system);
    out
}

/// The summary table: one line per device (idle ones included), so every device is accounted for.
fn device_table(out: &mut String, d: &Diagnosis) {
    let mut t = Table::new(vec![
        words("Device", 28),
        words("class", 8),
        words("serves", 9),
        words("verdict", 13),
        figures("%util", 7),
        figures("IOPS", 10),
        figures("R ms", 9),
        figures("S ms", 9),
        figures("Wq ms", 9),
        figures("queue", 7),
        words("S from", 0),
    ]);
    for dev in &d.devices {
        t.row(vec![
            dev.device.clone(),
            dev.class.name().to_string(),
            dev.serving.name().to_string(),
            dev.verdict.name().to_string(),
            dev.utilization_pct
                .map_or("-".into(), |u| format!("{u:.1}")),
            format!("{:.1}", dev.iops),
            ms(dev.response_ms),
            ms(dev.service_ms),
            ms(dev.queue_ms),
            dev.queue_length.map_or("-".into(), |q| format!("{q:.2}")),
            dev.service_source.name().to_string(),
        ]);
    }
    out.push_str(&t.render());
}

/// One active device's block: the rule and evidence behind its verdict, what was expected of it,
/// its headroom and changes, the advice, and the M/M/1 projection where there is one.
fn device_detail(out: &mut String, d: &Diagnosis, dev: &DeviceDiagnosis) {
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
    super::run::change_lines(out, &dev.changes);
    for a in words::advice(dev.verdict) {
        let _ = writeln!(out, "  advice: {a}");
    }
    if let Some(p) = &dev.projection {
        projection_lines(out, p);
    }
}

/// The M/M/1 projection as one line of load steps, then the note on what the model assumes.
fn projection_lines(out: &mut String, p: &[Projection]) {
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

/// Which disks the profile applied to and how that was decided, so a reader can check the match.
fn profile_line(out: &mut String, p: &ProfileApplied) {
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

/// The host's paging, only when it paged hard: paging can explain slow I/O the disks did not cause.
fn system_line(out: &mut String, s: &SystemSummary) {
    if s.paging_intervals > 0 {
        let _ = writeln!(
            out,
            "\nsystem: hard paging above 5 pages/s in {} of {} intervals (peak {:.1} pages/s)",
            s.paging_intervals,
            s.intervals,
            s.paging_s_max.unwrap_or(0.0)
        );
    }
}
