//! A comparison on a terminal: one line per figure, "B is 1.50× A (1.48–1.52), significant".

use crate::model::compare::{CompareMethod, CompareReport};
use std::fmt::Write;

/// Renders a comparison.
pub fn compare_text(r: &CompareReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "A = {}\nB = {}", r.a, r.b);
    for f in &r.figures {
        let interval = match (f.ci95_low, f.ci95_high) {
            (Some(lo), Some(hi)) => format!(" ({lo:.3}–{hi:.3})"),
            _ => " (no interval)".into(),
        };
        let verdict = if f.significant {
            "significant"
        } else if f.method == CompareMethod::None {
            "cannot tell"
        } else {
            "not significant"
        };
        let how = match f.method {
            CompareMethod::Repetitions => "Welch over repetitions",
            CompareMethod::RepeatedSide => {
                "one side repeated: its run-to-run spread for both; repeat the other too"
            }
            CompareMethod::WithinRun => {
                "within-run intervals only: repeat the runs to compare them"
            }
            CompareMethod::None => "no interval on one side",
        };
        let _ = writeln!(
            out,
            "{:<22} B is {:.3}× A{interval}, {verdict} [{how}]",
            f.figure, f.ratio
        );
    }
    let _ = writeln!(
        out,
        "significant: the 95 % interval of B/A excludes 1 and the change exceeds {:.1} %",
        r.threshold * 100.0
    );
    out
}
