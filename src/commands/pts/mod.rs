//! `halfpower pts TARGET --test iops|throughput|latency|wsat`: SNIA PTS v2.0.2 on one target.
//! Each track purges the region (`storage::purge`), preconditions it with sequential 128 KiB
//! writes (twice the capacity; WSAT starts from the purged state instead), then runs rounds of
//! the test's matrix, each cell a point of its own on the target opened once, until the
//! tracking variable meets PTS's steady-state rule (`analysis::pts`) or 25 rounds have run;
//! WSAT runs until four times the capacity has been written.

mod lower;

use super::warn;
use crate::analysis::pts::{MAX_ROUNDS, final_state, last_window, steady_state, window_matrix};
use crate::cli::PtsArgs;
use crate::clock::utc_now;
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
use lower::{PtsCommand, TrackPlan, lower};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// PTS's preconditioning request size: 128 KiB sequential writes.
pub const PRECONDITION_BS: u64 = 128 << 10;
/// The longest WSAT runs, whatever it has written (PTS: 24 hours).
const WSAT_MAX: Duration = Duration::from_secs(24 * 3600);

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

/// Everything a track needs while it runs.
struct Bench<'a> {
    runner: Session,
    base: Setup,
    oio: (u32, u32),
    engine: EngineKind,
    cmd: &'a PtsCommand,
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
        let asked = self.cmd.precondition.map_or(2 * capacity, |b| b.0);
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
                    self.cmd.round,
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
                target: b.cmd.target.display().to_string(),
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
    let (cmd, exporter) = lower(&args)?;
    let base = cmd.base.clone();
    let (engine, fallback) = available_engine(&Workload {
        setup: base.clone(),
        ..Workload::default()
    });
    let oio = (cmd.plan.threads, cmd.plan.qd);
    let mut shapes: Vec<RunPlan> = vec![
        precondition_workload(&base, oio, PRECONDITION_BS)
            .plan(engine, DepthOnEngine::AsThreads)?,
    ];
    for t in &cmd.plan.tracks {
        for &bs in &t.bs {
            for &mix in &t.mixes {
                let w = cell_workload(&base, oio, t.sequential, bs, mix, cmd.round, 0);
                shapes.push(w.plan(engine, DepthOnEngine::AsThreads)?);
            }
        }
    }
    let mut warnings = Vec::new();
    let runner = Session::open(
        std::slice::from_ref(&cmd.target),
        &shapes,
        Settings::new((engine, fallback), true),
        &mut warnings,
    )?;
    let target_info = runner.infos().remove(0);
    let capacity = runner.targets()[0].size;
    let wsat_bytes =
        (cmd.test == PtsTest::Wsat).then(|| cmd.wsat_bytes.map_or(4 * capacity, |b| b.0));
    let mut bench = Bench {
        runner,
        base,
        oio,
        engine,
        cmd: &cmd,
        warnings,
        progress: !cmd.quiet && std::io::stderr().is_terminal(),
    };
    let mut tracks = Vec::new();
    for t in &cmd.plan.tracks {
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
        target: cmd.target.display().to_string(),
        target_info,
        test: cmd.test,
        capacity_bytes: capacity,
        threads: cmd.plan.threads,
        qd: cmd.plan.qd,
        round_s: cmd.round.0.as_secs_f64(),
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
