//! Friedman's matrix turned into figures: each measured cell's service time (only where the
//! Utilization Law gives one), and per column the service-time line fitted as 004 fits it.

use super::fit::{self, Line, ProgressiveFit};
use super::queueing::utilization_law_ms;
use super::uncertainty::t95;
use crate::model::profile::{Fit, NegativeSlope, Pattern, ProfileCell};
use crate::model::{Direction, Results};
use crate::plan::RunPlan;

/// R² says something about a line only when it was fitted to more points than it has
/// parameters: through two points every line fits perfectly.
pub const MIN_POINTS_FOR_R2: usize = 3;

/// The cell of direction `rw` and pattern `pattern` that workload `w` measured as `r` on a
/// target whose disk is `disk` (its counters are among `r.devices`, beside those beneath it).
///
/// The service time S = 1/IOPS (the Utilization Law with the device 100 % busy) is given only
/// for a cell with one request in flight (`qd` 1, one thread, one rank): with more in flight a
/// device that serves requests in parallel completes several per busy interval, and 1/IOPS or
/// U/X is busy time per I/O, not the time to serve one. Deeper cells (and jobs of several ranks
/// under MPI) report throughput and response time (`mean_latency_ms`, `p99_ms`) only, and so
/// does the disk's own U/X (`device_service_ms`).
pub fn cell(
    rw: Direction,
    pattern: Pattern,
    w: &RunPlan,
    r: &Results,
    disk: Option<&str>,
) -> ProfileCell {
    let d = match rw {
        Direction::Read => &r.read,
        Direction::Write => &r.write,
    };
    let d = d.as_ref().unwrap_or(&r.total);
    // A job of several ranks keeps one I/O in flight per rank: several in all.
    let job = r.job.as_ref().filter(|j| j.ranks > 1);
    let one_in_flight = w.qd() == 1 && w.threads() == 1 && job.is_none();
    // The disk's own view, when there is one.
    let (util, dev_s) = match r.devices.iter().find(|d| Some(d.name.as_str()) == disk) {
        Some(dev) => (
            Some(dev.util_pct),
            one_in_flight
                .then(|| utilization_law_ms(dev.util_pct / 100.0, dev.r_s + dev.w_s))
                .flatten(),
        ),
        None => (None, None),
    };
    ProfileCell {
        rw,
        pattern,
        bs_bytes: w.bs().max(),
        qd: w.qd(),
        threads: w.threads(),
        engine: r.engine,
        iops: d.iops,
        bytes_per_s: d.bytes_per_s,
        service_ms: one_in_flight
            .then(|| utilization_law_ms(1.0, d.iops))
            .flatten(),
        mean_latency_ms: d.latency_us.mean / 1000.0,
        p99_ms: d.latency_us.p99 / 1000.0,
        device_util_pct: util,
        device_service_ms: dev_s,
        steady: r.steady.is_some_and(|s| s.reached),
        seconds: r.seconds,
        host: r.host.clone(),
        results: job.map(|_| Box::new(r.clone())),
    }
}

const KIB: f64 = 1024.0;

/// Why `line`, fitted to `pts` (KiB, ms), slopes down, or None when it does not: through two
/// sizes, too few points; through more, noise when the slope's 95 % interval (Student's t with
/// n − 2 degrees of freedom) reaches 0, else a cache (something other than the transfer served
/// the larger requests faster).
pub fn negative_slope(pts: &[(f64, f64)], line: &Line) -> Option<NegativeSlope> {
    if line.slope >= 0.0 {
        return None;
    }
    Some(match fit::slope_se(pts, line) {
        None => NegativeSlope::TooFewPoints,
        Some(se) if line.slope + t95((pts.len() - 2) as f64) * se >= 0.0 => NegativeSlope::Noise,
        Some(_) => NegativeSlope::Cache,
    })
}

/// Fits `service_ms = overhead_ms + ms_per_kib × size_kib` per column through the QD1 cells
/// that have a service time, from the smallest sizes up (see [`fit::progressive`]).
pub fn fits_of(cells: &[ProfileCell]) -> Vec<Fit> {
    let mut out = Vec::new();
    for rw in [Direction::Read, Direction::Write] {
        for pattern in Pattern::ALL {
            let col: Vec<&ProfileCell> = cells
                .iter()
                .filter(|c| c.rw == rw && c.pattern == pattern && c.qd == 1 && c.threads == 1)
                .filter(|c| c.service_ms.is_some_and(f64::is_finite))
                .collect();
            let pts: Vec<(f64, f64)> = col
                .iter()
                .map(|c| (c.bs_bytes as f64 / KIB, c.service_ms.unwrap_or(0.0)))
                .collect();
            let Some(ProgressiveFit {
                line,
                used,
                off_line,
            }) = fit::progressive(&pts)
            else {
                continue;
            };
            let sizes = |idx: &[usize]| {
                let mut v: Vec<u64> = idx.iter().map(|&i| col[i].bs_bytes).collect();
                v.sort();
                v
            };
            out.push(Fit {
                rw,
                pattern,
                overhead_ms: line.intercept,
                ms_per_kib: line.slope,
                r2: (used.len() >= MIN_POINTS_FOR_R2).then_some(line.r2),
                transfer_mb_per_s: fit::transfer_mb_per_s(line.slope),
                projected_32k_ms: Some(line.at(32.0)),
                fitted_bs_bytes: sizes(&used),
                off_line_bs_bytes: sizes(&off_line),
                negative_slope: negative_slope(
                    &used.iter().map(|&i| pts[i]).collect::<Vec<_>>(),
                    &line,
                ),
            });
        }
    }
    out
}
