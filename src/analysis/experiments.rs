//! What each of 000's pitfall experiments found, from its rows: pure functions from measured
//! rows to the figures and judgements of its finding (render words them in one line), and for
//! `cache` the cache size the latencies show. Each is tested on synthetic rows shaped like
//! 000's own figures.

use crate::model::Direction;
use crate::model::experiment::{
    AlignmentOutcome, AllocationShare, BufferingRatio, CacheSizeFound, DepthShare,
    ExperimentFinding, ExperimentKind, Missing, Row, ShiftShare, Variant, WriteCacheOutcome,
};

/// Request size from which 000 advises against buffering, bytes.
pub const BUFFERING_FROM_BYTES: u64 = 16 * 1024;
/// A ratio within this share of 1 is "no difference" on these machines.
pub const SAME: f64 = 0.1;
/// A latency this many times the smallest region's marks the end of the cache.
pub const CACHE_JUMP: f64 = 2.0;

fn find(rows: &[Row], v: Variant, rw: Direction, bs: u64, qd: u32) -> Option<&Row> {
    rows.iter()
        .find(|r| r.variant == v && r.rw == rw && r.bs_bytes == bs && r.qd == qd)
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
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
    }
}

/// Buffered against direct, per direction: the median ratio of CPU per MB and of MB/s over the
/// sizes from 16 KiB up. None without a pair to compare.
fn buffering(rows: &[Row]) -> Option<ExperimentFinding> {
    let mut ratios = Vec::new();
    for rw in [Direction::Read, Direction::Write] {
        let pairs: Vec<(&Row, &Row)> = rows
            .iter()
            .filter(|r| r.variant == Variant::Direct && r.rw == rw)
            .filter(|r| r.bs_bytes >= BUFFERING_FROM_BYTES)
            .filter_map(|d| Some((d, find(rows, Variant::Buffered, rw, d.bs_bytes, d.qd)?)))
            .collect();
        let cpu = median(
            pairs
                .iter()
                .map(|(d, b)| b.cpu_us_per_mb / d.cpu_us_per_mb)
                .collect(),
        );
        let speed = median(
            pairs
                .iter()
                .map(|(d, b)| b.bytes_per_s / d.bytes_per_s)
                .collect(),
        );
        if let (Some(cpu), Some(speed)) = (cpu, speed) {
            ratios.push(BufferingRatio { rw, cpu, speed });
        }
    }
    (!ratios.is_empty()).then(|| ExperimentFinding::Buffering {
        from_bytes: BUFFERING_FROM_BYTES,
        costly: ratios.iter().any(|r| r.cpu > 1.0 + SAME),
        ratios,
    })
}

/// Extending and sparse files against a written one, per depth. None without a pair.
fn allocation(rows: &[Row]) -> Option<ExperimentFinding> {
    let mut shares = Vec::new();
    let mut worst: f64 = 1.0;
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
                let share = o.bytes_per_s / b.bytes_per_s;
                worst = worst.min(share);
                shares.push(AllocationShare {
                    variant: v,
                    qd,
                    share,
                });
            }
        }
    }
    let costly = worst < 1.0 - SAME;
    (!shares.is_empty()).then_some(ExperimentFinding::Allocation { shares, costly })
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
            Some(ShiftShare {
                shift_bytes: r.shift_bytes?,
                share: r.bytes_per_s / base.bytes_per_s,
            })
        })
        .collect();
    let worst = shifts
        .iter()
        .min_by(|a, b| a.share.total_cmp(&b.share))
        .ok_or(Missing::Shifted)?;
    let best = shifts.iter().map(|s| s.share).max_by(f64::total_cmp);
    let outcome = if worst.share < 1.0 - SAME {
        AlignmentOutcome::Costs {
            shift_bytes: worst.shift_bytes,
            cost: 1.0 - worst.share,
        }
    } else if let Some(best) = best
        && best > 1.0 + SAME
    {
        // A shift cannot make the same reads faster: a gain above the threshold is the
        // target's run-to-run spread, and it hides any cost smaller than itself.
        AlignmentOutcome::Noise { gain: best - 1.0 }
    } else {
        AlignmentOutcome::Free { within: SAME }
    };
    Ok(ExperimentFinding::Alignment { shifts, outcome })
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

/// Write-through against write-back, per depth: the median ratio of MB/s over the sizes. None
/// without a pair.
fn writecache(rows: &[Row]) -> Option<ExperimentFinding> {
    let mut depths: Vec<u32> = rows.iter().map(|r| r.qd).collect();
    depths.sort();
    depths.dedup();
    let mut shares = Vec::new();
    for qd in depths {
        let r = median(
            rows.iter()
                .filter(|r| r.variant == Variant::WriteThrough && r.qd == qd)
                .filter_map(|t| {
                    let b = find(rows, Variant::WriteBack, t.rw, t.bs_bytes, qd)?;
                    Some(t.bytes_per_s / b.bytes_per_s)
                })
                .collect(),
        );
        if let Some(share) = r {
            shares.push(DepthShare { qd, share });
        }
    }
    let first = shares.first()?.share;
    let last = shares.last()?.share;
    let outcome = if first >= 1.0 - SAME {
        WriteCacheOutcome::NoVolatileCache
    } else if last > first + SAME {
        WriteCacheOutcome::DepthWinsBack
    } else {
        WriteCacheOutcome::DepthDoesNot
    };
    Some(ExperimentFinding::Writecache { shares, outcome })
}

#[cfg(test)]
#[path = "experiments_tests.rs"]
mod tests;
