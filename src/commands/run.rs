//! `halfpower run`: open the targets, run the workload, report.

use super::{Exporter, warn};
use crate::analysis::compare::summarize;
use crate::analysis::sanity;
use crate::cli::RunArgs;
use crate::clock::utc_now;
use crate::measure::{self, Settings, effective_workload, open_targets, verified};
use crate::model::run::RankRun;
use crate::model::run::Repeat;
use crate::model::{Document, Header, Kind, Results, RunReport, Warning};
use crate::oscounters::host;
use crate::plan::Workload;
use crate::render::text;
use crate::runner::Control;
use crate::storage::Target;
use anyhow::Context;

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
    if let Some(steady) = args.steady.rule {
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
    if let Some(s) = &mut args.verify.verify_state.path {
        *s = crate::cluster::place(s);
    }
    refuse_under_mpi(&args)?;
    let asked = crate::plan::Workload::try_from(args.workload.clone())?.validated()?;
    let steady = super::lower::steady_rule_of(args.steady.rule, asked.setup.bytes.is_some())?;
    let exporter = Exporter::checked(&args.output)?;
    let policy = args.verify.policy();
    verified::check_workload(policy.as_ref(), &asked, args.repeat.n)?;
    let mut warnings = Vec::new();
    // --shared: rank 0 creates a missing file for every rank's region first.
    let (asked, _creator) = shared_regions(&args, asked, &mut warnings)?;
    let (w, engine_fallback) = effective_workload(&asked, &mut warnings)?;
    let settings = Settings {
        control: Control {
            steady,
            ..Control::progress(!args.output.quiet && crate::cluster::rank() == 0)
        },
        verify: policy,
        announce: false,
        list: false,
        ..Settings::new((w.setup().engine, engine_fallback), args.output.quiet)
    };
    let (runs, infos) =
        measure::independent(&args.targets, &w, args.repeat.n, &settings, &mut warnings)?;
    let results = runs[0].clone();
    for said in sanity::check(w.workload(), &infos, &results)
        .into_iter()
        .chain(sanity::run_end(&results))
    {
        warn(&mut warnings, said);
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
    warnings: &mut Vec<Warning>,
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
        warnings.extend(r.warnings.into_iter().map(|w| Warning::OfRank {
            rank: i as u32,
            warning: Box::new(w),
        }));
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
