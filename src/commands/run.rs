//! `halfpower run`: open the targets, run the workload, report.

use super::{check_output_dests, warn, write_html, write_json};
use crate::analysis::compare::summarize;
use crate::analysis::sanity;
use crate::cli::RunArgs;
use crate::clock::utc_now;
use crate::engine::uring_available;
use crate::model::run::Repeat;
use crate::model::{Document, Header, Kind, Results, RunReport};
use crate::oscounters::host;
use crate::render::text;
use crate::runner::{self, Control};
use crate::spec::{EngineKind, Workload};
use crate::target::{self, Target};

/// The most repetitions `--repeat` takes.
pub const MAX_REPEAT: u32 = 1000;

/// The engine that can run here: io_uring falls back to sync when the kernel refuses rings
/// (compiled out, `kernel.io_uring_disabled`, a seccomp filter). Returns the engine and the
/// reason for a fallback. The caller decides what the fallback means for its depths.
pub(super) fn available_engine(w: &Workload) -> (EngineKind, Option<String>) {
    if w.setup.engine != EngineKind::Uring {
        return (w.setup.engine, None);
    }
    match uring_available() {
        Ok(()) => (EngineKind::Uring, None),
        Err(e) => (
            EngineKind::Sync,
            Some(format!("io_uring unavailable ({e})")),
        ),
    }
}

/// The workload `w` as it will really run here, with a warning when io_uring is unavailable:
/// the sync engine keeps one I/O in flight per thread, so a deeper `--qd` becomes 1 and the
/// record says so. Returns the workload and the fallback's reason.
pub(super) fn effective_workload(
    w: &Workload,
    warnings: &mut Vec<String>,
) -> (Workload, Option<String>) {
    let (engine, fallback) = available_engine(w);
    if let Some(why) = &fallback {
        warn(
            warnings,
            format!(
                "{why}; running --engine sync with 1 I/O in flight per thread instead of QD {}. \
                 Enable io_uring (sysctl kernel.io_uring_disabled=0) or use --threads for parallelism",
                w.qd
            ),
        );
    }
    (w.run_by(engine), fallback)
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
    let asked = args.workload.validated()?;
    check_output_dests(&args.output)?;
    if args.repeat == 0 || args.repeat > MAX_REPEAT {
        return Err(crate::Error::invalid(
            "--repeat",
            args.repeat,
            format!("a number of repetitions from 1 to {MAX_REPEAT}"),
        )
        .into());
    }
    super::verify::check_workload(&args.verify, &asked, args.repeat)?;
    let mut warnings = Vec::new();
    let (w, engine_fallback) = effective_workload(&asked, &mut warnings);
    let mut runs = Vec::new();
    let mut infos = Vec::new();
    for k in 0..args.repeat {
        if k > 0 && crate::signal::interrupted() {
            break;
        }
        if args.repeat > 1 && !args.output.quiet {
            eprintln!("halfpower: repetition {} of {}", k + 1, args.repeat);
        }
        // Each repetition opens (and a created file is filled) afresh: independent runs.
        let targets = open_targets(&args.targets, &w, &mut warnings)?;
        let record = super::verify::prepare(&args.verify, &w, &targets)?;
        let control = Control::progress(!args.output.quiet);
        let m = match &record {
            Some(r) => runner::execute_verified(&targets, runner::Layout::Separate, &w, control, r),
            None => runner::execute(&targets, &w, control),
        };
        let m = match m {
            Ok(m) => m,
            Err(crate::Error::Interrupted) if !runs.is_empty() => break,
            Err(e) => return Err(e.into()),
        };
        infos = targets.iter().map(Target::info).collect();
        let mut results = runner::results(&m, &w, &targets, engine_fallback.clone());
        if let Some(r) = &record {
            results.verify = Some(super::verify::finish(&args.verify, r, &targets)?);
        }
        runs.push(results);
        drop(targets); // removes created files unless --keep
    }
    let results = runs[0].clone();
    for msg in sanity::check(&w, &infos, &results) {
        warn(&mut warnings, msg);
    }
    let repeat = (args.repeat > 1).then(|| Repeat {
        figures: summarize(&runs),
        runs,
    });
    let report = RunReport {
        header: Header::new(Kind::Run, command, utc_now()),
        workload: w,
        host: host::read(),
        targets: infos,
        results,
        repeat,
        warnings,
    };
    let json_on_stdout = write_json(&args.output, &report)?;
    if !json_on_stdout {
        print!("{}", text::run::run_table(&report));
    }
    let status = report
        .repeat
        .as_ref()
        .map_or(report.results.exit_status(), |r| {
            r.runs.iter().map(Results::exit_status).max().unwrap_or(0)
        });
    write_html(&args.output, Document::Run(Box::new(report)))?;
    Ok(status)
}
