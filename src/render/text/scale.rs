//! The scaling experiment on a terminal: each target alone, each step with its efficiency and
//! per-target shares, the shared components at the limit, and the verdict.

use crate::model::scale::{ComponentKind, ScaleReport};
use std::fmt::Write;

fn mb(bytes_per_s: f64) -> String {
    format!("{:.1}", bytes_per_s / 1e6)
}

/// Renders a scale report.
pub fn scale_table(r: &ScaleReport) -> String {
    let mut out = String::new();
    let w = &r.workload;
    let per = match r.stripe_bytes {
        Some(c) => format!(
            "per stripe set (steps 2.. stripe their targets in {} chunks)",
            crate::units::ByteSize(c)
        ),
        None => "per target".into(),
    };
    let _ = writeln!(
        out,
        "Scaling: {} {} QD{} T{} {per}, MB/s = 10^6 bytes/s",
        w.rw, w.bs, w.qd, w.threads
    );
    let _ = writeln!(out, "\n{:<32} {:>10} {:>10}", "alone", "MB/s", "IOPS");
    for a in &r.alone {
        let _ = writeln!(
            out,
            "{:<32} {:>10} {:>10.0}",
            a.target,
            mb(a.bytes_per_s),
            a.iops
        );
    }
    let _ = writeln!(
        out,
        "\n{:<8} {:>10} {:>12} {:>10}  per target MB/s",
        "targets", "MB/s", "sum alone", "efficiency"
    );
    for (i, s) in r.steps.iter().enumerate() {
        let sum = r.analysis.sum_alone_first_bytes_per_s.get(i).copied();
        let eff = r.analysis.efficiency.get(i).copied();
        let shares: Vec<String> = s.per_target.iter().map(|p| mb(p.bytes_per_s)).collect();
        let mark = if r.analysis.saturates_at == Some(s.targets) {
            "  <- saturates"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{:<8} {:>10} {:>12} {:>9}%  {}{mark}",
            s.targets,
            mb(s.bytes_per_s),
            sum.map_or("-".into(), mb),
            eff.map_or("-".into(), |e| format!("{:.0}", e * 100.0)),
            shares.join(" ")
        );
    }
    if !r.analysis.shared.is_empty() {
        let _ = writeln!(out, "\nshared by more than one target (at the limit):");
        for s in &r.analysis.shared {
            let what = match s.kind {
                ComponentKind::Device => "device",
                ComponentKind::Cpu => "CPUs",
            };
            let _ = writeln!(
                out,
                "  {} ({what}, under {}): {} MB/s, {} % busy",
                s.component,
                s.targets.len(),
                s.bytes_per_s.map_or("-".into(), mb),
                s.util_pct.map_or("-".into(), |u| format!("{u:.0}"))
            );
        }
    }
    let _ = writeln!(out, "\n{}", r.analysis.verdict);
    if r.interrupted {
        out.push_str("interrupted: the steps measured before Ctrl-C\n");
    }
    out
}
