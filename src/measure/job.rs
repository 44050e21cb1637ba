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

/// The job's results of one point from this rank's `mine` (None: this rank sat the point out,
/// `scale --ranks`): under MPI the results of every rank that took part merged, each such
/// rank's own kept in `ranks`, and `job` holding the stonewall, the spread, the per-host
/// subtotals and what the coordination cost (the first taking rank's barrier waits and this
/// rank's gathering);
/// `mine` itself for one process.
pub fn join(mine: Option<Results>) -> crate::Result<Results> {
    let none = || Error::io("a point", std::io::Error::other("no rank took part in it"));
    if !crate::cluster::many() {
        return mine.ok_or_else(none);
    }
    let barrier_us = crate::cluster::barrier_waits();
    let mine = mine.map(|results| RankRun {
        rank: crate::cluster::rank(),
        host: crate::cluster::host(),
        results,
    });
    let t = std::time::Instant::now();
    let all = everyone(&(mine, barrier_us), "a point's results")?;
    let gather_us = t.elapsed().as_secs_f64() * 1e6;
    // The coordination's cost is what the first rank that took part waited: a rank that sat
    // the point out waited through its measured phase.
    let Some(barrier_us) = all.iter().find(|x| x.0.is_some()).map(|x| x.1.clone()) else {
        return Err(none());
    };
    let mut ranks: Vec<RankRun> = all.into_iter().filter_map(|x| x.0).collect();
    let mut job = crate::analysis::ranks::merge(&ranks, barrier_us, gather_us);
    // The counts served the stonewall; the documents keep the ranks' results without them.
    for x in &mut ranks {
        x.results.counts.clear();
    }
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

/// Whether the job stops here: under MPI a collective (every rank calls it at the same step)
/// that tells every rank whether any was stopped by a signal, and makes a rank that was not
/// take that signal as its own, so that no rank starts a point another skips (its barriers
/// would wait for ever); [`crate::signal::interrupted`] for one process.
pub fn stopped() -> crate::Result<bool> {
    if !crate::cluster::many() {
        return Ok(crate::signal::interrupted());
    }
    let mine = crate::signal::raised().unwrap_or(0);
    if let Some(sig) = everyone(&mine, "whether a rank was stopped")?
        .into_iter()
        .find(|&s| s != 0)
    {
        crate::signal::adopt(sig);
    }
    Ok(crate::signal::interrupted())
}

/// Every rank's `warnings`, in rank order, on every rank: each marked with its rank
/// ([`crate::model::Warning::OfRank`]) when there are several; this process's own for one.
pub fn every_ranks_warnings(
    warnings: Vec<crate::model::Warning>,
) -> crate::Result<Vec<crate::model::Warning>> {
    every_rank(warnings, |rank, w| match crate::cluster::many() {
        true => crate::model::Warning::OfRank {
            rank,
            warning: Box::new(w),
        },
        false => w,
    })
}
