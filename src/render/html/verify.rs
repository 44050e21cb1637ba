//! The report of `halfpower verify` (and of a verified run's read-back): per input, its blocks
//! by what reading them back found, one bar per target, and a table of every count.

use super::categories::{BarSeries, Bars, bars};
use super::svg::Fmt;
use super::{Definition, esc, table};
use crate::model::verify::Verification;
use crate::model::{Document, Input};
use crate::verify::check::TargetCheck;
use std::fmt::Write;

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "good",
            text: "a block read back as the record says it was last written (its header, offset, record, generation and CRC-32C agree)",
            doc: "docs/verify.md",
        },
        Definition {
            name: "corrupt, misdirected, torn, stale, unwritten",
            text: "bad blocks: damaged bytes; another offset's block; sectors of two writes; an older write than a completed flush covered (a broken promise); never written though acknowledged",
            doc: "docs/verify.md",
        },
        Definition {
            name: "lost unflushed",
            text: "a write acknowledged after the last completed flush that did not survive: allowed after a power cut, not bad",
            doc: "docs/verify.md",
        },
        Definition {
            name: "unsealed",
            text: "a block with no trace of halfpower's seal where none was expected (a whole-target read): nothing to judge",
            doc: "docs/verify.md",
        },
    ]
}

/// A category's name and its count on a target.
type Category = (&'static str, fn(&TargetCheck) -> u64);

/// The categories of the chart, and each one's count on target `t`.
const CATEGORIES: [Category; 9] = [
    ("good", |t| t.good),
    ("corrupt", |t| t.faults.corrupt),
    ("misdirected", |t| t.faults.misdirected),
    ("torn", |t| t.faults.torn),
    ("stale", |t| t.faults.stale),
    ("unwritten", |t| t.faults.unwritten),
    ("lost unflushed", |t| t.lost_unflushed),
    ("unsealed", |t| t.unsealed),
    ("unreadable", |t| t.read_errors),
];

/// The bars of one verification: a bar per target in each category.
fn chart(v: &Verification) -> String {
    let series = v
        .targets
        .iter()
        .enumerate()
        .map(|(k, t)| BarSeries {
            name: t.path.clone(),
            colour: k,
            values: CATEGORIES
                .iter()
                .map(|(_, count)| Some(count(t) as f64))
                .collect(),
            tips: CATEGORIES
                .iter()
                .map(|(name, count)| format!("{}: {} blocks {name}", t.path, count(t)))
                .collect(),
            errors: Vec::new(),
        })
        .collect();
    bars(&Bars {
        title: "Blocks read back, by what was found".into(),
        y_title: "blocks".into(),
        fmt: Fmt::Si,
        categories: CATEGORIES.iter().map(|(n, _)| n.to_string()).collect(),
        series,
        note: format!("{} blocks checked in all", v.blocks_checked),
    })
}

/// The charts and tables of verify inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, label) in inputs.iter().zip(labels) {
        let Document::Verify(r) = &i.doc else {
            continue;
        };
        let v = &r.verification;
        let _ = writeln!(out, "<h2>{}</h2>\n<div class=\"charts\">", esc(label));
        out.push_str(&chart(v));
        out.push_str("</div>\n");
        let _ = writeln!(
            out,
            "<pre>{}</pre>",
            esc(&crate::render::text::verify::lines(v))
        );
        let rows: Vec<Vec<String>> = v
            .targets
            .iter()
            .map(|t| {
                std::iter::once(t.path.clone())
                    .chain(std::iter::once(t.blocks_checked.to_string()))
                    .chain(CATEGORIES.iter().map(|(_, count)| count(t).to_string()))
                    .collect()
            })
            .collect();
        let head: Vec<&str> = ["target", "checked"]
            .into_iter()
            .chain(CATEGORIES.iter().map(|(n, _)| *n))
            .collect();
        out.push_str(&table(&head, &rows));
    }
    (out, definitions())
}

impl super::Drawn for crate::model::verify::VerifyReport {
    fn describe(&self, _: &str) -> String {
        let t: Vec<&str> = (self.verification.targets.iter())
            .map(|t| t.path.as_str())
            .collect();
        format!("verify of {}", t.join(", "))
    }

    fn origin(&self) -> super::Origin {
        super::Origin::header(&self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
