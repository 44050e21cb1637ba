//! What each of 000's pitfall experiments found, from its rows: pure functions from measured
//! rows to a one-line verdict (and, for `cache`, the cache size the latencies show). Each is
//! tested on synthetic rows shaped like 000's own figures.

use crate::model::Direction;
use crate::model::experiment::{ExperimentKind, Row, Variant};
use crate::units::ByteSize;

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

fn pct(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// The verdict of experiment `kind` on `rows`.
pub fn verdict(kind: ExperimentKind, rows: &[Row]) -> String {
    match kind {
        ExperimentKind::Buffering => buffering(rows),
        ExperimentKind::Allocation => allocation(rows),
        ExperimentKind::Alignment => alignment(rows),
        ExperimentKind::Cache => cache(rows).0,
        ExperimentKind::Writecache => writecache(rows),
    }
}

/// Buffered against direct, per direction: the median ratio of CPU per MB and of MB/s over the
/// sizes from 16 KiB up.
fn buffering(rows: &[Row]) -> String {
    let mut parts = Vec::new();
    let mut costly = false;
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
            costly |= cpu > 1.0 + SAME;
            parts.push(format!(
                "buffered {}s cost {cpu:.1}× the CPU per MB of direct ones at {} and above, at \
                 {:.2}× their MB/s",
                rw.name(),
                ByteSize(BUFFERING_FROM_BYTES),
                speed
            ));
        }
    }
    if parts.is_empty() {
        return "nothing to compare: no direct and buffered rows of the same size".into();
    }
    let advice = if costly {
        "use direct I/O for large requests (000: avoid file-system buffering above 16 KB)"
    } else {
        "buffering costs no more CPU per MB here"
    };
    format!("{}; {advice}", parts.join("; "))
}

/// Extending and sparse files against a written one, per depth.
fn allocation(rows: &[Row]) -> String {
    let mut parts = Vec::new();
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
                let ratio = o.bytes_per_s / b.bytes_per_s;
                worst = worst.min(ratio);
                parts.push(format!("{} at QD{qd} {}", v.name(), pct(ratio)));
            }
        }
    }
    if parts.is_empty() {
        return "nothing to compare: no preallocated rows".into();
    }
    let advice = if worst < 1.0 - SAME {
        "allocating as it writes costs throughput: create and write (or fallocate) files \
         before the work that needs their speed (000 §5.3)"
    } else {
        "allocation costs little here"
    };
    format!(
        "sequential writes that allocate run at a share of those into a written file: {}; {advice}",
        parts.join(", ")
    )
}

/// Shifted offsets against aligned ones.
fn alignment(rows: &[Row]) -> String {
    let Some(base) = rows.iter().find(|r| r.variant == Variant::Aligned) else {
        return "nothing to compare: no aligned row".into();
    };
    let shifted: Vec<(u64, f64)> = rows
        .iter()
        .filter(|r| r.variant == Variant::Shifted)
        .filter_map(|r| Some((r.shift_bytes?, r.bytes_per_s / base.bytes_per_s)))
        .collect();
    let Some(&(worst_shift, worst)) = shifted.iter().min_by(|a, b| a.1.total_cmp(&b.1)) else {
        return "nothing to compare: no shifted rows".into();
    };
    let each: Vec<String> = shifted
        .iter()
        .map(|(s, r)| format!("{} {}", ByteSize(*s), pct(*r)))
        .collect();
    if worst < 1.0 - SAME {
        format!(
            "misaligned requests run at a share of aligned ones ({}); the worst, a {} shift, \
             costs {}: align partitions, stripes and file offsets to the request size (000 §5.4)",
            each.join(", "),
            ByteSize(worst_shift),
            pct(1.0 - worst)
        )
    } else if let Some(&(_, best)) = shifted.iter().max_by(|a, b| a.1.total_cmp(&b.1))
        && best > 1.0 + SAME
    {
        // A shift cannot make the same reads faster: a gain above the threshold is the
        // target's run-to-run spread, and it hides any cost smaller than itself.
        format!(
            "no cost of misalignment shows ({}), but the shifted runs were up to {} faster than \
             the aligned one, which only run-to-run noise explains: a cost below that cannot be \
             told apart here (use --time longer, or a device that is not shared)",
            each.join(", "),
            pct(best - 1.0)
        )
    } else {
        format!(
            "misalignment costs nothing measurable here ({}; within {})",
            each.join(", "),
            pct(SAME)
        )
    }
}

/// Latency by access pattern, and the cache size: the largest region whose random reads stay
/// under [`CACHE_JUMP`] × the smallest region's latency, when a larger region jumps above it.
/// Returns the verdict and the size found.
pub fn cache(rows: &[Row]) -> (String, Option<u64>) {
    let small = rows.iter().map(|r| r.bs_bytes).min().unwrap_or(4096);
    let lat = |v: Variant| {
        rows.iter()
            .find(|r| r.variant == v && r.bs_bytes == small)
            .map(|r| r.mean_us)
    };
    let mut regions: Vec<&Row> = rows
        .iter()
        .filter(|r| r.variant == Variant::Region)
        .collect();
    regions.sort_by_key(|r| r.region_bytes.unwrap_or(0));
    let found = regions.first().and_then(|first| {
        let limit = first.mean_us * CACHE_JUMP;
        let jump = regions.iter().position(|r| r.mean_us > limit)?;
        (jump > 0).then(|| regions[jump - 1].region_bytes.unwrap_or(0))
    });
    let fmt = |v: Option<f64>| v.map_or("-".into(), |us| format!("{us:.0} µs"));
    let head = format!(
        "at {}: cache hits take {}, read-ahead hits {}, random reads {}",
        ByteSize(small),
        fmt(lat(Variant::CacheHit)),
        fmt(lat(Variant::Prefetch)),
        fmt(lat(Variant::Random))
    );
    let tail = match (found, regions.last()) {
        (Some(size), _) => format!(
            "random reads stay fast up to a region of {} and slow down beyond it: the cache \
             holds about that much (000 Table 3)",
            ByteSize(size)
        ),
        (None, Some(last)) => format!(
            "random-read latency stays flat up to a region of {}: no cache shows (a \
             memory-backed device, or a cache larger than the regions tried)",
            ByteSize(last.region_bytes.unwrap_or(0))
        ),
        (None, None) => "no region rows: the cache size was not probed".into(),
    };
    (format!("{head}; {tail}"), found)
}

/// Write-through against write-back, per depth: the median ratio of MB/s over the sizes.
fn writecache(rows: &[Row]) -> String {
    let mut depths: Vec<u32> = rows.iter().map(|r| r.qd).collect();
    depths.sort();
    depths.dedup();
    let mut parts = Vec::new();
    let mut ratios = Vec::new();
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
        if let Some(r) = r {
            parts.push(format!("{} at QD{qd}", pct(r)));
            ratios.push((qd, r));
        }
    }
    if ratios.is_empty() {
        return "nothing to compare: no write-through and write-back rows".into();
    }
    let first = ratios[0].1;
    let last = ratios[ratios.len() - 1].1;
    let tail = if first >= 1.0 - SAME {
        "write-through costs nothing: the device does not hold writes in a volatile cache (or \
         its cache is protected and acknowledged as stable)"
            .to_string()
    } else if last > first + SAME {
        "the device acknowledges writes from its write cache; deeper queues win back part of \
         the difference (000: 3-deep writes approximate write-cache enabled)"
            .to_string()
    } else {
        "the device acknowledges writes from its write cache, and depth does not win it back"
            .to_string()
    };
    format!(
        "write-through runs at {} of write-back; {tail}",
        parts.join(" and ")
    )
}

#[cfg(test)]
#[path = "experiments_tests.rs"]
mod tests;
