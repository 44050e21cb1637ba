//! The experiments' findings on synthetic rows shaped like 000's figures (render words them:
//! `render::text::experiment`).

use super::*;
use crate::model::Results;
use crate::stats::summary::Ci95;

/// A row at `mb_s` MB/s whose within-run interval is ±1 %.
fn row(variant: Variant, rw: Direction, kib: u64, qd: u32, mb_s: f64) -> Row {
    Row {
        variant,
        shift_bytes: None,
        region_bytes: None,
        rest_s: None,
        rw,
        bs_bytes: kib * 1024,
        qd,
        iops: mb_s * 1e6 / (kib * 1024) as f64,
        bytes_per_s: mb_s * 1e6,
        bytes_per_s_ci95: Some(Ci95 {
            half: mb_s * 1e4,
            pct: 1.0,
        }),
        mean_us: 100.0,
        p99_us: 200.0,
        cpu_us_per_mb: 100.0,
        system_cpu_us_per_mb: 150.0,
        device_read_bytes: None,
        device_write_bytes: None,
        device_share: None,
        lazy_init: false,
        results: Results::default(),
    }
}

/// Whether `a` is `b` to within rounding.
fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// `r` with a within-run interval of ±`pct` % (None: none, a point of too few windows).
fn ci(r: Row, pct: Option<f64>) -> Row {
    Row {
        bytes_per_s_ci95: pct.map(|pct| Ci95 {
            half: r.bytes_per_s * pct / 100.0,
            pct,
        }),
        ..r
    }
}

/// The verdict rule: a ratio differs only where its interval lies wholly on one side of 1.
#[test]
fn a_difference_only_where_the_interval_excludes_none() {
    let i = |low, high| Interval { low, high };
    assert_eq!(against(i(0.74, 0.86)), Against::Below);
    assert_eq!(against(i(0.55, 1.05)), Against::Holds);
    assert_eq!(against(i(1.02, 1.3)), Against::Above);
    // An end exactly at 1 holds it.
    assert_eq!(against(i(0.9, 1.0)), Against::Holds);
    assert_eq!(against(i(1.0, 1.1)), Against::Holds);
    assert!(near(i(0.74, 0.86).half(), 0.06));
}

/// 000 Figures 2–4: above 16 KB buffered reads cost several times the CPU of direct ones.
#[test]
fn buffering_above_16k_costs_cpu() {
    let mut rows = Vec::new();
    for kib in [4, 16, 64, 256] {
        for rw in [Direction::Read, Direction::Write] {
            rows.push(Row {
                cpu_us_per_mb: 50.0,
                ..row(Variant::Direct, rw, kib, 1, 200.0)
            });
            rows.push(Row {
                cpu_us_per_mb: 200.0,
                ..row(Variant::Buffered, rw, kib, 1, 180.0)
            });
        }
    }
    let f = finding(ExperimentKind::Buffering, &rows);
    let ExperimentFinding::Buffering {
        from_bytes,
        ratios,
        costly,
    } = &f
    else {
        panic!("{f:?}")
    };
    assert_eq!(*from_bytes, 16 * 1024);
    // Buffered reads cost 4.0× the CPU per MB, at 0.90× their MB/s; writes the same.
    assert_eq!(ratios.len(), 2, "{f:?}");
    assert_eq!(ratios[0].rw, Direction::Read);
    assert!(near(ratios[0].cpu, 4.0), "{f:?}");
    assert!(near(ratios[0].speed, 0.9), "{f:?}");
    assert!(*costly, "use direct I/O");
    // Equal cost: no advice against buffering.
    for r in &mut rows {
        r.cpu_us_per_mb = 100.0;
    }
    let f = finding(ExperimentKind::Buffering, &rows);
    assert!(
        matches!(f, ExperimentFinding::Buffering { costly: false, .. }),
        "{f:?}"
    );
    assert_eq!(
        finding(ExperimentKind::Buffering, &[]),
        ExperimentFinding::NothingToCompare {
            missing: Missing::DirectAndBuffered
        }
    );
}

/// 000 §5.3: extending a file forces synchronous allocation and runs slower.
#[test]
fn extending_a_file_costs_throughput() {
    let w = Direction::Write;
    let rows = vec![
        row(Variant::Preallocated, w, 1024, 1, 200.0),
        row(Variant::Extending, w, 1024, 1, 90.0),
        row(Variant::Sparse, w, 1024, 1, 150.0),
        row(Variant::Preallocated, w, 1024, 8, 400.0),
        row(Variant::Extending, w, 1024, 8, 300.0),
        row(Variant::Sparse, w, 1024, 8, 390.0),
    ];
    let f = finding(ExperimentKind::Allocation, &rows);
    let ExperimentFinding::Allocation {
        shares,
        costly,
        within,
    } = &f
    else {
        panic!("{f:?}")
    };
    let share = |v, qd| {
        shares
            .iter()
            .find(|s| s.variant == v && s.qd == qd)
            .unwrap()
            .share
    };
    assert!(near(share(Variant::Extending, 1), 0.45), "{f:?}");
    assert!(near(share(Variant::Sparse, 8), 0.975), "{f:?}");
    assert_eq!(shares.len(), 4);
    assert!(*costly, "allocating costs throughput");
    assert_eq!(*within, None);
    // Extending at QD1: 0.45 with both points' ±1 % in quadrature, ±0.45 × 1.41 %.
    let ext = shares[0].ci95.unwrap();
    assert!(near(ext.half(), 0.45 * 0.01 * 2f64.sqrt()), "{ext:?}");
    let flat: Vec<Row> = rows
        .iter()
        .map(|r| Row {
            bytes_per_s: 100e6,
            ..r.clone()
        })
        .collect();
    let f = finding(ExperimentKind::Allocation, &flat);
    assert!(
        matches!(f, ExperimentFinding::Allocation { costly: false, within: Some(w), .. } if w > 0.0),
        "{f:?}"
    );
    // 30 % slower, but measured ±40 %: no cost shows, within ±(0.7 × 0.57) at most.
    let wide: Vec<Row> = rows.iter().map(|r| ci(r.clone(), Some(40.0))).collect();
    let f = finding(ExperimentKind::Allocation, &wide[3..]);
    assert!(
        matches!(f, ExperimentFinding::Allocation { costly: false, within: Some(w), .. } if w > 0.3),
        "{f:?}"
    );
    // A point too short for an interval: no verdict either way.
    let short: Vec<Row> = rows[3..].iter().map(|r| ci(r.clone(), None)).collect();
    let f = finding(ExperimentKind::Allocation, &short);
    assert!(
        matches!(
            f,
            ExperimentFinding::Allocation {
                costly: false,
                within: None,
                ..
            }
        ),
        "{f:?}"
    );
}

/// The alignment finding of `rows`: its shifts and outcome.
fn aligned(rows: &[Row]) -> (Vec<ShiftShare>, AlignmentOutcome) {
    match finding(ExperimentKind::Alignment, rows) {
        ExperimentFinding::Alignment { shifts, outcome } => (shifts, outcome),
        f => panic!("{f:?}"),
    }
}

/// 000 §5.4: misaligned requests cost about 20 %.
#[test]
fn a_misaligned_shift_costs_a_fifth() {
    let r = Direction::Read;
    let shifted = |s: u64, mb: f64| Row {
        shift_bytes: Some(s),
        ..row(Variant::Shifted, r, 64, 4, mb)
    };
    let rows = vec![
        row(Variant::Aligned, r, 64, 4, 100.0),
        shifted(512, 80.0),
        shifted(4096, 99.0),
        shifted(32768, 85.0),
    ];
    let (shifts, outcome) = aligned(&rows);
    // The worst, a 512 shift, costs 20 % (±1.1 %: 0.8 × both points' ±1 % in quadrature).
    assert!(
        matches!(outcome, AlignmentOutcome::Costs { shift_bytes: 512, cost, half: Some(h) }
            if near(cost, 0.2) && near(h, 0.8 * 0.01 * 2f64.sqrt())),
        "{outcome:?}"
    );
    assert_eq!(shifts[1].shift_bytes, 4096);
    assert!(near(shifts[1].share, 0.99), "{shifts:?}");
    let even = vec![
        ci(row(Variant::Aligned, r, 64, 4, 100.0), Some(3.0)),
        ci(shifted(512, 98.0), Some(3.0)),
    ];
    let AlignmentOutcome::Free { within } = aligned(&even).1 else {
        panic!("{:?}", aligned(&even))
    };
    // 0.98 × √(3² + 3²) %.
    assert!(near(within, 0.98 * 0.03 * 2f64.sqrt()), "{within}");
    assert_eq!(
        finding(ExperimentKind::Alignment, &even[1..]),
        ExperimentFinding::NothingToCompare {
            missing: Missing::Aligned
        }
    );
    assert_eq!(
        finding(ExperimentKind::Alignment, &even[..1]),
        ExperimentFinding::NothingToCompare {
            missing: Missing::Shifted
        }
    );
}

/// 000 Table 3: cache hits in µs, random reads in ms; latency jumps past the cache's size.
#[test]
fn the_cache_size_is_where_latency_jumps() {
    let r = Direction::Read;
    let lat = |v: Variant, us: f64| Row {
        mean_us: us,
        ..row(v, r, 4, 1, 1.0)
    };
    let region = |mib: u64, us: f64| Row {
        region_bytes: Some(mib << 20),
        ..lat(Variant::Region, us)
    };
    let mut rows = vec![
        lat(Variant::CacheHit, 25.0),
        lat(Variant::Prefetch, 30.0),
        lat(Variant::Random, 8000.0),
    ];
    rows.extend([
        region(1, 30.0),
        region(4, 32.0),
        region(16, 40.0),
        region(64, 6000.0),
        region(256, 8000.0),
    ]);
    assert_eq!(cache_size(&rows), Some(16 << 20));
    assert_eq!(
        finding(ExperimentKind::Cache, &rows),
        ExperimentFinding::Cache {
            bs_bytes: 4096,
            cache_hit_us: Some(25.0),
            prefetch_us: Some(30.0),
            random_us: Some(8000.0),
            size: CacheSizeFound::Found { bytes: 16 << 20 },
        }
    );
    // A memory-backed device: flat, no cache shows.
    let flat: Vec<Row> = [1, 4, 16, 64].iter().map(|m| region(*m, 5.0)).collect();
    assert_eq!(cache_size(&flat), None);
    let f = finding(ExperimentKind::Cache, &flat);
    assert!(
        matches!(
            f,
            ExperimentFinding::Cache {
                size: CacheSizeFound::Flat { up_to_bytes },
                ..
            } if up_to_bytes == 64 << 20
        ),
        "{f:?}"
    );
    assert!(matches!(
        finding(ExperimentKind::Cache, &rows[..3]),
        ExperimentFinding::Cache {
            size: CacheSizeFound::NotProbed,
            ..
        }
    ));
}

/// 000: write-through costs at QD1; three or more deep writes win much of it back.
#[test]
fn write_through_costs_and_depth_wins_it_back() {
    let w = Direction::Write;
    let mut rows = Vec::new();
    for kib in [4, 64] {
        rows.push(row(Variant::WriteBack, w, kib, 1, 100.0));
        rows.push(row(Variant::WriteThrough, w, kib, 1, 20.0));
        rows.push(row(Variant::WriteBack, w, kib, 8, 200.0));
        rows.push(row(Variant::WriteThrough, w, kib, 8, 120.0));
    }
    let f = finding(ExperimentKind::Writecache, &rows);
    let ExperimentFinding::Writecache { shares, outcome } = &f else {
        panic!("{f:?}")
    };
    // 20 % at QD1 and 60 % at QD8: deeper queues win part of it back.
    let got: Vec<(u32, f64)> = shares.iter().map(|s| (s.qd, s.share)).collect();
    assert_eq!(got.len(), 2, "{f:?}");
    assert!(got[0].0 == 1 && near(got[0].1, 0.2), "{f:?}");
    assert!(got[1].0 == 8 && near(got[1].1, 0.6), "{f:?}");
    assert_eq!(*outcome, WriteCacheOutcome::DepthWinsBack);
    for r in &mut rows {
        r.bytes_per_s = 100e6;
    }
    let f = finding(ExperimentKind::Writecache, &rows);
    assert!(
        matches!(
            f,
            ExperimentFinding::Writecache {
                outcome: WriteCacheOutcome::NoVolatileCache,
                ..
            }
        ),
        "{f:?}"
    );
    // Flat at both depths below the band: depth does not win it back.
    for r in rows
        .iter_mut()
        .filter(|r| r.variant == Variant::WriteThrough)
    {
        r.bytes_per_s = 50e6;
    }
    let f = finding(ExperimentKind::Writecache, &rows);
    assert!(
        matches!(
            f,
            ExperimentFinding::Writecache {
                outcome: WriteCacheOutcome::DepthDoesNot,
                ..
            }
        ),
        "{f:?}"
    );
    assert_eq!(
        finding(ExperimentKind::Writecache, &rows[..1]),
        ExperimentFinding::NothingToCompare {
            missing: Missing::WriteThroughAndWriteBack
        }
    );
}

/// Issue 44: two identical 0.2-s runs said "the worst, a 512 shift, costs 20 %" and "costs
/// nothing measurable". A verdict is no stronger than its interval: a 20 % shortfall measured
/// ±30 % is no cost measurable, one without an interval is not judged, and a gain beyond its
/// interval (impossible for the same reads: noise) hides a smaller cost.
#[test]
fn alignment_names_a_cost_only_beyond_its_interval() {
    let shifted = |shift: u64, mb_s: f64, pct: Option<f64>| {
        ci(
            Row {
                shift_bytes: Some(shift),
                ..row(Variant::Shifted, Direction::Read, 64, 4, mb_s)
            },
            pct,
        )
    };
    let base = |pct| ci(row(Variant::Aligned, Direction::Read, 64, 4, 100.0), pct);
    // Two short runs: the same 20 % shortfall, measured ±20 % (each side), holds 1.
    let short = [base(Some(20.0)), shifted(512, 80.0, Some(20.0))];
    let AlignmentOutcome::Free { within } = aligned(&short).1 else {
        panic!("{:?}", aligned(&short))
    };
    assert!(near(within, 0.8 * 0.2 * 2f64.sqrt()), "{within}");
    // Measured ±3 %: a cost of 20 % (±3.4 %).
    let long = [base(Some(3.0)), shifted(512, 80.0, Some(3.0))];
    assert!(
        matches!(aligned(&long).1, AlignmentOutcome::Costs { shift_bytes: 512, cost, half: Some(h) }
            if near(cost, 0.2) && near(h, 0.8 * 0.03 * 2f64.sqrt())),
        "{:?}",
        aligned(&long)
    );
    // Too short for an interval: not judged.
    let none = [base(None), shifted(512, 80.0, None)];
    assert_eq!(aligned(&none).1, AlignmentOutcome::NoInterval);
    // A 3 % cost beside a 39 % gain, both beyond their intervals: noise, not a cost.
    let noisy = [
        base(Some(1.0)),
        shifted(512, 97.0, Some(1.0)),
        shifted(4096, 139.0, Some(1.0)),
    ];
    assert!(
        matches!(aligned(&noisy).1, AlignmentOutcome::Noise { gain, half: Some(_) } if near(gain, 0.39)),
        "{:?}",
        aligned(&noisy)
    );
    // A 20 % cost beside a 5 % gain: the cost stands.
    let both = [
        base(Some(1.0)),
        shifted(512, 80.0, Some(1.0)),
        shifted(4096, 105.0, Some(1.0)),
    ];
    assert!(
        matches!(
            aligned(&both).1,
            AlignmentOutcome::Costs {
                shift_bytes: 512,
                ..
            }
        ),
        "{:?}",
        aligned(&both)
    );
}

/// Write-through's shares judged by their intervals: depth wins back only beyond both.
#[test]
fn writecache_judges_depth_by_the_shares_intervals() {
    let depth = |qd, share, half: Option<f64>| DepthShare {
        qd,
        share,
        ci95: half.map(|h| Interval {
            low: share - h,
            high: share + h,
        }),
    };
    let judge = |a, b| writecache_outcome(&a, &b);
    assert_eq!(
        judge(depth(1, 0.2, Some(0.02)), depth(8, 0.6, Some(0.04))),
        WriteCacheOutcome::DepthWinsBack
    );
    // 0.05 apart, each ±0.1: √2 × 0.1 = 0.14 > 0.05.
    assert_eq!(
        judge(depth(1, 0.5, Some(0.1)), depth(8, 0.55, Some(0.1))),
        WriteCacheOutcome::DepthDoesNot
    );
    assert_eq!(
        judge(depth(1, 0.95, Some(0.1)), depth(8, 0.97, Some(0.1))),
        WriteCacheOutcome::NoVolatileCache
    );
    assert_eq!(
        judge(depth(1, 0.2, None), depth(8, 0.6, Some(0.04))),
        WriteCacheOutcome::NoInterval
    );
}
