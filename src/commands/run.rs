//! `halfpower run`: open the targets, run the workload, report.

use super::{Exporter, warn};
use crate::analysis::compare::summarize;
use crate::analysis::sanity;
use crate::cli::RunArgs;
use crate::clock::utc_now;
use crate::engine::uring_available;
use crate::model::cause::EngineFallback;
use crate::model::run::RankRun;
use crate::model::run::Repeat;
use crate::model::{Document, Header, Kind, Results, RunReport};
use crate::oscounters::host;
use crate::plan::{DepthOnEngine, EngineKind, RunPlan, Workload};
use crate::render::text;
use crate::runner::{self, Control, verified};
use crate::storage::{self, Target};
use anyhow::Context;

/// The engine that can run here: io_uring falls back to sync when the kernel refuses rings
/// (compiled out, `kernel.io_uring_disabled`, a seccomp filter). Returns the engine and the
/// reason for a fallback. The caller decides what the fallback means for its depths.
pub(super) fn available_engine(w: &Workload) -> (EngineKind, Option<EngineFallback>) {
    if w.setup.engine != EngineKind::Uring {
        return (w.setup.engine, None);
    }
    match uring_available() {
        Ok(()) => (EngineKind::Uring, None),
        Err(e) => (
            EngineKind::Sync,
            Some(EngineFallback::UringUnavailable {
                error: e.to_string(),
            }),
        ),
    }
}

/// The plan of workload `w` as it will really run here, with a warning when io_uring is
/// unavailable: the sync engine keeps one I/O in flight per thread, so a deeper `--qd` becomes
/// 1 and the record says so. Returns the plan and the fallback's reason.
pub(super) fn effective_workload(
    w: &Workload,
    warnings: &mut Vec<String>,
) -> crate::Result<(RunPlan, Option<EngineFallback>)> {
    let (engine, fallback) = available_engine(w);
    if let Some(f) = &fallback {
        let why = text::cause::engine_fallback(f);
        warn(
            warnings,
            format!(
                "{why}; running --engine sync with 1 I/O in flight per thread instead of QD {}. \
                 Enable io_uring (sysctl kernel.io_uring_disabled=0) or use --threads for parallelism",
                w.qd
            ),
        );
    }
    Ok((w.plan(engine, DepthOnEngine::Lower)?, fallback))
}

/// Opens every target; the first refusal stops (and removes files created so far), and so
/// do Ctrl-C and SIGTERM. Linear in the number of targets (a job may have many thousands).
pub(super) fn open_targets(
    paths: &[std::path::PathBuf],
    w: &Workload,
    warnings: &mut Vec<String>,
) -> crate::Result<Vec<Target>> {
    let mut targets = Vec::with_capacity(paths.len());
    let mut seen = std::collections::HashSet::with_capacity(paths.len());
    for p in paths {
        if crate::signal::interrupted() {
            return Err(crate::Error::Interrupted);
        }
        if !seen.insert(p) {
            return Err(crate::Error::invalid(
                "TARGET",
                p.display(),
                "each target once",
            ));
        }
        targets.push(storage::open(p, w, &mut |m| warn(warnings, m))?);
    }
    Ok(targets)
}

/// Refuses what a job of several ranks cannot do: repetitions (each would need its own
/// gathering) and a steady-state rule (each rank would end its run at its own time).
fn refuse_under_mpi(args: &RunArgs) -> crate::Result<()> {
    if !crate::cluster::many() {
        return Ok(());
    }
    if args.repeat.n > 1 {
        return Err(crate::Error::invalid(
            "--repeat",
            args.repeat.n,
            "1 under MPI (each repetition would need its own gathering)",
        ));
    }
    if let Some(steady) = args.steady {
        let shown = steady.pct().map_or("pts".to_string(), |p| p.to_string());
        return Err(crate::Error::invalid(
            "--steady",
            shown,
            "no --steady under MPI (each rank would end its run at its own time)",
        ));
    }
    Ok(())
}

/// Runs `halfpower run`.
pub fn run(mut args: RunArgs, command: Vec<String>) -> anyhow::Result<u8> {
    // Under MPI each rank has its own targets: `{rank}` and `{host}` name them.
    for t in &mut args.targets {
        *t = crate::cluster::place(t);
    }
    if let Some(s) = &mut args.verify.verify_state {
        *s = crate::cluster::place(s);
    }
    refuse_under_mpi(&args)?;
    let asked = args.workload.validated()?;
    let steady = super::points::steady_rule_of(args.steady, asked.setup.bytes.is_some())?;
    let exporter = Exporter::checked(&args.output)?;
    let policy = args.verify.policy();
    verified::check_workload(policy.as_ref(), &asked, args.repeat.n)?;
    let mut warnings = Vec::new();
    // --shared: rank 0 creates a missing file for every rank's region first.
    let (asked, _creator) = shared_regions(&args, asked, &mut warnings)?;
    let (w, engine_fallback) = effective_workload(&asked, &mut warnings)?;
    let mut runs = Vec::new();
    let mut infos = Vec::new();
    for k in 0..args.repeat.n {
        if k > 0 && crate::signal::interrupted() {
            break;
        }
        if args.repeat.n > 1 && !args.output.quiet {
            eprintln!("halfpower: repetition {} of {}", k + 1, args.repeat.n);
        }
        // Each repetition opens (and a created file is filled) afresh: independent runs.
        let targets = open_targets(&args.targets, w.workload(), &mut warnings)?;
        let control = Control {
            steady,
            ..Control::progress(!args.output.quiet && crate::cluster::rank() == 0)
        };
        let layout = runner::Layout::Separate;
        let (m, record) = match verified::execute(policy.as_ref(), &targets, layout, &w, control) {
            Ok(done) => done,
            Err(crate::Error::Interrupted) if !runs.is_empty() => break,
            Err(e) => return Err(e.into()),
        };
        infos = targets.iter().map(Target::info).collect();
        let mut results = runner::results(&m, w.workload(), &targets, engine_fallback.clone());
        if let (Some(r), Some(p)) = (&record, &policy) {
            results.verify = Some(verified::finish(p, r, &targets)?);
        }
        runs.push(results);
        drop(targets); // removes created files unless --keep
    }
    let results = runs[0].clone();
    let run_warnings = text::cause::run_warnings(&results);
    for msg in sanity::check(w.workload(), &infos, &results)
        .into_iter()
        .chain(run_warnings)
    {
        warn(&mut warnings, msg);
    }
    let repeat = (args.repeat.n > 1).then(|| Repeat {
        figures: summarize(&runs),
        runs,
    });
    let host = host::read();
    let mut report = RunReport {
        header: Header::new(Kind::Run, command, utc_now()),
        workload: w.workload().clone(),
        ranks: Vec::new(),
        host,
        targets: infos,
        results,
        repeat,
        warnings,
    };
    if crate::cluster::many() {
        match gather_ranks(report)? {
            Some(whole) => report = whole,
            // Rank 0 speaks for the job; the others only say how they ended.
            None => return Ok(0),
        }
    } else {
        // A single process is a job of one rank (set after any gathering, which sends only
        // each rank's results).
        report.ranks = vec![RankRun {
            rank: 0,
            host: report.host.hostname.clone(),
            results: report.results.clone(),
        }];
    }
    let status = report
        .repeat
        .as_ref()
        .map_or(report.results.exit_status(), |r| {
            r.runs.iter().map(Results::exit_status).max().unwrap_or(0)
        });
    let text = text::run::run_table(&report);
    exporter.emit(Document::Run(Box::new(report)), &text)?;
    Ok(status)
}

/// With `--shared` under MPI: this rank's workload, its region moved to `--offset` + rank ×
/// `--size`; and on rank 0 the targets it created for all regions (kept open, and removed at
/// the end unless `--keep`). Every rank looks for the files before rank 0 creates them, so a
/// file the job created may be written by every rank without `--allow-write`.
fn shared_regions(
    args: &RunArgs,
    mut w: Workload,
    warnings: &mut Vec<String>,
) -> anyhow::Result<(Workload, Vec<Target>)> {
    if !args.shared || !crate::cluster::many() {
        return Ok((w, Vec::new()));
    }
    let size = w.setup.size.map_or(0, |s| s.0);
    let (rank, n) = (crate::cluster::rank() as u64, crate::cluster::size() as u64);
    let missing = args.targets.iter().all(|p| !p.exists());
    crate::cluster::barrier();
    let mut created = Vec::new();
    if rank == 0 {
        let mut whole = w.clone();
        whole.setup.size = Some(crate::units::ByteSize(size * n));
        created = open_targets(&args.targets, &whole, warnings)?;
    }
    crate::cluster::barrier();
    w.setup.offset.0 += rank * size;
    if missing {
        w.setup.safety.allow_write = true;
        w.setup.keep = true; // rank 0's creating target removes the file
    }
    Ok((w, created))
}

/// Under MPI: every rank's report to rank 0, which returns the job's (its own host and
/// workload, every rank's targets, results and warnings, and the merged results); `None` on
/// the other ranks.
fn gather_ranks(report: RunReport) -> anyhow::Result<Option<RunReport>> {
    let barrier_us = crate::cluster::barrier_waits();
    let bytes = serde_json::to_vec(&report).context("encoding this rank's report")?;
    let t = std::time::Instant::now();
    let Some(all) = crate::cluster::gather(&bytes) else {
        return Ok(None);
    };
    let gather_us = t.elapsed().as_secs_f64() * 1e6;
    let mut whole = report;
    let mut ranks = Vec::with_capacity(all.len());
    let (mut targets, mut warnings) = (Vec::new(), Vec::new());
    for (i, b) in all.iter().enumerate() {
        let r: RunReport =
            serde_json::from_slice(b).with_context(|| format!("reading rank {i}'s report"))?;
        targets.extend(r.targets);
        warnings.extend(r.warnings.into_iter().map(|w| format!("rank {i}: {w}")));
        ranks.push(RankRun {
            rank: i as u32,
            host: r.host.hostname,
            results: r.results,
        });
    }
    whole.results = crate::analysis::ranks::merge(&ranks, barrier_us, gather_us);
    whole.ranks = ranks;
    whole.targets = targets;
    whole.warnings = warnings;
    Ok(Some(whole))
}
