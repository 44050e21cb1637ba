//! `halfpower pts TARGET --test iops|throughput|latency|wsat`: SNIA PTS v2.0.2 on one target.
//! Each track purges the region (`storage::purge`), preconditions it with sequential 128 KiB
//! writes (twice the capacity; WSAT starts from the purged state instead), then runs rounds of
//! the test's matrix, each cell a point of its own on the target opened once, until the
//! tracking variable meets PTS's steady-state rule (`analysis::pts`) or 25 rounds have run;
//! WSAT runs until four times the capacity has been written.

use super::lower::distinct;
use super::{Exporter, warn};
use crate::analysis::pts::{MAX_ROUNDS, final_state, last_window, steady_state, window_matrix};
use crate::cli::PtsArgs;
use crate::clock::utc_now;
use crate::error::Error;
use crate::measure::available_engine;
use crate::measure::{Session, Settings};
use crate::model::Warning;
use crate::model::pts::{
    Cell, Mix, Precondition, PtsReport, PtsTest, PurgeState, Round, Track, TrackFigure, Tracking,
};
use crate::model::{Document, Header, Kind, Results};
use crate::oscounters::host;
use crate::plan::{DEFAULT_SEED, DepthOnEngine, EngineKind, RunPlan, RwMode, Setup, Workload};
use crate::render::text::pts::{pts_text, round_line};
use crate::units::{ByteSize, Dur};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// PTS's preconditioning request size: 128 KiB sequential writes.
pub const PRECONDITION_BS: u64 = 128 << 10;
/// The longest WSAT runs, whatever it has written (PTS: 24 hours).
const WSAT_MAX: Duration = Duration::from_secs(24 * 3600);
/// PTS's read/write mixes of the IOPS test, in its order.
const IOPS_MIXES: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];
/// PTS's request sizes of the IOPS test, largest first as it runs them.
const IOPS_SIZES: [u64; 8] = [
    1 << 20,
    128 << 10,
    64 << 10,
    32 << 10,
    16 << 10,
    8 << 10,
    4 << 10,
    512,
];

/// One track to run: its matrix and what must settle.
#[derive(Clone, Debug)]
struct TrackPlan {
    tracking: Tracking,
    sequential: bool,
    bs: Vec<u64>,
    mixes: Vec<Mix>,
}

/// What a test runs: its tracks and outstanding I/O.
#[derive(Clone, Debug)]
struct TestPlan {
    tracks: Vec<TrackPlan>,
    threads: u32,
    qd: u32,
}

fn mixes(pcts: &[u8]) -> Vec<Mix> {
    pcts.iter().map(|&read_pct| Mix { read_pct }).collect()
}

/// Refuses a list that leaves out the tracking value (`what` names the flag).
fn needs<T: PartialEq + std::fmt::Display>(
    what: &'static str,
    list: &[T],
    value: T,
    shown: &str,
    test: PtsTest,
) -> crate::Result<()> {
    if list.contains(&value) {
        return Ok(());
    }
    let given: Vec<String> = list.iter().map(ToString::to_string).collect();
    Err(Error::invalid(
        what,
        given.join(","),
        format!(
            "a list that holds {shown}: the {} test tracks it",
            test.name()
        ),
    ))
}

/// The test's tracks from its defaults and `--bs`/`--mix`, and its outstanding I/O; refuses
/// lists that repeat a value or leave out the tracking cell, and an outstanding I/O PTS fixes.
fn test_plan(args: &PtsArgs) -> crate::Result<TestPlan> {
    let (tracks, oio) = track_plans(args)?;
    check_lists(args, &tracks)?;
    let threads = crate::cli::one("--threads", &args.threads.given)?.unwrap_or(oio.0);
    let qd = crate::cli::one("--qd", &args.qd.given)?.unwrap_or(oio.1);
    if args.test == PtsTest::Latency && (threads, qd) != (1, 1) {
        let (what, v) = if threads != 1 {
            ("--threads", threads)
        } else {
            ("--qd", qd)
        };
        return Err(Error::invalid(
            what,
            v,
            "1: the latency test runs one thread at QD1, as PTS fixes it",
        ));
    }
    Ok(TestPlan {
        tracks,
        threads,
        qd,
    })
}

/// The test's tracks from its defaults and `--bs`/`--mix`, and PTS's outstanding I/O for it
/// (threads, queue depth).
fn track_plans(args: &PtsArgs) -> crate::Result<(Vec<TrackPlan>, (u32, u32))> {
    let bs_given: Vec<u64> = args.bs.sizes()?.iter().map(|b| b.0).collect();
    let or = |given: &[u64], default: &[u64]| {
        if given.is_empty() {
            default.to_vec()
        } else {
            given.to_vec()
        }
    };
    let mix_or = |default: &[u8]| {
        if args.mix.is_empty() {
            mixes(default)
        } else {
            args.mix.clone()
        }
    };
    let tracking = |bs_bytes, figure| Tracking {
        bs_bytes,
        mix: Mix { read_pct: 0 },
        figure,
    };
    let random = |bs: Vec<u64>, mixes: Vec<Mix>, t: Tracking| TrackPlan {
        tracking: t,
        sequential: false,
        bs,
        mixes,
    };
    let (tracks, oio) = match args.test {
        PtsTest::Iops => {
            let t = tracking(4096, TrackFigure::Iops);
            let plan = random(or(&bs_given, &IOPS_SIZES), mix_or(&IOPS_MIXES), t);
            (vec![plan], (4, 32))
        }
        PtsTest::Latency => {
            let t = tracking(4096, TrackFigure::MeanLatencyUs);
            let plan = random(
                or(&bs_given, &[8 << 10, 4 << 10, 512]),
                mix_or(&[100, 65, 0]),
                t,
            );
            (vec![plan], (1, 1))
        }
        PtsTest::Throughput => {
            let m = mix_or(&[100, 0]);
            let tracks = or(&bs_given, &[128 << 10, 1 << 20])
                .into_iter()
                .map(|bs| TrackPlan {
                    tracking: tracking(bs, TrackFigure::BytesPerS),
                    sequential: true,
                    bs: vec![bs],
                    mixes: m.clone(),
                })
                .collect();
            (tracks, (4, 32))
        }
        PtsTest::Wsat => {
            let bs = or(&bs_given, &[4096]);
            let m = mix_or(&[0]);
            let t = Tracking {
                bs_bytes: bs[0],
                mix: m[0],
                figure: TrackFigure::Iops,
            };
            (vec![random(bs, m, t)], (4, 32))
        }
    };
    Ok((tracks, oio))
}

/// Refuses repeated values, a matrix without its tracking cell, and WSAT lists of more than
/// one value.
fn check_lists(args: &PtsArgs, tracks: &[TrackPlan]) -> crate::Result<()> {
    let bs = args.bs.sizes()?;
    if !bs.is_empty() {
        distinct("--bs", &bs)?;
    }
    if !args.mix.is_empty() {
        distinct("--mix", &args.mix)?;
    }
    if args.test == PtsTest::Wsat {
        if bs.len() > 1 {
            return Err(Error::invalid(
                "--bs",
                bs.len(),
                "one request size for wsat (it writes one workload over time)",
            ));
        }
        if args.mix.len() > 1 || args.mix.iter().any(|m| m.read_pct == 100) {
            let given: Vec<String> = args.mix.iter().map(ToString::to_string).collect();
            return Err(Error::invalid(
                "--mix",
                given.join(","),
                "one mix with writes for wsat (it writes one workload until --wsat-bytes)",
            ));
        }
        return Ok(());
    }
    for t in tracks {
        needs("--mix", &t.mixes, t.tracking.mix, "0/100", args.test)?;
        if args.test != PtsTest::Throughput {
            let bs: Vec<ByteSize> = t.bs.iter().map(|&b| ByteSize(b)).collect();
            needs("--bs", &bs, ByteSize(t.tracking.bs_bytes), "4k", args.test)?;
        }
    }
    Ok(())
}

/// The setup every point shares: the region, engine and permissions; no warm-up (a round's
/// every write counts towards the bytes written).
fn setup(args: &PtsArgs) -> Setup {
    Setup {
        warmup: Dur(Duration::ZERO),
        size: args.size.given,
        engine: args.engine.kind,
        safety: args.safety.into(),
        ..Setup::default()
    }
}

/// One cell's workload: `bs` at `mix`, random or sequential, for `time`, drawing offsets with
/// `seed`.
fn cell_workload(
    base: &Setup,
    (threads, qd): (u32, u32),
    sequential: bool,
    bs: u64,
    mix: Mix,
    time: Dur,
    seed: u64,
) -> Workload {
    let rw = match (sequential, mix.read_pct) {
        (false, 100) => RwMode::Randread,
        (false, 0) => RwMode::Randwrite,
        (false, _) => RwMode::Randrw,
        (true, 100) => RwMode::Read,
        (true, 0) => RwMode::Write,
        (true, _) => RwMode::Rw,
    };
    Workload {
        rw,
        read_pct: Some(mix.read_pct),
        bs: ByteSize(bs).into(),
        qd,
        threads,
        setup: Setup {
            time: Some(time),
            seed,
            ..base.clone()
        },
    }
}

/// Preconditioning's workload: `bytes` of sequential 128 KiB writes.
fn precondition_workload(base: &Setup, oio: (u32, u32), bytes: u64) -> Workload {
    let mut w = cell_workload(
        base,
        oio,
        true,
        PRECONDITION_BS,
        Mix { read_pct: 0 },
        Dur(Duration::from_secs(1)),
        DEFAULT_SEED,
    );
    w.setup.time = None;
    w.setup.bytes = Some(ByteSize(bytes));
    w
}

/// Refuses to purge and overwrite an existing file or device without `--destroy-data`.
fn check_safety(args: &PtsArgs) -> crate::Result<()> {
    if args.engine.kind == EngineKind::Null || !args.target.exists() || args.safety.destroy_data {
        return Ok(());
    }
    Err(Error::refused(
        &args.target,
        "exists, and PTS purges and overwrites its whole region (--size); pass --allow-write \
         --destroy-data if that is intended",
    ))
}

/// Everything a track needs while it runs.
struct Bench<'a> {
    runner: Session,
    base: Setup,
    oio: (u32, u32),
    engine: EngineKind,
    args: &'a PtsArgs,
    warnings: Vec<Warning>,
    progress: bool,
}

impl Bench<'_> {
    /// Runs `w` as one point; None after Ctrl-C.
    fn point(&mut self, w: &Workload, label: &str) -> crate::Result<Option<Results>> {
        let plan = w.plan(self.engine, DepthOnEngine::AsThreads)?;
        self.runner.run(&plan, label, &mut self.warnings)
    }

    /// Preconditioning over a region of `capacity` bytes; None after Ctrl-C.
    fn precondition(&mut self, capacity: u64) -> crate::Result<Option<Precondition>> {
        let asked = self.args.precondition.map_or(2 * capacity, |b| b.0);
        let bytes = asked.div_ceil(PRECONDITION_BS) * PRECONDITION_BS;
        if bytes < 2 * capacity {
            warn(
                &mut self.warnings,
                Warning::ShortPrecondition { bytes, capacity },
            );
        }
        if bytes == 0 {
            return Ok(Some(Precondition {
                asked_bytes: asked,
                written_bytes: 0,
                bs_bytes: PRECONDITION_BS,
                seconds: 0.0,
            }));
        }
        let start = Instant::now();
        let w = precondition_workload(&self.base, self.oio, bytes);
        let Some(r) = self.point(&w, "precondition")? else {
            return Ok(None);
        };
        Ok(Some(Precondition {
            asked_bytes: asked,
            written_bytes: r.write.as_ref().map_or(0, |d| d.bytes),
            bs_bytes: PRECONDITION_BS,
            seconds: start.elapsed().as_secs_f64(),
        }))
    }

    /// One round of `t`'s matrix; None after Ctrl-C.
    fn round(&mut self, t: &TrackPlan, n: u32) -> crate::Result<Option<Vec<Cell>>> {
        let mut cells = Vec::new();
        for (m, mix) in t.mixes.iter().enumerate() {
            for (b, &bs) in t.bs.iter().enumerate() {
                // Another seed each cell and round: no round rewrites the last one's offsets.
                let seed = DEFAULT_SEED
                    .wrapping_add(u64::from(n) << 20)
                    .wrapping_add((m * t.bs.len() + b) as u64);
                let w = cell_workload(
                    &self.base,
                    self.oio,
                    t.sequential,
                    bs,
                    *mix,
                    self.args.round,
                    seed,
                );
                let label = format!("round {n} {} {mix}", ByteSize(bs));
                let Some(r) = self.point(&w, &label)? else {
                    return Ok(None);
                };
                cells.push(cell(bs, *mix, &r));
            }
        }
        Ok(Some(cells))
    }
}

/// A cell's record from its point's results.
fn cell(bs: u64, mix: Mix, r: &Results) -> Cell {
    Cell {
        bs_bytes: bs,
        mix,
        seconds: r.seconds,
        iops: r.total.iops,
        bytes_per_s: r.total.bytes_per_s,
        written_bytes: r.write.as_ref().map_or(0, |d| d.bytes),
        latency_us: r.total.latency_us.clone(),
        errors: r.errors.count,
        host: r.host.clone(),
    }
}

/// The tracking variable of a round's cells.
fn tracked(t: &Tracking, cells: &[Cell]) -> f64 {
    cells
        .iter()
        .find(|c| c.bs_bytes == t.bs_bytes && c.mix == t.mix)
        .map_or(f64::NAN, |c| match t.figure {
            TrackFigure::Iops => c.iops,
            TrackFigure::BytesPerS => c.bytes_per_s,
            TrackFigure::MeanLatencyUs => c.latency_us.mean,
        })
}

/// Runs one track: purge, preconditioning (not for WSAT), rounds until steady state (WSAT:
/// until `wsat_bytes` are written). The track as far as it got, and whether Ctrl-C cut it.
fn run_track(
    b: &mut Bench<'_>,
    t: &TrackPlan,
    capacity: u64,
    wsat_bytes: Option<u64>,
) -> crate::Result<(Track, bool)> {
    let mut track = purged_track(b, t)?;
    if wsat_bytes.is_none() {
        match b.precondition(capacity)? {
            Some(p) => track.precondition = Some(p),
            None => return Ok((track, true)),
        }
    }
    let (values, cut) = run_rounds(b, t, &mut track, wsat_bytes)?;
    track.steady = if wsat_bytes.is_some() {
        final_state(&values)
    } else {
        steady_state(&values)
    };
    if let Some(w) = track.steady.window {
        track.window_matrix = window_matrix(&track.rounds, w.first_round, w.last_round);
    }
    Ok((track, cut))
}

/// Purges the target for a track (a warning when the target refuses) and starts the track's
/// record: no preconditioning and no rounds yet.
fn purged_track(b: &mut Bench<'_>, t: &TrackPlan) -> crate::Result<Track> {
    let purge = crate::storage::purge::purge(&b.runner.targets()[0])?;
    if purge.state == PurgeState::NotSupported {
        warn(
            &mut b.warnings,
            Warning::NotPurged {
                target: b.args.target.display().to_string(),
                purge: purge.clone(),
            },
        );
    }
    Ok(Track {
        tracking: t.tracking,
        sequential: t.sequential,
        bs_bytes: t.bs.clone(),
        mixes: t.mixes.clone(),
        purge,
        precondition: None,
        rounds: Vec::new(),
        steady: steady_state(&[]),
        window_matrix: Vec::new(),
    })
}

/// Runs a track's rounds into `track` until steady state or `MAX_ROUNDS` (WSAT: until
/// `wsat_bytes` are written, nothing more is, or WSAT's longest time): the tracking variable of
/// each round, and whether Ctrl-C cut them.
fn run_rounds(
    b: &mut Bench<'_>,
    t: &TrackPlan,
    track: &mut Track,
    wsat_bytes: Option<u64>,
) -> crate::Result<(Vec<f64>, bool)> {
    let mut written = track.precondition.as_ref().map_or(0, |p| p.written_bytes);
    let start = Instant::now();
    let mut values = Vec::new();
    let mut cut = false;
    for n in 1.. {
        let more = match wsat_bytes {
            Some(total) => written < total && start.elapsed() < WSAT_MAX,
            None => n <= MAX_ROUNDS && !last_window(&values).is_some_and(|w| w.steady),
        };
        if !more {
            break;
        }
        let start_s = start.elapsed().as_secs_f64();
        let Some(cells) = b.round(t, n)? else {
            cut = true;
            break;
        };
        let wrote: u64 = cells.iter().map(|c| c.written_bytes).sum();
        written += wrote;
        let value = tracked(&t.tracking, &cells);
        values.push(value);
        let round = Round {
            round: n,
            start_s,
            end_s: start.elapsed().as_secs_f64(),
            written_bytes: written,
            tracking: value,
            cells,
        };
        if b.progress {
            crate::output::say!("{}", round_line(&t.tracking, &round, last_window(&values)));
        }
        track.rounds.push(round);
        if wsat_bytes.is_some() && wrote == 0 {
            // Nothing written (every write failed): WSAT would never reach its bytes.
            break;
        }
    }
    Ok((values, cut))
}

/// Runs `halfpower pts`.
pub fn pts(args: PtsArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let exporter = Exporter::checked(&args.output)?;
    let plan = test_plan(&args)?;
    check_safety(&args)?;
    let base = setup(&args);
    let (engine, fallback) = available_engine(&Workload {
        setup: base.clone(),
        ..Workload::default()
    });
    let oio = (plan.threads, plan.qd);
    let mut shapes: Vec<RunPlan> = vec![
        precondition_workload(&base, oio, PRECONDITION_BS)
            .plan(engine, DepthOnEngine::AsThreads)?,
    ];
    for t in &plan.tracks {
        for &bs in &t.bs {
            for &mix in &t.mixes {
                let w = cell_workload(&base, oio, t.sequential, bs, mix, args.round, 0);
                shapes.push(w.plan(engine, DepthOnEngine::AsThreads)?);
            }
        }
    }
    let mut warnings = Vec::new();
    let runner = Session::open(
        std::slice::from_ref(&args.target),
        &shapes,
        Settings::new((engine, fallback), true),
        &mut warnings,
    )?;
    let target_info = runner.infos().remove(0);
    let capacity = runner.targets()[0].size;
    let wsat_bytes =
        (args.test == PtsTest::Wsat).then(|| args.wsat_bytes.map_or(4 * capacity, |b| b.0));
    let mut bench = Bench {
        runner,
        base,
        oio,
        engine,
        args: &args,
        warnings,
        progress: !args.output.quiet && std::io::stderr().is_terminal(),
    };
    let mut tracks = Vec::new();
    for t in &plan.tracks {
        let (track, cut) = run_track(&mut bench, t, capacity, wsat_bytes)?;
        tracks.push(track);
        if cut {
            break;
        }
    }
    let status = bench.runner.exit_status();
    let warnings = std::mem::take(&mut bench.warnings);
    drop(bench); // removes a file the test created, also after Ctrl-C
    let report = PtsReport {
        header: Header::new(Kind::Pts, command, utc_now()),
        host: host::read(),
        target: args.target.display().to_string(),
        target_info,
        test: args.test,
        capacity_bytes: capacity,
        threads: plan.threads,
        qd: plan.qd,
        round_s: args.round.0.as_secs_f64(),
        max_rounds: wsat_bytes.is_none().then_some(MAX_ROUNDS),
        wsat_bytes,
        tracks,
        interrupted: crate::signal::interrupted(),
        warnings,
    };
    let text = pts_text(&report);
    exporter.emit(Document::Pts(Box::new(report)), &text)?;
    Ok(status)
}
