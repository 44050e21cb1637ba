//! A point measured by every rank of an MPI job at once. The runner holds the ranks together
//! (its phase barriers: every engine set up before any rank measures, a common start and end);
//! here each rank's results of the point are gathered on every rank and merged into the job's
//! (histograms bucket by bucket, the stonewall, the spread), so that every rank holds the same
//! figures and decides the next point as every other does. One process is a job of one rank,
//! and nothing here changes its results.

use crate::error::Error;
use crate::model::Results;
use crate::model::run::RankRun;
use serde::{Serialize, de::DeserializeOwned};

/// Every rank's `mine`, in rank order, on every rank (one process: its own).
fn everyone<T: Serialize + DeserializeOwned>(mine: &T, what: &str) -> crate::Result<Vec<T>> {
    let encode_error = |e: serde_json::Error| {
        Error::io(
            format!("sharing {what} between the ranks"),
            std::io::Error::other(e),
        )
    };
    let bytes = serde_json::to_vec(mine).map_err(encode_error)?;
    crate::cluster::all_gather(&bytes)
        .iter()
        .map(|b| serde_json::from_slice(b).map_err(encode_error))
        .collect()
}

/// The job's results of one point from this rank's `r`: under MPI every rank's merged, each
/// rank's own kept in `ranks`, and `job` holding the stonewall, the spread, the per-host
/// subtotals and what the coordination cost (this rank's barrier waits and the gathering);
/// `r` itself for one process.
pub fn join(r: Results) -> crate::Result<Results> {
    if !crate::cluster::many() {
        return Ok(r);
    }
    let barrier_us = crate::cluster::barrier_waits();
    let mine = RankRun {
        rank: crate::cluster::rank(),
        host: crate::cluster::host(),
        results: r,
    };
    let t = std::time::Instant::now();
    let ranks = everyone(&mine, "a point's results")?;
    let gather_us = t.elapsed().as_secs_f64() * 1e6;
    let mut job = crate::analysis::ranks::merge(&ranks, barrier_us, gather_us);
    job.ranks = ranks;
    Ok(job)
}

/// Every rank's `items` (targets, warnings), in rank order, on every rank; this process's own
/// for one process. `tag` marks an item with its rank when there are several.
pub fn every_rank<T: Serialize + DeserializeOwned>(
    items: Vec<T>,
    tag: impl Fn(u32, T) -> T,
) -> crate::Result<Vec<T>> {
    if !crate::cluster::many() {
        return Ok(items);
    }
    Ok(everyone(&items, "the ranks' records")?
        .into_iter()
        .enumerate()
        .flat_map(|(rank, v)| v.into_iter().map(move |x| (rank as u32, x)))
        .map(|(rank, x)| tag(rank, x))
        .collect())
}
