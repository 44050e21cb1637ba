//! A workload as it runs ([`RunPlan`]): made only by [`Workload::plan`], which validates it,
//! fits it to its engine and resolves when its requests are issued ([`Schedule`]).

use super::{DepthOnEngine, EngineKind, RequestSize, RwMode, Schedule, Setup, Workload};
use crate::error::{Error, Result};
use crate::units::{ByteSize, Dur};
use std::time::Duration;

/// A workload as it runs: checked, every default filled ([`Workload::validated`]) and fitted to
/// the engine that runs it (its depth no deeper than [`EngineKind::caps`] allows). Only [`Workload::plan`] makes one, so the
/// runner, which takes nothing else, never gets a workload that skipped a step or took them in
/// another order. Its fields are private: each value is read through an accessor, resolved
/// ([`RunPlan::read_pct`] is the share in force, never the option as given).
#[derive(Clone, Debug, PartialEq)]
pub struct RunPlan {
    w: Workload,
    read_pct: u8,
    schedule: Schedule,
    replay: Option<crate::access::replay::ReplayPlan>,
}

impl RunPlan {
    /// The workload as it ran, for a document's record of the job (every default filled,
    /// fitted to its engine). A copy: what runs reads the plan's accessors, never this.
    pub fn record(&self) -> Workload {
        self.w.clone()
    }

    /// The plan the targets of `shapes` are opened with, once for all of them: for writing
    /// when any point writes, the largest request size as the smallest region, the widest
    /// region any point addresses, the rest the first point's.
    pub fn opening(shapes: &[RunPlan]) -> Result<RunPlan> {
        let Some(first) = shapes.first() else {
            return Err(Error::invalid("--rw", "", "at least one point to run"));
        };
        let w = Workload {
            rw: if shapes.iter().any(|p| p.writes()) {
                RwMode::Write
            } else {
                RwMode::Read
            },
            read_pct: None,
            bs: RequestSize::fixed(shapes.iter().map(|p| p.bs().max()).max().unwrap_or(1)),
            qd: 1,
            threads: 1,
            setup: Setup {
                // The widest region any point addresses (none given: the whole target).
                size: shapes
                    .iter()
                    .map(|p| p.setup().size)
                    .try_fold(ByteSize(0), |acc, s| s.map(|s| acc.max(s))),
                // Each point's own budget is checked with its own plan; the first one's byte
                // count need not be a multiple of the largest size (pts: 128 KiB of
                // preconditioning beside 1 MiB cells).
                bytes: None,
                ..first.setup().clone()
            },
        }
        .validated()?;
        Ok(RunPlan {
            read_pct: w.rw.default_read_pct(),
            schedule: first.schedule,
            w,
            replay: None,
        })
    }

    /// The access pattern.
    pub fn rw(&self) -> RwMode {
        self.w.rw
    }

    /// The request sizes.
    pub fn bs(&self) -> &RequestSize {
        &self.w.bs
    }

    /// A closed loop's requests in flight per thread (`--qd`), fitted to the engine; 1 in an
    /// open loop, whose bound is [`Schedule::slots`].
    pub fn qd(&self) -> u32 {
        self.w.qd
    }

    /// When requests are issued, its rates in final units.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Worker threads per target.
    pub fn threads(&self) -> u32 {
        self.w.threads
    }

    /// Everything else the run needs, each default filled.
    pub fn setup(&self) -> &Setup {
        &self.w.setup
    }

    /// Whether the plan writes.
    pub fn writes(&self) -> bool {
        self.w.writes()
    }

    /// Whether the plan reads.
    pub fn reads(&self) -> bool {
        self.w.reads()
    }

    /// The I/Os a run of a fixed byte count issues in all (`--bytes` over its one request
    /// size), if it has one.
    pub fn io_budget(&self) -> Option<u64> {
        self.w.io_budget()
    }

    /// The share of reads in percent, resolved from `--read-pct` or the mode.
    pub fn read_pct(&self) -> u8 {
        self.read_pct
    }

    /// This plan issuing a trace's requests (`replay`) instead of drawing them: its workload
    /// then only sizes the buffers and bounds the requests in flight, and it runs on one thread.
    /// A trace with times was planned with `Arrivals::Trace` ([`Workload::plan_replay`]) and
    /// is replayed at `speed` (its times divided by it: [`Schedule::trace_due`]).
    pub fn replaying(mut self, replay: crate::access::replay::ReplayPlan, speed: f64) -> RunPlan {
        self.w.threads = 1;
        self.replay = Some(replay);
        self.schedule = self.schedule.at_speed(speed);
        self
    }

    /// The trace this plan replays, if it replays one.
    pub fn replay(&self) -> Option<&crate::access::replay::ReplayPlan> {
        self.replay.as_ref()
    }

    /// Another plan on the same engine from this one's workload changed by `change`, checked
    /// again (`scale` runs a stripe set with its members' threads together).
    pub fn replan(&self, change: impl FnOnce(&mut Workload)) -> Result<RunPlan> {
        let mut w = self.w.clone();
        change(&mut w);
        w.plan(self.w.setup.engine, DepthOnEngine::Lower)
    }
}

impl Workload {
    /// The plan of this workload on `engine`: validated, then fitted to the engine, its depth
    /// kept as `depth` says where the engine cannot queue it.
    pub fn plan(&self, engine: EngineKind, depth: DepthOnEngine) -> Result<RunPlan> {
        if self.setup.access.arrivals == crate::access::Arrivals::Trace {
            return Err(Error::invalid(
                "--arrivals",
                "trace",
                "closed, poisson or uniform (a trace's own times come with `halfpower replay`)",
            ));
        }
        self.plan_replay(engine, depth)
    }

    /// As [`Workload::plan`], and a workload with `Arrivals::Trace` too: `replay`'s, whose
    /// plan then takes its trace ([`RunPlan::replaying`]).
    pub fn plan_replay(&self, engine: EngineKind, depth: DepthOnEngine) -> Result<RunPlan> {
        let w = self.validated()?.lowered(engine, depth);
        let read_pct = w.read_pct.unwrap_or_else(|| w.rw.default_read_pct());
        let slots = if w.setup.access.arrivals.is_closed() {
            w.qd
        } else {
            w.setup.access.max_inflight.unwrap_or(w.qd)
        };
        Ok(RunPlan {
            schedule: Schedule::of(&w.setup.access, slots),
            w,
            read_pct,
            replay: None,
        })
    }

    /// This workload on `engine`, its depth kept as `depth` says where the engine cannot queue
    /// it. An open loop's bound on requests in flight is resolved into `max_inflight` (its
    /// `qd` stays 1: no depth is kept).
    pub(super) fn lowered(&self, engine: EngineKind, depth: DepthOnEngine) -> Workload {
        let caps = engine.caps();
        let mut w = self.clone();
        w.setup.engine = engine;
        let a = &mut w.setup.access;
        if a.arrivals.is_closed() {
            if w.qd > caps.max_qd {
                if depth == DepthOnEngine::AsThreads {
                    w.threads = w.threads.saturating_mul(w.qd.div_ceil(caps.max_qd));
                }
                w.qd = caps.max_qd;
            }
        } else {
            // A bound, not a depth to keep: never threads.
            let bound = a
                .max_inflight
                .unwrap_or_else(|| crate::access::default_max_inflight(w.bs.max()));
            a.max_inflight = Some(bound.min(caps.max_qd));
        }
        if !caps.spin {
            w.setup.spin = Dur(Duration::ZERO);
        }
        w
    }
}
