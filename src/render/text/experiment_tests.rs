//! The experiments' verdicts and facts in words, from findings shaped like 000's figures.

use super::*;
use crate::model::experiment::{ShiftShare, Variant};

/// An interval of ±`half` around `x`.
fn pm(x: f64, half: f64) -> Option<Interval> {
    Some(Interval {
        low: x - half,
        high: x + half,
    })
}

/// Buffering's and allocation's findings in their one line, every ratio with its interval.
#[test]
fn buffering_and_allocation_findings_in_words() {
    let read = BufferingRatio {
        rw: Direction::Read,
        cpu: 4.0,
        cpu_ci95: pm(4.0, 0.9),
        speed: 0.9,
        speed_ci95: pm(0.9, 0.04),
    };
    assert_eq!(
        verdict(&ExperimentFinding::Buffering {
            from_bytes: 16 << 10,
            ratios: vec![read],
            costly: true,
        }),
        "buffered reads cost 4.0× (±0.9×) the CPU per MB of direct ones at 16k and above, at \
         0.90× (±0.04×) their MB/s; use direct I/O for large requests (000: avoid file-system \
         buffering above 16 KB)"
    );
    let unjudged = BufferingRatio {
        cpu_ci95: None,
        ..read
    };
    assert!(
        verdict(&ExperimentFinding::Buffering {
            from_bytes: 16 << 10,
            ratios: vec![unjudged],
            costly: false,
        })
        .starts_with("buffered reads cost 4.0× (no interval) the CPU per MB")
    );
    let share = |variant, qd, share, half| AllocationShare {
        variant,
        qd,
        share,
        ci95: pm(share, half),
    };
    assert_eq!(
        verdict(&ExperimentFinding::Allocation {
            shares: vec![
                share(Variant::Extending, 1, 0.95, 0.06),
                share(Variant::Sparse, 8, 0.975, 0.03)
            ],
            costly: false,
            within: Some(0.06),
        }),
        "sequential writes that allocate run at a share of those into a written file: \
         extending at QD1 95 % (±6 %), sparse at QD8 98 % (±3 %); no cost of allocation \
         measurable within ±6 %"
    );
    assert!(
        verdict(&ExperimentFinding::Allocation {
            shares: vec![share(Variant::Extending, 1, 0.45, 0.03)],
            costly: true,
            within: None,
        })
        .ends_with("QD1 45 % (±3 %); allocating as it writes costs throughput: create and write (or fallocate) files before the work that needs their speed (000 §5.3)")
    );
}

/// Alignment's outcomes, each share with its interval; an older file's without any.
#[test]
fn alignment_outcomes_in_words() {
    let shifts = vec![
        ShiftShare {
            shift_bytes: 512,
            share: 0.8,
            ci95: pm(0.8, 0.06),
        },
        ShiftShare {
            shift_bytes: 4096,
            share: 0.99,
            ci95: pm(0.99, 0.02),
        },
    ];
    let alignment = |outcome| ExperimentFinding::Alignment {
        shifts: shifts.clone(),
        outcome,
    };
    assert_eq!(
        verdict(&alignment(AlignmentOutcome::Costs {
            shift_bytes: 512,
            cost: 0.2,
            half: Some(0.06),
        })),
        "misaligned requests run at a share of aligned ones (512 80 % (±6 %), 4k 99 % (±2 %)); \
         the worst, a 512 shift, costs 20 % (±6 %): align partitions, stripes and file offsets \
         to the request size (000 §5.4)"
    );
    assert_eq!(
        verdict(&alignment(AlignmentOutcome::Noise {
            gain: 0.39,
            half: Some(0.05)
        })),
        "no cost of misalignment shows (512 80 % (±6 %), 4k 99 % (±2 %)), but a shifted run \
         was 39 % (±5 %) faster than the aligned one, which only run-to-run noise explains: a \
         cost below that cannot be told apart here (use --time longer, or a device that is not \
         shared)"
    );
    assert_eq!(
        verdict(&alignment(AlignmentOutcome::Free { within: 0.25 })),
        "no cost of misalignment measurable within ±25 % (512 80 % (±6 %), 4k 99 % (±2 %))"
    );
    assert!(
        verdict(&alignment(AlignmentOutcome::NoInterval))
            .ends_with("a point had too few 100-ms windows for an interval (measure longer: --time of 1 s or more), so nothing is judged")
    );
    // A file from before issue 44: no intervals, and none claimed.
    let old = ExperimentFinding::Alignment {
        shifts: vec![ShiftShare {
            shift_bytes: 512,
            share: 0.8,
            ci95: None,
        }],
        outcome: AlignmentOutcome::Costs {
            shift_bytes: 512,
            cost: 0.2,
            half: None,
        },
    };
    assert!(
        verdict(&old).starts_with(
            "misaligned requests run at a share of aligned ones (512 80 % (no interval)); the \
             worst, a 512 shift, costs 20 %:"
        ),
        "{}",
        verdict(&old)
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
            DepthShare {
                qd: 1,
                share: 0.2,
                ci95: pm(0.2, 0.02),
            },
            DepthShare {
                qd: 8,
                share: 0.6,
                ci95: pm(0.6, 0.04),
            },
        ],
        outcome,
    };
    assert_eq!(
        verdict(&writecache(WriteCacheOutcome::DepthWinsBack)),
        "write-through runs at 20 % (±2 %) at QD1 and 60 % (±4 %) at QD8 of write-back; the \
         device acknowledges writes from its write cache; deeper queues win back part of the \
         difference (000: 3-deep writes approximate write-cache enabled)"
    );
    assert!(
        verdict(&writecache(WriteCacheOutcome::DepthDoesNot))
            .ends_with("from its write cache, and depth does not measurably win it back")
    );
    assert!(
        verdict(&writecache(WriteCacheOutcome::NoVolatileCache)).ends_with(
            "; write-through costs nothing measurable: the device does not hold writes in a \
             volatile cache (or its cache is protected and acknowledged as stable)"
        )
    );
    assert!(
        verdict(&writecache(WriteCacheOutcome::NoInterval))
            .ends_with("of write-back; a point had too few 100-ms windows for an interval (measure longer: --time of 1 s or more), so nothing is judged")
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
        rest_s: None,
        rw: Direction::Read,
        bs_bytes: 16 << 10,
        qd: 1,
        iops: 1.0,
        bytes_per_s: 1.0,
        bytes_per_s_ci95: None,
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
