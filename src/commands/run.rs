//! `halfpower run`: open the targets, run the workload, report.

use super::export::{self, Output};
use super::{Exporter, warn};
use crate::analysis::compare::summarize;
use crate::analysis::sanity;
use crate::analysis::steady::SteadyRule;
use crate::cli::RunArgs;
use crate::clock::utc_now;
use crate::measure::{self, Settings, Sharing, effective_plan, verified};
use crate::model::run::RankRun;
use crate::model::run::Repeat;
use crate::model::{Document, Header, Kind, Results, RunReport, TargetInfo, Warning};
use crate::oscounters::host;
use crate::plan::Workload;
use crate::render::text;
use crate::runner::Control;
use std::path::PathBuf;

/// Refuses what a job of several ranks cannot do: repetitions (each would need its own
/// gathering) and one `--verify-state` for every rank (each saves its own record). Before the
/// paths are placed. (A steady-state rule the session refuses, for every command.)
fn refuse_under_mpi(args: &RunArgs) -> crate::Result<()> {
    if !crate::cluster::many() {
        return Ok(());
    }
    if let Some(given) = &args.verify.verify_state.path {
        rank_path("--verify-state", given, "state.{rank}.json")?;
    }
    if args.repeat.n > 1 {
        return Err(crate::Error::invalid(
            "--repeat",
            args.repeat.n,
            "1 under MPI (each repetition would need its own gathering)",
        ));
    }
    Ok(())
}

/// Refuses a file of `flag`'s that every rank would write (`given` without `{rank}`), naming
/// an `example` that holds it.
fn rank_path(flag: &'static str, given: &std::path::Path, example: &str) -> crate::Result<()> {
    if given.to_string_lossy().contains("{rank}") {
        return Ok(());
    }
    Err(crate::Error::invalid(
        flag,
        given.display(),
        format!("a path holding {{rank}} under MPI, as each rank writes its own (e.g. {example})"),
    ))
}

/// `--io-log`'s path for this rank, checked before anything runs: with `{rank}` under MPI
/// (each rank writes its own record), one run (no `--repeat`), writable, a file no other
/// output of the run writes.
fn io_log_path(args: &RunArgs, exporter: &mut Exporter) -> crate::Result<Option<PathBuf>> {
    let Some(given) = &args.io_log.path else {
        return Ok(None);
    };
    if crate::cluster::many() {
        rank_path("--io-log", given, "io.{rank}.csv")?;
    }
    if args.repeat.n > 1 {
        return Err(crate::Error::invalid(
            "--repeat",
            args.repeat.n,
            "1 with --io-log (the record is of one run)",
        ));
    }
    let path = crate::cluster::place(given);
    exporter
        .outputs()
        .file(Output::RankLog, "--io-log", &path)?;
    Ok(Some(path))
}

/// `run`'s options lowered once ([`lower`]): what the command decided, so that nothing after
/// the lowering reads its clap struct.
struct RunCommand {
    /// The targets, placed for this rank (`{rank}`, `{host}`).
    targets: Vec<PathBuf>,
    /// The workload as asked, checked; with `--shared` under MPI this rank's region.
    asked: Workload,
    /// How the ranks open the targets.
    sharing: Sharing,
    /// `--steady`'s rule.
    steady: Option<SteadyRule>,
    /// `--verify*`'s policy, its state file placed for this rank.
    policy: Option<verified::Policy>,
    /// `--repeat`.
    repeat: u32,
    /// `--io-log`'s file for this rank.
    io_log: Option<PathBuf>,
    /// `--listen`'s address.
    listen: Option<std::net::SocketAddr>,
    /// `--limit`'s limits.
    limits: Vec<crate::model::policy::GivenLimit>,
    /// `--quiet`.
    quiet: bool,
}

impl RunCommand {
    /// The targets as the run names them in its results.
    fn names(&self) -> Vec<String> {
        names_of(&self.targets)
    }
}

/// `targets` as the run names them in its results.
fn names_of(targets: &[PathBuf]) -> Vec<String> {
    targets.iter().map(|t| t.display().to_string()).collect()
}

/// Lowers `run`'s flags, once, into its command and its exporter (every output checked),
/// refusing what cannot run before anything does.
fn lower(args: &RunArgs) -> anyhow::Result<(RunCommand, Exporter<'_>)> {
    refuse_under_mpi(args)?;
    let place = |p: &PathBuf| crate::cluster::place(p);
    let targets: Vec<PathBuf> = args.targets.iter().map(place).collect();
    let asked = crate::plan::Workload::try_from(args.workload.clone())?;
    let steady = super::lower::steady_rule_of(args.steady.rule, asked.setup.bytes.is_some())?;
    let mut exporter = Exporter::checked(&args.output)?;
    exporter.prom(args.prom.path.as_deref())?;
    let mut policy = args.verify.policy();
    if let Some(state) = policy.as_mut().and_then(|p| p.state.as_mut()) {
        *state = place(state);
        exporter
            .outputs()
            .file(Output::State, "--verify-state", state)?;
    }
    let io_log = io_log_path(args, &mut exporter)?;
    verified::check_workload(policy.as_ref(), &asked, args.repeat.n)?;
    let (asked, sharing) = shared_regions(args.shared, asked);
    let limits = super::lower::given_limits(&args.limit, &names_of(&targets))?;
    let cmd = RunCommand {
        targets,
        asked,
        sharing,
        steady,
        policy,
        repeat: args.repeat.n,
        io_log,
        listen: args.listen.addr,
        limits,
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// A run's results split into the job's (under MPI every rank's merged) and each rank's own
/// (one rank, these results, without MPI).
fn job_results(run: &Results) -> (Results, Vec<RankRun>) {
    let mut results = run.clone();
    let ranks = match std::mem::take(&mut results.ranks) {
        ranks if ranks.is_empty() => vec![RankRun {
            rank: 0,
            host: crate::cluster::host(),
            results: results.clone(),
        }],
        ranks => ranks,
    };
    (results, ranks)
}

/// With `--listen`, serves the measured window's figures while the run goes
/// (`render::metrics::run_families`, read from the series its workers already hand over each
/// second; a scrape never waits on a worker, nor a worker on a scrape), with the changes found
/// so far (`analysis::live`).
fn serve_run(cmd: &RunCommand) -> anyhow::Result<Option<crate::serve::Server>> {
    let Some(addr) = cmd.listen else {
        return Ok(None);
    };
    let names = cmd.names();
    let so_far = std::sync::Mutex::new(crate::analysis::live::ChangesSoFar::default());
    let render: crate::serve::Render = std::sync::Arc::new(move |format| {
        let sink = crate::stats::series::published();
        let live = sink.as_ref().map(|s| s.live()).unwrap_or_default();
        let mut so_far = so_far.lock().unwrap_or_else(|p| p.into_inner());
        let changes = sink.as_ref().map_or(&[][..], |s| so_far.update(s));
        let families = crate::render::metrics::run_families(&live, &names, changes);
        crate::render::prom::page(format, &families)
    });
    Ok(Some(crate::serve::listen(addr, render)?))
}

/// Runs `halfpower run`.
pub fn run(args: RunArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let mut warnings = Vec::new();
    let (w, engine_fallback) = effective_plan(&cmd.asked, &mut warnings)?;
    let _served = serve_run(&cmd)?;
    let settings = Settings {
        control: Control {
            steady: cmd.steady,
            io_log: cmd.io_log.is_some(),
            live: cmd.listen.is_some(),
            ..Control::progress(!cmd.quiet && crate::cluster::rank() == 0)
        },
        verify: cmd.policy.clone(),
        announce: false,
        list: false,
        sharing: cmd.sharing,
        limits: cmd.limits.clone(),
        ..Settings::new((w.setup().engine, engine_fallback), cmd.quiet)
    };
    let measure::Repeated {
        runs,
        infos,
        io_log: records,
        state,
    } = measure::independent(&cmd.targets, &w, cmd.repeat, &settings, &mut warnings)?;
    let state_file = cmd.policy.as_ref().and_then(|p| p.state.as_ref());
    if let (Some(path), Some(bytes)) = (state_file, state) {
        export::write_whole(Output::State, path, &bytes)?;
    }
    if let Some(path) = &cmd.io_log {
        export::write_streamed(Output::RankLog, path, |out| {
            crate::render::iolog::write(out, &records)
        })?;
    }
    drop(records);
    let (results, ranks) = job_results(&runs[0]);
    let warnings = run_warnings(
        &w,
        &infos,
        cmd.targets.len(),
        &ranks,
        (&results, &runs[1..]),
        warnings,
    )?;
    let repeat = (cmd.repeat > 1).then(|| Repeat {
        figures: summarize(&runs),
        runs,
    });
    let host = host::read();
    let report = RunReport {
        header: Header::new(Kind::Run, command, utc_now()),
        workload: w.record(),
        ranks,
        host,
        targets: infos,
        results,
        repeat,
        warnings,
    };
    let status = measure::exit_status(
        report
            .repeat
            .as_ref()
            .map_or(report.results.exit_status(), |r| {
                r.runs.iter().map(Results::exit_status).max().unwrap_or(0)
            }),
    );
    let text = text::run::run_table(&report);
    exporter.emit(Document::Run(Box::new(report)), &text)?;
    Ok(status)
}

/// The run's warnings after `given`: this rank's figures judged on its own targets (`per_rank`
/// of the job's `infos`) and results (each rank says its own, marked with its rank under MPI),
/// then the job's failed I/Os and Ctrl-C from its merged results `job`, once, and those of
/// each `later` repetition (`--repeat`) by its number.
fn run_warnings(
    w: &crate::plan::RunPlan,
    infos: &[TargetInfo],
    per_rank: usize,
    ranks: &[RankRun],
    (job, later): (&Results, &[Results]),
    mut given: Vec<Warning>,
) -> crate::Result<Vec<Warning>> {
    let me = crate::cluster::rank() as usize;
    let own = infos.chunks(per_rank.max(1)).nth(me).unwrap_or(&[]);
    for said in sanity::check(w, own, &ranks[me].results) {
        warn(&mut given, said);
    }
    let mut warnings = measure::job::every_ranks_warnings(given)?;
    for said in sanity::run_end(job) {
        measure::warn_job(&mut warnings, said);
    }
    for (k, r) in later.iter().enumerate() {
        if r.errors.count > 0 || r.fatal.is_some() {
            let failed = Warning::RepetitionFailed {
                repetition: k as u32 + 2,
                errors: r.errors.count,
                fatal: r.fatal.clone(),
            };
            measure::warn_job(&mut warnings, failed);
        }
    }
    Ok(warnings)
}

/// With `--shared` under MPI: this rank's workload, its region moved to `--offset` + rank ×
/// `--size`, and how its targets are opened (rank 0 creates a missing file for every region);
/// else the workload as asked, each rank on its own targets.
fn shared_regions(shared: bool, w: Workload) -> (Workload, Sharing) {
    match shared && crate::cluster::many() {
        true => (measure::own_region(w), Sharing::Regions),
        false => (w, Sharing::Apart),
    }
}
