//! Tests of the sweep analysis on synthetic curves and on curves shaped like 000's figures.

use super::*;

const K: u64 = 1024;

fn pt(bs: u64, qd: u32, mb_s: f64, p99_us: f64) -> Sample {
    Sample {
        bs_bytes: bs,
        qd,
        bytes_per_s: mb_s * 1e6,
        p99_us: Some(p99_us),
        ci95_pct: None,
        steady: None,
    }
}

/// A device with 100 µs of overhead per request, 500 MB/s of media rate and parallelism up
/// to 8: throughput = min(500 MB/s, min(qd, 8) · bs / (100 µs + bs / 500 MB/s)); latency
/// grows with depth beyond 8 (Little's law).
fn device(sizes: &[u64], depths: &[u32]) -> Vec<Sample> {
    let mut v = Vec::new();
    for &bs in sizes {
        for &qd in depths {
            let per_io = 100e-6 + bs as f64 / 500e6;
            let mbs = (qd.min(8) as f64 * bs as f64 / per_io).min(500e6) / 1e6;
            let p99 = qd as f64 * bs as f64 / (mbs * 1e6) * 1e6 * 1.5;
            v.push(pt(bs, qd, mbs, p99));
        }
    }
    v
}

#[test]
fn synthetic_device_half_power_and_knee() {
    let sizes = [4 * K, 16 * K, 64 * K, 256 * K, 1024 * K];
    let depths = [1, 4, 16, 64];
    let a = analyse(RwMode::Randread, 1, &device(&sizes, &depths), None).unwrap();
    // The plateau: every point within 5 % of 500 MB/s, QD1 × 1m (476 MB/s) included.
    assert!(
        (a.peak_bytes_per_s - 497.76e6).abs() < 0.01e6,
        "{}",
        a.peak_bytes_per_s
    );
    assert_eq!(
        a.best,
        Cell {
            qd: 4,
            bs_bytes: Some(64 * K)
        }
    );
    assert_eq!(a.plateau.len(), 13);
    // QD1: 4k 37 MB/s, 16k 122, 64k 281, 256k 418: half of 500 is first reached at 64 KiB.
    assert_eq!(
        a.half_power[0],
        Cell {
            qd: 1,
            bs_bytes: Some(64 * K)
        }
    );
    // QD4: 16k gives 4 × 122 = 488 MB/s.
    assert_eq!(
        a.half_power[1],
        Cell {
            qd: 4,
            bs_bytes: Some(16 * K)
        }
    );
    // 4 KiB: QD4 gives 146 MB/s, QD16 (8 effective) 293 MB/s.
    assert_eq!(
        a.half_power_qd[0],
        DepthCell {
            bs_bytes: 4 * K,
            qd: Some(16)
        }
    );
    // At 4 KiB depth pays up to 8, flat from 16 on while latency rises: knee at QD16.
    assert_eq!(
        a.knee_qd[0],
        DepthCell {
            bs_bytes: 4 * K,
            qd: Some(16)
        }
    );
    // At 64 KiB, QD4 already hits the 500 MB/s limit.
    assert_eq!(
        a.knee_qd[2],
        DepthCell {
            bs_bytes: 64 * K,
            qd: Some(4)
        }
    );
    // At QD16 every size from 16 KiB is on the 500 MB/s limit.
    assert_eq!(
        a.knee[2],
        Cell {
            qd: 16,
            bs_bytes: Some(16 * K)
        }
    );
    // QD1 still gains > 10 % per doubling at the largest step (418 → 476 MB/s over 2 doublings
    // is 6.7 % per doubling, so that is flat) — check the figures, not a guess:
    let q1: Vec<f64> = sizes
        .iter()
        .map(|&bs| 1.0 * bs as f64 / (100e-6 + bs as f64 / 500e6))
        .collect();
    let per_doubling = (q1[4] / q1[3]).sqrt() - 1.0;
    assert!(per_doubling < 0.10);
    assert_eq!(
        a.knee[0],
        Cell {
            qd: 1,
            bs_bytes: Some(256 * K)
        }
    );
    // What the verdict says (render words it): randread peaks at 498 MB/s (the best, 64k ×
    // QD4, and the 13 points of the plateau above), half of it first reached at 64k with QD1
    // (`half_power[0]` above).
    assert_eq!(a.rw, RwMode::Randread);
    assert_eq!(format!("{:.0}", a.peak_bytes_per_s / 1e6), "498");
}

/// 000 Figure 3: unbuffered writes at QD1 grow slowly with request size and show no plateau
/// up to 1 MB; against the 8.5 MB/s media limit they reach half power only at 128 KB.
#[test]
fn gray_unbuffered_writes_reach_half_of_the_media_limit_at_128k() {
    let curve = [
        (2, 0.5),
        (4, 0.9),
        (8, 1.6),
        (16, 2.4),
        (32, 3.0),
        (64, 3.8),
        (128, 4.5),
        (256, 5.3),
        (512, 5.9),
        (1024, 6.4),
    ];
    let pts: Vec<Sample> = curve
        .iter()
        .map(|&(kb, mb)| pt(kb * K, 1, mb, 1000.0 * kb as f64))
        .collect();
    let a = analyse(RwMode::Write, 1, &pts, Some(8.5e6)).unwrap();
    assert_eq!(
        a.half_power,
        vec![Cell {
            qd: 1,
            bs_bytes: Some(128 * K)
        }]
    );
    assert_eq!(a.reference_bytes_per_s, 8.5e6);
    assert!((a.rap_pap.unwrap() - 6.4 / 8.5).abs() < 1e-9);
    // Without --pap the reference is the measured peak, 6.4 MB/s: half (3.2) is reached at 64 KB.
    let own = analyse(RwMode::Write, 1, &pts, None).unwrap();
    assert_eq!(own.half_power[0].bs_bytes, Some(64 * K));
    // The verdict's "half of the advertised 8.5 MB/s" and "128k with QD1" (`half_power` above).
    assert_eq!(a.pap_bytes_per_s, Some(8.5e6));
    assert_eq!(a.half_power[0].bs_bytes, Some(128 * K));
}

/// 000 Figure 6: "Writes need 3-deep 16 KB requests or 8-deep 8 KB requests to reach the
/// half-power point" of the 8.5 MB/s disk.
#[test]
fn gray_deep_writes_reach_half_power_sooner() {
    // MB/s by (size KiB, depth), shaped like Figure 6's write curves.
    let grid: [(u64, [f64; 4]); 4] = [
        (4, [0.9, 1.6, 2.1, 3.3]),
        (8, [1.6, 2.7, 3.6, 4.6]),
        (16, [2.4, 3.7, 4.8, 6.0]),
        (32, [3.0, 4.6, 6.2, 7.4]),
    ];
    let depths = [1, 2, 3, 8];
    let mut pts = Vec::new();
    for (kb, row) in grid {
        for (i, &qd) in depths.iter().enumerate() {
            pts.push(pt(kb * K, qd, row[i], 100.0 * qd as f64));
        }
    }
    let a = analyse(RwMode::Write, 1, &pts, Some(8.5e6)).unwrap();
    let at_qd = |qd| a.half_power.iter().find(|c| c.qd == qd).unwrap().bs_bytes;
    assert_eq!(at_qd(3), Some(16 * K));
    assert_eq!(at_qd(8), Some(8 * K));
    assert_eq!(at_qd(1), None, "QD1 never reaches 4.25 MB/s below 64 KiB");
    let at_bs = |bs| {
        a.half_power_qd
            .iter()
            .find(|c| c.bs_bytes == bs)
            .unwrap()
            .qd
    };
    assert_eq!(at_bs(16 * K), Some(3));
    assert_eq!(at_bs(8 * K), Some(8));
    assert_eq!(at_bs(4 * K), None);
}

#[test]
fn no_knee_while_latency_does_not_rise() {
    // Flat throughput, falling p99: more depth is free, so no knee.
    let pts = vec![
        pt(4 * K, 1, 100.0, 50.0),
        pt(4 * K, 2, 100.0, 40.0),
        pt(4 * K, 4, 100.0, 30.0),
    ];
    let a = analyse(RwMode::Read, 1, &pts, None).unwrap();
    assert_eq!(a.knee_qd[0].qd, None);
    // Without p99 (CSV from another tool) flat throughput alone marks the knee.
    let no_p99: Vec<Sample> = pts
        .into_iter()
        .map(|s| Sample { p99_us: None, ..s })
        .collect();
    let b = analyse(RwMode::Read, 1, &no_p99, None).unwrap();
    assert_eq!(b.knee_qd[0].qd, Some(1));
}

#[test]
fn empty_and_idle_inputs() {
    assert!(analyse(RwMode::Read, 1, &[], None).is_none());
    let idle = vec![pt(4 * K, 1, 0.0, 0.0), pt(8 * K, 1, 0.0, 0.0)];
    let a = analyse(RwMode::Read, 1, &idle, None).unwrap();
    assert_eq!(a.peak_bytes_per_s, 0.0);
    // The verdict's "read peaks at 0.0 MB/s".
    assert_eq!(a.rw, RwMode::Read);
    assert_eq!(format!("{:.1}", a.peak_bytes_per_s / 1e6), "0.0");
    assert!(
        analyse(RwMode::Read, 1, &idle, Some(0.0))
            .unwrap()
            .rap_pap
            .is_none()
    );
}

/// Issue 23 item 17: each conclusion carries its points' intervals. Along QD1 the sizes give
/// 40, 52 and 100 MB/s: half of the 100 MB/s peak is first reached at 16k, 4 % above the mark.
/// Known to ±1 % that crossing stands; known to ±10 % (as short or unsteady points are) 16k
/// could lie below half, so the half-power point is uncertain. The plateau is one point, so
/// ±10 % also leaves the peak uncertain (more than the plateau's 5 %).
#[test]
fn intervals_decide_whether_a_conclusion_stands() {
    let line = |ci: f64, steady: Option<bool>| -> Vec<Sample> {
        [(4, 40.0), (16, 52.0), (64, 100.0)]
            .iter()
            .map(|&(kb, mb)| Sample {
                ci95_pct: Some(ci),
                steady,
                ..pt(kb * K, 1, mb, 100.0)
            })
            .collect()
    };
    let firm = analyse(RwMode::Read, 1, &line(1.0, Some(true)), None).unwrap();
    assert_eq!(firm.half_power[0].bs_bytes, Some(16 * K));
    assert!(
        firm.half_power_support.firm(),
        "{:?}",
        firm.half_power_support
    );
    // 16k and the 4k before it along size; along depth each size's QD1 (16k, 64k).
    assert_eq!(firm.half_power_support.points, 3);
    assert!(firm.peak_support.firm());
    let loose = analyse(RwMode::Read, 1, &line(10.0, Some(true)), None).unwrap();
    assert!(loose.half_power_support.uncertain);
    assert!(loose.peak_support.uncertain);
    assert_eq!(loose.half_power_support.ci95_pct_max, Some(10.0));
    let unsteady = analyse(RwMode::Read, 1, &line(1.0, Some(false)), None).unwrap();
    assert_eq!(unsteady.peak_support.unsteady, 1);
    assert_eq!(unsteady.half_power_support.unsteady, 3);
    assert!(!unsteady.half_power_support.firm());
    // The knee: 4k → 16k → 64k along QD1 grows > 10 % per doubling: no knee, no support.
    assert_eq!(firm.knee_support.points, 0);
}
