//! `halfpower scale`: each target alone, then the first 2..N together, and where the total
//! stops growing (`analysis::scale`).

use super::Exporter;
use crate::analysis::scale::{Stack, StepFigures, analyse_sizes};
use crate::cli::ScaleArgs;
use crate::clock::utc_now;
use crate::measure::available_engine;
use crate::measure::{Session, Settings};
use crate::model::policy::GivenLimit;
use crate::model::scale::{Across, Alone, PerTarget, ScaleReport, Step};
use crate::model::{Document, Header, Kind, Results};
use crate::oscounters::{host, sysfs, throttle};
use crate::plan::ranks::{Placement, RankCounts};
use crate::plan::{DepthOnEngine, EngineKind, RunPlan};
use crate::render::text::scale::scale_table;
use crate::runner::Layout;
use crate::signal;
use crate::storage::Target;
use crate::units::ByteSize;
use std::path::PathBuf;

/// What each target stands on: its disk, then every device beneath it, and the limits this
/// process's cgroup sets on any of them.
fn stacks(session: &Session) -> Vec<Stack> {
    session
        .targets()
        .iter()
        .map(|t| {
            let devices: Vec<String> = t
                .device
                .as_ref()
                .map(|d| {
                    std::iter::once(d.name.clone())
                        .chain(sysfs::stack(&d.name))
                        .collect()
                })
                .unwrap_or_default();
            let cloud = t.device.as_ref().and_then(|d| {
                let f = sysfs::facts(&d.name);
                crate::analysis::cloud::recognise(
                    d.model.as_deref(),
                    f.vendor.as_deref(),
                    f.driver.as_deref(),
                )
            });
            Stack {
                target: t.path.display().to_string(),
                throttles: (devices.iter())
                    .filter_map(|d| Some((d.clone(), throttle::limits(d)?)))
                    .collect(),
                devices,
                cloud,
            }
        })
        .collect()
}

/// Each member's share of a stripe step, as its own disk counted it: every member needs a disk
/// of its own (else the shares cannot be told apart and none are given).
fn member_shares(members: &[Target], r: &Results) -> Vec<PerTarget> {
    let disks: Vec<Option<&str>> = members
        .iter()
        .map(|t| t.device.as_ref().map(|d| d.name.as_str()))
        .collect();
    let distinct = disks
        .iter()
        .flatten()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if distinct != members.len() {
        return Vec::new();
    }
    members
        .iter()
        .zip(disks)
        .filter_map(|(t, disk)| {
            let d = r.devices.iter().find(|d| Some(d.name.as_str()) == disk)?;
            let secs = d.seconds.max(f64::MIN_POSITIVE);
            Some(PerTarget {
                target: t.path.display().to_string(),
                bytes_per_s: (d.read_bytes + d.write_bytes) as f64 / secs,
                iops: (d.reads + d.writes) as f64 / secs,
                devices: Vec::new(),
            })
        })
        .collect()
}

/// A step of the first `n` targets from its results, run by `threads` workers; `members` are
/// the stripe's members when the step ran as a stripe set.
fn step(n: usize, threads: u32, r: Results, members: Option<&[Target]>) -> Step {
    Step {
        targets: n,
        threads,
        bytes_per_s: r.total.bytes_per_s,
        iops: r.total.iops,
        per_target: match members {
            Some(m) => member_shares(m, &r),
            None => r
                .targets
                .iter()
                .map(|t| PerTarget {
                    target: t.path.clone(),
                    bytes_per_s: t.total.bytes_per_s,
                    iops: t.total.iops,
                    devices: Vec::new(),
                })
                .collect(),
        },
        devices: r.devices.clone(),
        cpu_busy_pct: r.cpu.system_busy_pct,
        results: r,
    }
}

/// What the analysis reads of a run: throughput with its interval, IOPS and mean response
/// time (Little's law), device counters and the CPUs' busy share.
fn figures(r: &Results) -> StepFigures<'_> {
    StepFigures {
        bytes_per_s: r.total.bytes_per_s,
        bytes_per_s_half: r.total.bytes_per_s_ci95.map(|c| c.half),
        iops: r.total.iops,
        mean_latency_us: r.total.latency_us.mean,
        devices: &r.devices,
        cpu_busy_pct: r.cpu.system_busy_pct,
    }
}

/// The layout `--stripe` asks for: a chunk that is a multiple of every request size, and no
/// more than [`crate::plan::MAX_THREADS`] workers in the widest stripe (`--threads` × targets).
fn layout(args: &ScaleArgs, w: &RunPlan) -> crate::Result<Layout> {
    let Some(ByteSize(chunk)) = args.stripe else {
        return Ok(Layout::Separate);
    };
    if chunk == 0 || w.bs().parts().iter().any(|p| chunk % p.0 != 0) {
        return Err(crate::Error::invalid(
            "--stripe",
            ByteSize(chunk),
            format!(
                "a chunk size that is a multiple of --bs {} (e.g. 64k)",
                w.bs()
            ),
        ));
    }
    let n = args.targets.len().max(1) as u32;
    if w.threads().saturating_mul(n) > crate::plan::MAX_THREADS {
        return Err(crate::Error::invalid(
            "--threads",
            w.threads(),
            format!(
                "at most {} with --stripe over {n} targets (a stripe over n runs --threads × n \
                 workers, at most {})",
                crate::plan::MAX_THREADS / n,
                crate::plan::MAX_THREADS
            ),
        ));
    }
    Ok(Layout::Stripe(chunk))
}

/// Refuses a stripe chunk that is not a multiple of every member's direct-I/O alignment.
fn check_alignment(targets: &[Target], chunk: u64) -> crate::Result<()> {
    for t in targets {
        if chunk % u64::from(t.offset_align.max(1)) != 0 {
            return Err(crate::Error::invalid(
                "--stripe",
                ByteSize(chunk),
                format!(
                    "a multiple of {}'s direct-I/O alignment {}",
                    t.path.display(),
                    t.offset_align
                ),
            ));
        }
    }
    Ok(())
}

/// Gives each target's share of a step the counters of the devices in its own stack.
fn attach_stacks(steps: &mut [Step], stacks: &[Stack]) {
    for s in steps {
        for pt in &mut s.per_target {
            if let Some(st) = stacks.iter().find(|st| st.target == pt.target) {
                pt.devices = (s.devices.iter())
                    .filter(|d| st.devices.contains(&d.name))
                    .cloned()
                    .collect();
            }
        }
    }
}

/// Steps 1..n: the first target alone (its own run), then the first k together or striped,
/// once every target has run alone.
fn together(
    session: &mut Session,
    layout: Layout,
    w: &RunPlan,
    alone: &[Alone],
    n: usize,
    warnings: &mut Vec<crate::model::Warning>,
) -> crate::Result<Vec<Step>> {
    let mut steps = Vec::new();
    if let Some(first) = alone.first() {
        // Step 1 is the first target alone: the same workload on the same target.
        steps.push(step(1, w.threads(), first.results.clone(), None));
    }
    if alone.len() == n {
        for k in 2..=n {
            // A stripe over k keeps the depth of its k members alone: k times the workers,
            // each with every member open (else it runs one target's depth over k targets).
            let (label, wk) = match layout {
                Layout::Separate => (format!("targets 1-{k} together"), w.clone()),
                Layout::Stripe(_) => (
                    format!("targets 1-{k} striped"),
                    w.replan(|s| s.threads *= k as u32)?,
                ),
            };
            let Some(r) = session.run_on(0..k, layout, &wk, &label, warnings)? else {
                break;
            };
            let members = (layout != Layout::Separate).then(|| &session.targets()[..k]);
            steps.push(step(k, wk.threads(), r, members));
        }
    }
    Ok(steps)
}

/// A rank's name in a scaling experiment across ranks.
fn rank_name(rank: u32) -> String {
    format!("rank {rank}")
}

/// What each rank stands on, one stack per rank in rank order (every rank calls this at the
/// same step): the devices under all its targets and their cgroup limits, named `host:disk`
/// when the job spans several hosts, as the job's merged counters name them.
fn rank_stacks(session: &Session) -> crate::Result<Vec<Stack>> {
    let mut devices: Vec<String> = Vec::new();
    let mut throttles = Vec::new();
    for st in stacks(session) {
        for d in st.devices {
            if !devices.contains(&d) {
                devices.push(d);
            }
        }
        throttles.extend(st.throttles);
    }
    let mine = vec![(crate::cluster::host(), devices, throttles)];
    let all = crate::measure::job::every_rank(mine, |_, x| x)?;
    let mut hosts: Vec<&str> = all.iter().map(|x| x.0.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let several = hosts.len() > 1;
    let tag = |host: &str, d: String| if several { format!("{host}:{d}") } else { d };
    Ok(all
        .iter()
        .enumerate()
        .map(|(rank, (host, devices, throttles))| Stack {
            target: rank_name(rank as u32),
            devices: devices.iter().map(|d| tag(host, d.clone())).collect(),
            throttles: (throttles.iter())
                .map(|(d, l)| (tag(host, d.clone()), *l))
                .collect(),
            // Ranks may be on several hosts: no one instance to name.
            cloud: None,
        })
        .collect())
}

/// A step across ranks: each rank's share is its own results of the point.
fn rank_step(k: usize, threads: u32, r: Results) -> Step {
    let mut s = step(k, threads, r, None);
    s.per_target = (s.results.ranks.iter())
        .map(|x| PerTarget {
            target: rank_name(x.rank),
            bytes_per_s: x.results.total.bytes_per_s,
            iops: x.results.total.iops,
            devices: Vec::new(),
        })
        .collect();
    s
}

/// `--ranks`: each rank alone on all its targets (its own list, or with `--targets-per-rank`
/// its share of the job's list; with `counts`, rank 0 alone only), then the
/// first k ranks together for k = 2 up to the job's size (or each of `counts` above 1), the
/// others sitting each point out. Every rank returns the same (the job's) figures.
fn across_ranks(
    session: &mut Session,
    w: &RunPlan,
    counts: Option<&[u32]>,
    warnings: &mut Vec<crate::model::Warning>,
) -> crate::Result<(Vec<Alone>, Vec<Step>)> {
    let (me, size) = (crate::cluster::rank(), crate::cluster::size());
    let all = 0..session.targets().len();
    let alone_ranks = if counts.is_some() { 1 } else { size };
    let mut alone = Vec::new();
    for i in 0..alone_ranks {
        session.take_part(me == i);
        let label = format!("{} alone", rank_name(i));
        let Some(r) = session.run_on(all.clone(), Layout::Separate, w, &label, warnings)? else {
            break;
        };
        alone.push(Alone {
            target: rank_name(i),
            bytes_per_s: r.total.bytes_per_s,
            iops: r.total.iops,
            results: r,
        });
    }
    let mut steps = Vec::new();
    if alone.len() == alone_ranks as usize {
        steps.push(rank_step(1, w.threads(), alone[0].results.clone()));
        let every: Vec<u32> = (2..=size).collect();
        for &k in counts.unwrap_or(&every).iter().filter(|&&k| k > 1) {
            session.take_part(me < k);
            let label = format!("ranks 0-{} together", k - 1);
            let Some(r) = session.run_on(all.clone(), Layout::Separate, w, &label, warnings)?
            else {
                break;
            };
            steps.push(rank_step(k as usize, w.threads(), r));
        }
    }
    session.take_part(true);
    Ok((alone, steps))
}

/// What `--ranks` asks: None (every count up to the job's size) for `all`, else its counts,
/// each from 1 to the job's size, in increasing order.
fn rank_counts(value: &RankCounts) -> crate::Result<Option<Vec<u32>>> {
    let RankCounts::Listed(counts) = value else {
        return Ok(None);
    };
    let size = crate::cluster::size();
    let rising = counts.windows(2).all(|p| p[0] < p[1]);
    if counts.is_empty() || !rising || counts.iter().any(|&c| c == 0 || c > size) {
        return Err(crate::Error::invalid(
            "--ranks",
            value,
            format!(
                "rank counts from 1 to the job's {size}, in increasing order (e.g. \
                 --ranks=2,4), or --ranks alone for every count"
            ),
        ));
    }
    Ok(Some(counts.clone()))
}

/// What `--ranks` and `--targets-per-rank` lower into: what the steps add, with `--ranks=COUNTS`
/// those counts, and where each rank's targets come from.
struct Scaling {
    across: Across,
    counts: Option<Vec<u32>>,
    placement: Placement,
}

/// Lowers `--ranks` and `--targets-per-rank`; refuses what `--ranks` (or its absence) cannot
/// scale: across ranks, a job of one process; across targets, fewer than two; and a list that
/// cannot be dealt out (`Placement::lower`).
fn check_across(args: &ScaleArgs) -> crate::Result<Scaling> {
    if let Some(value) = &args.ranks {
        if !crate::cluster::many() {
            return Err(crate::Error::invalid(
                "--ranks",
                value,
                "an MPI job of two or more ranks (halfpower under mpirun or srun, built with \
                 the mpi feature)",
            ));
        }
        // Decided from the command line and the job's size, which every rank holds alike.
        let counts = rank_counts(value).map_err(crate::Error::alike)?;
        let size = crate::cluster::size();
        let placement = Placement::lower(args.targets_per_rank, &args.targets, size)
            .map_err(crate::Error::alike)?;
        return Ok(Scaling {
            across: Across::Ranks,
            counts,
            placement,
        });
    }
    if args.targets.len() < 2 {
        let given: Vec<String> = args
            .targets
            .iter()
            .map(|t| t.display().to_string())
            .collect();
        return Err(crate::Error::invalid(
            "TARGET",
            given.join(" "),
            "two or more targets (or --ranks under MPI, one or more)",
        ));
    }
    Ok(Scaling {
        across: Across::Targets,
        counts: None,
        placement: Placement::Whole,
    })
}

/// Each target alone, then the first k together (or striped) for k = 2..n.
fn across_targets(
    session: &mut Session,
    layout: Layout,
    w: &RunPlan,
    names: &[String],
    warnings: &mut Vec<crate::model::Warning>,
) -> crate::Result<(Vec<Alone>, Vec<Step>)> {
    let mut alone = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let label = format!("{name} alone");
        let Some(r) = session.run_on(i..i + 1, Layout::Separate, w, &label, warnings)? else {
            break;
        };
        alone.push(Alone {
            target: name.clone(),
            bytes_per_s: r.total.bytes_per_s,
            iops: r.total.iops,
            results: r,
        });
    }
    let steps = together(session, layout, w, &alone, names.len(), warnings)?;
    Ok((alone, steps))
}

/// `scale`'s options lowered once ([`lower`]): nothing after the lowering reads its clap
/// struct.
struct ScaleCommand {
    /// What the steps add (ranks or targets), `--ranks=COUNTS`, where each rank's targets
    /// come from.
    scaling: Scaling,
    /// This rank's targets: its share of the list when dealt out, else the whole list placed.
    targets: Vec<PathBuf>,
    /// The targets as the report names them (the whole list, as given).
    names: Vec<String>,
    /// The workload, planned for `engine`.
    w: RunPlan,
    /// The engine that runs it, and why it stands in for io_uring if it does.
    engine: (EngineKind, Option<crate::model::cause::EngineFallback>),
    /// `--stripe`'s layout (separate targets without it).
    layout: Layout,
    /// `--stripe`'s chunk, bytes, as the report records it.
    stripe_bytes: Option<u64>,
    /// `--limit`'s limits.
    limits: Vec<GivenLimit>,
    /// `--quiet`.
    quiet: bool,
}

/// Lowers `scale`'s flags, once, into its command and its exporter, refusing what cannot run
/// before anything does.
fn lower(args: &ScaleArgs) -> anyhow::Result<(ScaleCommand, Exporter<'_>)> {
    let exporter = Exporter::checked(&args.output)?;
    let scaling = check_across(args)?;
    let asked = crate::plan::Workload::try_from(args.workload.clone())?;
    let (engine, fallback) = available_engine(&asked);
    let w = asked.plan(engine, DepthOnEngine::Lower)?;
    let layout = layout(args, &w)?;
    let names: Vec<String> = args
        .targets
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let limits = super::lower::given_limits(&args.limit, &names)?;
    // Dealt out: this rank's share of the list; else the whole list, placed per rank.
    let targets = (scaling.placement).targets(&args.targets, crate::cluster::rank());
    let cmd = ScaleCommand {
        scaling,
        targets: targets.to_vec(),
        names,
        w,
        engine: (engine, fallback),
        layout,
        stripe_bytes: args.stripe.map(|s| s.0),
        limits,
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower scale`.
pub fn scale(args: ScaleArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let ScaleCommand {
        scaling: Scaling {
            across,
            counts,
            placement,
        },
        targets,
        names,
        w,
        engine,
        layout,
        stripe_bytes,
        limits: given,
        quiet,
    } = cmd;
    let mut warnings = Vec::new();
    let mut session = Session::open(
        &targets,
        std::slice::from_ref(&w),
        Settings {
            limits: given.clone(),
            ..Settings::new(engine, quiet)
        },
        &mut warnings,
    )?;
    if let Layout::Stripe(chunk) = layout {
        check_alignment(session.targets(), chunk)?;
    }
    let (alone, mut steps, stacks) = match across {
        Across::Ranks => {
            let (alone, steps) = across_ranks(&mut session, &w, counts.as_deref(), &mut warnings)?;
            (alone, steps, rank_stacks(&session)?)
        }
        Across::Targets => {
            let (alone, steps) = across_targets(&mut session, layout, &w, &names, &mut warnings)?;
            (alone, steps, stacks(&session))
        }
    };
    attach_stacks(&mut steps, &stacks);
    let status = session.exit_status();
    let targets = session.job_infos()?;
    // The path's PAP, while the files the run created are still there.
    let share = f64::from(w.read_pct()) / 100.0;
    // Across ranks the path is each host's own: none is reached by the job as one.
    let mut pap = (across == Across::Targets)
        .then(|| crate::measure::pap::reached(&names, share, None, &given))
        .flatten();
    drop(session); // removes files the experiment created, also after Ctrl-C
    let steps_fig: Vec<StepFigures> = steps.iter().map(|s| figures(&s.results)).collect();
    let alone_fig: Vec<StepFigures> = alone.iter().map(|a| figures(&a.results)).collect();
    let sizes: Vec<usize> = steps.iter().map(|s| s.targets).collect();
    let analysis = analyse_sizes(&alone_fig, &steps_fig, &sizes, &stacks);
    let total = (analysis.limit_bytes_per_s).or_else(|| steps.last().map(|s| s.bytes_per_s));
    if let Some(p) = &mut pap {
        p.measured_bytes_per_s = total;
        p.reached = crate::analysis::pap::reached(total, p.pap_bytes_per_s);
    }
    let report = ScaleReport {
        header: Header::new(Kind::Scale, command, utc_now()),
        host: host::read(),
        workload: w.record(),
        stripe_bytes,
        across,
        targets_per_rank: placement.per_rank(),
        targets,
        alone,
        steps,
        analysis,
        pap,
        interrupted: signal::interrupted(),
        warnings,
    };
    let text = scale_table(&report);
    exporter.emit(Document::Scale(Box::new(report)), &text)?;
    Ok(status)
}
