//! The self-test's report section: the statement, the known answers as a table, the clock and
//! wake-up figures.

use super::{Definition, esc, table};
use crate::model::{Document, Input};
use std::fmt::Write;

/// The section of every self-test input.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, label) in inputs.iter().zip(labels) {
        let Document::Selftest(r) = &i.doc else {
            continue;
        };
        let _ = writeln!(
            out,
            "<h2>{}</h2>\n<p>{}</p>",
            esc(label),
            esc(&crate::render::text::selftest::statement(r))
        );
        let rows: Vec<Vec<String>> = r
            .checks
            .iter()
            .map(|c| {
                vec![
                    crate::render::text::selftest::check_name(c.kind)
                        .0
                        .to_string(),
                    format!("{:.1}", c.known),
                    format!("{:.1}", c.measured),
                    format!("{:+.2} %", c.error_pct),
                    format!("{:.1} %", c.bound_pct),
                    if c.held { "held" } else { "FAILED" }.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(
            &["known answer", "known", "measured", "error", "bound", ""],
            &rows,
        ));
        let _ = writeln!(
            out,
            "<pre>{}</pre>",
            esc(&crate::render::text::selftest::selftest_text(r))
        );
    }
    (out, Vec::new())
}
