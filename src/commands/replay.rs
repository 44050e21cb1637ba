//! `halfpower replay TRACE TARGET`: a trace replayed open-loop at each `--speed` (its times
//! divided by the speed) on one target, each speed a run of its own on the target opened once;
//! with `--headroom`, the speeds at which the response time doubles, searched by
//! `analysis::headroom`.

use super::{Exporter, warn};
use crate::access::replay::{ReplayPlan, TracedRequest};
use crate::access::{RequestSize, default_max_inflight};
use crate::analysis::headroom::{self, Probe, Step};
use crate::cli::ReplayArgs;
use crate::clock::utc_now;
use crate::engine::IoDir;
use crate::error::Error;
use crate::input::trace::{Trace, parse};
use crate::measure::available_engine;
use crate::measure::{Session, Settings, Sharing};
use crate::model::replay::{HeadroomOf, ReplayPoint, ReplayReport, TraceSummary};
use crate::model::{Document, Header, Kind, Results, TargetInfo, Warning};
use crate::oscounters::host;
use crate::plan::{DepthOnEngine, RunPlan, RwMode, Setup, Workload};
use crate::render::text::replay::replay_table;
use crate::units::{ByteSize, Dur};
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;

/// Refuses speeds that are not positive and finite, or repeated.
fn check_speeds(speeds: &[f64]) -> crate::Result<()> {
    super::lower::distinct("--speed", speeds)?;
    if let Some(s) = speeds
        .iter()
        .find(|s| !(s.is_finite() && **s > 0.0 && **s <= 1e6))
    {
        return Err(Error::invalid(
            "--speed",
            s,
            "speeds above 0 (1 = the trace's own pace, 2 = twice as fast), e.g. --speed 1,2,4",
        ));
    }
    Ok(())
}

/// The trace's requests with its first time at 0.
fn requests_from_zero(trace: &Trace, shard: bool) -> Arc<[TracedRequest]> {
    let t0 = trace.requests.first().and_then(|r| r.at_ns).unwrap_or(0);
    let (rank, size) = if shard {
        (
            crate::cluster::rank() as usize,
            crate::cluster::size() as usize,
        )
    } else {
        (0, 1)
    };
    // A rank's share keeps the whole trace's origin, so the shares interleave as they did.
    trace
        .requests
        .iter()
        .enumerate()
        .filter(|(i, _)| i % size == rank)
        .map(|(_, r)| TracedRequest {
            at_ns: r.at_ns.map(|t| t - t0),
            ..*r
        })
        .collect()
}

/// What the trace holds.
fn summary(path: &str, trace: &Trace) -> TraceSummary {
    let span_s = trace.span_ns() as f64 / 1e9;
    let n = trace.requests.len() as u64;
    TraceSummary {
        path: path.into(),
        format: trace.format,
        file: trace.file.clone(),
        requests: n,
        reads: trace
            .requests
            .iter()
            .filter(|r| r.dir == IoDir::Read)
            .count() as u64,
        bytes: trace.requests.iter().map(|r| r.len).sum(),
        span_s,
        iops: (trace.timed() && span_s > 0.0).then(|| n as f64 / span_s),
        syncs: trace.syncs,
        trims: trace.trims,
        timed: trace.timed(),
    }
}

/// The workload that opens the target and sizes the replay: its direction (for the write
/// permissions), its largest request, one budget of exactly the trace's requests.
fn workload(args: &ReplayArgs, trace: &Trace, target_exists: bool) -> Workload {
    let writes = !args.reads_only.on && trace.requests.iter().any(|r| r.dir == IoDir::Write);
    let reads = args.reads_only.on || trace.requests.iter().any(|r| r.dir == IoDir::Read);
    let max = trace.max_len();
    let rw = match (reads, writes) {
        (true, true) => RwMode::Randrw,
        (false, true) => RwMode::Randwrite,
        _ => RwMode::Randread,
    };
    let mut w = Workload {
        rw,
        read_pct: None,
        bs: RequestSize::fixed(max),
        qd: if trace.timed() { 1 } else { args.depth },
        threads: 1,
        setup: Setup {
            time: None,
            bytes: Some(ByteSize(max * trace.requests.len() as u64)),
            warmup: Dur(std::time::Duration::ZERO),
            // A missing file is created as large as the trace reaches (whole MiB).
            size: (!target_exists).then(|| ByteSize(trace.end().div_ceil(1 << 20) << 20)),
            offset: args.offset.at,
            engine: args.engine.kind,
            safety: args.safety.into(),
            // Unpinned: a pacer pinned to one CPU waits whenever anything else runs there (the
            // loop device's worker, an interrupt, another program), where the scheduler would
            // wake it on a free one.
            affinity: crate::affinity::Affinity::None,
            ..Setup::default()
        },
    };
    if trace.timed() {
        // An open loop at the trace's own times, with its bound on requests in flight.
        let a = &mut w.setup.access;
        a.arrivals = crate::access::Arrivals::Trace;
        a.max_inflight = Some(
            args.max_inflight
                .n
                .unwrap_or_else(|| default_max_inflight(max)),
        );
    }
    w
}

/// One point of the replay from its run's results; `asked` is the job's rate at speed 1 (the
/// sum of every rank's trace's, [`asked_at_speed_1`]).
fn point(speed: f64, asked: f64, max_depth: u32, r: &Results) -> ReplayPoint {
    let open = r.open_loop.clone().unwrap_or_default();
    ReplayPoint {
        speed,
        asked_iops: asked * speed,
        achieved_iops: r.total.iops,
        seconds: r.seconds,
        latency_us: r.total.latency_us.clone(),
        service_us: if r.open_loop.is_some() {
            open.service_us
        } else {
            r.total.latency_us.clone()
        },
        late_us: open.late_us,
        late: open.late,
        // A trace without times runs closed-loop: every completion was issued, at most the
        // depth in flight.
        issued: if r.open_loop.is_some() {
            open.issued
        } else {
            r.total.ios
        },
        max_inflight: if r.open_loop.is_some() {
            open.max_inflight
        } else {
            max_depth
        },
        errors: r.errors.count,
        devices: r.devices.clone(),
        host: r.host.clone(),
    }
}

/// The rate the job's traces ask for at speed 1, requests/s: under MPI every rank's own trace's
/// added (each rank replays its own), or the one trace's when the ranks share it out
/// (`--shard`), this trace's for one process; 0 for traces without times. Every rank calls it
/// at the same step.
fn asked_at_speed_1(trace: &TraceSummary, shard: bool) -> crate::Result<f64> {
    let own = if trace.span_s > 0.0 {
        trace.requests as f64 / trace.span_s
    } else {
        0.0
    };
    if shard {
        return Ok(own);
    }
    Ok(crate::measure::job::every_rank(vec![own], |_, r| r)?
        .iter()
        .sum())
}

/// Reads and parses the trace at `file` (TRACE placed for this rank, named `path`); refuses
/// speeds for one without times.
fn read_trace(args: &ReplayArgs, file: &std::path::Path, path: &str) -> anyhow::Result<Trace> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading the trace {path}"))?;
    let trace = parse(path, &text).map_err(|e| Error::Foreign(Box::new(e)))?;
    if !trace.timed() && (args.headroom || args.speed != [1.0]) {
        return Err(Error::invalid(
            "--speed",
            format!("{:?}", args.speed),
            "no --speed or --headroom for a trace without times (a fio iolog v2 without \
             `wait`): it is issued as fast as --depth allows",
        )
        .into());
    }
    Ok(trace)
}

/// Refuses a target that cannot take every request size of the trace, or that the trace
/// reaches beyond without `--wrap`.
fn check_target(cmd: &ReplayCommand, t: &crate::storage::Target) -> crate::Result<()> {
    let trace = &cmd.trace;
    let mut sizes: Vec<u64> = trace.requests.iter().map(|r| r.len).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for s in sizes {
        t.check_request_size(s)?;
    }
    if trace.end() > t.size && !cmd.wrap {
        return Err(Error::invalid(
            "TARGET",
            cmd.target.display(),
            format!(
                "a target of at least {} bytes from --offset (the trace reaches byte {}; it \
                 has {}), or --wrap to wrap the offsets around it",
                trace.end(),
                trace.end(),
                t.size
            ),
        ));
    }
    Ok(())
}

/// Whether the file a trace names is `target` (the same path once links are resolved).
fn same_file(named: &str, target: &std::path::Path) -> bool {
    let real = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    real(std::path::Path::new(named)) == real(target)
}

/// Refuses `--shard` with a trace per rank (`{rank}` or `{host}` in TRACE).
fn check_shard(args: &ReplayArgs) -> crate::Result<()> {
    if args.shard && args.trace.to_string_lossy().contains('{') {
        return Err(Error::invalid(
            "TRACE",
            args.trace.display(),
            "one trace for the whole job with --shard (no {rank} or {host}: those name a \
             trace per rank, which each rank replays whole without --shard)",
        ));
    }
    Ok(())
}

/// `replay`'s options lowered once ([`lower`]): nothing after the lowering reads its clap
/// struct.
struct ReplayCommand {
    /// TARGET, placed for this rank (`{rank}`, `{host}`).
    target: PathBuf,
    /// TRACE as the report names it, placed for this rank.
    path: String,
    /// TRACE's requests, read and parsed.
    trace: Trace,
    /// The workload that opens the target and sizes the replay (`--reads-only`, `--depth`,
    /// `--offset`, `--engine`, `--max-inflight`, the permissions).
    workload: Workload,
    /// `--speed`'s speeds, in their order.
    speeds: Vec<f64>,
    /// With `--headroom`: `--headroom-precision` and `--headroom-of`.
    headroom: Option<(f64, HeadroomOf)>,
    /// `--shard`.
    shard: bool,
    /// `--wrap`.
    wrap: bool,
    /// `--reads-only`.
    reads_only: bool,
    /// `--quiet`.
    quiet: bool,
}

/// Lowers `replay`'s flags, once, into its command and its exporter (every output checked),
/// reading the trace and refusing what cannot run before anything does.
fn lower(args: &ReplayArgs) -> anyhow::Result<(ReplayCommand, Exporter<'_>)> {
    // Under MPI each rank may replay its own trace: `{rank}` and `{host}` name it.
    check_shard(args)?;
    let trace_path = crate::cluster::place(&args.trace);
    let target = crate::cluster::place(&args.target);
    let exporter = Exporter::checked(&args.output)?;
    check_speeds(&args.speed)?;
    let path = trace_path.display().to_string();
    let trace = read_trace(args, &trace_path, &path)?;
    let workload = workload(args, &trace, target.exists());
    let cmd = ReplayCommand {
        target,
        path,
        trace,
        workload,
        speeds: args.speed.clone(),
        headroom: args
            .headroom
            .then_some((args.headroom_precision, args.headroom_of)),
        shard: args.shard,
        wrap: args.wrap,
        reads_only: args.reads_only.on,
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower replay`.
pub fn replay(args: ReplayArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let mut warnings = Vec::new();
    let (engine, fallback) = available_engine(&cmd.workload);
    let base = cmd.workload.plan_replay(engine, DepthOnEngine::Lower)?;
    let mut runner = Session::open(
        std::slice::from_ref(&cmd.target),
        std::slice::from_ref(&base),
        Settings {
            // --shard: one target for the job, each request issued by one rank.
            sharing: match cmd.shard {
                true => Sharing::Requests,
                false => Sharing::Apart,
            },
            ..Settings::new((engine, fallback), cmd.quiet)
        },
        &mut warnings,
    )?;
    check_target(&cmd, &runner.targets()[0])?;
    let target = runner.infos().remove(0);
    let mut report = empty_report(&cmd, command, summary(&cmd.path, &cmd.trace), target);
    let requests = requests_from_zero(&cmd.trace, cmd.shard);
    let run = |speed: f64, runner: &mut Session, warnings: &mut Vec<Warning>| {
        let replay = ReplayPlan {
            requests: requests.clone(),
            wrap: cmd.wrap,
            reads_only: cmd.reads_only,
        };
        let plan: RunPlan = base.clone().replaying(replay, speed);
        runner.run(&plan, &format!("speed {speed}"), warnings)
    };
    let (asked, depth) = (
        asked_at_speed_1(&report.trace, cmd.shard)?,
        base.schedule().slots(),
    );
    for &speed in &cmd.speeds {
        let Some(r) = run(speed, &mut runner, &mut warnings)? else {
            break;
        };
        report.points.push(point(speed, asked, depth, &r));
    }
    if let Some((precision, of)) = cmd.headroom {
        headroom_search(
            &mut report,
            (asked, depth, precision, of),
            &mut |s, w| run(s, &mut runner, w),
            &mut warnings,
        )?;
    }
    trace_warnings(&cmd, &report.trace, &mut warnings);
    let status = runner.exit_status();
    drop(runner);
    report.interrupted = crate::signal::interrupted();
    report.warnings = warnings;
    report.header.date = utc_now();
    exporter.emit(
        Document::Replay(Box::new(report.clone())),
        &replay_table(&report),
    )?;
    Ok(status)
}

/// The report before anything is replayed: what was asked, no points yet.
fn empty_report(
    cmd: &ReplayCommand,
    command: Vec<String>,
    trace: TraceSummary,
    target: TargetInfo,
) -> ReplayReport {
    ReplayReport {
        header: Header::new(Kind::Replay, command, String::new()),
        host: host::read(),
        trace,
        target,
        reads_only: cmd.reads_only,
        wrapped: cmd.wrap,
        points: Vec::new(),
        headroom: None,
        interrupted: false,
        warnings: Vec::new(),
    }
}

/// Warns of what the trace holds that the replay leaves as it is: another file than the
/// target, and the syncs and trims it does not replay.
fn trace_warnings(cmd: &ReplayCommand, summary: &TraceSummary, warnings: &mut Vec<Warning>) {
    if let Some(f) = (cmd.trace.file.as_deref()).filter(|f| !same_file(f, &cmd.target)) {
        let other = Warning::OtherFile {
            file: f.to_string(),
            target: cmd.target.display().to_string(),
        };
        warn(warnings, other);
    }
    if summary.syncs + summary.trims > 0 {
        let (syncs, trims) = (summary.syncs, summary.trims);
        warn(warnings, Warning::NotReplayed { syncs, trims });
    }
}

/// Runs the replay at a speed: its results, or None after Ctrl-C.
type RunAt<'a> = dyn FnMut(f64, &mut Vec<Warning>) -> crate::Result<Option<Results>> + 'a;

/// The headroom search: speed 1 first (run now if `--speed` left it out), then the speeds
/// `analysis::headroom` asks for until it answers; `asked` is the job's rate at speed 1,
/// `limit` the bound on requests in flight, `precision` the bracket's width it stops at and
/// `of` the figures it looks for.
fn headroom_search(
    report: &mut ReplayReport,
    (asked, limit, precision, of): (f64, u32, f64, HeadroomOf),
    run: &mut RunAt<'_>,
    warnings: &mut Vec<Warning>,
) -> crate::Result<()> {
    if !report.points.iter().any(|p| p.speed == 1.0) {
        let Some(p) = measure(asked, 1.0, limit, run, warnings)? else {
            return Ok(());
        };
        report.points.insert(0, p);
    }
    loop {
        let mut probes: Vec<Probe> = report.points.iter().map(|p| probe(p, limit)).collect();
        // Speed 1 first: the search's base.
        probes.sort_by_key(|p| p.speed != 1.0);
        match headroom::next(&probes, precision, of) {
            Step::Done(h) => {
                report.headroom = Some(h);
                return Ok(());
            }
            Step::Run(speed) => {
                let Some(p) = measure(asked, speed, limit, run, warnings)? else {
                    return Ok(());
                };
                report.points.push(p);
            }
        }
    }
}

/// What the search reads of a replayed point.
fn probe(p: &ReplayPoint, limit: u32) -> Probe {
    Probe {
        speed: p.speed,
        mean_us: p.latency_us.mean,
        p99_us: p.latency_us.p99,
        late_mean_us: p.late_us.mean,
        slots_full: p.max_inflight >= limit,
    }
}

/// Replays the trace (the job's asking `asked` requests/s at speed 1) at `speed` for the search; a point issued late
/// for want of CPU is replayed again up to [`headroom::LATE_RETRIES`] times (each said), and
/// the last one is kept. None after Ctrl-C.
fn measure(
    asked: f64,
    speed: f64,
    limit: u32,
    run: &mut RunAt<'_>,
    warnings: &mut Vec<Warning>,
) -> crate::Result<Option<ReplayPoint>> {
    let mut tries = 0;
    loop {
        let Some(r) = run(speed, warnings)? else {
            return Ok(None);
        };
        let p = point(speed, asked, limit, &r);
        if tries == headroom::LATE_RETRIES || !probe(&p, limit).spoiled() {
            return Ok(Some(p));
        }
        tries += 1;
        let late = Warning::IssuedLate {
            speed,
            late_us: p.late_us.mean,
            share: headroom::BEHIND_MEAN_SHARE,
            mean_us: p.latency_us.mean,
            attempt: tries,
            of: headroom::LATE_RETRIES,
        };
        warn(warnings, late);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::open::{Lateness, OpenLoop};

    /// Results of a replayed point whose requests took 1 ms from their due times and were
    /// issued `late_us` late on average, one slot of four busy at most.
    fn late_by(late_us: f64) -> Results {
        let mut r = Results {
            open_loop: Some(OpenLoop {
                late_us: Lateness {
                    mean: late_us,
                    ..Lateness::default()
                },
                max_inflight: 1,
                ..OpenLoop::default()
            }),
            ..Results::default()
        };
        r.total.latency_us.mean = 1000.0;
        r
    }

    /// A point late by 200 µs against a 1-ms response (over 5 %) with slots free is replayed
    /// again, and the on-time replay is kept; one late every time is kept after the retries,
    /// each said once.
    #[test]
    fn a_point_late_for_want_of_cpu_is_replayed_again() {
        let mut lates = vec![200.0, 10.0].into_iter();
        let mut calls = 0;
        let mut run = |_s: f64, _w: &mut Vec<Warning>| -> crate::Result<Option<Results>> {
            calls += 1;
            Ok(Some(late_by(lates.next().unwrap())))
        };
        let mut warnings = Vec::new();
        let p = measure(100.0, 2.0, 4, &mut run, &mut warnings)
            .unwrap()
            .unwrap();
        assert_eq!((calls, p.late_us.mean, warnings.len()), (2, 10.0, 1));
        assert!(
            warnings[0].to_string().contains("speed 2: "),
            "{warnings:?}"
        );

        let mut calls = 0;
        let mut run = |_s: f64, _w: &mut Vec<Warning>| -> crate::Result<Option<Results>> {
            calls += 1;
            Ok(Some(late_by(300.0)))
        };
        let mut warnings = Vec::new();
        let p = measure(100.0, 1.0, 4, &mut run, &mut warnings)
            .unwrap()
            .unwrap();
        let tries = 1 + headroom::LATE_RETRIES as usize;
        assert_eq!((calls, p.late_us.mean), (tries, 300.0));
        assert_eq!(warnings.len(), tries - 1);
    }

    /// Late because every slot was busy is the queue limit's answer: not replayed again.
    #[test]
    fn a_point_late_with_its_slots_full_is_kept() {
        let mut calls = 0;
        let mut run = |_s: f64, _w: &mut Vec<Warning>| -> crate::Result<Option<Results>> {
            calls += 1;
            let mut r = late_by(500.0);
            r.open_loop.as_mut().unwrap().max_inflight = 4;
            Ok(Some(r))
        };
        let mut warnings = Vec::new();
        measure(100.0, 8.0, 4, &mut run, &mut warnings)
            .unwrap()
            .unwrap();
        assert_eq!((calls, warnings.len()), (1, 0));
    }
}
