//! `halfpower diagnose`: reads the logs, applies the rules, prints text or JSON.

use crate::cli::DiagnoseArgs;
use crate::diagnose::profile::Profile;
use crate::diagnose::{Diagnosis, diagnose as run_rules, parse_log};
use anyhow::Context;
use std::fmt::Write as _;
use std::io::Write;

/// Runs `diagnose`; returns the exit status.
pub fn diagnose(args: DiagnoseArgs) -> anyhow::Result<u8> {
    let profile = match &args.profile {
        None => None,
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                crate::Error::invalid(
                    "--profile",
                    p.display(),
                    format!("a readable profile JSON file ({e})"),
                )
            })?;
            Some(Profile::from_json(&text).map_err(|e| {
                crate::Error::invalid(
                    "--profile",
                    p.display(),
                    format!("a profile as docs/profile.md defines it: {e}"),
                )
            })?)
        }
    };
    let mut logs = Vec::new();
    for path in &args.logs {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path)
            .map_err(|e| crate::Error::invalid("LOG", &shown, format!("a readable file ({e})")))?;
        let text = String::from_utf8_lossy(&bytes);
        let log =
            parse_log(&shown, &text).map_err(|why| crate::Error::invalid("LOG", &shown, why))?;
        for w in &log.warnings {
            eprintln!("halfpower: warning: {w}");
        }
        if log.disks.is_empty() {
            return Err(crate::Error::invalid(
                "LOG",
                &shown,
                "a log with at least one complete device interval",
            )
            .into());
        }
        logs.push(log);
    }
    let d = run_rules(&logs, profile.as_ref());
    let mut so = std::io::stdout().lock();
    if args.json {
        writeln!(so, "{}", serde_json::to_string_pretty(&d)?).context("writing to stdout")?;
    } else {
        write!(so, "{}", text(&d)).context("writing to stdout")?;
    }
    Ok(0)
}

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.3}"))
}

/// The diagnosis as text: a table of devices, then each non-idle device's evidence and advice.
fn text(d: &Diagnosis) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<28} {:<13} {:>7} {:>10} {:>9} {:>9} {:>9} {:>7}  S from",
        "Device", "verdict", "%util", "IOPS", "R ms", "S ms", "Wq ms", "queue"
    );
    for dev in &d.devices {
        let _ = writeln!(
            out,
            "{:<28} {:<13} {:>7} {:>10.1} {:>9} {:>9} {:>9} {:>7}  {}",
            dev.device,
            dev.verdict.name(),
            dev.utilization_pct
                .map_or("-".into(), |u| format!("{u:.1}")),
            dev.iops,
            ms(dev.response_ms),
            ms(dev.service_ms),
            ms(dev.queue_ms),
            dev.queue_length.map_or("-".into(), |q| format!("{q:.2}")),
            dev.service_source
        );
    }
    for dev in d.devices.iter().filter(|x| x.verdict.name() != "idle") {
        let _ = writeln!(out, "\n{} — {}", dev.device, dev.verdict.name());
        let _ = writeln!(out, "  rule: {}", dev.rule);
        for e in &dev.evidence {
            let _ = writeln!(out, "  evidence: {}", e.text);
        }
        if let (Some(e), Some(from)) = (dev.expected_service_ms, &dev.expectation) {
            let _ = writeln!(out, "  expected service time: {e:.3} ms ({from})");
        }
        for a in &dev.advice {
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
            if let Some(n) = &dev.projection_note {
                let _ = writeln!(out, "    ({n})");
            }
        }
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
