//! `halfpower experiment NAME TARGET`: one of 000's pitfalls measured as a set of runs on one
//! target (each point a run record, opened afresh with its own flags), then its verdict
//! (`analysis::experiments`). The plans, what each point varies, are here; the reading is not.

mod burst;
mod lower;

use super::warn;
use crate::analysis::experiments::{cache_size, finding};
use crate::cli::ExperimentArgs;
use crate::clock::utc_now;
use crate::measure::available_engine;
use crate::measure::{Session, Settings};
use crate::model::experiment::{ExperimentKind, ExperimentReport, Fact, Row, Variant};
use crate::model::{Direction, Document, Header, Kind, Results, TargetInfo, Warning};
use crate::oscounters::{host, sysfs};
use crate::plan::{Create, DepthOnEngine, EngineKind, RunPlan, RwMode, Setup, Workload};
use crate::render::text::experiment::experiment_table;
use crate::storage;
use crate::units::ByteSize;
use crate::{Error, signal};
use burst::rest;
use lower::{ExperimentCommand, lower};
use std::path::{Path, PathBuf};

/// Name of the scratch files in a target directory.
const SCRATCH: &str = "halfpower-experiment.tst";

/// A scratch file's name: under MPI each rank has its own (`NAME.RANK`, as `quick`'s), so the
/// ranks sharing a directory do not refuse each other's file.
fn scratch_name(name: &str) -> String {
    match crate::cluster::many() {
        true => format!("{name}.{}", crate::cluster::rank()),
        false => name.to_string(),
    }
}

/// One point to run: what it varies and its workload.
struct Point {
    variant: Variant,
    shift: Option<u64>,
    region: Option<u64>,
    workload: Workload,
    /// Where it runs (allocation's variants each have a file of their own).
    path: PathBuf,
    /// A rest before it (burst's second drain).
    rest: Option<std::time::Duration>,
}

/// The request sizes of the size axes (KiB to MiB, as 000's figures).
fn sizes(max: u64) -> Vec<u64> {
    [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]
        .into_iter()
        .filter(|&s| s <= max)
        .collect()
}

/// Builds the points of one experiment: each a shape on `path` with `base`'s options, its
/// region (`--size`), measured time and warm-up among them: every point keeps to the region
/// and measures for `--time`.
struct Planner<'a> {
    path: &'a Path,
    base: &'a Setup,
    /// The scratch file's (or region's) size: `base`'s.
    size: u64,
    /// `--bs` of `alignment`, `allocation` and `burst`.
    bs: u64,
    /// `--rw`, `--qd` and `--rest` of `burst`.
    rw: RwMode,
    qd: u32,
    rest: std::time::Duration,
}

impl Planner<'_> {
    /// A point of `variant`: `rw` in requests of `bs` at depth `qd`, with `setup`.
    fn point(&self, variant: Variant, rw: RwMode, bs: u64, qd: u32, setup: Setup) -> Point {
        Point {
            variant,
            shift: None,
            region: None,
            workload: Workload {
                rw,
                read_pct: None,
                bs: ByteSize(bs).into(),
                qd,
                threads: 1,
                setup,
            },
            path: self.path.to_path_buf(),
            rest: None,
        }
    }

    /// Direct against buffered, reads and writes, over the size axis: passes over the region,
    /// buffered reads with the file's cache dropped before each pass (`--invalidate`), so
    /// every buffered read misses the cache and reaches the device, as in 000.
    fn buffering(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for rw in [RwMode::Read, RwMode::Write] {
            for bs in sizes(self.size) {
                for (variant, buffered) in [(Variant::Direct, false), (Variant::Buffered, true)] {
                    let mut setup = Setup {
                        buffered,
                        ..self.base.clone()
                    };
                    setup.access.invalidate = buffered && rw == RwMode::Read;
                    out.push(self.point(variant, rw, bs, 1, setup));
                }
            }
        }
        out
    }

    /// Preallocated, extending and sparse files at QD1 and QD8, each in a file of its own:
    /// passes over the region, the extending and sparse files' blocks given back after each
    /// (`reallocate`), so every write allocates as in the first pass.
    fn allocation(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for qd in [1, 8] {
            for (variant, create) in [
                (Variant::Preallocated, Create::Filled),
                (Variant::Extending, Create::Empty),
                (Variant::Sparse, Create::Sparse),
            ] {
                let mut setup = Setup {
                    create,
                    ..self.base.clone()
                };
                setup.access.reallocate = create != Create::Filled;
                let name = format!("halfpower-experiment-{}.tst", variant.name());
                out.push(Point {
                    path: self.path.join(scratch_name(&name)),
                    ..self.point(variant, RwMode::Write, self.bs, qd, setup)
                });
            }
        }
        out
    }

    /// Random reads aligned and shifted by 512 bytes, 4 KiB and half a request, each over
    /// the region less a request, so the shifted ones too end inside it.
    fn alignment(&self) -> Vec<Point> {
        let bs = self.bs;
        [0, 512, 4096, bs / 2]
            .into_iter()
            .map(|shift| {
                let setup = Setup {
                    offset: ByteSize(shift),
                    size: Some(ByteSize(self.size - bs)),
                    ..self.base.clone()
                };
                let (variant, shift) = if shift == 0 {
                    (Variant::Aligned, None)
                } else {
                    (Variant::Shifted, Some(shift))
                };
                Point {
                    shift,
                    ..self.point(variant, RwMode::Randread, bs, 4, setup)
                }
            })
            .collect()
    }

    /// Cache hits (a 1 MiB region, or the whole when smaller), prefetched sequential and
    /// random reads over the size axis, then random 4 KiB reads over regions growing fourfold
    /// up to the region's size.
    fn cache(&self) -> Vec<Point> {
        let hit_region = self.size.min(1 << 20);
        let mut out = Vec::new();
        for bs in sizes(64 << 10).into_iter().filter(|&b| b <= hit_region) {
            let hit = Setup {
                size: Some(ByteSize(hit_region)),
                ..self.base.clone()
            };
            out.push(Point {
                region: Some(hit_region),
                ..self.point(Variant::CacheHit, RwMode::Randread, bs, 1, hit)
            });
            out.push(self.point(Variant::Prefetch, RwMode::Read, bs, 1, self.base.clone()));
            out.push(self.point(Variant::Random, RwMode::Randread, bs, 1, self.base.clone()));
        }
        let mut region: u64 = 256 << 10;
        while region <= self.size {
            let setup = Setup {
                size: Some(ByteSize(region)),
                ..self.base.clone()
            };
            out.push(Point {
                region: Some(region),
                ..self.point(Variant::Region, RwMode::Randread, 4096, 1, setup)
            });
            region *= 4;
        }
        out
    }

    /// A drain, a rest and a drain: the same saturating load twice, each until its bucket's
    /// baseline has held (the points' steady-state rule, [`run_points`]).
    fn burst(&self) -> Vec<Point> {
        let drain = |v| self.point(v, self.rw, self.bs, self.qd, self.base.clone());
        vec![
            drain(Variant::Drain),
            Point {
                rest: Some(self.rest),
                ..drain(Variant::AfterRest)
            },
        ]
    }

    /// Writes through the device's write cache and around it (O_DSYNC), at QD1 and QD8.
    fn writecache(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for qd in [1, 8] {
            for bs in [4 << 10, 64 << 10, 1 << 20]
                .into_iter()
                .filter(|&b| b <= self.size)
            {
                for (variant, write_through) in
                    [(Variant::WriteBack, false), (Variant::WriteThrough, true)]
                {
                    let setup = Setup {
                        write_through,
                        ..self.base.clone()
                    };
                    out.push(self.point(variant, RwMode::Write, bs, qd, setup));
                }
            }
        }
        out
    }
}

/// The row of point `p`, run as `w`, from its results; `disk` is the disk under its target,
/// whose counters over the point's window give the bytes that reached the device.
fn row(p: &Point, w: &RunPlan, r: Results, disk: Option<&str>, rest_s: Option<f64>) -> Row {
    let dev = disk.and_then(|n| r.devices.iter().find(|d| d.name == n));
    let rw = if w.writes() {
        Direction::Write
    } else {
        Direction::Read
    };
    let d = match rw {
        Direction::Read => r.read.as_ref(),
        Direction::Write => r.write.as_ref(),
    }
    .unwrap_or(&r.total)
    .clone();
    Row {
        variant: p.variant,
        shift_bytes: p.shift,
        region_bytes: p.region,
        rest_s,
        rw,
        bs_bytes: w.bs().max(),
        qd: w.qd(),
        iops: d.iops,
        bytes_per_s: d.bytes_per_s,
        bytes_per_s_ci95: d.bytes_per_s_ci95,
        mean_us: d.latency_us.mean,
        p99_us: d.latency_us.p99,
        cpu_us_per_mb: r.cpu.us_per_mb,
        system_cpu_us_per_mb: r.cpu.system_us_per_mb,
        device_read_bytes: dev.map(|d| d.read_bytes),
        device_write_bytes: dev.map(|d| d.write_bytes),
        device_share: dev
            .and_then(|d| Row::share_of(rw, d.read_bytes, d.write_bytes, r.total.bytes)),
        lazy_init: dev.is_some() && host::thread_running("ext4lazyinit"),
        results: r,
    }
}

/// The device's write-cache setting (queue/write_cache), for `writecache`.
fn write_cache_fact(info: &TargetInfo) -> Option<Fact> {
    let disk = info.device.as_deref()?;
    let text = std::fs::read_to_string(format!(
        "/sys/class/block/{}/queue/write_cache",
        sysfs::sysfs_name(disk)
    ))
    .ok()?;
    Some(Fact::WriteCache {
        disk: disk.to_string(),
        setting: text.trim().to_string(),
    })
}

/// Runs `halfpower experiment`.
pub fn experiment(args: ExperimentArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (mut cmd, exporter) = lower(&args)?;
    let mut warnings = Vec::new();
    let engine = available_engine(&Workload::default());
    // A directory gets a scratch file, filled once for every point (allocation makes its own).
    let _scratch = (cmd.scratch.as_deref())
        .map(|p| storage::create_filled(p, cmd.size, cmd.seed, false))
        .transpose()?;
    // alignment's points run buffered where direct I/O refuses 512-byte offsets, as probed on
    // the scratch file or the target.
    if cmd.kind == ExperimentKind::Alignment {
        let on = cmd.scratch.as_ref().unwrap_or(&cmd.target);
        let buffered = needs_buffered(on, &engine, &mut warnings)?;
        for p in &mut cmd.points {
            p.workload.setup.buffered = buffered;
        }
    }
    let (rows, target, status) = run_points(&cmd, &engine, &mut warnings)?;
    let Some(mut target) = target else {
        return Err(Error::Interrupted.into());
    };
    // The experiment's region, which each point keeps to (the first may address part of it:
    // alignment's span less a request, cache's hit region).
    (target.offset_bytes, target.size_bytes) = (0, cmd.size);
    let facts = facts(cmd.kind, &target, &rows);
    if !target.direct && cmd.kind != ExperimentKind::Buffering {
        let path = target.path.clone();
        warn(&mut warnings, Warning::ExperimentBuffered { path });
    }
    let report = ExperimentReport {
        header: Header::new(Kind::Experiment, command, utc_now()),
        host: host::read(),
        experiment: cmd.kind,
        target,
        finding: Some(finding(cmd.kind, &rows)),
        rows,
        facts,
        interrupted: signal::interrupted(),
        warnings,
    };
    let interrupted = report.interrupted;
    let text = experiment_table(&report);
    exporter.emit(Document::Experiment(Box::new(report)), &text)?;
    Ok(if interrupted {
        crate::signal::exit_status()
    } else {
        status
    })
}

/// The engine that runs here, and why it is not io_uring when it is not.
type EngineChoice = (EngineKind, Option<crate::model::cause::EngineFallback>);

/// Whether `alignment` on `path` must run buffered: a 512-byte shift needs direct I/O that
/// accepts 512-byte offsets.
fn needs_buffered(
    path: &Path,
    engine: &EngineChoice,
    warnings: &mut Vec<Warning>,
) -> anyhow::Result<bool> {
    let probe = Session::open(
        std::slice::from_ref(&path.to_path_buf()),
        &[Workload::default().plan(engine.0, DepthOnEngine::Lower)?],
        Settings::new(engine.clone(), true),
        warnings,
    )?;
    Ok(probe.targets()[0].offset_align > 512)
}

/// Runs every point on targets opened afresh (each starting clean: the file's dirty pages
/// written back and its cached pages dropped, so no point reads another's cache or pays for
/// its writeback). The rows, the target as the first point opened it (none when Ctrl-C came
/// before), and the worst exit status.
fn run_points(
    cmd: &ExperimentCommand,
    engine: &EngineChoice,
    warnings: &mut Vec<Warning>,
) -> anyhow::Result<(Vec<Row>, Option<TargetInfo>, u8)> {
    let mut rows = Vec::new();
    let mut info = None;
    let mut status = 0;
    // When the point before started, and what it measured, s: a rest is counted from its end.
    let mut before: Option<(std::time::Instant, f64)> = None;
    for p in &cmd.points {
        if crate::measure::job::stopped()? {
            break;
        }
        if let Some(d) = p.rest {
            rest(d);
        }
        let w = p.workload.plan(engine.0, DepthOnEngine::Lower)?;
        if w.qd() < p.workload.qd {
            let (qd, engine) = (w.qd(), engine.0);
            crate::measure::warn_job(warnings, Warning::ExperimentShallow { qd, engine });
        }
        // Each point's cache is dropped before it runs (nothing carries over); burst's drains
        // each end once their baseline has held.
        let settings = Settings {
            cache_carries: false,
            ..Settings::new(engine.clone(), cmd.quiet).steady(cmd.steady)
        };
        let mut session = Session::open(
            std::slice::from_ref(&p.path),
            std::slice::from_ref(&w),
            settings,
            warnings,
        )?;
        session.targets()[0].drop_cache();
        let target_info = session.infos().remove(0);
        let disk = target_info.device.clone();
        info.get_or_insert(target_info);
        let label = format!(
            "{} {} {} {} QD{}",
            cmd.kind.name(),
            p.variant.name(),
            w.rw(),
            w.bs(),
            w.qd()
        );
        // Both points start alike, so the time from one's start to the next's, less what the
        // first measured, is the time between their measured phases.
        let started = std::time::Instant::now();
        let rest_s = p
            .rest
            .and(before)
            .map(|(t, s)| (started - t).as_secs_f64() - s);
        let Some(r) = session.run(&w, &label, warnings)? else {
            break;
        };
        before = Some((started, r.seconds));
        status = status.max(session.exit_status());
        rows.push(row(p, &w, r, disk.as_deref(), rest_s));
    }
    Ok((rows, info, status))
}

/// What the experiment records besides its rows: the device's write-cache setting
/// (`writecache`), the cache size the regions point to (`cache`).
fn facts(kind: ExperimentKind, target: &TargetInfo, rows: &[Row]) -> Vec<Fact> {
    match kind {
        ExperimentKind::Writecache => write_cache_fact(target).into_iter().collect(),
        ExperimentKind::Cache => vec![Fact::CacheSize {
            bytes: cache_size(rows),
        }],
        _ => Vec::new(),
    }
}
