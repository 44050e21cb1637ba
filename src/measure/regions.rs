//! `run --shared` under MPI: every rank on the same targets, each in its own region of `--size`
//! bytes at `--offset + rank × --size`. Rank 0 creates a missing file for every region, as
//! `--create` says, before any other rank opens it; then each rank opens its region of it as a
//! file made for the run.

use super::warn;
use crate::plan::{EngineKind, RunPlan, Workload};
use crate::storage::{self, Target};
use std::path::PathBuf;

/// This rank's workload with `--shared`: its region moved to `--offset + rank × --size`.
pub fn own_region(mut w: Workload) -> Workload {
    let size = w.setup.size.map_or(0, |s| s.0);
    w.setup.offset.0 += u64::from(crate::cluster::rank()) * size;
    w
}

/// Opens `paths` for this rank's region (`w`, from [`own_region`]). Every rank looks for the
/// files first; rank 0 then creates each missing one for every region (the job's full length,
/// `--offset + ranks × --size`: filled, sparse, or empty and growing as the ranks write), and
/// after a barrier every rank opens its region of it ([`storage::open_made`]: written without
/// `--allow-write`, no warning that `--create` does not apply); rank 0's target keeps the
/// guard that removes it at the end unless `--keep`. A file that was there is opened as any
/// target is. A collective: every rank calls it at the same step.
pub(super) fn open(
    paths: &[PathBuf],
    w: &RunPlan,
    warnings: &mut Vec<crate::model::Warning>,
) -> crate::Result<Vec<Target>> {
    let paths: Vec<PathBuf> = paths.iter().map(|p| crate::cluster::place(p)).collect();
    let null = w.setup().engine == EngineKind::Null;
    let missing: Vec<bool> = paths.iter().map(|p| !null && !p.exists()).collect();
    let size = w.setup().size.map_or(0, |s| s.0);
    let (rank, ranks) = (crate::cluster::rank(), crate::cluster::size());
    let first = w.setup().offset.0 - u64::from(rank) * size;
    let len = first + u64::from(ranks) * size;
    crate::cluster::barrier();
    let mut guards = Vec::new();
    if rank == 0 {
        for (p, _) in paths.iter().zip(&missing).filter(|x| *x.1) {
            let s = w.setup();
            guards.push(storage::create_as(p, s.create, len, s.seed, s.keep)?);
        }
    }
    crate::cluster::barrier();
    let mut guards = guards.into_iter();
    let mut targets = Vec::with_capacity(paths.len());
    for (p, &made) in paths.iter().zip(&missing) {
        if crate::signal::interrupted() {
            return Err(crate::Error::Interrupted);
        }
        let mut said = |m| warn(warnings, m);
        if !made {
            targets.push(storage::open(p, w, &mut said)?);
            continue;
        }
        let mut t = storage::open_made(p, w, len, &mut said)?;
        // Rank 0's guard, one for each file it created, in order; none on the others.
        t.scratch = guards.next();
        targets.push(t);
    }
    Ok(targets)
}
