//! The doctor's report section: each check as a table row with its fix, each warning's
//! reason, and each price measured (`--price`).

use super::{Definition, esc, table};
use crate::model::doctor::{Check, Verdict};
use crate::model::{Document, Input};
use crate::render::text::doctor::{finding, fix, label, priced, scope};
use std::fmt::Write;

/// A check's row after its `first` cell: setting, where, value, wanted, file, fix.
fn row(first: String, c: &Check) -> Vec<String> {
    vec![
        first,
        label(c.kind).to_string(),
        scope(&c.scope),
        c.value.clone().unwrap_or_default(),
        c.wanted.clone(),
        c.file.clone(),
        c.fix.as_ref().map(fix).unwrap_or_default(),
    ]
}

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
            .map(|c| row(format!("{:?}", c.verdict).to_lowercase(), c))
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

/// The settings that bore on each input's runs (`results.setup`, from every measuring
/// command), each once per input: a table under "Setup", with the fix. Empty when none did.
pub fn setup_section(inputs: &[Input], labels: &[String]) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (i, name) in inputs.iter().zip(labels) {
        let mut seen: Vec<&Check> = Vec::new();
        for h in i.doc.hosts() {
            for c in h.results.map(|r| r.setup.as_slice()).unwrap_or_default() {
                if seen.iter().any(|s| s.kind == c.kind && s.file == c.file) {
                    continue;
                }
                seen.push(c);
                rows.push(row(name.clone(), c));
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h2>Setup</h2>\n<p class=\"verdict\">Settings that shaped these figures (halfpower doctor \
         says why each matters and prices it with --price):</p>\n",
    );
    out.push_str(&table(
        &[
            "series", "setting", "where", "value", "wanted", "file", "fix",
        ],
        &rows,
    ));
    out
}

impl super::Drawn for crate::model::doctor::DoctorReport {
    fn describe(&self, _: &str) -> String {
        format!("doctor on {}", self.host.hostname)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
