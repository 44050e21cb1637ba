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

/// `compare`'s options lowered once ([`lower`]).
struct CompareCommand {
    /// The two run documents, A and B.
    a: std::path::PathBuf,
    b: std::path::PathBuf,
    /// `--threshold`, as a fraction.
    threshold: f64,
}

/// Lowers `compare`'s flags, once, into its command and its exporter.
fn lower(args: &CompareArgs) -> anyhow::Result<(CompareCommand, Exporter<'_>)> {
    let exporter = Exporter::checked(&args.output)?;
    if !(args.threshold.is_finite() && (0.0..100.0).contains(&args.threshold)) {
        return Err(Error::invalid(
            "--threshold",
            args.threshold,
            "a percentage from 0 to below 100, e.g. 2",
        )
        .into());
    }
    let cmd = CompareCommand {
        a: args.a.clone(),
        b: args.b.clone(),
        threshold: args.threshold / 100.0,
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower compare`.
pub fn compare(args: CompareArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let (run_a, a) = runs_of(&cmd.a)?;
    let (run_b, b) = runs_of(&cmd.b)?;
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
        a: cmd.a.display().to_string(),
        b: cmd.b.display().to_string(),
        threshold: cmd.threshold,
        figures: compare_runs(&a, &b, cmd.threshold),
        warnings,
    };
    let text = compare_text(&report);
    exporter.emit(Document::Compare(Box::new(report)), &text)?;
    Ok(0)
}
