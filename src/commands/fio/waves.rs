//! Planning and running fio's waves of concurrent jobs: every job planned once before anything
//! runs (linear in the number of files, and stopped by Ctrl-C or SIGTERM), then wave by wave
//! every job set up (its files laid out, fio's `invalidate` applied) before any job's measured
//! window starts, and the jobs of a wave measured at the same time.

use super::report::{Ran, below_min, samples};
use super::{Args, plan_line};
use crate::analysis::steady::SteadyRule;
use crate::clock::unix_ms;
use crate::fio::{self, Ending, FioError, FioJob, JobPlan};
use crate::measure::{Session, Settings, Sharing, effective_plan, open_targets, verified};
use crate::model::Warning;
use crate::plan::{DepthOnEngine, RunPlan, Workload};
use crate::runner::{Control, Layout};
use crate::storage::Target;
use crate::units::ByteSize;
use std::collections::HashSet;
use std::path::PathBuf;

/// Stops with [`crate::Error::Interrupted`] once Ctrl-C or SIGTERM has come.
fn stop_if_interrupted() -> crate::Result<()> {
    if crate::signal::interrupted() {
        return Err(crate::Error::Interrupted);
    }
    Ok(())
}

/// Plans every job before anything runs (printing each with `--parse-only`) and refuses what
/// halfpower cannot run of a wave of concurrent jobs: `group_reporting` over several different
/// jobs (fio would merge their reports), and two jobs on one file that does not exist yet
/// (both would create it). Each wave's files go into one hash set, so this is linear in the
/// number of files; it stops when interrupted.
pub(super) fn plan_all(set: &fio::JobSet, a: &Args) -> crate::Result<()> {
    for wave in set.jobs.chunk_by(|x, y| x.wave == y.wave) {
        check_group_reporting(wave)?;
        check_exitall(wave, a)?;
        let mut seen: HashSet<PathBuf> = HashSet::new();
        for job in wave {
            stop_if_interrupted()?;
            let plan = fio::plan(job, a.allow_write, a.destroy_data)?;
            if a.parse_only {
                crate::commands::export::print_result(&plan_line(job, &plan))?;
            }
            for (i, p) in plan.paths.into_iter().enumerate() {
                if i % 4096 == 4095 {
                    stop_if_interrupted()?;
                }
                if seen.contains(&p) && !p.exists() {
                    return Err(FioError::Plan(format!(
                        "jobs of one wave (running at the same time) would both create {}: \
                         create it first (and pass --allow-write to write to it), give each job \
                         its own file, or put stonewall between them",
                        p.display()
                    ))
                    .into());
                }
                seen.insert(p);
            }
        }
    }
    Ok(())
}

/// Refuses `exitall` in a wave whose jobs would not all end at the same time (the same
/// runtime, time-based, after the same start delay): halfpower ends each job at its own end.
fn check_exitall(wave: &[FioJob], a: &Args) -> crate::Result<()> {
    let Some(job) = wave.iter().find(|j| j.opts.exitall) else {
        return Ok(());
    };
    if wave.len() < 2 {
        return Ok(());
    }
    let end = |j: &FioJob| -> crate::Result<_> {
        let p = fio::plan(j, a.allow_write, a.destroy_data)?;
        Ok(match p.ending {
            Ending::Time(t) => Some((t, p.startdelay)),
            Ending::Bytes { .. } => None,
        })
    };
    let first = end(&wave[0])?;
    for j in wave {
        let e = end(j)?;
        let why = match (e, first) {
            (None, _) => "ends when its size is done",
            (_, None) => "runs for a time beside one that ends by its size",
            _ if e != first => "has another runtime or start delay",
            _ => continue,
        };
        return Err(FioError::NotYet {
            option: "exitall".into(),
            why: format!(
                "job '{}' would end the jobs beside it when it ends, and '{}' {why}: the jobs \
                 of this wave would end apart, and halfpower ends each job at its own end (give \
                 them one time_based runtime, or drop exitall)",
                job.opts.name, j.opts.name
            ),
        }
        .into());
    }
    Ok(())
}

/// Refuses `group_reporting` over two different jobs of one wave and group.
fn check_group_reporting(wave: &[FioJob]) -> crate::Result<()> {
    for pair in wave.windows(2) {
        if pair[0].group == pair[1].group
            && (pair[0].opts.group_reporting || pair[1].opts.group_reporting)
        {
            return Err(FioError::NotYet {
                option: "group_reporting".into(),
                why: format!(
                    "jobs '{}' and '{}' run at the same time in one group, and fio would \
                     report them as one; halfpower reports each job (drop group_reporting, \
                     or put new_group in '{}')",
                    pair[0].opts.name, pair[1].opts.name, pair[1].opts.name
                ),
            }
            .into());
        }
    }
    Ok(())
}

/// A job set up to run: planned, its files opened (laid out when new), not yet measured.
struct Ready<'a> {
    job: &'a FioJob,
    plan: JobPlan,
    w: RunPlan,
    fallback: Option<crate::model::cause::EngineFallback>,
    targets: Vec<Target>,
}

/// The plan `job`'s files are opened with: its workload as asked, on its own engine, before
/// its byte count is known (that needs the files' regions).
fn opening(w: &Workload) -> crate::Result<RunPlan> {
    w.plan(w.setup.engine, DepthOnEngine::Lower)
}

/// Plans `job` and opens its files, creating and filling those that do not exist: all of a
/// job's setup, none of its measured window.
fn set_up<'a>(job: &'a FioJob, a: &Args, warnings: &mut Vec<Warning>) -> anyhow::Result<Ready<'a>> {
    let plan = fio::plan(job, a.allow_write, a.destroy_data)?;
    for n in &plan.notes {
        super::super::warn(warnings, Warning::Fio(n.clone()));
    }
    let mut w = plan.workload.clone();
    if let Some(pct) = plan.size_pct {
        let probe = open_targets(&plan.paths, &opening(&w)?, Sharing::Apart, warnings)?;
        let whole = probe[0].capacity.saturating_sub(w.setup.offset.0);
        let unit = w.bs.max();
        let bytes = (whole as f64 * pct / 100.0) as u64 / unit * unit;
        w.setup.size = Some(ByteSize(bytes.max(unit)));
    }
    let targets = open_targets(&plan.paths, &opening(&w)?, Sharing::Apart, warnings)?;
    let region: u64 = targets.iter().map(|t| t.size).sum();
    if let Some(b) = plan.budget(&job.opts, region) {
        if b == 0 {
            return Err(FioError::Plan(format!(
                "job '{}': io_size/size is smaller than one request (bs {})",
                job.opts.name, w.bs
            ))
            .into());
        }
        w.setup.bytes = Some(ByteSize(b));
        if let Ending::Bytes { runtime: None } = plan.ending {
            w.setup.time = None;
        }
    }
    let asked = w;
    let (w, fallback) = effective_plan(&asked, warnings)?;
    if plan.verify.is_some() && plan.stripe.is_some() {
        return Err(FioError::Plan(format!(
            "job '{}': verify on several files is not supported by halfpower fio",
            job.opts.name
        ))
        .into());
    }
    verified::check_workload(policy(&plan).as_ref(), &asked, 1)?;
    Ok(Ready {
        job,
        plan,
        w,
        fallback,
        targets,
    })
}

/// How a job verifies: a verify= job seals, records and reads back, with no state file.
fn policy(plan: &JobPlan) -> Option<verified::Policy> {
    plan.verify.as_ref().map(|_| verified::Policy::default())
}

/// Runs a job that is set up: its start delay, fio's `invalidate` (a buffered job's files
/// dropped from the page cache, as fio does before a job), the measured run, its figures.
fn measure(r: Ready, a: &Args, warnings: &mut Vec<Warning>) -> anyhow::Result<Ran> {
    let Ready {
        job,
        plan,
        w,
        fallback,
        targets,
    } = r;
    if !plan.startdelay.is_zero() {
        std::thread::sleep(plan.startdelay);
    }
    if job.opts.invalidate && w.setup().buffered {
        for t in &targets {
            t.drop_cache();
        }
    }
    let layout = plan.stripe.map_or(Layout::Separate, Layout::Stripe);
    let verify = policy(&plan);
    // fio counts ramp_time's I/O toward size: the warm-up spends the budget too; and each
    // numjobs clone is a job of its own that does its own size.
    let control = Control {
        warmup_in_budget: true,
        budget_per_worker: true,
        steady: plan.steady.map(SteadyRule::fio),
        io_log: job.opts.logs.needs_record(),
        periods_ns: job.opts.logs.periods_ns(),
        ..Control::progress(!a.quiet)
    };
    let settings = Settings {
        engine: w.setup().engine,
        engine_fallback: fallback,
        control,
        verify,
        announce: false,
        list: false,
        cache_carries: false,
        sharing: Sharing::Apart,
        limits: Vec::new(),
        setup: true,
    };
    let n = targets.len();
    let mut session = Session::adopt(targets, settings, 1);
    let Some(point) = session.point_on(0..n, layout, &w, &job.opts.name, warnings)? else {
        return Err(crate::Error::Interrupted.into());
    };
    let results = point.results;
    if let Some(v) = results.verify.as_ref().filter(|v| !v.clean()) {
        let bad = Warning::FioBadBlocks {
            job: job.opts.name.clone(),
            verification: Box::new(v.clone()),
        };
        super::super::warn(warnings, bad);
    }
    let target = session.infos().remove(0);
    let plan = JobPlan {
        workload: w.record(),
        ..plan
    };
    let below = below_min(&job.opts.name, &plan, &samples(&point.marks, 1.0));
    if let Some(why) = &below {
        super::super::warn(warnings, why.clone());
    }
    let below = job_below_min(below)?;
    Ok(Ran {
        job: job.clone(),
        plan,
        results,
        target,
        marks: point.marks,
        depth: point.depth,
        events: point.events,
        ended_ms: unix_ms(),
        below_min: below,
        io_log: point.io_log,
        periods: point.periods,
    })
}

/// The job's `rate_min` verdict from each rank's own (each judged on its own marks): the first
/// rank that fell below, marked with its rank under MPI, so that every rank fails the job
/// alike and ends with the same status; this process's own for one process.
fn job_below_min(own: Option<Warning>) -> crate::Result<Option<Warning>> {
    let each = crate::measure::job::every_ranks_warnings(own.into_iter().collect())?;
    Ok(each.into_iter().next())
}

/// Runs the jobs of one wave as fio does: every job set up first (files laid out one job after
/// another, fio's default `create_serialize`), then all measured at the same time, each on its
/// own thread; returned in job order. The progress line is off when more than one job runs.
pub(super) fn run_wave(
    wave: &[FioJob],
    a: &Args,
    warnings: &mut Vec<Warning>,
) -> anyhow::Result<Vec<Ran>> {
    if wave.len() > 1 && crate::cluster::many() {
        // Jobs of one wave run on threads of their own, and MPI is called from one thread only.
        return Err(crate::Error::invalid(
            "job file",
            format!("{} jobs running at once", wave.len()),
            "under MPI one job at a time (`stonewall` between jobs, or one job per file)",
        )
        .into());
    }
    let mut ready = Vec::with_capacity(wave.len());
    for job in wave {
        stop_if_interrupted()?;
        ready.push(set_up(job, a, warnings)?);
    }
    stop_if_interrupted()?;
    if ready.len() == 1 {
        let r = ready.pop().expect("one job");
        return Ok(vec![measure(r, a, warnings)?]);
    }
    let quiet = Args {
        quiet: true,
        ..a.clone()
    };
    let outcomes: Vec<(anyhow::Result<Ran>, Vec<Warning>)> = std::thread::scope(|s| {
        let handles: Vec<_> = ready
            .into_iter()
            .map(|r| {
                let quiet = &quiet;
                s.spawn(move || {
                    let mut w = Vec::new();
                    (measure(r, quiet, &mut w), w)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut ran = Vec::with_capacity(wave.len());
    for (r, w) in outcomes {
        warnings.extend(w);
        ran.push(r?);
    }
    Ok(ran)
}
