//! The self-test's report section: the statement, the known answers as a table, the clock and
//! wake-up figures.

use super::{Definition, esc, table};
use crate::model::{Document, Input};
use crate::render::text::selftest as text;
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
                let (known, measured) = text::check_figures(c);
                let (error, bound) = text::check_error(c, r);
                vec![
                    text::check_name(c.kind).0.to_string(),
                    known,
                    measured,
                    error,
                    bound,
                    if c.held { "held" } else { "FAILED" }.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(
            &["known answer", "known", "measured", "error", "bound", ""],
            &rows,
        ));
        // The clock, wake-up and floor figures and any check left out, as sentences (the
        // table above is the text's table).
        for line in text::facts(r)
            .lines()
            .chain(text::skipped(r).iter().map(|s| s.as_str()))
        {
            let _ = writeln!(out, "<p>{}</p>", esc(line));
        }
    }
    (out, definitions())
}

fn definitions() -> Vec<Definition> {
    let doc = "docs/figures.md, section 'Self-test'";
    vec![
        Definition {
            name: "known",
            text: "The answer known beforehand (a pace, a cgroup's cap), or the independent \
                   figure halfpower's is compared with (the kernel's count of the same device \
                   over the same window).",
            doc,
        },
        Definition {
            name: "error, bound",
            text: "(measured − known) ÷ known, and the bound it is held to, from what the \
                   self-test measured of this machine's clock and wake-ups. For a ceiling \
                   (≤, the paced null engine's p99 error): the measured error as a share of the \
                   smallest latency the statement speaks of.",
            doc,
        },
    ]
}

impl super::Drawn for crate::model::selftest::SelftestReport {
    fn describe(&self, _: &str) -> String {
        format!("self-test on {}", self.host.hostname)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::selftest::{Check, CheckKind, Known, SelftestReport};

    /// Rates in their unit, the table once (no preformatted copy), and definitions under it.
    #[test]
    fn the_page_says_each_figure_once_in_its_unit() {
        let checks = vec![Check {
            kind: CheckKind::ThrottledBandwidth,
            known: 40_000_000.0,
            known_is: Known::Answer,
            measured: 40_003_093.0,
            error_pct: 0.0077,
            bound_pct: 5.0,
            held: true,
        }];
        let r = SelftestReport::for_tests(checks, Default::default());
        let input = Input {
            path: "s.json".into(),
            doc: Document::Selftest(Box::new(r)),
        };
        let (page, defs) = section(&[input], &["s.json".to_string()]);
        assert!(
            page.contains("40.0 MB/s") && !page.contains("40000000"),
            "{page}"
        );
        assert!(
            !page.contains("<pre>") && page.contains("<p>clock: "),
            "{page}"
        );
        assert!(!defs.is_empty());
    }
}
