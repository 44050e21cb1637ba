//! `halfpower report`: read result files of one kind and write their HTML report.

use super::export::{self, Output};
use crate::cli::ReportArgs;
use crate::input::document::read_all;
use crate::model::log::Log;
use crate::model::{Document, Input};
use crate::render::html;
use std::path::PathBuf;

/// Runs `halfpower report`.
pub fn report(args: ReportArgs) -> anyhow::Result<u8> {
    let ReportCommand { results, out } = lower(&args)?;
    let diagnose = |log: &Log| crate::analysis::diagnose::diagnose(std::slice::from_ref(log), None);
    let mut inputs = read_all(&results, &diagnose)?;
    rebuild_findings(&mut inputs);
    let html = html::render(&inputs);
    export::write_whole(Output::Report, &out, html.as_bytes())?;
    let bytes = html.len();
    crate::output::say!(
        "halfpower: report of {} file(s) written to {} ({} KiB)",
        results.len(),
        out.display(),
        bytes.div_ceil(1024)
    );
    Ok(0)
}

/// `report`'s options lowered once ([`lower`]).
struct ReportCommand {
    /// The result files.
    results: Vec<PathBuf>,
    /// `--output`'s file (by default beside the first result).
    out: PathBuf,
}

/// Lowers `report`'s flags, once: the report's file, checked before the inputs are read, as
/// every output is.
fn lower(args: &ReportArgs) -> anyhow::Result<ReportCommand> {
    let out = args
        .output
        .path
        .clone()
        .unwrap_or_else(|| html::default_output(&args.results[0]));
    export::Outputs::new(args.force.on).file(Output::Report, "--output", &out)?;
    Ok(ReportCommand {
        results: args.results.clone(),
        out,
    })
}

/// Gives documents written before findings were recorded (their verdict was a sentence, or
/// absent) the finding their own data shows: the quick suite's from its tests, an
/// experiment's from its rows.
fn rebuild_findings(inputs: &mut [Input]) {
    for i in inputs {
        match &mut i.doc {
            Document::Quick(q) if q.finding.is_none() => {
                q.finding = Some(crate::analysis::quick::finding(&q.target, &q.tests));
            }
            Document::Experiment(e) if e.finding.is_none() => {
                e.finding = Some(crate::analysis::experiments::finding(e.experiment, &e.rows));
            }
            _ => {}
        }
    }
}
