//! What each of 000's pitfall experiments found, from its rows: pure functions from measured
//! rows to the figures and judgements of its finding (render words them in one line), and for
//! `cache` the cache size the latencies show. Every ratio a verdict rests on carries its 95 %
//! interval (`analysis::uncertainty`), and a difference is found only where the interval
//! excludes none ([`against`]). Each is tested on synthetic rows shaped like 000's own figures.

use super::uncertainty::{mean_half_from_intervals, ratio_from_intervals, repetitions};
use crate::model::Direction;
use crate::model::experiment::{
    AlignmentOutcome, AllocationShare, BufferingRatio, CacheSizeFound, DepthShare,
    ExperimentFinding, ExperimentKind, Interval, Missing, Row, ShiftShare, Variant,
    WriteCacheOutcome,
};

/// Request size from which 000 advises against buffering, bytes.
pub const BUFFERING_FROM_BYTES: u64 = 16 * 1024;
/// A latency this many times the smallest region's marks the end of the cache.
pub const CACHE_JUMP: f64 = 2.0;

/// Where a ratio's 95 % interval lies against no difference (a ratio of 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    /// Wholly below 1: measurably less.
    Below,
    /// It holds 1: no difference measurable.
    Holds,
    /// Wholly above 1: measurably more.
    Above,
}

/// The verdict rule: where `ci` lies against 1 (an end exactly at 1 holds it).
pub fn against(ci: Interval) -> Against {
    if ci.high < 1.0 {
        Against::Below
    } else if ci.low > 1.0 {
        Against::Above
    } else {
        Against::Holds
    }
}

fn find(rows: &[Row], v: Variant, rw: Direction, bs: u64, qd: u32) -> Option<&Row> {
    rows.iter()
        .find(|r| r.variant == v && r.rw == rw && r.bs_bytes == bs && r.qd == qd)
}

/// `b`'s MB/s over `a`'s, with the interval from both rows' within-run intervals (the delta
/// method); none when either has none.
fn speed_ratio(a: &Row, b: &Row) -> (f64, Option<Interval>) {
    let ratio = b.bytes_per_s / a.bytes_per_s;
    let ci = match (a.bytes_per_s_ci95, b.bytes_per_s_ci95) {
        (Some(ca), Some(cb)) => {
            ratio_from_intervals(a.bytes_per_s, ca.half, b.bytes_per_s, cb.half)
                .map(|(_, low, high)| Interval { low, high })
        }
        _ => None,
    };
    (ratio, ci)
}

/// The mean of ratios of independent points, with its interval from theirs (each ratio's
/// half-width, in quadrature over their number); none when any lacks one. None when empty.
fn mean_ratio(ratios: &[(f64, Option<Interval>)]) -> Option<(f64, Option<Interval>)> {
    let x: Vec<f64> = ratios
        .iter()
        .map(|r| r.0)
        .filter(|x| x.is_finite())
        .collect();
    if x.len() != ratios.len() || x.is_empty() {
        return None;
    }
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let halves: Option<Vec<f64>> = ratios.iter().map(|r| r.1.map(Interval::half)).collect();
    let ci = halves
        .and_then(|h| mean_half_from_intervals(&h))
        .map(|h| Interval {
            low: mean - h,
            high: mean + h,
        });
    Some((mean, ci))
}

/// What experiment `kind` found in `rows` (render words it).
pub fn finding(kind: ExperimentKind, rows: &[Row]) -> ExperimentFinding {
    let nothing = |missing| ExperimentFinding::NothingToCompare { missing };
    match kind {
        ExperimentKind::Buffering => buffering(rows).unwrap_or(nothing(Missing::DirectAndBuffered)),
        ExperimentKind::Allocation => allocation(rows).unwrap_or(nothing(Missing::Preallocated)),
        ExperimentKind::Alignment => alignment(rows).unwrap_or_else(nothing),
        ExperimentKind::Cache => cache(rows),
        ExperimentKind::Writecache => {
            writecache(rows).unwrap_or(nothing(Missing::WriteThroughAndWriteBack))
        }
        ExperimentKind::Burst => burst(rows),
    }
}

/// `burst`: the bucket of the drain and of the drain after the rest (each run's own,
/// `results.bucket`), and the refill over the rest between them.
fn burst(rows: &[Row]) -> ExperimentFinding {
    let of = |v: Variant| rows.iter().find(|r| r.variant == v);
    let (first, second) = (of(Variant::Drain), of(Variant::AfterRest));
    let bucket = |r: Option<&Row>| r.and_then(|r| r.results.bucket.clone());
    let rest_s = second.and_then(|r| r.rest_s).unwrap_or(0.0);
    ExperimentFinding::Burst(Box::new(super::bucket::refill(
        bucket(first),
        bucket(second),
        rest_s,
    )))
}

/// Buffered against direct in direction `rw` over the sizes from 16 KiB up: the mean ratio of
/// CPU per MB, its interval Student's t over the sizes (`uncertainty::repetitions`: a point's
/// CPU time has no interval of its own), and the mean ratio of MB/s with its interval from the
/// points'. None without a pair.
fn buffering_ratio(rows: &[Row], rw: Direction) -> Option<BufferingRatio> {
    let pairs: Vec<(&Row, &Row)> = rows
        .iter()
        .filter(|r| r.variant == Variant::Direct && r.rw == rw)
        .filter(|r| r.bs_bytes >= BUFFERING_FROM_BYTES)
        .filter_map(|d| Some((d, find(rows, Variant::Buffered, rw, d.bs_bytes, d.qd)?)))
        .collect();
    let cpu: Vec<f64> = pairs
        .iter()
        .map(|(d, b)| b.cpu_us_per_mb / d.cpu_us_per_mb)
        .filter(|x| x.is_finite())
        .collect();
    let speeds: Vec<(f64, Option<Interval>)> =
        pairs.iter().map(|(d, b)| speed_ratio(d, b)).collect();
    let (speed, speed_ci95) = mean_ratio(&speeds)?;
    if cpu.is_empty() {
        return None;
    }
    let cpu_mean = cpu.iter().sum::<f64>() / cpu.len() as f64;
    let cpu_ci95 = repetitions(&cpu).map(|e| Interval {
        low: e.mean - e.ci.half,
        high: e.mean + e.ci.half,
    });
    Some(BufferingRatio {
        rw,
        cpu: cpu_mean,
        cpu_ci95,
        speed,
        speed_ci95,
    })
}

/// Buffered against direct, per direction. None without a pair to compare.
fn buffering(rows: &[Row]) -> Option<ExperimentFinding> {
    let ratios: Vec<BufferingRatio> = [Direction::Read, Direction::Write]
        .into_iter()
        .filter_map(|rw| buffering_ratio(rows, rw))
        .collect();
    (!ratios.is_empty()).then(|| ExperimentFinding::Buffering {
        from_bytes: BUFFERING_FROM_BYTES,
        costly: (ratios.iter()).any(|r| r.cpu_ci95.is_some_and(|c| against(c) == Against::Above)),
        ratios,
    })
}

/// Extending and sparse files against a written one, per depth. None without a pair.
fn allocation(rows: &[Row]) -> Option<ExperimentFinding> {
    let mut shares = Vec::new();
    let mut depths: Vec<u32> = rows.iter().map(|r| r.qd).collect();
    depths.sort();
    depths.dedup();
    for qd in depths {
        let base = rows
            .iter()
            .find(|r| r.variant == Variant::Preallocated && r.qd == qd);
        for v in [Variant::Extending, Variant::Sparse] {
            let other = rows.iter().find(|r| r.variant == v && r.qd == qd);
            if let (Some(b), Some(o)) = (base, other) {
                let (share, ci95) = speed_ratio(b, o);
                shares.push(AllocationShare {
                    variant: v,
                    qd,
                    share,
                    ci95,
                });
            }
        }
    }
    let costly = (shares.iter()).any(|s| s.ci95.is_some_and(|c| against(c) == Against::Below));
    let within = widest(shares.iter().map(|s| s.ci95)).filter(|_| !costly);
    (!shares.is_empty()).then_some(ExperimentFinding::Allocation {
        shares,
        costly,
        within,
    })
}

/// The widest half-width of `intervals`; None when any is missing (or there are none).
fn widest(intervals: impl Iterator<Item = Option<Interval>>) -> Option<f64> {
    let halves: Option<Vec<f64>> = intervals.map(|c| c.map(Interval::half)).collect();
    halves?.into_iter().max_by(f64::total_cmp)
}

/// Shifted offsets against aligned ones; what was missing when there is nothing to compare.
fn alignment(rows: &[Row]) -> Result<ExperimentFinding, Missing> {
    let base = rows
        .iter()
        .find(|r| r.variant == Variant::Aligned)
        .ok_or(Missing::Aligned)?;
    let shifts: Vec<ShiftShare> = rows
        .iter()
        .filter(|r| r.variant == Variant::Shifted)
        .filter_map(|r| {
            let (share, ci95) = speed_ratio(base, r);
            Some(ShiftShare {
                shift_bytes: r.shift_bytes?,
                share,
                ci95,
            })
        })
        .collect();
    if shifts.is_empty() {
        return Err(Missing::Shifted);
    }
    let outcome = alignment_outcome(&shifts);
    Ok(ExperimentFinding::Alignment { shifts, outcome })
}

/// The verdict on the shifts: a cost only where a share's interval lies below 1, and larger
/// than any gain one lying above 1 shows (a shift cannot make the same reads faster: such a
/// gain is run-to-run noise the within-run intervals do not hold, and it hides a smaller
/// cost); no cost measurable where every interval holds 1.
pub fn alignment_outcome(shifts: &[ShiftShare]) -> AlignmentOutcome {
    let judged = |side| {
        shifts
            .iter()
            .filter(move |s| s.ci95.is_some_and(|c| against(c) == side))
    };
    let worst = judged(Against::Below).min_by(|a, b| a.share.total_cmp(&b.share));
    let best = judged(Against::Above).max_by(|a, b| a.share.total_cmp(&b.share));
    let gain = best.map_or(0.0, |b| b.share - 1.0);
    let half = |s: &ShiftShare| s.ci95.map(Interval::half);
    match (worst, best) {
        (Some(w), _) if 1.0 - w.share > gain => AlignmentOutcome::Costs {
            shift_bytes: w.shift_bytes,
            cost: 1.0 - w.share,
            half: half(w),
        },
        (_, Some(b)) => AlignmentOutcome::Noise {
            gain,
            half: half(b),
        },
        _ => match widest(shifts.iter().map(|s| s.ci95)) {
            Some(within) => AlignmentOutcome::Free { within },
            None => AlignmentOutcome::NoInterval,
        },
    }
}

/// The cache size: the largest region whose random reads stay under [`CACHE_JUMP`] × the
/// smallest region's latency, when a larger region jumps above it.
pub fn cache_size(rows: &[Row]) -> Option<u64> {
    let mut regions: Vec<&Row> = rows
        .iter()
        .filter(|r| r.variant == Variant::Region)
        .collect();
    regions.sort_by_key(|r| r.region_bytes.unwrap_or(0));
    regions.first().and_then(|first| {
        let limit = first.mean_us * CACHE_JUMP;
        let jump = regions.iter().position(|r| r.mean_us > limit)?;
        (jump > 0).then(|| regions[jump - 1].region_bytes.unwrap_or(0))
    })
}

/// Latency by access pattern at the smallest size, and the cache size ([`cache_size`]).
fn cache(rows: &[Row]) -> ExperimentFinding {
    let small = rows.iter().map(|r| r.bs_bytes).min().unwrap_or(4096);
    let lat = |v: Variant| {
        rows.iter()
            .find(|r| r.variant == v && r.bs_bytes == small)
            .map(|r| r.mean_us)
    };
    let largest = rows
        .iter()
        .filter(|r| r.variant == Variant::Region)
        .max_by_key(|r| r.region_bytes.unwrap_or(0));
    let size = match (cache_size(rows), largest) {
        (Some(bytes), _) => CacheSizeFound::Found { bytes },
        (None, Some(last)) => CacheSizeFound::Flat {
            up_to_bytes: last.region_bytes.unwrap_or(0),
        },
        (None, None) => CacheSizeFound::NotProbed,
    };
    ExperimentFinding::Cache {
        bs_bytes: small,
        cache_hit_us: lat(Variant::CacheHit),
        prefetch_us: lat(Variant::Prefetch),
        random_us: lat(Variant::Random),
        size,
    }
}

/// Write-through against write-back, per depth: the mean ratio of MB/s over the sizes, with
/// its interval from the points'. None without a pair.
fn writecache(rows: &[Row]) -> Option<ExperimentFinding> {
    let mut depths: Vec<u32> = rows.iter().map(|r| r.qd).collect();
    depths.sort();
    depths.dedup();
    let mut shares = Vec::new();
    for qd in depths {
        let ratios: Vec<(f64, Option<Interval>)> = rows
            .iter()
            .filter(|r| r.variant == Variant::WriteThrough && r.qd == qd)
            .filter_map(|t| {
                Some(speed_ratio(
                    find(rows, Variant::WriteBack, t.rw, t.bs_bytes, qd)?,
                    t,
                ))
            })
            .collect();
        if let Some((share, ci95)) = mean_ratio(&ratios) {
            shares.push(DepthShare { qd, share, ci95 });
        }
    }
    let outcome = writecache_outcome(shares.first()?, shares.last()?);
    Some(ExperimentFinding::Writecache { shares, outcome })
}

/// The verdict on the write cache from the shallowest depth's share and the deepest's: no
/// volatile cache where the first's interval holds 1; else depth wins part back where the
/// deepest's share exceeds the first's by more than their intervals' combined half-width.
pub fn writecache_outcome(first: &DepthShare, last: &DepthShare) -> WriteCacheOutcome {
    let (Some(f), Some(l)) = (first.ci95, last.ci95) else {
        return WriteCacheOutcome::NoInterval;
    };
    if against(f) != Against::Below {
        return WriteCacheOutcome::NoVolatileCache;
    }
    // The difference of two independent shares: half-widths in quadrature.
    let half = (f.half().powi(2) + l.half().powi(2)).sqrt();
    if last.share - first.share > half {
        WriteCacheOutcome::DepthWinsBack
    } else {
        WriteCacheOutcome::DepthDoesNot
    }
}

#[cfg(test)]
#[path = "experiments_tests.rs"]
mod tests;
