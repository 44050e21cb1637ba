//! The replay section: response time against offered load, one point per speed (mean and
//! 99th percentile), the trace's own point marked, the doubling line of its mean drawn, and
//! the table of the points.

use super::axis::{Axis, Fmt, Scale};
use super::svg::{Mark, Plot, Rule, Series, plot};
use super::{Definition, esc, table};
use crate::model::replay::ReplayReport;
use crate::model::{Document, Input};
use std::fmt::Write;

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "response time",
            text: "from each request's due time (its time in the trace divided by the speed) to its completion, µs: what the application that issued the trace would wait",
            doc: "docs/figures.md, Open loop",
        },
        Definition {
            name: "headroom",
            text: "the speed at which the mean (or 99th percentile) response time reaches double that of the trace at its own pace; searched by doubling, then bisection to 2 %",
            doc: "docs/replay.md",
        },
    ]
}

/// The chart of one replay.
fn chart(r: &ReplayReport) -> String {
    let mut pts: Vec<_> = r.points.iter().collect();
    pts.sort_by(|a, b| a.asked_iops.total_cmp(&b.asked_iops));
    let series = |name: &str, f: &dyn Fn(&crate::model::replay::ReplayPoint) -> f64, c| {
        Series::line(
            name,
            pts.iter().map(|p| (p.asked_iops, f(p))).collect(),
            pts.iter()
                .map(|p| {
                    format!(
                        "speed {:.3}: {:.0} IOPS asked, {:.0} achieved",
                        p.speed, p.asked_iops, p.achieved_iops
                    )
                })
                .collect(),
            c,
        )
    };
    let mut p = Plot::new(
        "response time against offered load",
        Axis::new("offered load (IOPS asked)", Scale::Linear, Fmt::Si),
        Axis::new("response time from the due time", Scale::Log10, Fmt::Micros),
    );
    p.series.push(series("mean", &|p| p.latency_us.mean, 0));
    p.series.push(series("p99", &|p| p.latency_us.p99, 1));
    if let Some(own) = r.points.iter().find(|p| p.speed == 1.0) {
        p.marks.push(Mark {
            x: own.asked_iops,
            y: own.latency_us.mean,
            label: "trace".into(),
            tip: format!(
                "the trace at its own pace: {:.0} IOPS, mean {:.1} µs",
                own.asked_iops, own.latency_us.mean
            ),
        });
        p.rules.push(Rule {
            y: 2.0 * own.latency_us.mean,
            label: "double the trace's mean".into(),
        });
    }
    plot(&p)
}

/// The charts and tables of replay inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, label) in inputs.iter().zip(labels) {
        let Document::Replay(r) = &i.doc else {
            continue;
        };
        let _ = writeln!(out, "<h2>{}</h2>\n<div class=\"charts\">", esc(label));
        out.push_str(&chart(r));
        out.push_str("</div>\n");
        if let Some(h) = &r.headroom {
            let _ = writeln!(
                out,
                "<p>{}</p>",
                esc(&crate::render::text::replay::headroom_sentence(h))
            );
        }
        let rows: Vec<Vec<String>> = r
            .points
            .iter()
            .map(|p| {
                vec![
                    format!("{:.3}", p.speed),
                    format!("{:.0}", p.asked_iops),
                    format!("{:.0}", p.achieved_iops),
                    format!("{:.1}", p.latency_us.mean),
                    format!("{:.1}", p.latency_us.p99),
                    format!("{:.1}", p.late_us.p99),
                    p.max_inflight.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(
            &[
                "speed",
                "IOPS asked",
                "achieved",
                "mean µs",
                "p99 µs",
                "late p99 µs",
                "max in flight",
            ],
            &rows,
        ));
    }
    (out, definitions())
}

impl super::Drawn for crate::model::replay::ReplayReport {
    fn describe(&self, _: &str) -> String {
        format!("{} replayed on {}", self.trace.path, self.target.path)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
