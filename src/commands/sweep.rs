//! `halfpower sweep`: run the request size × queue depth × threads product per rw mode, or
//! re-analyse a sweep from a file, and report the plateau, half-power point and knee.

use super::Exporter;
use super::export::{Output, write_whole};
use super::lower::{distinct, steady_rule};
use crate::analysis::compare::summarize;
use crate::analysis::steady::SteadyRule;
use crate::analysis::sweep::analyse_points_by;
use crate::cli::{SweepArgs, list};
use crate::clock::utc_now;
use crate::measure::available_engine;
use crate::measure::pap::PapChoice;
use crate::measure::{Session, Settings};
use crate::model::policy::GivenLimit;
use crate::model::run::{Repeat, RunFigure};
use crate::model::sweep::{Point, SweepReport};
use crate::model::{Document, Header, Kind};
use crate::oscounters::host;
use crate::plan::{DepthOnEngine, EngineKind, RunPlan, RwMode, Workload};
use crate::render::csv::sweep_csv;
use crate::render::text::sweep::sweep_table;
use crate::signal;
use crate::units::ByteSize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The rw modes and depths a sweep runs without `--rw` and `--qd`.
const RWS: [RwMode; 4] = [
    RwMode::Read,
    RwMode::Randread,
    RwMode::Write,
    RwMode::Randwrite,
];
const DEPTHS: [u32; 4] = [1, 4, 16, 64];
const SIZES: [ByteSize; 5] = [
    ByteSize(4 << 10),
    ByteSize(16 << 10),
    ByteSize(64 << 10),
    ByteSize(256 << 10),
    ByteSize(1 << 20),
];

/// The depths the sweep runs.
fn depths(args: &SweepArgs) -> Vec<u32> {
    list(&args.qd.given, &DEPTHS)
}

/// The workloads of the sweep in the order they run: rw, threads, request size, queue depth.
fn shapes(args: &SweepArgs) -> crate::Result<Vec<Workload>> {
    let rws = list(&args.rw.given, &RWS);
    let (depths, threads_list) = (depths(args), list(&args.threads.given, &[1]));
    distinct("--rw", &rws.iter().map(|r| r.name()).collect::<Vec<_>>())?;
    let sizes = list(&args.bs.sizes()?, &SIZES);
    distinct("--bs", &sizes)?;
    distinct("--qd", &depths)?;
    distinct("--threads", &threads_list)?;
    let mut out = Vec::new();
    for &rw in &rws {
        for &threads in &threads_list {
            for &bs in &sizes {
                for &qd in &depths {
                    out.push(
                        Workload {
                            rw,
                            read_pct: None,
                            bs: bs.into(),
                            qd,
                            threads,
                            setup: args.point.setup.clone().into(),
                        }
                        .validated()?,
                    );
                }
            }
        }
    }
    Ok(out)
}

fn label(w: &RunPlan) -> String {
    format!("{} {} QD{} T{}", w.rw().name(), w.bs(), w.qd(), w.threads())
}

fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Writes the report where the flags say (`--csv` beside the document); returns the exit
/// status. The caveats of its conclusions become warnings first.
fn finish(
    csv: Option<&Path>,
    exporter: &Exporter,
    report: &mut SweepReport,
    status: u8,
) -> anyhow::Result<u8> {
    for a in &report.analysis {
        for c in crate::analysis::sweep::caveats(a) {
            crate::measure::warn_job(&mut report.warnings, c);
        }
    }
    let report = &*report;
    if let Some(path) = csv {
        write_whole(Output::Side, path, sweep_csv(&report.points).as_bytes())?;
    }
    let text = sweep_table(report, colour());
    exporter.emit(Document::Sweep(Box::new(report.clone())), &text)?;
    Ok(status)
}

/// Analyses the points with the PAP `choice` gives each rw mode (`--pap`, else the path's),
/// and records where it came from.
fn analyse(report: &mut SweepReport, choice: &PapChoice) {
    let share = |rw: RwMode| f64::from(rw.default_read_pct()) / 100.0;
    let first = report.points.first().map_or(1.0, |p| share(p.rw));
    report.pap_bytes_per_s = choice.for_share(first);
    report.pap_source = choice.source(first);
    report.analysis = analyse_points_by(&report.points, &|rw| choice.for_share(share(rw)));
}

/// Where a sweep's points come from.
enum Points {
    /// `--from`: a sweep's points read back, set against the path of `--path-of`'s targets.
    Read { from: PathBuf, path_of: Vec<String> },
    /// Measured on the targets.
    Measured(Measuring),
}

/// A sweep measured: its targets, its points planned for the engine that runs them.
struct Measuring {
    /// The targets.
    targets: Vec<PathBuf>,
    /// The targets as the report names them.
    names: Vec<String>,
    /// Every point, in the order they run, planned for `engine`.
    shapes: Vec<RunPlan>,
    /// The engine that runs them, and why it stands in for io_uring if it does.
    engine: (EngineKind, Option<crate::model::cause::EngineFallback>),
    /// `--steady`'s rule.
    steady: Option<SteadyRule>,
    /// `--repeat`: each point's runs, interleaved.
    repeat: u32,
}

/// `sweep`'s options lowered once ([`lower`]): nothing after the lowering reads its clap
/// struct.
struct SweepCommand {
    /// Measured or read back.
    points: Points,
    /// `--pap`, MB/s as bytes per second.
    pap: Option<f64>,
    /// `--limit`'s limits, named by the targets (or `--path-of`'s).
    limits: Vec<GivenLimit>,
    /// `--steady=PCT`'s spread, as the report records it.
    steady_pct: Option<f64>,
    /// `--steady=pts`, as the report records it.
    steady_pts: bool,
    /// `--csv`'s file.
    csv: Option<PathBuf>,
    /// `--quiet`.
    quiet: bool,
}

/// Lowers `sweep`'s flags, once, into its command and its exporter (the document, `--csv` and
/// `--prom` checked), refusing what cannot run before anything does.
fn lower(args: &SweepArgs) -> anyhow::Result<(SweepCommand, Exporter<'_>)> {
    let mut exporter = Exporter::checked(&args.output)?;
    exporter.side("--csv", args.csv.as_deref())?;
    exporter.prom(args.prom.path.as_deref())?;
    let (points, limits) = match &args.from.path {
        Some(from) => {
            let limits = super::lower::given_limits(&args.limit, &args.path_of)?;
            let path_of = args.path_of.clone();
            (
                Points::Read {
                    from: from.clone(),
                    path_of,
                },
                limits,
            )
        }
        None => {
            let steady = steady_rule(&args.point)?;
            let shapes = shapes(args)?;
            let (engine, fallback) = available_engine(&shapes[0]);
            if let Some(f) = &fallback {
                depths_on_the_fallback(&depths(args), engine, f)?;
            }
            let shapes = shapes
                .iter()
                .map(|w| w.plan(engine, DepthOnEngine::Lower))
                .collect::<crate::Result<Vec<_>>>()?;
            let names: Vec<String> = args
                .targets
                .iter()
                .map(|t| t.display().to_string())
                .collect();
            let limits = super::lower::given_limits(&args.limit, &names)?;
            let measuring = Measuring {
                targets: args.targets.clone(),
                names,
                shapes,
                engine: (engine, fallback),
                steady,
                repeat: args.repeat.n,
            };
            (Points::Measured(measuring), limits)
        }
    };
    let cmd = SweepCommand {
        points,
        pap: args.pap.map(|r| r.0),
        limits,
        steady_pct: args.point.steady.rule.and_then(crate::cli::SteadyArg::pct),
        steady_pts: args.point.steady.rule == Some(crate::cli::SteadyArg::Pts),
        csv: args.csv.clone(),
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower sweep`.
pub fn sweep(args: SweepArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let mut report = SweepReport {
        header: Header::new(Kind::Sweep, command, String::new()),
        host: None,
        targets: Vec::new(),
        source: None,
        steady_pct: cmd.steady_pct,
        steady_pts: cmd.steady_pts,
        pap_bytes_per_s: cmd.pap,
        pap_source: None,
        points: Vec::new(),
        analysis: Vec::new(),
        interrupted: false,
        warnings: Vec::new(),
    };
    let status = match &cmd.points {
        Points::Read { from, path_of } => {
            report.points = crate::input::sweep::read_points(from)?;
            report.source = Some(from.display().to_string());
            report.steady_pct = None;
            let choice = PapChoice::new(cmd.pap, path_of, &cmd.limits);
            choice.announce(cmd.quiet);
            analyse(&mut report, &choice);
            0
        }
        Points::Measured(m) => measured(&cmd, m, &mut report)?,
    };
    report.header.date = utc_now();
    finish(cmd.csv.as_deref(), &exporter, &mut report, status)
}

/// Measures the sweep `m` into `report` (its targets, points, analysis and host); returns the
/// session's exit status.
fn measured(cmd: &SweepCommand, m: &Measuring, report: &mut SweepReport) -> anyhow::Result<u8> {
    let mut session = Session::open(
        &m.targets,
        &m.shapes,
        Settings {
            limits: cmd.limits.clone(),
            ..Settings::new(m.engine.clone(), cmd.quiet).steady(m.steady)
        },
        &mut report.warnings,
    )?;
    report.targets = session.job_infos()?;
    let choice = PapChoice::new(cmd.pap, &m.names, &cmd.limits);
    choice.announce(cmd.quiet);
    report.points = measure(&mut session, &m.shapes, m.repeat, &mut report.warnings)?;
    let status = session.exit_status();
    drop(session); // removes a file the sweep created, also after Ctrl-C
    report.interrupted = signal::interrupted();
    analyse(report, &choice);
    report.host = Some(host::read());
    Ok(status)
}

/// Refuses depths the engine standing in for io_uring cannot keep in flight (`why` io_uring is
/// not there).
fn depths_on_the_fallback(
    qd: &[u32],
    engine: crate::plan::EngineKind,
    f: &crate::model::cause::EngineFallback,
) -> crate::Result<()> {
    let why = crate::render::text::cause::engine_fallback(f);
    let max = engine.caps().max_qd;
    if !qd.iter().any(|&q| q > max) {
        return Ok(());
    }
    Err(crate::Error::invalid(
        "--qd",
        qd.iter()
            .map(|q| q.to_string())
            .collect::<Vec<_>>()
            .join(","),
        format!(
            "queue depth {max} only: {why}, and the {engine} engine that stands in keeps {max} \
             I/O in flight per thread. Sweep threads instead (--qd 1 --threads 1,4,16,64) or \
             enable io_uring (sysctl kernel.io_uring_disabled=0)"
        ),
    ))
}

/// Measures every point of `shapes` `n` times, interleaved (every point once, then every point
/// again, so a drift over time spreads over all points instead of biasing the last ones), until
/// the session stops; each point with its repetitions' figures.
fn measure(
    session: &mut Session,
    shapes: &[RunPlan],
    n: u32,
    warnings: &mut Vec<crate::model::Warning>,
) -> anyhow::Result<Vec<Point>> {
    let label = |i: usize, k: u32| {
        let name = label(&shapes[i]);
        if n > 1 {
            format!("{name} (repetition {})", k + 1)
        } else {
            name
        }
    };
    let reps = session.interleaved(shapes, n, label, warnings)?;
    let mut points = Vec::new();
    for (w, runs) in shapes.iter().zip(reps) {
        let Some(first) = runs.first().cloned() else {
            break;
        };
        let mut p = Point::of(w, first);
        if runs.len() > 1 {
            let figures = summarize(&runs);
            let get = |f: RunFigure| figures.iter().find(|s| s.figure == f);
            if let (Some(i), Some(b)) = (get(RunFigure::TotalIops), get(RunFigure::TotalBytesPerS))
            {
                p.iops = i.mean;
                p.bytes_per_s = b.mean;
                p.ci95_pct = Some(b.ci95.pct);
            }
            p.repeat = Some(Repeat { runs, figures });
        }
        points.push(p);
    }
    Ok(points)
}
