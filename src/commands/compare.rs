//! `halfpower compare A.json B.json`: reads two run documents and says, figure by figure,
//! whether B really differs from A (`analysis::compare`).

use super::Exporter;
use crate::analysis::compare::{compare as compare_runs, differences};
use crate::cli::CompareArgs;
use crate::clock::utc_now;
use crate::input::document::runs_of;
use crate::model::compare::CompareReport;
use crate::model::{Document, Header, Kind};
use crate::render::text::compare::compare_text;

/// What compare reads, as its refusals say.
const WHAT: &str = "a `halfpower run --json` document (compare reads run results)";

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
    let cmd = CompareCommand {
        a: args.a.clone(),
        b: args.b.clone(),
        threshold: super::lower::threshold(&args.threshold)?,
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower compare`.
pub fn compare(args: CompareArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let (run_a, a) = runs_of(&cmd.a, "A.json/B.json", WHAT)?;
    let (run_b, b) = runs_of(&cmd.b, "A.json/B.json", WHAT)?;
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
