//! The experiment section: MB/s per variant as grouped bars (one group per request size, or
//! per region for the cache size), every row in a table, the facts and the verdict.

use super::categories::{BarSeries, Bars, bars};
use super::svg::Fmt;
use super::{Definition, esc, table};
use crate::model::experiment::{ExperimentReport, Row};
use crate::model::{Document, Input};
use crate::render::text::experiment::{ci_pct, fact, verdict};
use crate::units::ByteSize;
use std::fmt::Write;

/// A row's series name: variant (with its shift), direction and depth.
fn series_name(r: &Row) -> String {
    let shift = r
        .shift_bytes
        .map_or(String::new(), |s| format!(" {}", ByteSize(s)));
    format!("{}{shift} {} QD{}", r.variant.name(), r.rw.name(), r.qd)
}

/// A row's category: its region for region rows, else its request size.
fn category(r: &Row) -> String {
    match r.region_bytes {
        Some(b) => format!("region {}", ByteSize(b)),
        None => ByteSize(r.bs_bytes).to_string(),
    }
}

fn chart(e: &ExperimentReport, label: &str, k: usize) -> String {
    let mut cats: Vec<String> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for r in &e.rows {
        for (list, v) in [(&mut cats, category(r)), (&mut names, series_name(r))] {
            if !list.contains(&v) {
                list.push(v);
            }
        }
    }
    let series = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let find = |c: &String| {
                e.rows
                    .iter()
                    .find(|r| &series_name(r) == n && &category(r) == c)
            };
            BarSeries {
                // Each point's within-run 95 % interval of MB/s.
                errors: cats
                    .iter()
                    .map(|c| {
                        let r = find(c)?;
                        let ci = r.bytes_per_s_ci95?;
                        Some((
                            (r.bytes_per_s - ci.half) / 1e6,
                            (r.bytes_per_s + ci.half) / 1e6,
                        ))
                    })
                    .collect(),
                name: n.clone(),
                colour: k + i,
                values: cats
                    .iter()
                    .map(|c| find(c).map(|r| r.bytes_per_s / 1e6))
                    .collect(),
                tips: cats
                    .iter()
                    .map(|c| {
                        find(c).map_or(String::new(), |r| {
                            format!(
                                "{label}: {n}, {c}: {:.1} MB/s, mean {:.1} µs, {:.0} µs CPU/MB",
                                r.bytes_per_s / 1e6,
                                r.mean_us,
                                r.cpu_us_per_mb
                            )
                        })
                    })
                    .collect(),
            }
        })
        .collect();
    bars(&Bars {
        title: format!("{label}: {} — MB/s per variant", e.experiment.name()),
        y_title: "MB/s (10^6 bytes/s)".into(),
        fmt: Fmt::Si,
        categories: cats,
        series,
        note: String::new(),
    })
}

fn rows_table(e: &ExperimentReport) -> String {
    let rows: Vec<Vec<String>> = e
        .rows
        .iter()
        .map(|r| {
            vec![
                series_name(r),
                category(r),
                format!("{:.1}", r.bytes_per_s / 1e6),
                ci_pct(r),
                format!("{:.0}", r.iops),
                format!("{:.1}", r.mean_us),
                format!("{:.1}", r.p99_us),
                format!("{:.0}", r.cpu_us_per_mb),
                r.device_share.map_or("-".into(), |x| format!("{x:.2}")),
            ]
        })
        .collect();
    table(
        &[
            "variant",
            "size",
            "MB/s",
            "± (95 %)",
            "IOPS",
            "mean µs",
            "p99 µs",
            "CPU µs/MB",
            "device bytes ÷ own",
        ],
        &rows,
    )
}

/// burst's drains: each one's time, whether its baseline held, and its bucket.
fn drains_table(e: &ExperimentReport) -> String {
    let rows: Vec<Vec<String>> = e
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![series_name(r)];
            cells.extend(crate::render::text::burst::cells(r));
            cells
        })
        .collect();
    table(
        &[
            "drain",
            "seconds",
            "baseline held",
            "burst IOPS",
            "baseline IOPS",
            "credits (I/Os)",
            "burst ended, s",
        ],
        &rows,
    )
}

/// The charts and tables of experiment inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (k, (i, label)) in inputs.iter().zip(labels).enumerate() {
        let Document::Experiment(e) = &i.doc else {
            continue;
        };
        let _ = writeln!(
            out,
            "<h2>{} — {}</h2>",
            esc(e.experiment.name()),
            esc(label)
        );
        if let Some(f) = &e.finding {
            let _ = writeln!(out, "<p class=\"verdict\">{}</p>", esc(&verdict(f)));
        }
        if e.experiment == crate::model::experiment::ExperimentKind::Burst {
            // A drain's mean blends its burst and its baseline: its bucket is the figure.
            out.push_str(&drains_table(e));
        } else {
            out.push_str("<div class=\"charts\">\n");
            out.push_str(&chart(e, label, k));
            out.push_str("</div>\n");
            out.push_str(&rows_table(e));
        }
        if !e.facts.is_empty() {
            let facts: Vec<Vec<String>> = e
                .facts
                .iter()
                .map(|f| {
                    let (name, value) = fact(f);
                    vec![name, value]
                })
                .collect();
            out.push_str(&table(&["fact", "value"], &facts));
        }
    }
    let defs = vec![Definition {
        name: "CPU µs/MB",
        text: "halfpower's CPU time (user + system, the kernel's copying for buffered I/O included) per 10^6 bytes moved",
        doc: "docs/experiments.md",
    }];
    (out, defs)
}

impl super::Drawn for crate::model::experiment::ExperimentReport {
    fn describe(&self, _: &str) -> String {
        format!("{} on {}", self.experiment.name(), self.target.path)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
