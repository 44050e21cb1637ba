//! The scale section: total MB/s against the number of targets with the line of perfect
//! scaling beside it, each step's per-target MB/s as grouped bars, the shared components at the
//! limit, and the verdict.

use super::categories::{BarSeries, Bars, bars};
use super::svg::{Axis, Fmt, Mark, Plot, Scale, Series, plot};
use super::{Definition, esc, table};
use crate::model::scale::ScaleReport;
use crate::model::{Document, Input};
use crate::render::text::scale::nouns;
use std::fmt::Write;

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "efficiency",
            text: "a step's MB/s over the sum of its targets' MB/s alone, with a 95 % interval from both runs' intervals; the total saturates at the first step below 90 % from which no step is clearly above 90 % and one is clearly below",
            doc: "docs/experiments.md, scale",
        },
        Definition {
            name: "in flight",
            text: "I/Os in flight on average by Little's law, IOPS × mean response time; a step that keeps fewer than its targets alone at their response time is held by its depth, not by anything shared",
            doc: "docs/experiments.md, scale",
        },
        Definition {
            name: "perfect scaling",
            text: "the sum of the first n targets' MB/s each alone",
            doc: "docs/experiments.md, scale",
        },
    ]
}

/// The charts of scale inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let reports: Vec<&ScaleReport> = inputs
        .iter()
        .filter_map(|i| match &i.doc {
            Document::Scale(s) => Some(s.as_ref()),
            _ => None,
        })
        .collect();
    let mut out = String::new();
    out.push_str("<h2>Scaling</h2>\n<div class=\"charts\">\n");
    out.push_str(&plot(&total_plot(&reports, labels)));
    for (k, (r, label)) in reports.iter().zip(labels).enumerate() {
        out.push_str(&step_bars(k, r, label));
    }
    out.push_str("</div>\n");
    for (r, label) in reports.iter().zip(labels) {
        verdict(&mut out, r, label);
    }
    (out, definitions())
}

/// Total MB/s against the number of targets: per input its steps, the line of perfect
/// scaling, and where it saturates.
fn total_plot(reports: &[&ScaleReport], labels: &[String]) -> Plot {
    let mut total = Plot::new(
        "Total MB/s against the number of targets",
        Axis::new("targets", Scale::Linear, Fmt::Count),
        Axis::new("MB/s (10^6 bytes/s)", Scale::Linear, Fmt::Si),
    );
    for (k, (r, label)) in reports.iter().zip(labels).enumerate() {
        let pts: Vec<(f64, f64)> = r
            .steps
            .iter()
            .map(|s| (s.targets as f64, s.bytes_per_s / 1e6))
            .collect();
        let tips = r
            .steps
            .iter()
            .zip(&r.analysis.efficiency)
            .enumerate()
            .map(|(i, (s, e))| {
                let interval = r.analysis.steps.get(i).map_or(String::new(), |x| {
                    format!(
                        " ({:.0}–{:.0} %)",
                        x.efficiency_low * 100.0,
                        x.efficiency_high * 100.0
                    )
                });
                // Dealt out: k ranks on k × N targets.
                let disks = (r.targets_per_rank).map_or(String::new(), |n| {
                    format!(" on {} targets", s.targets * n as usize)
                });
                format!(
                    "{label}: {} {}{disks}, {:.1} MB/s, {:.0} % of perfect{interval}",
                    s.targets,
                    nouns(r.across).1,
                    s.bytes_per_s / 1e6,
                    e * 100.0
                )
            })
            .collect();
        total.series.push(Series::line(label.clone(), pts, tips, k));
        let ideal: Vec<(f64, f64)> = r
            .analysis
            .sum_alone_first_bytes_per_s
            .iter()
            .zip(&r.steps)
            .map(|(b, s)| (s.targets as f64, b / 1e6))
            .collect();
        total.series.push(Series {
            dash: 1,
            ..Series::line(format!("{label}: perfect scaling"), ideal, Vec::new(), k)
        });
        if let (Some(n), Some(limit)) = (r.analysis.saturates_at, r.analysis.limit_bytes_per_s) {
            total.marks.push(Mark {
                x: n as f64,
                y: limit / 1e6,
                label: "S".into(),
                tip: format!(
                    "{label}: saturates at {n} {}, limit {:.1} MB/s",
                    nouns(r.across).1,
                    limit / 1e6
                ),
            });
        }
    }
    total.note = "S marks where the total saturates: below 90 % of perfect scaling, judged with \
                  each step's interval."
        .into();
    total
}

/// One input's grouped bars: each target's MB/s alone, then its share at every later step.
fn step_bars(k: usize, r: &ScaleReport, label: &str) -> String {
    let names: Vec<String> = r.alone.iter().map(|a| a.target.clone()).collect();
    let alone = BarSeries {
        errors: Vec::new(),
        name: "alone".into(),
        colour: k,
        values: r.alone.iter().map(|a| Some(a.bytes_per_s / 1e6)).collect(),
        tips: r
            .alone
            .iter()
            .map(|a| {
                format!(
                    "{label}: {} alone, {:.1} MB/s",
                    a.target,
                    a.bytes_per_s / 1e6
                )
            })
            .collect(),
    };
    let together = r.steps.iter().skip(1).map(|s| BarSeries {
        errors: Vec::new(),
        name: format!("{} {} together", s.targets, nouns(r.across).1),
        colour: k + s.targets - 1,
        values: names
            .iter()
            .map(|n| {
                s.per_target
                    .iter()
                    .find(|p| &p.target == n)
                    .map(|p| p.bytes_per_s / 1e6)
            })
            .collect(),
        tips: names
            .iter()
            .map(|n| {
                format!(
                    "{label}: {n} with {} {} running",
                    s.targets,
                    nouns(r.across).1
                )
            })
            .collect(),
    });
    let series = std::iter::once(alone).chain(together).collect();
    bars(&Bars {
        title: format!("{label}: each target's MB/s per step"),
        y_title: "MB/s (10^6 bytes/s)".into(),
        fmt: Fmt::Si,
        categories: names,
        series,
        note: "Each target alone, then its share when the first n run together.".into(),
    })
}

/// One input's verdict and, when any, the table of shared components at the limit.
fn verdict(out: &mut String, r: &ScaleReport, label: &str) {
    let _ = writeln!(
        out,
        "<p class=\"verdict\"><b>{}</b>: {}</p>",
        esc(label),
        esc(&crate::render::text::scale::verdict(
            &r.analysis,
            crate::render::text::scale::units(r),
            r.across
        ))
    );
    if let Some(words) = crate::render::text::scale::dealt_words(r) {
        let _ = writeln!(out, "<p>{}</p>", esc(&words));
    }
    if !r.analysis.shared.is_empty() {
        let rows: Vec<Vec<String>> = r
            .analysis
            .shared
            .iter()
            .map(|s| {
                vec![
                    s.component.clone(),
                    s.targets.len().to_string(),
                    s.bytes_per_s
                        .map_or("-".into(), |b| format!("{:.1}", b / 1e6)),
                    s.util_pct.map_or("-".into(), |u| format!("{u:.0}")),
                ]
            })
            .collect();
        out.push_str(&table(
            &[
                "shared component",
                "targets above it",
                "MB/s at the limit",
                "% busy",
            ],
            &rows,
        ));
    }
}

impl super::Drawn for crate::model::scale::ScaleReport {
    fn describe(&self, _: &str) -> String {
        let t: Vec<&str> = self.alone.iter().map(|a| a.target.as_str()).collect();
        t.join(", ")
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
