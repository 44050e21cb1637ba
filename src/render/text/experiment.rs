//! An experiment on a terminal: its rows, its facts and its verdict, worded from its finding.

use crate::model::Direction;
use crate::model::experiment::{
    AlignmentOutcome, AllocationShare, BufferingRatio, CacheSizeFound, DepthShare,
    ExperimentFinding, ExperimentReport, Fact, Missing, Row, WriteCacheOutcome,
};
use crate::units::ByteSize;
use std::fmt::Write;

fn pct(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

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
        ExperimentFinding::Allocation { shares, costly } => allocation(shares, *costly),
        ExperimentFinding::Alignment { shifts, outcome } => {
            let each = shifts
                .iter()
                .map(|s| format!("{} {}", ByteSize(s.shift_bytes), pct(s.share)))
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
    }
}

/// The buffering verdict.
fn buffering(from_bytes: u64, ratios: &[BufferingRatio], costly: bool) -> String {
    let parts: Vec<String> = ratios
        .iter()
        .map(|r| {
            format!(
                "buffered {}s cost {:.1}× the CPU per MB of direct ones at {} and above, at \
                 {:.2}× their MB/s",
                r.rw.name(),
                r.cpu,
                ByteSize(from_bytes),
                r.speed
            )
        })
        .collect();
    let advice = if costly {
        "use direct I/O for large requests (000: avoid file-system buffering above 16 KB)"
    } else {
        "buffering costs no more CPU per MB here"
    };
    format!("{}; {advice}", parts.join("; "))
}

/// The allocation verdict.
fn allocation(shares: &[AllocationShare], costly: bool) -> String {
    let parts: Vec<String> = shares
        .iter()
        .map(|s| format!("{} at QD{} {}", s.variant.name(), s.qd, pct(s.share)))
        .collect();
    let advice = if costly {
        "allocating as it writes costs throughput: create and write (or fallocate) files \
         before the work that needs their speed (000 §5.3)"
    } else {
        "allocation costs little here"
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
        AlignmentOutcome::Costs { shift_bytes, cost } => format!(
            "misaligned requests run at a share of aligned ones ({each}); the worst, a {} shift, \
             costs {}: align partitions, stripes and file offsets to the request size (000 §5.4)",
            ByteSize(*shift_bytes),
            pct(*cost)
        ),
        AlignmentOutcome::Noise { gain } => format!(
            "no cost of misalignment shows ({each}), but the shifted runs were up to {} faster \
             than the aligned one, which only run-to-run noise explains: a cost below that \
             cannot be told apart here (use --time longer, or a device that is not shared)",
            pct(*gain)
        ),
        AlignmentOutcome::Free { within } => format!(
            "misalignment costs nothing measurable here ({each}; within {})",
            pct(*within)
        ),
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
        .map(|s| format!("{} at QD{}", pct(s.share), s.qd))
        .collect();
    let tail = match outcome {
        WriteCacheOutcome::NoVolatileCache => {
            "write-through costs nothing: the device does not hold writes in a volatile cache \
             (or its cache is protected and acknowledged as stable)"
        }
        WriteCacheOutcome::DepthWinsBack => {
            "the device acknowledges writes from its write cache; deeper queues win back part \
             of the difference (000: 3-deep writes approximate write-cache enabled)"
        }
        WriteCacheOutcome::DepthDoesNot => {
            "the device acknowledges writes from its write cache, and depth does not win it back"
        }
    };
    format!(
        "write-through runs at {} of write-back; {tail}",
        parts.join(" and ")
    )
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
    let _ = writeln!(
        out,
        "{:<14} {:>7} {:<6} {:>6} {:>3} {:>10} {:>9} {:>10} {:>10} {:>10} {:>7}",
        "variant",
        "shift",
        "rw",
        "size",
        "QD",
        "MB/s",
        "IOPS",
        "mean µs",
        "p99 µs",
        "CPU µs/MB",
        "device"
    );
    for row in &r.rows {
        let size = row
            .region_bytes
            .map_or(ByteSize(row.bs_bytes).to_string(), |b| {
                format!("{}/{}", ByteSize(row.bs_bytes), ByteSize(b))
            });
        let _ = writeln!(
            out,
            "{:<14} {:>7} {:<6} {:>6} {:>3} {:>10.1} {:>9.0} {:>10.1} {:>10.1} {:>10.0} {:>7}",
            row.variant.name(),
            row.shift_bytes
                .map_or("-".into(), |s| ByteSize(s).to_string()),
            row.rw.name(),
            size,
            row.qd,
            row.bytes_per_s / 1e6,
            row.iops,
            row.mean_us,
            row.p99_us,
            row.cpu_us_per_mb,
            device_share(row)
        );
    }
    if r.rows.iter().any(|x| x.device_read_bytes.is_some()) {
        out.push_str(
            "device: bytes the disk moved in the point's direction in its window ÷ the point's \
             own bytes\n",
        );
    }
    for row in &r.rows {
        other_direction_note(&mut out, row);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::experiment::{ShiftShare, Variant};

    /// Each finding in its one line.
    #[test]
    fn every_finding_in_words() {
        let read = BufferingRatio {
            rw: Direction::Read,
            cpu: 4.0,
            speed: 0.9,
        };
        assert_eq!(
            verdict(&ExperimentFinding::Buffering {
                from_bytes: 16 << 10,
                ratios: vec![read],
                costly: true,
            }),
            "buffered reads cost 4.0× the CPU per MB of direct ones at 16k and above, at 0.90× \
             their MB/s; use direct I/O for large requests (000: avoid file-system buffering \
             above 16 KB)"
        );
        let share = |variant, qd, share| AllocationShare { variant, qd, share };
        assert_eq!(
            verdict(&ExperimentFinding::Allocation {
                shares: vec![
                    share(Variant::Extending, 1, 0.45),
                    share(Variant::Sparse, 8, 0.975)
                ],
                costly: false,
            }),
            "sequential writes that allocate run at a share of those into a written file: \
             extending at QD1 45 %, sparse at QD8 98 %; allocation costs little here"
        );
        let shifts = vec![
            ShiftShare {
                shift_bytes: 512,
                share: 0.8,
            },
            ShiftShare {
                shift_bytes: 4096,
                share: 0.99,
            },
        ];
        let alignment = |outcome| ExperimentFinding::Alignment {
            shifts: shifts.clone(),
            outcome,
        };
        assert_eq!(
            verdict(&alignment(AlignmentOutcome::Costs {
                shift_bytes: 512,
                cost: 0.2
            })),
            "misaligned requests run at a share of aligned ones (512 80 %, 4k 99 %); the worst, \
             a 512 shift, costs 20 %: align partitions, stripes and file offsets to the request \
             size (000 §5.4)"
        );
        assert_eq!(
            verdict(&alignment(AlignmentOutcome::Noise { gain: 0.39 })),
            "no cost of misalignment shows (512 80 %, 4k 99 %), but the shifted runs were up to \
             39 % faster than the aligned one, which only run-to-run noise explains: a cost \
             below that cannot be told apart here (use --time longer, or a device that is not \
             shared)"
        );
        assert_eq!(
            verdict(&alignment(AlignmentOutcome::Free { within: 0.1 })),
            "misalignment costs nothing measurable here (512 80 %, 4k 99 %; within 10 %)"
        );
    }

    /// The cache's latencies and what the regions say of its size.
    #[test]
    fn the_cache_finding_in_words() {
        let cache = |size| ExperimentFinding::Cache {
            bs_bytes: 4096,
            cache_hit_us: Some(25.0),
            prefetch_us: None,
            random_us: Some(8000.0),
            size,
        };
        assert_eq!(
            verdict(&cache(CacheSizeFound::Found { bytes: 16 << 20 })),
            "at 4k: cache hits take 25 µs, read-ahead hits -, random reads 8000 µs; random reads \
             stay fast up to a region of 16m and slow down beyond it: the cache holds about that \
             much (000 Table 3)"
        );
        assert!(
            verdict(&cache(CacheSizeFound::Flat {
                up_to_bytes: 64 << 20
            }))
            .ends_with(
                "random-read latency stays flat up to a region of 64m: no cache shows (a \
                 memory-backed device, or a cache larger than the regions tried)"
            )
        );
        assert!(
            verdict(&cache(CacheSizeFound::NotProbed))
                .ends_with("; no region rows: the cache size was not probed")
        );
    }

    /// Write-through against write-back, one sentence per outcome; nothing to compare.
    #[test]
    fn write_cache_outcomes_and_nothing_to_compare_in_words() {
        let writecache = |outcome| ExperimentFinding::Writecache {
            shares: vec![
                DepthShare { qd: 1, share: 0.2 },
                DepthShare { qd: 8, share: 0.6 },
            ],
            outcome,
        };
        assert_eq!(
            verdict(&writecache(WriteCacheOutcome::DepthWinsBack)),
            "write-through runs at 20 % at QD1 and 60 % at QD8 of write-back; the device \
             acknowledges writes from its write cache; deeper queues win back part of the \
             difference (000: 3-deep writes approximate write-cache enabled)"
        );
        assert!(
            verdict(&writecache(WriteCacheOutcome::DepthDoesNot))
                .ends_with("from its write cache, and depth does not win it back")
        );
        assert!(
            verdict(&writecache(WriteCacheOutcome::NoVolatileCache)).ends_with(
                "; write-through costs nothing: the device does not hold writes in a volatile \
                 cache (or its cache is protected and acknowledged as stable)"
            )
        );
        for (missing, words) in [
            (
                Missing::DirectAndBuffered,
                "direct and buffered rows of the same size",
            ),
            (Missing::Preallocated, "preallocated rows"),
            (Missing::Aligned, "aligned row"),
            (Missing::Shifted, "shifted rows"),
            (
                Missing::WriteThroughAndWriteBack,
                "write-through and write-back rows",
            ),
        ] {
            assert_eq!(
                verdict(&ExperimentFinding::NothingToCompare { missing }),
                format!("nothing to compare: no {words}")
            );
        }
    }

    /// Facts as a name and a value; an older file's named facts read as the same facts.
    #[test]
    fn facts_in_words_and_as_older_files_wrote_them() {
        let cache = Fact::CacheSize {
            bytes: Some(8 << 20),
        };
        let disk = Fact::WriteCache {
            disk: "vda".into(),
            setting: "write back".into(),
        };
        let none = Fact::CacheSize { bytes: None };
        assert_eq!(fact(&cache), ("cache size estimate".into(), "8m".into()));
        assert_eq!(fact(&none).1, "none found");
        assert_eq!(
            fact(&disk),
            ("vda queue/write_cache".into(), "write back".into())
        );
        for f in [&cache, &disk, &none] {
            let json = serde_json::to_string(f).unwrap();
            assert_eq!(&serde_json::from_str::<Fact>(&json).unwrap(), f, "{json}");
            let (name, value) = fact(f);
            let old = serde_json::json!({ "name": name, "value": value });
            assert_eq!(&serde_json::from_value::<Fact>(old).unwrap(), f);
        }
        assert_eq!(
            serde_json::to_value(&disk).unwrap(),
            serde_json::json!({"kind": "write-cache", "disk": "vda", "setting": "write back"})
        );
    }

    /// A read point's share counts the device's reads only; the kernel's writes meanwhile are
    /// named as someone else's (issue 37, item 4: "1.12×" before, read 67 108 864 B plus
    /// 8 384 512 B of ext4's lazy init).
    #[test]
    fn a_read_points_device_share_is_its_reads_and_the_writes_are_named() {
        let own = 64u64 << 20;
        let mut results = crate::model::Results::default();
        results.total.bytes = own;
        let row = Row {
            variant: Variant::Direct,
            shift_bytes: None,
            region_bytes: None,
            rw: Direction::Read,
            bs_bytes: 16 << 10,
            qd: 1,
            iops: 1.0,
            bytes_per_s: 1.0,
            mean_us: 1.0,
            p99_us: 1.0,
            cpu_us_per_mb: 1.0,
            system_cpu_us_per_mb: 1.0,
            device_read_bytes: Some(own),
            device_write_bytes: Some(8_384_512),
            device_share: Row::share_of(Direction::Read, own, 8_384_512, own),
            lazy_init: true,
            results,
        };
        assert_eq!(row.device_share, Some(1.0));
        assert_eq!(device_share(&row), "1.00×");
        let mut out = String::new();
        other_direction_note(&mut out, &row);
        assert_eq!(
            out,
            "direct read 16k: the device wrote 8.4 MB meanwhile: not this point's (ext4's lazy \
             inode-table init, ext4lazyinit, was running)\n"
        );
        // A write point's share is its writes; 1 % of reads beside it is not worth a line.
        assert_eq!(
            Row::share_of(Direction::Write, own, own / 2, own),
            Some(0.5)
        );
        let quiet = Row {
            device_write_bytes: Some(own / 100),
            lazy_init: false,
            ..row
        };
        let mut out = String::new();
        other_direction_note(&mut out, &quiet);
        assert!(out.is_empty(), "{out}");
    }
}
