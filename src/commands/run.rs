//! `halfpower run`: open the targets, run the workload, report.

use super::{check_output_dests, warn, write_html, write_json};
use crate::analysis::sanity;
use crate::cli::RunArgs;
use crate::engine::uring_available;
use crate::oscounters::host;
use crate::report::html::input::Document;
use crate::report::model::{Results, RunReport, TargetInfo, Tool};
use crate::report::{SCHEMA_VERSION, table, utc_now};
use crate::runner::{self, Control};
use crate::spec::{EngineKind, Workload};
use crate::target::{self, Target};

/// Chooses the engine that can run here: io_uring falls back to sync (QD 1 per thread) when
/// the kernel refuses rings. Returns the engine and the reason for a fallback.
pub(super) fn effective_engine(
    w: &Workload,
    warnings: &mut Vec<String>,
) -> (EngineKind, Option<String>) {
    if w.setup.engine != EngineKind::Uring {
        return (w.setup.engine, None);
    }
    match uring_available() {
        Ok(()) => (EngineKind::Uring, None),
        Err(e) => {
            let why = format!("io_uring unavailable ({e})");
            warn(
                warnings,
                format!(
                    "{why}; running --engine sync with 1 I/O in flight per thread instead of QD {}. \
                     Enable io_uring (sysctl kernel.io_uring_disabled=0) or use --threads for parallelism",
                    w.qd
                ),
            );
            (EngineKind::Sync, Some(why))
        }
    }
}

/// Opens every target; the first refusal stops (and removes files created so far).
pub(super) fn open_targets(
    paths: &[std::path::PathBuf],
    w: &Workload,
    warnings: &mut Vec<String>,
) -> crate::Result<Vec<Target>> {
    let mut targets = Vec::with_capacity(paths.len());
    for p in paths {
        if targets.iter().any(|t: &Target| t.path == *p) {
            return Err(crate::Error::invalid(
                "TARGET",
                p.display(),
                "each target once",
            ));
        }
        targets.push(target::open(p, w, &mut |m| warn(warnings, m))?);
    }
    Ok(targets)
}

/// Runs `halfpower run`.
pub fn run(args: RunArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let w = args.workload.validated()?;
    check_output_dests(&args.output)?;
    let mut warnings = Vec::new();
    let (engine, engine_fallback) = effective_engine(&w, &mut warnings);
    let targets = open_targets(&args.targets, &w, &mut warnings)?;
    let m = runner::execute(&targets, &w, engine, Control::progress(!args.output.quiet))?;
    let infos: Vec<TargetInfo> = targets.iter().map(TargetInfo::of).collect();
    let results = Results::build(&m, &w, &targets, engine_fallback);
    for msg in sanity::check(&w, &infos, &results) {
        warn(&mut warnings, msg);
    }
    let report = RunReport {
        schema_version: SCHEMA_VERSION,
        kind: "run".into(),
        tool: Tool::default(),
        command,
        date: utc_now(),
        workload: w,
        host: host::read(),
        targets: infos,
        results,
        warnings,
    };
    let json_on_stdout = write_json(&args.output, &report)?;
    if !json_on_stdout {
        print!("{}", table::run_table(&report));
    }
    drop(targets); // removes created files unless --keep
    let status = report.results.exit_status();
    write_html(&args.output, Document::Run(Box::new(report)))?;
    Ok(status)
}
