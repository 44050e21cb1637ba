//! The trend section: the runs oldest first, and for each figure its value in every run and
//! the ratio at each step and over the series, the significant ones marked.

use super::{Definition, esc, table};
use crate::model::trend::TrendReport;
use crate::model::{Document, Input};
use crate::render::text::run::{figure_unit, figure_value};
use crate::render::text::trend::at;
use std::fmt::Write;

fn definitions() -> Vec<Definition> {
    vec![Definition {
        name: "ratio",
        text: "a later run's figure over an earlier run's (×), judged as compare judges B/A: significant (*) when its 95 % interval excludes 1 and the change exceeds the threshold; ? where one side has no interval",
        doc: "docs/uncertainty.md",
    }]
}

/// The tables of trend inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, label) in inputs.iter().zip(labels) {
        let Document::Trend(t) = &i.doc else {
            continue;
        };
        let _ = writeln!(out, "<h2>{}</h2>", esc(label));
        let runs: Vec<Vec<String>> = (t.runs.iter().enumerate())
            .map(|(k, r)| vec![(k + 1).to_string(), r.date.clone(), r.path.clone()])
            .collect();
        out.push_str(&table(&["run", "date", "file"], &runs));
        let mut head = vec!["figure".to_string(), "first".to_string()];
        head.extend(
            t.steps
                .iter()
                .map(|s| format!("{} → {}", s.from + 1, s.to + 1)),
        );
        head.push("last/first".into());
        let rows: Vec<Vec<String>> = (t.overall.figures.iter())
            .map(|f| {
                let first = figure_value(f.figure, f.a);
                let mut row = vec![format!("{} ({})", f.figure, figure_unit(f.figure)), first];
                row.extend(t.steps.iter().map(|s| at(s, f.figure)));
                row.push(at(&t.overall, f.figure));
                row
            })
            .collect();
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        out.push_str(&table(&head, &rows));
    }
    (out, definitions())
}

impl super::Drawn for TrendReport {
    fn describe(&self, _: &str) -> String {
        let n = self.runs.len();
        let first = self.runs.first().map_or("", |r| r.path.as_str());
        format!("trend of {n} runs from {first}")
    }

    fn origin(&self) -> super::Origin {
        super::Origin::header(&self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
