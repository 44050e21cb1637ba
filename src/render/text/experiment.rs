//! An experiment on a terminal: its rows, its facts and its verdict, worded from its finding.

use super::table::{Table, figures, words};
use crate::model::Direction;
use crate::model::experiment::{
    AlignmentOutcome, AllocationShare, BufferingRatio, CacheSizeFound, DepthShare,
    ExperimentFinding, ExperimentReport, Fact, Interval, Missing, Row, WriteCacheOutcome,
};
use crate::units::ByteSize;
use std::fmt::Write;

fn pct(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// ` (±Y %)` for a half-width of a share; nothing without one (files before issue 44).
fn pm(half: Option<f64>) -> String {
    half.map_or(String::new(), |h| format!(" (±{})", pct(h)))
}

/// A share with its interval: `80 % (±6 %)`, or `80 % (no interval)`.
fn share(x: f64, ci: Option<Interval>) -> String {
    match ci {
        Some(c) => format!("{}{}", pct(x), pm(Some(c.half()))),
        None => format!("{} (no interval)", pct(x)),
    }
}

/// A ratio in times with its interval: `4.0× (±0.9×)`, or `4.0× (no interval)`.
fn times(x: f64, digits: usize, ci: Option<Interval>) -> String {
    match ci {
        Some(c) => format!("{x:.digits$}× (±{:.digits$}×)", c.half()),
        None => format!("{x:.digits$}× (no interval)"),
    }
}

/// Why a verdict is not given: some ratio has no interval.
const NO_INTERVAL: &str = "a point had too few 100-ms windows for an interval (measure \
                           longer: --time of 1 s or more), so nothing is judged";

/// A fact as a name and its value in words.
pub fn fact(f: &Fact) -> (String, String) {
    match f {
        Fact::WriteCache { disk, setting } => {
            (format!("{disk} queue/write_cache"), setting.clone())
        }
        Fact::CacheSize { bytes } => (
            "cache size estimate".into(),
            bytes.map_or("none found".into(), |b| ByteSize(b).to_string()),
        ),
    }
}

/// What an experiment found, in one line.
pub fn verdict(f: &ExperimentFinding) -> String {
    match f {
        ExperimentFinding::NothingToCompare { missing } => format!(
            "nothing to compare: no {}",
            match missing {
                Missing::DirectAndBuffered => "direct and buffered rows of the same size",
                Missing::Preallocated => "preallocated rows",
                Missing::Aligned => "aligned row",
                Missing::Shifted => "shifted rows",
                Missing::WriteThroughAndWriteBack => "write-through and write-back rows",
            }
        ),
        ExperimentFinding::Buffering {
            from_bytes,
            ratios,
            costly,
        } => buffering(*from_bytes, ratios, *costly),
        ExperimentFinding::Allocation {
            shares,
            costly,
            within,
        } => allocation(shares, *costly, *within),
        ExperimentFinding::Alignment { shifts, outcome } => {
            let each = shifts
                .iter()
                .map(|s| format!("{} {}", ByteSize(s.shift_bytes), share(s.share, s.ci95)))
                .collect::<Vec<_>>()
                .join(", ");
            alignment(&each, outcome)
        }
        ExperimentFinding::Cache {
            bs_bytes,
            cache_hit_us,
            prefetch_us,
            random_us,
            size,
        } => {
            let us = |v: &Option<f64>| v.map_or("-".into(), |us| format!("{us:.0} µs"));
            format!(
                "at {}: cache hits take {}, read-ahead hits {}, random reads {}; {}",
                ByteSize(*bs_bytes),
                us(cache_hit_us),
                us(prefetch_us),
                us(random_us),
                cache_size(size)
            )
        }
        ExperimentFinding::Writecache { shares, outcome } => writecache(shares, *outcome),
        ExperimentFinding::Burst(r) => super::burst::verdict(r),
    }
}

/// The buffering verdict.
fn buffering(from_bytes: u64, ratios: &[BufferingRatio], costly: bool) -> String {
    let parts: Vec<String> = ratios
        .iter()
        .map(|r| {
            format!(
                "buffered {}s cost {} the CPU per MB of direct ones at {} and above, at {} \
                 their MB/s",
                r.rw.name(),
                times(r.cpu, 1, r.cpu_ci95),
                ByteSize(from_bytes),
                times(r.speed, 2, r.speed_ci95)
            )
        })
        .collect();
    let advice = if costly {
        "use direct I/O for large requests (000: avoid file-system buffering above 16 KB)"
    } else if ratios.iter().all(|r| r.cpu_ci95.is_some()) {
        "buffering costs no more CPU per MB measurable here"
    } else {
        "a CPU ratio has no interval (fewer than two sizes from 16k up: a larger --size), so \
         nothing is judged"
    };
    format!("{}; {advice}", parts.join("; "))
}

/// The allocation verdict.
fn allocation(shares: &[AllocationShare], costly: bool, within: Option<f64>) -> String {
    let parts: Vec<String> = shares
        .iter()
        .map(|s| {
            format!(
                "{} at QD{} {}",
                s.variant.name(),
                s.qd,
                share(s.share, s.ci95)
            )
        })
        .collect();
    let advice = match (costly, within) {
        (true, _) => "allocating as it writes costs throughput: create and write (or \
                      fallocate) files before the work that needs their speed (000 §5.3)"
            .to_string(),
        (false, Some(w)) => format!("no cost of allocation measurable within ±{}", pct(w)),
        (false, None) => NO_INTERVAL.to_string(),
    };
    format!(
        "sequential writes that allocate run at a share of those into a written file: {}; \
         {advice}",
        parts.join(", ")
    )
}

/// The alignment verdict, `each` the shifts' shares in words.
fn alignment(each: &str, outcome: &AlignmentOutcome) -> String {
    match outcome {
        AlignmentOutcome::Costs {
            shift_bytes,
            cost,
            half,
        } => format!(
            "misaligned requests run at a share of aligned ones ({each}); the worst, a {} shift, \
             costs {}{}: align partitions, stripes and file offsets to the request size (000 \
             §5.4)",
            ByteSize(*shift_bytes),
            pct(*cost),
            pm(*half)
        ),
        AlignmentOutcome::Noise { gain, half } => format!(
            "no cost of misalignment shows ({each}), but a shifted run was {}{} faster than the \
             aligned one, which only run-to-run noise explains: a cost below that cannot be told \
             apart here (use --time longer, or a device that is not shared)",
            pct(*gain),
            pm(*half)
        ),
        AlignmentOutcome::Free { within } => format!(
            "no cost of misalignment measurable within ±{} ({each})",
            pct(*within)
        ),
        AlignmentOutcome::NoInterval => format!("misaligned requests ({each}): {NO_INTERVAL}"),
    }
}

/// What the regions say of the cache's size, in words.
fn cache_size(size: &CacheSizeFound) -> String {
    match size {
        CacheSizeFound::Found { bytes } => format!(
            "random reads stay fast up to a region of {} and slow down beyond it: the cache \
             holds about that much (000 Table 3)",
            ByteSize(*bytes)
        ),
        CacheSizeFound::Flat { up_to_bytes } => format!(
            "random-read latency stays flat up to a region of {}: no cache shows (a \
             memory-backed device, or a cache larger than the regions tried)",
            ByteSize(*up_to_bytes)
        ),
        CacheSizeFound::NotProbed => "no region rows: the cache size was not probed".into(),
    }
}

/// The writecache verdict.
fn writecache(shares: &[DepthShare], outcome: WriteCacheOutcome) -> String {
    let parts: Vec<String> = shares
        .iter()
        .map(|s| format!("{} at QD{}", share(s.share, s.ci95), s.qd))
        .collect();
    let tail = match outcome {
        WriteCacheOutcome::NoVolatileCache => {
            "write-through costs nothing measurable: the device does not hold writes in a \
             volatile cache (or its cache is protected and acknowledged as stable)"
        }
        WriteCacheOutcome::DepthWinsBack => {
            "the device acknowledges writes from its write cache; deeper queues win back part \
             of the difference (000: 3-deep writes approximate write-cache enabled)"
        }
        WriteCacheOutcome::DepthDoesNot => {
            "the device acknowledges writes from its write cache, and depth does not measurably \
             win it back"
        }
        WriteCacheOutcome::NoInterval => NO_INTERVAL,
    };
    format!(
        "write-through runs at {} of write-back; {tail}",
        parts.join(" and ")
    )
}

/// A row's within-run interval of MB/s as printed: `±2.1 %` (`-` without one).
pub fn ci_pct(row: &Row) -> String {
    row.bytes_per_s_ci95
        .map_or("-".into(), |c| format!("±{:.1} %", c.pct))
}

/// A row's `device_share` as printed (`-` without a disk).
pub fn device_share(row: &Row) -> String {
    row.device_share.map_or("-".into(), |x| format!("{x:.2}×"))
}

/// The bytes the disk moved against a point's direction (over 1 % of its own), which are not
/// the point's: a read point does not write, a direct write point does not read.
fn other_direction_note(out: &mut String, row: &Row) {
    let (Some(other), Some(own)) = (
        row.other_direction_bytes(),
        Some(row.results.total.bytes).filter(|&b| b > 0),
    ) else {
        return;
    };
    if (other as f64) <= 0.01 * own as f64 {
        return;
    }
    let verb = match row.rw {
        Direction::Read => "wrote",
        Direction::Write => "read",
    };
    let _ = writeln!(
        out,
        "{}{} {} {}: the device {verb} {:.1} MB meanwhile: not this point's{}",
        row.variant.name(),
        row.shift_bytes
            .map_or(String::new(), |b| format!(" {}", ByteSize(b))),
        row.rw.name(),
        ByteSize(row.bs_bytes),
        other as f64 / 1e6,
        if row.lazy_init {
            " (ext4's lazy inode-table init, ext4lazyinit, was running)"
        } else {
            ""
        }
    );
}

/// Renders an experiment report.
pub fn experiment_table(r: &ExperimentReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Experiment {} on {} ({}), MB/s = 10^6 bytes/s",
        r.experiment.name(),
        r.target.path,
        if r.target.direct {
            "direct I/O"
        } else {
            "buffered"
        }
    );
    if r.experiment == crate::model::experiment::ExperimentKind::Burst {
        super::burst::rows(&mut out, &r.rows);
    } else {
        generic_rows(&mut out, &r.rows);
    }
    for f in &r.facts {
        let (name, value) = fact(f);
        let _ = writeln!(out, "{name}: {value}");
    }
    if let Some(f) = &r.finding {
        let _ = writeln!(out, "\n{}", verdict(f));
    }
    if r.interrupted {
        out.push_str("interrupted: the rows measured before Ctrl-C\n");
    }
    out
}

/// The rows of every experiment but burst: each point's rate, latency, CPU and device share.
fn generic_rows(out: &mut String, rows: &[Row]) {
    let mut t = Table::new(vec![
        words("variant", 14),
        figures("shift", 7),
        words("rw", 6),
        figures("size", 6),
        figures("QD", 3),
        figures("MB/s", 10),
        figures("±", 8),
        figures("IOPS", 9),
        figures("mean µs", 10),
        figures("p99 µs", 10),
        figures("CPU µs/MB", 10),
        figures("device", 7),
    ]);
    for row in rows {
        let size = row
            .region_bytes
            .map_or(ByteSize(row.bs_bytes).to_string(), |b| {
                format!("{}/{}", ByteSize(row.bs_bytes), ByteSize(b))
            });
        t.row(vec![
            row.variant.name().to_string(),
            row.shift_bytes
                .map_or("-".into(), |s| ByteSize(s).to_string()),
            row.rw.name().to_string(),
            size,
            row.qd.to_string(),
            format!("{:.1}", row.bytes_per_s / 1e6),
            ci_pct(row),
            format!("{:.0}", row.iops),
            format!("{:.1}", row.mean_us),
            format!("{:.1}", row.p99_us),
            format!("{:.0}", row.cpu_us_per_mb),
            device_share(row),
        ]);
    }
    out.push_str(&t.render());
    if rows.iter().any(|x| x.device_read_bytes.is_some()) {
        out.push_str(
            "device: bytes the disk moved in the point's direction in its window ÷ the point's \
             own bytes\n",
        );
    }
    for row in rows {
        other_direction_note(out, row);
    }
}

#[cfg(test)]
#[path = "experiment_tests.rs"]
mod tests;
