//! Which engine really runs here, and a workload lowered onto it: the one place a fallback from
//! io_uring to the sync engine is decided and said.

use super::warn;
use crate::engine::uring_available;
use crate::model::Warning;
use crate::model::cause::EngineFallback;
use crate::plan::{DepthOnEngine, EngineKind, RunPlan, Workload};

/// The engine that can run here: io_uring falls back to sync when the kernel refuses rings
/// (compiled out, `kernel.io_uring_disabled`, a seccomp filter). Returns the engine and the
/// reason for a fallback. The caller decides what the fallback means for its depths.
pub fn available_engine(w: &Workload) -> (EngineKind, Option<EngineFallback>) {
    if w.setup.engine != EngineKind::Uring {
        return (w.setup.engine, None);
    }
    match uring_available() {
        Ok(()) => (EngineKind::Uring, None),
        Err(e) => (
            EngineKind::Sync,
            Some(EngineFallback::UringUnavailable {
                error: e.to_string(),
            }),
        ),
    }
}

/// The plan of workload `w` as it will really run here, with a warning when io_uring is
/// unavailable: the sync engine keeps one I/O in flight per thread, so a deeper `--qd` becomes
/// 1 and the record says so. Returns the plan and the fallback's reason.
pub fn effective_plan(
    w: &Workload,
    warnings: &mut Vec<Warning>,
) -> crate::Result<(RunPlan, Option<EngineFallback>)> {
    let (engine, fallback) = available_engine(w);
    if let Some(f) = &fallback {
        warn(
            warnings,
            Warning::RunOnSync {
                fallback: f.clone(),
                qd: w.qd,
            },
        );
    }
    Ok((w.plan(engine, DepthOnEngine::Lower)?, fallback))
}
