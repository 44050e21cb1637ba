//! The profile section: 004 Table 4 (QD1 service time by request size and read/write ×
//! pattern, with each column's fitted line beneath), and per column the service time against
//! request size with its fitted line `y = m·x + b`, R² and the off-line points marked.

use super::svg::{Axis, Fmt, Mark, Plot, Scale, Series, plot};
use super::{Definition, esc, table};
use crate::model::Direction;
use crate::model::profile::{Pattern, ProfileCell, ProfileReport};
use crate::model::{Document, Input};
use crate::units::ByteSize;
use std::fmt::Write;

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.3}"))
}

fn columns(profiles: &[&ProfileReport]) -> Vec<(Direction, Pattern)> {
    [Direction::Read, Direction::Write]
        .into_iter()
        .flat_map(|rw| Pattern::ALL.iter().map(move |p| (rw, *p)))
        .filter(|(rw, p)| {
            profiles
                .iter()
                .any(|r| r.cells.iter().any(|c| c.rw == *rw && c.pattern == *p))
        })
        .collect()
}

/// 004 Table 4 of one profile as an HTML table.
fn table4(r: &ProfileReport, cols: &[(Direction, Pattern)]) -> String {
    let mut sizes: Vec<u64> = r.cells.iter().map(|c| c.bs_bytes).collect();
    sizes.sort();
    sizes.dedup();
    let mut head: Vec<String> = vec!["request size".into()];
    head.extend(
        cols.iter()
            .map(|(rw, p)| format!("{} {}", rw.name(), p.name())),
    );
    let mut rows: Vec<Vec<String>> = sizes
        .iter()
        .map(|bs| {
            let mut row = vec![ByteSize(*bs).to_string()];
            for (rw, p) in cols {
                let (service, off) = r.service_cell(*rw, *p, *bs);
                let v = ms(service);
                row.push(if off {
                    format!("{v} (off the line)")
                } else {
                    v
                });
            }
            row
        })
        .collect();
    let fit_row = |name: &str, get: &dyn Fn(&crate::model::profile::Fit) -> String| {
        let mut row = vec![name.to_string()];
        for (rw, p) in cols {
            row.push(
                r.fits
                    .iter()
                    .find(|f| f.rw == *rw && f.pattern == *p)
                    .map_or("-".into(), get),
            );
        }
        row
    };
    rows.push(fit_row("b: overhead ms", &|f| {
        format!("{:.3}", f.overhead_ms)
    }));
    rows.push(fit_row("m: ms per KiB", &|f| {
        format!("{:.5}", f.ms_per_kib)
    }));
    rows.push(fit_row("R²", &|f| {
        f.r2.map_or("-".into(), |r| format!("{r:.4}"))
    }));
    rows.push(fit_row("transfer MB/s (1/m)", &|f| {
        f.transfer_mb_per_s
            .map_or("-".into(), |v| format!("{v:.1}"))
    }));
    rows.push(fit_row("line at 32k, ms", &|f| ms(f.projected_32k_ms)));
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    table(&head, &rows)
}

/// The charts and tables of profile inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let profiles: Vec<&ProfileReport> = inputs
        .iter()
        .filter_map(|i| match &i.doc {
            Document::Profile(p) => Some(p.as_ref()),
            _ => None,
        })
        .collect();
    let cols = columns(&profiles);
    let mut out = String::new();
    for (r, label) in profiles.iter().zip(labels) {
        let _ = writeln!(
            out,
            "<h2>Service time, ms — {} (004 Table 4)</h2>\n<p class=\"note\">S = 1/IOPS at queue depth 1 (the Utilization Law with the device 100 % busy); beneath, each column's fitted line service = b + m × size in KiB.</p>",
            esc(label)
        );
        out.push_str(&table4(r, &cols));
    }
    out.push_str(
        "<h2>Service time against request size, per column</h2>\n<div class=\"charts\">\n",
    );
    for (rw, pattern) in &cols {
        out.push_str(&column_plot(rw, pattern, &profiles, labels));
    }
    out.push_str("</div>\n");
    (out, definitions())
}

/// One column's chart: service time against request size for every input, with its fitted
/// line and the points off it.
fn column_plot(
    rw: &Direction,
    pattern: &Pattern,
    profiles: &[&ProfileReport],
    labels: &[String],
) -> String {
    let mut p = Plot::new(
        format!("{rw} {pattern}: service time against request size"),
        Axis::new("request size (log 2; k = KiB)", Scale::Log2, Fmt::Bytes),
        Axis::new("service time, ms (QD1)", Scale::Linear, Fmt::Plain),
    );
    let mut notes = Vec::new();
    for (k, (r, label)) in profiles.iter().zip(labels).enumerate() {
        if let Some(note) = column_series(&mut p, k, r, label, rw, pattern) {
            notes.push(note);
        }
    }
    p.note = format!(
        "x = request size in KiB in the equation; the straight line looks curved on the log-2 axis. {}",
        notes.join("; ")
    );
    plot(&p)
}

/// One input's measured QD1 service times at each request size, as points with hover text.
fn measured(k: usize, label: &str, cells: &[&ProfileCell]) -> Series {
    Series {
        name: format!("{label}: measured"),
        points: cells
            .iter()
            .map(|c| (c.bs_bytes as f64, c.service_ms.unwrap_or(f64::NAN)))
            .collect(),
        tips: cells
            .iter()
            .map(|c| {
                format!(
                    "{label}: {} → S {} ms ({:.0} IOPS, mean latency {:.3} ms{})",
                    ByteSize(c.bs_bytes),
                    ms(c.service_ms),
                    c.iops,
                    c.mean_latency_ms,
                    c.device_util_pct
                        .map_or(String::new(), |u| format!(", disk {u:.1} % busy"))
                )
            })
            .collect(),
        colour: k,
        dash: 0,
        line: false,
    }
}

/// Adds one input's measured points, and its fitted line and off-line marks when it has a fit,
/// to a column's plot; gives the note naming the line's equation (None without a fit).
fn column_series(
    p: &mut Plot,
    k: usize,
    r: &ProfileReport,
    label: &str,
    rw: &Direction,
    pattern: &Pattern,
) -> Option<String> {
    let mut cells: Vec<_> = r
        .cells
        .iter()
        .filter(|c| c.rw == *rw && c.pattern == *pattern && c.qd == 1 && c.threads == 1)
        .filter(|c| c.service_ms.is_some())
        .collect();
    cells.sort_by_key(|c| c.bs_bytes);
    p.series.push(measured(k, label, &cells));
    let fit = r
        .fits
        .iter()
        .find(|f| f.rw == *rw && f.pattern == *pattern)?;
    let (lo, hi) = cells
        .first()
        .zip(cells.last())
        .map_or((4096.0, 1048576.0), |(a, b)| {
            (a.bs_bytes as f64, b.bs_bytes as f64)
        });
    let steps = 32;
    let line: Vec<(f64, f64)> = (0..=steps)
        .map(|i| {
            let bytes = lo * (hi / lo).powf(i as f64 / steps as f64);
            (bytes, fit.at(bytes / 1024.0))
        })
        .collect();
    let eq = format!(
        "y = {:.5}·x + {:.3} ms{}",
        fit.ms_per_kib,
        fit.overhead_ms,
        fit.r2.map_or(String::new(), |r| format!(", R² = {r:.4}"))
    );
    p.series.push(Series {
        name: format!("{label}: fitted {eq}"),
        tips: Vec::new(),
        points: line,
        colour: k,
        dash: 1,
        line: true,
    });
    for bs in &fit.off_line_bs_bytes {
        if let Some(c) = cells.iter().find(|c| c.bs_bytes == *bs) {
            p.marks.push(Mark {
                x: *bs as f64,
                y: c.service_ms.unwrap_or(f64::NAN),
                label: "off".into(),
                tip: format!(
                    "{label}: {} fell off the line (measured {} ms, line {:.3} ms); left out of the fit",
                    ByteSize(*bs),
                    ms(c.service_ms),
                    fit.at(*bs as f64 / 1024.0)
                ),
            });
        }
    }
    Some(format!("{label}: {eq}"))
}

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "service time (S)",
            text: "1/IOPS at queue depth 1: the Utilization Law with the device 100 % busy; the disk's own %util is in each point's hover text to check that assumption.",
            doc: "docs/sweep.md, section 'halfpower profile'",
        },
        Definition {
            name: "fitted line",
            text: "service = b + m × request size (KiB), least squares from the smallest sizes up; a size more than 15 % off the line is left out and marked.",
            doc: "docs/profile.md",
        },
        Definition {
            name: "R²",
            text: "Share of the variance of the fitted points that the line explains.",
            doc: "docs/profile.md",
        },
        Definition {
            name: "transfer MB/s",
            text: "1/m: the transfer rate the slope implies, 10^6 bytes per second.",
            doc: "docs/profile.md",
        },
    ]
}

impl super::Drawn for crate::model::profile::ProfileReport {
    fn describe(&self, _: &str) -> String {
        self.target.clone()
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
