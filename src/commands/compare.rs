//! `halfpower compare A.json B.json`: reads two run documents and says, figure by figure,
//! whether B really differs from A (`analysis::compare`).

use super::Exporter;
use crate::Error;
use crate::analysis::compare::{compare as compare_runs, differences};
use crate::cli::CompareArgs;
use crate::clock::utc_now;
use crate::input::document::parse_expecting;
use crate::model::compare::CompareReport;
use crate::model::log::Log;
use crate::model::{Document, Header, Kind, Results, RunReport};
use crate::render::text::compare::compare_text;
use std::path::Path;

/// The runs of a run document: its repetitions, or its one run.
fn runs_of(path: &Path) -> crate::Result<(RunReport, Vec<Results>)> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::invalid("A.json/B.json", &shown, format!("a readable file ({e})")))?;
    let none = |_: &Log| -> crate::model::diagnosis::Diagnosis {
        unreachable!("a log is refused before it is diagnosed")
    };
    let refuse = || {
        Error::invalid(
            "A.json/B.json",
            &shown,
            "a `halfpower run --json` document (compare reads run results)",
        )
    };
    if !text.trim_start().starts_with('{') {
        return Err(refuse());
    }
    let expected = "a `halfpower run --json` document (compare reads run results)";
    match parse_expecting(&shown, &text, &none, expected)?.doc {
        Document::Run(r) => {
            let runs = r
                .repeat
                .as_ref()
                .map_or_else(|| vec![r.results.clone()], |rep| rep.runs.clone());
            Ok((*r, runs))
        }
        _ => Err(refuse()),
    }
}

/// Runs `halfpower compare`.
pub fn compare(args: CompareArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let exporter = Exporter::checked(&args.output)?;
    if !(args.threshold.is_finite() && (0.0..100.0).contains(&args.threshold)) {
        return Err(Error::invalid(
            "--threshold",
            args.threshold,
            "a percentage from 0 to below 100, e.g. 2",
        )
        .into());
    }
    let (run_a, a) = runs_of(&args.a)?;
    let (run_b, b) = runs_of(&args.b)?;
    let mut warnings = Vec::new();
    let differ = differences(&run_a, &run_b);
    if !differ.is_empty() {
        crate::measure::warn(
            &mut warnings,
            crate::model::Warning::WorkloadsDiffer(differ),
        );
    }
    let report = CompareReport {
        header: Header::new(Kind::Compare, command, utc_now()),
        a: args.a.display().to_string(),
        b: args.b.display().to_string(),
        threshold: args.threshold / 100.0,
        figures: compare_runs(&a, &b, args.threshold / 100.0),
        warnings,
    };
    let text = compare_text(&report);
    exporter.emit(Document::Compare(Box::new(report)), &text)?;
    Ok(0)
}
