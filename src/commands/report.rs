//! `halfpower report`: read result files of one kind and write their HTML report.

use crate::cli::ReportArgs;
use crate::report::html;

/// Runs `halfpower report`.
pub fn report(args: ReportArgs) -> anyhow::Result<u8> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| html::default_output(&args.results[0]));
    let bytes = html::write_report(&args.results, &out, args.force)?;
    eprintln!(
        "halfpower: report of {} file(s) written to {} ({} KiB)",
        args.results.len(),
        out.display(),
        bytes.div_ceil(1024)
    );
    Ok(0)
}
