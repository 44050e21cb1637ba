//! Opening a session's targets: each path once, for the widest region and the largest request
//! any of its points needs, and every request size checked against the targets' alignment.

use super::warn;
use crate::plan::RunPlan;
use crate::storage::{self, Target};
use std::path::PathBuf;

/// Whether the ranks of an MPI job may open the same targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sharing {
    /// Each rank its own (`{rank}`, `{host}` in a path): a target ranks would collide on is
    /// refused before any is opened (`apart`).
    #[default]
    Apart,
    /// Every rank on the same targets, each with its own requests (`replay --shard`'s dealt
    /// trace).
    Requests,
    /// Every rank on the same targets, each in its own region (`run --shared`, `regions`).
    Regions,
}

/// Opens every target (under MPI, each rank its own: `{rank}` and `{host}` in a path name
/// them; or shared as `sharing` says); the first refusal stops (and removes files created so
/// far), and so do Ctrl-C and SIGTERM. Under MPI a collective: every rank calls it at the same
/// step. Linear in the number of targets (a job may have many thousands).
pub fn open_targets(
    paths: &[PathBuf],
    w: &RunPlan,
    sharing: Sharing,
    warnings: &mut Vec<crate::model::Warning>,
) -> crate::Result<Vec<Target>> {
    let placed: Vec<PathBuf> = paths.iter().map(|p| crate::cluster::place(p)).collect();
    each_once(&placed)?;
    match sharing {
        Sharing::Regions => return super::regions::open(paths, w, warnings),
        Sharing::Apart => super::apart::check(paths, &placed, w.writes())?,
        Sharing::Requests => {}
    }
    let mut targets = Vec::with_capacity(paths.len());
    for p in placed {
        if crate::signal::interrupted() {
            return Err(crate::Error::Interrupted);
        }
        targets.push(storage::open(&p, w, &mut |m| warn(warnings, m))?);
    }
    Ok(targets)
}

/// Refuses a target named twice (as this rank places it), before anything is opened.
fn each_once(placed: &[PathBuf]) -> crate::Result<()> {
    let mut seen = std::collections::HashSet::with_capacity(placed.len());
    match placed.iter().find(|p| !seen.insert(*p)) {
        Some(p) => Err(crate::Error::invalid(
            "TARGET",
            p.display(),
            "each target once",
        )),
        None => Ok(()),
    }
}

/// Refuses a request size of any point that a target's direct-I/O alignment cannot take.
pub(super) fn check_sizes(targets: &[Target], shapes: &[RunPlan]) -> crate::Result<()> {
    for w in shapes {
        for t in targets {
            for &(size, _) in w.bs().parts() {
                t.check_request_size(size)?;
            }
        }
    }
    Ok(())
}
