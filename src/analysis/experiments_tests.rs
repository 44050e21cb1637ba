//! The experiments' verdicts on synthetic rows shaped like 000's figures.

use super::*;
use crate::model::Results;

fn row(variant: Variant, rw: Direction, kib: u64, qd: u32, mb_s: f64) -> Row {
    Row {
        variant,
        shift_bytes: None,
        region_bytes: None,
        rw,
        bs_bytes: kib * 1024,
        qd,
        iops: mb_s * 1e6 / (kib * 1024) as f64,
        bytes_per_s: mb_s * 1e6,
        mean_us: 100.0,
        p99_us: 200.0,
        cpu_us_per_mb: 100.0,
        system_cpu_us_per_mb: 150.0,
        device_read_bytes: None,
        device_write_bytes: None,
        device_share: None,
        results: Results::default(),
    }
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
    let v = verdict(ExperimentKind::Buffering, &rows);
    assert!(v.contains("buffered reads cost 4.0× the CPU per MB"), "{v}");
    assert!(v.contains("at 0.90× their MB/s"), "{v}");
    assert!(v.contains("use direct I/O"), "{v}");
    // Equal cost: no advice against buffering.
    for r in &mut rows {
        r.cpu_us_per_mb = 100.0;
    }
    let v = verdict(ExperimentKind::Buffering, &rows);
    assert!(v.contains("costs no more CPU"), "{v}");
    assert!(verdict(ExperimentKind::Buffering, &[]).starts_with("nothing to compare"));
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
    let v = verdict(ExperimentKind::Allocation, &rows);
    assert!(v.contains("extending at QD1 45 %"), "{v}");
    assert!(v.contains("sparse at QD8 98 %"), "{v}");
    assert!(v.contains("costs throughput"), "{v}");
    let flat: Vec<Row> = rows
        .iter()
        .map(|r| Row {
            bytes_per_s: 100e6,
            ..r.clone()
        })
        .collect();
    assert!(verdict(ExperimentKind::Allocation, &flat).contains("costs little"));
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
    let v = verdict(ExperimentKind::Alignment, &rows);
    assert!(v.contains("the worst, a 512 shift, costs 20 %"), "{v}");
    assert!(v.contains("4k 99 %"), "{v}");
    let even = vec![row(Variant::Aligned, r, 64, 4, 100.0), shifted(512, 98.0)];
    assert!(verdict(ExperimentKind::Alignment, &even).contains("nothing measurable"));
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
    let (v, size) = cache(&rows);
    assert_eq!(size, Some(16 << 20));
    assert!(v.contains("cache hits take 25 µs"), "{v}");
    assert!(v.contains("random reads 8000 µs"), "{v}");
    assert!(v.contains("up to a region of 16m"), "{v}");
    // A memory-backed device: flat.
    let flat: Vec<Row> = [1, 4, 16, 64].iter().map(|m| region(*m, 5.0)).collect();
    let (v, size) = cache(&flat);
    assert_eq!(size, None);
    assert!(v.contains("no cache shows"), "{v}");
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
    let v = verdict(ExperimentKind::Writecache, &rows);
    assert!(v.contains("20 % at QD1 and 60 % at QD8"), "{v}");
    assert!(v.contains("deeper queues win back"), "{v}");
    for r in &mut rows {
        r.bytes_per_s = 100e6;
    }
    assert!(verdict(ExperimentKind::Writecache, &rows).contains("costs nothing"));
}

#[test]
fn alignment_names_a_cost_no_cost_or_noise() {
    let shifted = |shift: u64, mb_s: f64| Row {
        shift_bytes: Some(shift),
        ..row(Variant::Shifted, Direction::Read, 64, 4, mb_s)
    };
    let base = row(Variant::Aligned, Direction::Read, 64, 4, 100.0);
    let costly = [base.clone(), shifted(512, 80.0), shifted(4096, 99.0)];
    let v = alignment(&costly);
    assert!(v.contains("the worst, a 512 shift, costs 20"), "{v}");
    let same = [base.clone(), shifted(512, 97.0), shifted(4096, 104.0)];
    assert!(alignment(&same).contains("costs nothing measurable"));
    let noisy = [base, shifted(512, 101.0), shifted(4096, 139.0)];
    let v = alignment(&noisy);
    assert!(v.contains("up to 39") && v.contains("noise"), "{v}");
}
