//! `experiment`'s flags lowered once ([`lower`]) into its command and exporter: nothing after
//! the lowering reads its clap struct.

use super::burst::{BURST_BS, BURST_QD, BURST_RW, BURST_TIME, HOLD, REST, check_flags};
use super::{Planner, Point, SCRATCH, scratch_name};
use crate::Error;
use crate::analysis::steady::SteadyRule;
use crate::cli::ExperimentArgs;
use crate::commands::Exporter;
use crate::model::experiment::ExperimentKind;
use crate::plan::Setup;
use crate::units::ByteSize;
use std::path::{Path, PathBuf};

/// Each point's measured time, warm-up and region (the scratch file's size) without `--time`,
/// `--warmup`, `--size`; and the request size of `alignment` and `allocation` without `--bs`.
const TIME: std::time::Duration = std::time::Duration::from_secs(2);
const WARMUP: std::time::Duration = std::time::Duration::from_millis(500);
const SIZE: u64 = 256 << 20;
const BS: u64 = 64 << 10;

/// `experiment`'s options lowered once ([`lower`]): what the command decided, so that nothing
/// after the lowering reads its clap struct.
pub(super) struct ExperimentCommand {
    /// NAME: which experiment.
    pub(super) kind: ExperimentKind,
    /// TARGET, placed for this rank (`{rank}`, `{host}`): a directory, a file or a device.
    pub(super) target: PathBuf,
    /// In a target directory, the scratch file the points run on, checked absent (none for
    /// allocation, which makes its own files, nor for a file or device).
    pub(super) scratch: Option<PathBuf>,
    /// `--size`: the region every point keeps to (the scratch file's size), bytes.
    pub(super) size: u64,
    /// The seed the scratch file is filled from: the points' own.
    pub(super) seed: u64,
    /// Every point, its workload validated; `alignment`'s are direct until the probe after
    /// the lowering says otherwise (`experiment`).
    pub(super) points: Vec<Point>,
    /// burst's rule that ends each drain (`--hold`); none in another experiment.
    pub(super) steady: Option<SteadyRule>,
    /// `--quiet`.
    pub(super) quiet: bool,
}

/// Lowers `experiment`'s flags, once, into its command and its exporter (every output
/// checked), refusing what cannot run before anything does.
pub(super) fn lower(args: &ExperimentArgs) -> anyhow::Result<(ExperimentCommand, Exporter<'_>)> {
    let exporter = Exporter::checked(&args.output)?;
    // Under MPI `{rank}` and `{host}` name each rank's target, a directory included.
    let target = crate::cluster::place(&args.target);
    let dir = target.is_dir();
    if args.name == ExperimentKind::Allocation && !dir {
        return Err(Error::invalid(
            "TARGET",
            target.display(),
            "a directory: allocation creates its files there, on the filesystem under test",
        )
        .into());
    }
    check_flags(args)?;
    let base = base_setup(args, dir);
    let scratch = if dir {
        scratch_path(args, &target)?
    } else {
        None
    };
    // The points run on the scratch file, else on the target (allocation's in the directory).
    let points = plan(args, scratch.as_deref().unwrap_or(&target), &base)?;
    let steady = (args.name == ExperimentKind::Burst).then(|| {
        let hold = args.hold.map_or(HOLD, |d| d.0);
        SteadyRule::drained(hold.as_secs_f64())
    });
    let cmd = ExperimentCommand {
        kind: args.name,
        target,
        scratch,
        size: size(args),
        seed: base.seed,
        points,
        steady,
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// The points' shared setup: `--time`, `--warmup`, the region (`--size`) and what they may
/// write to; `dir` when the target is a directory.
fn base_setup(args: &ExperimentArgs, dir: bool) -> Setup {
    let burst = args.name == ExperimentKind::Burst;
    Setup {
        time: Some(args.time.or(if burst { BURST_TIME } else { TIME })),
        // A drain counts every credit from its first I/O: no warm-up spends any unseen.
        warmup: if burst {
            crate::units::Dur(std::time::Duration::ZERO)
        } else {
            args.warmup.or(WARMUP)
        },
        // Every point keeps to the region, on a device as in the scratch file.
        size: Some(ByteSize(size(args))),
        // A file halfpower made is its own to write; a given file or device needs the flags.
        safety: crate::plan::Safety {
            allow_write: args.safety.allow_write || dir,
            destroy_data: args.safety.destroy_data,
        },
        ..Setup::default()
    }
}

/// In the target directory `dir`: the scratch file every point runs on, refused when it
/// exists already; none for allocation, which makes its own files (the name is refused all
/// the same).
fn scratch_path(args: &ExperimentArgs, dir: &Path) -> crate::Result<Option<PathBuf>> {
    let p = dir.join(scratch_name(SCRATCH));
    if p.exists() {
        return Err(Error::refused(
            &p,
            "already exists (a previous run's scratch file?); remove it or choose another \
             directory",
        ));
    }
    Ok((args.name != ExperimentKind::Allocation).then_some(p))
}

/// The scratch file's size (and the region a file or device is used over), bytes.
fn size(args: &ExperimentArgs) -> u64 {
    args.size.given.map_or(SIZE, |s| s.0)
}

/// The experiment's points on `path` (for allocation, the target directory), validated.
fn plan(args: &ExperimentArgs, path: &Path, base: &Setup) -> crate::Result<Vec<Point>> {
    let burst = args.name == ExperimentKind::Burst;
    let p = Planner {
        path,
        base,
        size: size(args),
        bs: args
            .bs
            .size()?
            .map_or(if burst { BURST_BS } else { BS }, |b| b.0),
        rw: crate::cli::one("--rw", &args.rw.given)?.unwrap_or(BURST_RW),
        qd: crate::cli::one("--qd", &args.qd.given)?.unwrap_or(BURST_QD),
        rest: args.rest.map_or(REST, |d| d.0),
    };
    if args.name == ExperimentKind::Alignment && p.size < 2 * p.bs {
        // The shifted reads span the region less a request, from up to half a request in.
        return Err(Error::invalid(
            "--size",
            ByteSize(p.size),
            format!("at least twice --bs ({}) for alignment", ByteSize(p.bs)),
        ));
    }
    let points = match args.name {
        ExperimentKind::Buffering => p.buffering(),
        ExperimentKind::Allocation => p.allocation(),
        ExperimentKind::Alignment => p.alignment(),
        ExperimentKind::Cache => p.cache(),
        ExperimentKind::Writecache => p.writecache(),
        ExperimentKind::Burst => p.burst(),
    };
    points
        .into_iter()
        .map(|mut p| {
            p.workload = p.workload.validated()?;
            Ok(p)
        })
        .collect()
}
