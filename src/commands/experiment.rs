//! `halfpower experiment NAME TARGET`: one of 000's pitfalls measured as a set of runs on one
//! target (each point a run record, opened afresh with its own flags), then its verdict
//! (`analysis::experiments`). The plans, what each point varies, are here; the reading is not.

use super::points::PointRunner;
use super::run::available_engine;
use super::{check_output_dests, emit, warn};
use crate::analysis::experiments::{cache, verdict};
use crate::cli::ExperimentArgs;
use crate::clock::utc_now;
use crate::model::experiment::{ExperimentKind, ExperimentReport, Fact, Row, Variant};
use crate::model::{Direction, Document, Header, Kind, Results, TargetInfo};
use crate::oscounters::{host, sysfs};
use crate::render::text::experiment::experiment_table;
use crate::spec::{Create, RwMode, Setup, Workload};
use crate::target::{self, Scratch};
use crate::units::ByteSize;
use crate::{Error, signal};
use std::path::{Path, PathBuf};

/// Name of the scratch files in a target directory.
const SCRATCH: &str = "halfpower-experiment.tst";

/// One point to run: what it varies and its workload.
struct Point {
    variant: Variant,
    shift: Option<u64>,
    region: Option<u64>,
    workload: Workload,
    /// Where it runs (allocation's variants each have a file of their own).
    path: PathBuf,
}

/// The request sizes of the size axes (KiB to MiB, as 000's figures).
fn sizes(max: u64) -> Vec<u64> {
    [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]
        .into_iter()
        .filter(|&s| s <= max)
        .collect()
}

/// The experiment's points on `path` (for allocation, the target directory).
fn plan(args: &ExperimentArgs, path: &Path, base: &Setup) -> crate::Result<Vec<Point>> {
    let size = args.size.0;
    let shape = |rw: RwMode, bs: u64, qd: u32, setup: Setup| Workload {
        rw,
        read_pct: None,
        bs: ByteSize(bs).into(),
        qd,
        threads: 1,
        setup,
    };
    let point = |variant, rw, bs, qd, setup: Setup| Point {
        variant,
        shift: None,
        region: None,
        workload: shape(rw, bs, qd, setup),
        path: path.to_path_buf(),
    };
    let mut out = Vec::new();
    match args.name {
        ExperimentKind::Buffering => {
            for rw in [RwMode::Read, RwMode::Write] {
                for bs in sizes(size) {
                    for (variant, buffered) in [(Variant::Direct, false), (Variant::Buffered, true)]
                    {
                        // One pass over the file from a dropped cache and no warm-up, so every
                        // buffered read misses the cache and reaches the device, as in 000.
                        let setup = Setup {
                            buffered,
                            time: None,
                            bytes: Some(ByteSize(size / bs * bs)),
                            warmup: crate::units::Dur(std::time::Duration::ZERO),
                            ..base.clone()
                        };
                        out.push(point(variant, rw, bs, 1, setup));
                    }
                }
            }
        }
        ExperimentKind::Allocation => {
            for qd in [1, 8] {
                for (variant, create) in [
                    (Variant::Preallocated, Create::Filled),
                    (Variant::Extending, Create::Empty),
                    (Variant::Sparse, Create::Sparse),
                ] {
                    // Exactly one pass over the file, no warm-up: every write allocates.
                    let setup = Setup {
                        create,
                        time: None,
                        bytes: Some(ByteSize(size)),
                        warmup: crate::units::Dur(std::time::Duration::ZERO),
                        size: Some(ByteSize(size)),
                        ..base.clone()
                    };
                    let name = format!("halfpower-experiment-{}.tst", variant.name());
                    out.push(Point {
                        path: path.join(name),
                        ..point(variant, RwMode::Write, args.bs.0, qd, setup)
                    });
                }
            }
        }
        ExperimentKind::Alignment => {
            let bs = args.bs.0;
            for shift in [0, 512, 4096, bs / 2] {
                let setup = Setup {
                    offset: ByteSize(shift),
                    size: Some(ByteSize(size.saturating_sub(bs).max(bs))),
                    ..base.clone()
                };
                let (variant, shift) = if shift == 0 {
                    (Variant::Aligned, None)
                } else {
                    (Variant::Shifted, Some(shift))
                };
                out.push(Point {
                    shift,
                    ..point(variant, RwMode::Randread, bs, 4, setup)
                });
            }
        }
        ExperimentKind::Cache => {
            const HIT_REGION: u64 = 1 << 20;
            for bs in sizes(64 << 10) {
                let hit = Setup {
                    size: Some(ByteSize(HIT_REGION)),
                    ..base.clone()
                };
                out.push(Point {
                    region: Some(HIT_REGION),
                    ..point(Variant::CacheHit, RwMode::Randread, bs, 1, hit)
                });
                out.push(point(Variant::Prefetch, RwMode::Read, bs, 1, base.clone()));
                out.push(point(
                    Variant::Random,
                    RwMode::Randread,
                    bs,
                    1,
                    base.clone(),
                ));
            }
            let mut region: u64 = 256 << 10;
            while region <= size {
                let setup = Setup {
                    size: Some(ByteSize(region)),
                    ..base.clone()
                };
                out.push(Point {
                    region: Some(region),
                    ..point(Variant::Region, RwMode::Randread, 4096, 1, setup)
                });
                region *= 4;
            }
        }
        ExperimentKind::Writecache => {
            for qd in [1, 8] {
                for bs in [4 << 10, 64 << 10, 1 << 20]
                    .into_iter()
                    .filter(|&b| b <= size)
                {
                    for (variant, write_through) in
                        [(Variant::WriteBack, false), (Variant::WriteThrough, true)]
                    {
                        let setup = Setup {
                            write_through,
                            ..base.clone()
                        };
                        out.push(point(variant, RwMode::Write, bs, qd, setup));
                    }
                }
            }
        }
    }
    out.into_iter()
        .map(|mut p| {
            p.workload = p.workload.validated()?;
            Ok(p)
        })
        .collect()
}

/// The row of point `p`, run as `w`, from its results; `disk` is the disk under its target,
/// whose counters over the point's window give the bytes that reached the device.
fn row(p: &Point, w: &Workload, r: Results, disk: Option<&str>) -> Row {
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
        rw,
        bs_bytes: w.bs.max(),
        qd: w.qd,
        iops: d.iops,
        bytes_per_s: d.bytes_per_s,
        mean_us: d.latency_us.mean,
        p99_us: d.latency_us.p99,
        cpu_us_per_mb: r.cpu.us_per_mb,
        system_cpu_us_per_mb: r.cpu.system_us_per_mb,
        device_read_bytes: dev.map(|d| d.read_bytes),
        device_write_bytes: dev.map(|d| d.write_bytes),
        device_share: dev
            .filter(|_| r.total.bytes > 0)
            .map(|d| (d.read_bytes + d.write_bytes) as f64 / r.total.bytes as f64),
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
    Some(Fact {
        name: format!("{disk} queue/write_cache"),
        value: text.trim().to_string(),
    })
}

/// Runs `halfpower experiment`.
pub fn experiment(args: ExperimentArgs, command: Vec<String>) -> anyhow::Result<u8> {
    check_output_dests(&args.output)?;
    let dir = args.target.is_dir();
    if args.name == ExperimentKind::Allocation && !dir {
        return Err(Error::invalid(
            "TARGET",
            args.target.display(),
            "a directory: allocation creates its files there, on the filesystem under test",
        )
        .into());
    }
    let mut warnings = Vec::new();
    let base = Setup {
        time: Some(args.time),
        warmup: args.warmup,
        // A file halfpower made is its own to write; a given file or device needs the flags.
        allow_write: args.allow_write || dir,
        destroy_data: args.destroy_data,
        ..Setup::default()
    };
    let (engine, fallback) = available_engine(&Workload::default());
    let mut base = base;
    if args.name == ExperimentKind::Alignment && !dir {
        // A 512-byte shift needs direct I/O that accepts 512-byte offsets; else all buffered.
        let probe = PointRunner::open(
            std::slice::from_ref(&args.target),
            &[Workload::default().validated()?],
            (engine, fallback.clone()),
            None,
            true,
            &mut warnings,
        )?;
        if probe.targets()[0].offset_align > 512 {
            base.buffered = true;
        }
    }
    // A directory gets a scratch file, filled once for every point (allocation makes its own).
    let (path, _scratch): (PathBuf, Option<Scratch>) = if dir {
        let p = args.target.join(SCRATCH);
        if p.exists() {
            return Err(Error::refused(
                &p,
                "already exists (a previous run's scratch file?); remove it or choose another \
                 directory",
            )
            .into());
        }
        let s = (args.name != ExperimentKind::Allocation)
            .then(|| target::create_filled(&p, args.size.0, base.seed, false))
            .transpose()?;
        if args.name == ExperimentKind::Alignment && s.is_some() {
            let probe = PointRunner::open(
                std::slice::from_ref(&p),
                &[Workload::default().validated()?],
                (engine, fallback.clone()),
                None,
                true,
                &mut warnings,
            )?;
            if probe.targets()[0].offset_align > 512 {
                base.buffered = true;
            }
        }
        (if s.is_some() { p } else { args.target.clone() }, s)
    } else {
        (args.target.clone(), None)
    };
    let points = plan(&args, &path, &base)?;
    let mut rows = Vec::new();
    let mut info = None;
    let mut status = 0;
    for p in &points {
        if signal::interrupted() {
            break;
        }
        let w = p.workload.run_by(engine);
        if w.qd < p.workload.qd {
            warn(
                &mut warnings,
                format!(
                    "io_uring unavailable: points run at QD{} on the {engine} engine",
                    w.qd
                ),
            );
        }
        let mut runner = PointRunner::open_clean(
            std::slice::from_ref(&p.path),
            std::slice::from_ref(&w),
            (engine, fallback.clone()),
            args.output.quiet,
            &mut warnings,
        )?;
        // Every point starts clean: the file's dirty pages (a buffered write point's) written
        // back and its cached pages dropped, so no point reads another's cache or pays for its
        // writeback (a direct write first flushes dirty pages in its range).
        runner.targets()[0].drop_cache();
        let target_info = runner.infos().remove(0);
        let disk = target_info.device.clone();
        info.get_or_insert(target_info);
        let label = format!(
            "{} {} {} {} QD{}",
            args.name.name(),
            p.variant.name(),
            w.rw,
            w.bs,
            w.qd
        );
        let Some(r) = runner.run(&w, &label, &mut warnings)? else {
            break;
        };
        status = status.max(runner.exit_status());
        rows.push(row(p, &w, r, disk.as_deref()));
    }
    let Some(target) = info else {
        return Err(Error::Interrupted.into());
    };
    let mut facts = Vec::new();
    match args.name {
        ExperimentKind::Writecache => facts.extend(write_cache_fact(&target)),
        ExperimentKind::Cache => {
            let found = cache(&rows).1;
            facts.push(Fact {
                name: "cache size estimate".into(),
                value: found.map_or("none found".into(), |b| ByteSize(b).to_string()),
            });
        }
        _ => {}
    }
    if !target.direct && args.name != ExperimentKind::Buffering {
        warn(
            &mut warnings,
            format!(
                "{} ran buffered (direct I/O unavailable): the page cache takes part in every \
                 point",
                target.path
            ),
        );
    }
    let report = ExperimentReport {
        header: Header::new(Kind::Experiment, command, utc_now()),
        host: host::read(),
        experiment: args.name,
        target,
        verdict: verdict(args.name, &rows),
        rows,
        facts,
        interrupted: signal::interrupted(),
        warnings,
    };
    let interrupted = report.interrupted;
    let text = experiment_table(&report);
    emit(&args.output, Document::Experiment(Box::new(report)), &text)?;
    Ok(if interrupted {
        crate::signal::exit_status()
    } else {
        status
    })
}
