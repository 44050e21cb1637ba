//! What `sweep` and `profile` share: many workloads run one after another on targets opened
//! (and, when missing, created and filled) once, each point an independent `run`.

use super::run::open_targets;
use super::warn;
use crate::analysis::steady::SteadyRule;
use crate::cli::{PointArgs, SteadyArg};
use crate::error::Error;
use crate::model::cause::EngineFallback;
use crate::model::{Results, TargetInfo};
use crate::plan::{EngineKind, RunPlan, RwMode, Setup, Workload};
use crate::render::text::cause;
use crate::runner::{self, Control, Layout};
use crate::signal;
use crate::storage::Target;
use crate::units::ByteSize;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Targets opened once and the way every point runs on them.
pub(super) struct PointRunner {
    /// The opened targets; dropping them removes files halfpower created.
    targets: Vec<Target>,
    engine: EngineKind,
    engine_fallback: Option<EngineFallback>,
    control: Control,
    quiet: bool,
    total: usize,
    done: usize,
    status: u8,
}

/// The steady-state rule of a point's `--steady[=PCT|pts]`, checked against its other options.
pub(super) fn steady_rule(p: &PointArgs) -> crate::Result<Option<SteadyRule>> {
    steady_rule_of(p.steady, p.setup.bytes.is_some())
}

/// The steady-state rule of `--steady[=PCT|pts]` (`run`'s, or a point's); refuses a percentage
/// outside (0, 100) and a rule for a run of a fixed byte count (`by_bytes`).
pub(super) fn steady_rule_of(
    steady: Option<SteadyArg>,
    by_bytes: bool,
) -> crate::Result<Option<SteadyRule>> {
    let Some(steady) = steady else {
        return Ok(None);
    };
    let shown = match steady {
        SteadyArg::Pct(pct) if !(pct.is_finite() && pct > 0.0 && pct < 100.0) => {
            return Err(Error::invalid(
                "--steady",
                pct,
                "a spread in percent above 0 and below 100, e.g. --steady=2, or pts",
            ));
        }
        SteadyArg::Pct(pct) => pct.to_string(),
        SteadyArg::Pts => "pts".to_string(),
    };
    if by_bytes {
        return Err(Error::invalid(
            "--steady",
            shown,
            "no --steady with --bytes (a point of a fixed byte count has no time to shorten)",
        ));
    }
    Ok(Some(match steady {
        SteadyArg::Pct(pct) => SteadyRule::new(pct),
        SteadyArg::Pts => SteadyRule::pts(),
    }))
}

/// Refuses an empty list or one that names a value twice.
pub(super) fn distinct<T: PartialEq + std::fmt::Display>(
    what: &'static str,
    list: &[T],
) -> crate::Result<()> {
    let shown = || {
        list.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    if list.is_empty() {
        return Err(Error::invalid(
            what,
            "",
            "a comma-separated list of at least one value",
        ));
    }
    for (i, v) in list.iter().enumerate() {
        if list[..i].contains(v) {
            return Err(Error::invalid(
                what,
                shown(),
                format!("each value once ({v} appears twice)"),
            ));
        }
    }
    Ok(())
}

impl PointRunner {
    /// Opens `paths` for every workload in `shapes` (each planned for `engine`,
    /// `engine_fallback` saying why that is not io_uring): for writing when any of them
    /// writes, with the largest request size as the smallest region, and checks every request
    /// size against the targets' direct-I/O alignment before anything runs.
    pub fn open(
        paths: &[PathBuf],
        shapes: &[RunPlan],
        engine: (EngineKind, Option<EngineFallback>),
        steady: Option<SteadyRule>,
        quiet: bool,
        warnings: &mut Vec<String>,
    ) -> crate::Result<Self> {
        Self::open_inner(paths, shapes, engine, steady, quiet, true, warnings)
    }

    /// [`PointRunner::open`] for a point whose caller drops the target's cache before it runs
    /// (`experiment`): no warning that the page cache carries one point into the next.
    pub fn open_clean(
        paths: &[PathBuf],
        shapes: &[RunPlan],
        engine: (EngineKind, Option<EngineFallback>),
        quiet: bool,
        warnings: &mut Vec<String>,
    ) -> crate::Result<Self> {
        Self::open_inner(paths, shapes, engine, None, quiet, false, warnings)
    }

    fn open_inner(
        paths: &[PathBuf],
        shapes: &[RunPlan],
        (engine, engine_fallback): (EngineKind, Option<EngineFallback>),
        steady: Option<SteadyRule>,
        quiet: bool,
        cache_carries: bool,
        warnings: &mut Vec<String>,
    ) -> crate::Result<Self> {
        let Some(first) = shapes.first() else {
            return Err(Error::invalid("--rw", "", "at least one point to run"));
        };
        let opening = Workload {
            rw: if shapes.iter().any(|w| w.writes()) {
                RwMode::Write
            } else {
                RwMode::Read
            },
            read_pct: None,
            bs: crate::access::RequestSize::fixed(
                shapes
                    .iter()
                    .map(|w| w.bs().max())
                    .max()
                    .unwrap_or(first.bs().max()),
            ),
            qd: 1,
            threads: 1,
            setup: Setup {
                // The widest region any point addresses (none given: the whole target).
                size: shapes
                    .iter()
                    .map(|w| w.setup().size)
                    .try_fold(ByteSize(0), |acc, s| s.map(|s| acc.max(s))),
                // Each point's own budget is checked with its own plan; the first one's byte
                // count need not be a multiple of the largest size (pts: 128 KiB of
                // preconditioning beside 1 MiB cells).
                bytes: None,
                ..first.setup().clone()
            },
        }
        .validated()?;
        if first.setup().buffered && cache_carries {
            warn(
                warnings,
                "points run buffered (--buffered): the page cache carries one point's data into \
                 the next, so reads may be cache hits rather than device I/O. Leave out \
                 --buffered for independent points"
                    .into(),
            );
        }
        if let Some(f) = &engine_fallback {
            warn(
                warnings,
                format!(
                    "{}; every point runs on the sync engine, one I/O in flight per thread",
                    cause::engine_fallback(f)
                ),
            );
        }
        let targets = open_targets(paths, &opening, warnings)?;
        for w in shapes {
            for t in &targets {
                for &(size, _) in w.bs().parts() {
                    t.check_request_size(size)?;
                }
            }
        }
        Ok(PointRunner {
            targets,
            engine,
            engine_fallback,
            control: Control {
                progress: !quiet,
                steady,
                ..Control::default()
            },
            quiet,
            total: shapes.len(),
            done: 0,
            status: 0,
        })
    }

    /// The targets as the JSON describes them.
    pub fn infos(&self) -> Vec<TargetInfo> {
        self.targets.iter().map(Target::info).collect()
    }

    /// The opened targets.
    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// Runs one point, `w` as planned for the runner's engine ([`Workload::plan`]). None once Ctrl-C has come (before or during it, when it
    /// measured nothing); else its results (with how a steady point ended in `steady`). A
    /// point with failed I/Os is warned about in `warnings`.
    pub fn run(
        &mut self,
        w: &RunPlan,
        label: &str,
        warnings: &mut Vec<String>,
    ) -> crate::Result<Option<Results>> {
        self.run_on(0..self.targets.len(), Layout::Separate, w, label, warnings)
    }

    /// [`PointRunner::run`] on the targets `which` only, laid out as `layout` says (`scale`
    /// runs subsets, and stripe sets).
    pub fn run_on(
        &mut self,
        which: std::ops::Range<usize>,
        layout: Layout,
        w: &RunPlan,
        label: &str,
        warnings: &mut Vec<String>,
    ) -> crate::Result<Option<Results>> {
        let targets = &self.targets[which];
        if signal::interrupted() {
            return Ok(None);
        }
        self.done += 1;
        if !self.quiet && std::io::stderr().is_terminal() {
            eprintln!("[{}/{}] {label}", self.done, self.total);
        }
        debug_assert_eq!(w.setup().engine, self.engine);
        let m = match runner::execute(targets, layout, w, self.control, None) {
            Ok(m) => m,
            Err(Error::Interrupted) => return Ok(None),
            Err(e) => return Err(e),
        };
        let r = runner::results(&m, w.workload(), targets, self.engine_fallback.clone());
        if r.errors.count > 0 || r.fatal.is_some() {
            warn(
                warnings,
                format!(
                    "{label}: {} I/O errors{}; its figures cover the I/Os that completed. Check \
                     the device (dmesg) before trusting this point",
                    r.errors.count,
                    r.fatal
                        .as_ref()
                        .map_or(String::new(), |f| format!(", stopped: {}", cause::fatal(f)))
                ),
            );
        }
        self.status = self.status.max(r.exit_status());
        Ok(Some(r))
    }

    /// The exit status the points call for: 130 after Ctrl-C, 1 when any point failed I/Os,
    /// else 0.
    pub fn exit_status(&self) -> u8 {
        if signal::interrupted() {
            crate::signal::exit_status()
        } else {
            self.status
        }
    }
}
