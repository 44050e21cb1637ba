//! The doctor's report section: each check as a table row with its fix, each warning's
//! reason, and each price measured (`--price`).

use super::{Definition, esc, table};
use crate::model::doctor::Verdict;
use crate::model::{Document, Input};
use crate::render::text::doctor::{finding, fix, label, priced, scope};
use std::fmt::Write;

/// The section of every doctor input.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, name) in inputs.iter().zip(labels) {
        let Document::Doctor(r) = &i.doc else {
            continue;
        };
        let _ = writeln!(out, "<h2>{}</h2>", esc(name));
        let rows: Vec<Vec<String>> = r
            .checks
            .iter()
            .map(|c| {
                vec![
                    format!("{:?}", c.verdict).to_lowercase(),
                    label(c.kind).to_string(),
                    scope(&c.scope),
                    c.value.clone().unwrap_or_default(),
                    c.wanted.clone(),
                    c.file.clone(),
                    c.fix.as_ref().map(fix).unwrap_or_default(),
                ]
            })
            .collect();
        out.push_str(&table(
            &[
                "verdict", "check", "where", "value", "wanted", "file", "fix",
            ],
            &rows,
        ));
        for c in r.checks.iter().filter(|c| c.verdict == Verdict::Warn) {
            let _ = writeln!(out, "<p class=\"verdict\">{}</p>", esc(&finding(c)));
        }
        for p in &r.prices {
            let _ = writeln!(out, "<p>price: {}</p>", esc(&priced(p)));
        }
    }
    (out, Vec::new())
}
