//! The comparison section: for each figure, A and B side by side with their 95 % intervals
//! (bars with whiskers, scaled to A = 100 so different units share one chart), and the table of
//! ratios, intervals and verdicts.

use super::categories::{BarSeries, Bars, bars};
use super::svg::Fmt;
use super::{Definition, esc, table};
use crate::model::compare::CompareReport;
use crate::model::{Document, Input};
use crate::render::text::run::{figure_unit, figure_value};
use std::fmt::Write;

fn definitions() -> Vec<Definition> {
    vec![Definition {
        name: "B/A",
        text: "the ratio of run B's figure to run A's with its 95 % interval: Welch over repetitions; when only one run was repeated, its run-to-run spread for both (a single run within the range of the other's runs is never significant); else the delta method on each single run's within-run interval; significant when the interval excludes 1 and the change exceeds the threshold",
        doc: "docs/uncertainty.md",
    }]
}

/// The charts and tables of compare inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, label) in inputs.iter().zip(labels) {
        let Document::Compare(c) = &i.doc else {
            continue;
        };
        let _ = writeln!(
            out,
            "<h2>{}</h2>\n<p class=\"note\">A = {}, B = {}. Each figure as a share of A's; whiskers are 95 % intervals.</p>\n<div class=\"charts\">",
            esc(label),
            esc(&c.a),
            esc(&c.b)
        );
        out.push_str(&chart(c));
        out.push_str("</div>\n");
        let rows: Vec<Vec<String>> = c
            .figures
            .iter()
            .map(|f| {
                vec![
                    format!("{} ({})", f.figure, figure_unit(f.figure)),
                    figure_value(f.figure, f.a),
                    figure_value(f.figure, f.b),
                    format!("{:.3}", f.ratio),
                    match (f.ci95_low, f.ci95_high) {
                        (Some(lo), Some(hi)) => format!("{lo:.3}–{hi:.3}"),
                        _ => "-".into(),
                    },
                    if f.significant { "yes" } else { "no" }.into(),
                ]
            })
            .collect();
        out.push_str(&table(
            &["figure", "A", "B", "B/A", "95 % interval", "significant"],
            &rows,
        ));
    }
    (out, definitions())
}

fn chart(c: &CompareReport) -> String {
    let cats: Vec<String> = c.figures.iter().map(|f| f.figure.to_string()).collect();
    let a = BarSeries {
        name: "A".into(),
        colour: 0,
        values: c.figures.iter().map(|_| Some(100.0)).collect(),
        tips: c
            .figures
            .iter()
            .map(|f| {
                let unit = figure_unit(f.figure);
                format!("A: {} = {} {unit}", f.figure, figure_value(f.figure, f.a))
            })
            .collect(),
        errors: Vec::new(),
    };
    let b = BarSeries {
        name: "B".into(),
        colour: 1,
        values: c.figures.iter().map(|f| Some(f.ratio * 100.0)).collect(),
        tips: c
            .figures
            .iter()
            .map(|f| {
                let (b, unit) = (figure_value(f.figure, f.b), figure_unit(f.figure));
                format!("B: {} = {b} {unit}, {:.3}× A", f.figure, f.ratio)
            })
            .collect(),
        errors: c
            .figures
            .iter()
            .map(|f| Some((f.ci95_low? * 100.0, f.ci95_high? * 100.0)))
            .collect(),
    };
    bars(&Bars {
        title: "B against A (A = 100)".into(),
        y_title: "% of A".into(),
        fmt: Fmt::Plain,
        categories: cats,
        series: vec![a, b],
        note: String::new(),
    })
}

impl super::Drawn for crate::model::compare::CompareReport {
    fn describe(&self, _: &str) -> String {
        format!("{} against {}", self.b, self.a)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::header(&self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
