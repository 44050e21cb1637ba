//! `halfpower report`: read result files of one kind and write their HTML report.

use crate::cli::ReportArgs;
use crate::input::document::read_all;
use crate::model::log::Log;
use crate::render::html;

/// Runs `halfpower report`.
pub fn report(args: ReportArgs) -> anyhow::Result<u8> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| html::default_output(&args.results[0]));
    let diagnose = |log: &Log| crate::analysis::diagnose::diagnose(std::slice::from_ref(log), None);
    let inputs = read_all(&args.results, &diagnose)?;
    let bytes = html::write_inputs(&inputs, &out, args.force)?;
    eprintln!(
        "halfpower: report of {} file(s) written to {} ({} KiB)",
        args.results.len(),
        out.display(),
        bytes.div_ceil(1024)
    );
    Ok(0)
}
