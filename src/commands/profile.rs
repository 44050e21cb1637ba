//! `halfpower profile`: Friedman's characterization matrix (004 Tables 2–4) on one target,
//! turned into service-time expectations that `diagnose --profile` reads.

use super::lower::steady_rule;
use super::{Exporter, warn};
use crate::analysis::profile::{cell, fits_of};
use crate::cli::ProfileArgs;
use crate::clock::utc_now;
use crate::measure::available_engine;
use crate::measure::{Session, Settings};
use crate::model::Warning;
use crate::model::profile::{PROFILE_SCHEMA_VERSION, Pattern, ProfileCell, ProfileReport};
use crate::model::{Direction, Document, Header, Kind};
use crate::oscounters::host;
use crate::plan::{DepthOnEngine, EngineKind, RunPlan, RwMode, Setup, Workload};
use crate::render::text::profile::profile_table;
use crate::signal;
use crate::units::ByteSize;
use std::path::PathBuf;

/// The cache-hit region: small enough to stay in a device's cache (004's "100 % hit").
pub const CACHE_HIT_BYTES: u64 = 1 << 20;

/// One cell to run: its place in the matrix and its workload.
struct Plan {
    rw: Direction,
    pattern: Pattern,
    workload: RunPlan,
}

/// The cells in the order they run, each as `engine` runs it. The sync engine (standing in for
/// io_uring) keeps one I/O in flight per thread, so the QD4 cells run as 4 threads at QD1:
/// four in flight all the same, and recorded so.
fn plans(args: &ProfileArgs, engine: EngineKind) -> crate::Result<Vec<Plan>> {
    let sizes: &[u64] = if args.quick {
        &[4 << 10, 16 << 10, 64 << 10]
    } else {
        &[4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]
    };
    let dirs: &[Direction] = if args.reads_only.on {
        &[Direction::Read]
    } else {
        &[Direction::Read, Direction::Write]
    };
    let mut out = Vec::new();
    for &rw in dirs {
        let write = rw == Direction::Write;
        for pattern in Pattern::ALL {
            let (mode, depths): (RwMode, &[u32]) = match (pattern, write) {
                (Pattern::Sequential, false) => (RwMode::Read, &[1]),
                (Pattern::Sequential, true) => (RwMode::Write, &[1]),
                (Pattern::Random, false) => (RwMode::Randread, &[1, 4]),
                (Pattern::Random, true) => (RwMode::Randwrite, &[1, 4]),
                (Pattern::CacheHit, false) => (RwMode::Randread, &[1]),
                (Pattern::CacheHit, true) => (RwMode::Randwrite, &[1]),
            };
            for &qd in depths {
                for &bs in sizes {
                    let setup = if pattern == Pattern::CacheHit {
                        Setup {
                            size: Some(ByteSize(CACHE_HIT_BYTES.max(bs))),
                            ..args.point.setup.clone().into()
                        }
                    } else {
                        args.point.setup.clone().into()
                    };
                    let workload = Workload {
                        rw: mode,
                        read_pct: None,
                        bs: ByteSize(bs).into(),
                        qd,
                        threads: 1,
                        setup,
                    }
                    .plan(engine, DepthOnEngine::AsThreads)?;
                    out.push(Plan {
                        rw,
                        pattern,
                        workload,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// `profile`'s options lowered once ([`lower`]): nothing after the lowering reads its clap
/// struct.
struct ProfileCommand {
    /// The target.
    target: PathBuf,
    /// The cells in the order they run, planned for the engine that runs them.
    plans: Vec<Plan>,
    /// The settings of the session: the engine and its fallback, `--steady`, `--quiet`.
    settings: Settings,
}

/// Lowers `profile`'s flags, once, into its command and its exporter.
fn lower(args: &ProfileArgs) -> anyhow::Result<(ProfileCommand, Exporter<'_>)> {
    let exporter = Exporter::checked(&args.output)?;
    let steady = steady_rule(&args.point)?;
    let (engine, fallback) = available_engine(&Workload {
        setup: args.point.setup.clone().into(),
        ..Workload::default()
    });
    let cmd = ProfileCommand {
        target: args.target.clone(),
        plans: plans(args, engine)?,
        settings: Settings::new((engine, fallback), args.output.quiet).steady(steady),
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower profile`.
pub fn profile(args: ProfileArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let ProfileCommand {
        target,
        plans,
        settings,
    } = cmd;
    let shapes: Vec<RunPlan> = plans.iter().map(|p| p.workload.clone()).collect();
    let mut warnings = Vec::new();
    let mut session = Session::open(
        std::slice::from_ref(&target),
        &shapes,
        settings,
        &mut warnings,
    )?;
    let target_info = session.infos().remove(0);
    let mut cells = Vec::new();
    for p in &plans {
        let w = &p.workload;
        let name = format!(
            "{} {} {} QD{} T{}",
            p.rw.name(),
            p.pattern.name(),
            w.bs(),
            w.qd(),
            w.threads()
        );
        let Some(r) = session.run(w, &name, &mut warnings)? else {
            break;
        };
        cells.push(cell(p.rw, p.pattern, w, &r, target_info.device.as_deref()));
    }
    let status = session.exit_status();
    drop(session); // removes a file the profile created, also after Ctrl-C
    busy_warning(&cells, &mut warnings);
    let fits = fits_of(&cells);
    for f in &fits {
        if let Some(why) = f.negative_slope {
            let (rw, pattern, ms_per_kib) = (f.rw, f.pattern, f.ms_per_kib);
            let slope = Warning::NegativeSlope {
                rw,
                pattern,
                ms_per_kib,
                why,
            };
            crate::measure::warn_job(&mut warnings, slope);
        }
    }
    let report = ProfileReport {
        header: Header {
            schema_version: PROFILE_SCHEMA_VERSION,

            ..Header::new(Kind::Profile, command, utc_now())
        },
        host: host::read(),
        target: target.display().to_string(),
        target_info,
        fits,
        cells,
        interrupted: signal::interrupted(),
        warnings,
    };
    let text = profile_table(&report);
    exporter.emit(Document::Profile(Box::new(report)), &text)?;
    Ok(status)
}

/// S = 1/IOPS assumes the device is busy all the time at QD1. When the disk's %util says
/// otherwise, part of each S is host time between I/Os; say how much.
fn busy_warning(cells: &[ProfileCell], warnings: &mut Vec<Warning>) {
    let idle: Vec<&ProfileCell> = cells
        .iter()
        .filter(|c| c.service_ms.is_some() && c.device_util_pct.is_some_and(|u| u < 90.0))
        .collect();
    if let Some(worst) = idle.iter().min_by(|a, b| {
        a.device_util_pct
            .unwrap_or(0.0)
            .total_cmp(&b.device_util_pct.unwrap_or(0.0))
    }) {
        let idle_disk = Warning::IdleDisk {
            cells: idle.len(),
            rw: worst.rw,
            pattern: worst.pattern,
            bs_bytes: worst.bs_bytes,
            util_pct: worst.device_util_pct.unwrap_or(0.0),
        };
        warn(warnings, idle_disk);
    }
}
