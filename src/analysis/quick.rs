//! What the quick suite found: how the device looks against what is typical for its class, and
//! how far one request at a time is from deep queues (the half-power view). Render words it.

use crate::model::quick::{OnCredits, Qd1Reach, QuickFinding, Relation, VsTypical, WritesAhead};
use crate::model::{Direction, QuickTest, TargetInfo};
use crate::plan::RwMode;

/// Writes this much faster than the same test's reads point at a write-behind cache.
pub const WRITES_AHEAD: f64 = 1.2;

/// Below this share of the deep-queue figure, QD1 is said to leave the device idle.
pub const PARALLEL_SHARE: f64 = 0.5;

/// The test of direction `dir` and `rw` with `inflight` I/Os in flight (depth × threads, so a
/// suite the sync engine ran with threads counts the same).
fn test(tests: &[QuickTest], rw: RwMode, dir: Direction, inflight: u32) -> Option<&QuickTest> {
    tests.iter().find(|t| {
        t.workload.rw == rw && t.direction == dir && t.workload.qd * t.workload.threads == inflight
    })
}

/// How `measured` stands against `typical`: above beyond 1.5×, below under ÷ 1.5.
fn compare(measured: f64, typical: f64) -> Relation {
    if measured > typical * 1.5 {
        Relation::Above
    } else if measured < typical / 1.5 {
        Relation::Below
    } else {
        Relation::About
    }
}

/// Whether a limit that is not the device's bound test `t`'s window: its figures are the
/// limit's.
fn bound(t: &QuickTest) -> bool {
    t.results.limits.iter().any(|l| l.binds)
}

/// What a quick suite on `target` found: its sequential and deep random read figures against
/// the class's typical ones, and QD1 against QD32 (`render::text::quick::verdict` words
/// it).
pub fn finding(target: &TargetInfo, tests: &[QuickTest]) -> QuickFinding {
    let class = target.class.unwrap_or_default();
    let limited: Vec<usize> = (0..tests.len()).filter(|&i| bound(&tests[i])).collect();
    let seq_test = test(tests, RwMode::Read, Direction::Read, 8);
    let deep_test = test(tests, RwMode::Randread, Direction::Read, 32);
    let qd1_test = test(tests, RwMode::Randread, Direction::Read, 1);
    let seq = seq_test.map(|t| t.results.total.mb_per_s);
    let deep = deep_test.map(|t| t.results.total.iops);
    let qd1 = qd1_test.map(|t| t.results.total.iops);
    // A limit's figure judged as the device's would mislead: no comparison with the class, and
    // no QD1 share, where a limit bound either side.
    let free = |ts: &[Option<&QuickTest>]| !ts.iter().flatten().any(|t| bound(t));
    let (seq_free, qd_free) = (free(&[seq_test, deep_test]), free(&[qd1_test, deep_test]));
    let typical = match (super::expect::typical(class).peak, seq, deep) {
        _ if !seq_free => None,
        (Some((ts, ti)), Some(s), Some(d)) => Some(VsTypical {
            seq_mb_s: ts,
            iops: ti,
            seq: compare(s, ts),
            random: compare(d, ti),
        }),
        _ => None,
    };
    let qd1 = qd1.zip(deep).filter(|_| qd_free).map(|(one, d)| {
        let share = one / d.max(f64::MIN_POSITIVE);
        Qd1Reach {
            share,
            needs_parallel: share < PARALLEL_SHARE,
        }
    });
    let on_credits = tests.iter().enumerate().find_map(|(i, t)| {
        let b = t.results.bucket.as_ref()?;
        Some(OnCredits {
            test: i,
            burst_iops: b.burst_iops,
            baseline_iops: b.baseline_iops,
            ended_at_s: b.ended_at_s,
        })
    });
    QuickFinding {
        seq_mb_s: seq,
        deep_iops: deep,
        typical,
        qd1,
        on_credits,
        writes_ahead: writes_ahead(tests),
        limited,
    }
}

/// The test whose writes led its reads most, when by [`WRITES_AHEAD`] or more (a test a
/// limit bound is left out: its two figures are the limit's).
fn writes_ahead(tests: &[QuickTest]) -> Option<WritesAhead> {
    let free = |t: &&QuickTest| !bound(t);
    tests
        .iter()
        .filter(|t| t.direction == Direction::Write)
        .filter(free)
        .filter_map(|w| {
            let r = tests
                .iter()
                .filter(free)
                .find(|r| r.direction == Direction::Read && r.name == w.name)?;
            let (wm, rm) = (w.results.total.mb_per_s, r.results.total.mb_per_s);
            (rm > 0.0 && wm >= WRITES_AHEAD * rm).then(|| WritesAhead {
                test: w.name.clone(),
                ratio: wm / rm,
                write_mb_s: wm,
                read_mb_s: rm,
            })
        })
        .max_by(|a, b| a.ratio.total_cmp(&b.ratio))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DeviceClass, Results, TargetKind};
    use crate::plan::Workload;
    use crate::units::ByteSize;

    fn t(rw: RwMode, bs: u64, qd: u32, mb_s: f64, iops: f64) -> QuickTest {
        let mut results = Results::default();
        results.total.mb_per_s = mb_s;
        results.total.iops = iops;
        QuickTest {
            name: String::new(),
            direction: Direction::Read,
            workload: Workload {
                rw,
                bs: ByteSize(bs).into(),
                qd,
                ..Workload::default()
            },
            results,
            repeat: None,
        }
    }

    fn target(class: Option<DeviceClass>) -> TargetInfo {
        TargetInfo {
            path: "/data/halfpower.tst".into(),
            kind: TargetKind::File,
            created: true,
            capacity_bytes: 1 << 30,
            offset_bytes: 0,
            size_bytes: 1 << 30,
            direct: true,
            direct_fallback: None,
            dio_mem_align: 512,
            dio_offset_align: 512,
            device: Some("sda".into()),
            partition: None,
            logical_block_size: Some(512),
            rotational: Some(false),
            class,
            scheduler: None,
            model: None,
        }
    }

    /// A cap that binds in the deep random reads: their figure is the cap's, so neither the
    /// class's typical figures nor the QD1 share judge it, and the test is listed.
    #[test]
    fn a_test_a_limit_bound_is_not_judged_as_the_device() {
        use crate::model::policy::{GivenField, LimitReach, PolicyLimit, ReachFrom};
        let mut tests = vec![
            t(RwMode::Read, 1 << 20, 8, 540.0, 515.0),
            t(RwMode::Randread, 4096, 32, 8.2, 2000.0),
            t(RwMode::Randread, 4096, 1, 8.0, 1950.0),
        ];
        let free = finding(&target(Some(DeviceClass::Ssd)), &tests);
        assert!(free.typical.is_some() && free.qd1.is_some() && free.limited.is_empty());
        tests[1].results.limits.push(LimitReach {
            limit: PolicyLimit::Given {
                target: "/data/halfpower.tst".into(),
                field: GivenField::Iops,
                value: 2000.0,
            },
            allowed: 2000.0,
            measured: 2000.0,
            from: ReachFrom::Run,
            used: 1.0,
            throttled_share: None,
            binds: true,
        });
        let f = finding(&target(Some(DeviceClass::Ssd)), &tests);
        assert_eq!((f.typical, f.qd1, f.limited), (None, None, vec![1]));
        assert_eq!(f.deep_iops, Some(2000.0), "the figure is still said");
    }

    /// This VM's virtio disk: sequential writes at 4442 MB/s against reads at 3158, random
    /// ones at 54k against 113k IOPS: the sequential test's writes lead, by 1.41.
    #[test]
    fn writes_that_outrun_reads_are_found() {
        let named = |mut t: QuickTest, name: &str, dir: Direction| {
            t.name = name.into();
            t.direction = dir;
            t
        };
        let mut tests = vec![
            named(
                t(RwMode::Read, 1 << 20, 8, 3158.0, 3012.0),
                "SEQ1M Q8T1",
                Direction::Read,
            ),
            named(
                t(RwMode::Write, 1 << 20, 8, 4442.0, 4236.0),
                "SEQ1M Q8T1",
                Direction::Write,
            ),
            named(
                t(RwMode::Randread, 4096, 32, 463.0, 113_000.0),
                "RND4K Q32T1",
                Direction::Read,
            ),
            named(
                t(RwMode::Randwrite, 4096, 32, 221.0, 54_000.0),
                "RND4K Q32T1",
                Direction::Write,
            ),
        ];
        let f = finding(&target(Some(DeviceClass::Virtual)), &tests);
        let w = f.writes_ahead.expect("the sequential writes lead");
        assert_eq!(
            (w.test.as_str(), w.write_mb_s, w.read_mb_s),
            ("SEQ1M Q8T1", 4442.0, 3158.0)
        );
        assert!((w.ratio - 4442.0 / 3158.0).abs() < 1e-12);
        // Within the margin, nothing is said.
        tests[1].results.total.mb_per_s = 3700.0;
        assert_eq!(finding(&target(None), &tests).writes_ahead, None);
    }

    /// An SSD whose QD1 random reads reach 14 % of QD32: it needs parallel requests. (What
    /// is said of its device and the next command to run is render's: `render::text::quick`.)
    #[test]
    fn an_ssd_that_needs_parallel_requests() {
        let tests = vec![
            t(RwMode::Read, 1 << 20, 8, 540.0, 515.0),
            t(RwMode::Randread, 4096, 32, 368.0, 90_000.0),
            t(RwMode::Randread, 4096, 1, 51.6, 12_600.0),
        ];
        let f = finding(&target(Some(DeviceClass::Ssd)), &tests);
        assert_eq!((f.seq_mb_s, f.deep_iops), (Some(540.0), Some(90_000.0)));
        // About a typical SSD (500 MB/s) and its 80 000 IOPS.
        assert_eq!(
            f.typical,
            Some(VsTypical {
                seq_mb_s: 500.0,
                iops: 80_000.0,
                seq: Relation::About,
                random: Relation::About,
            })
        );
        let q = f.qd1.unwrap();
        assert_eq!((q.share * 100.0).round(), 14.0, "QD1 reaches 14 % of QD32");
        assert!(q.needs_parallel);
    }

    /// A disk that QD1 already saturates, of a class without typical figures.
    #[test]
    fn latency_bound_and_no_typical_figures() {
        let tests = vec![
            t(RwMode::Read, 1 << 20, 8, 200.0, 190.0),
            t(RwMode::Randread, 4096, 32, 0.8, 200.0),
            t(RwMode::Randread, 4096, 1, 0.7, 180.0),
        ];
        let f = finding(&target(Some(DeviceClass::Virtual)), &tests);
        let q = f.qd1.unwrap();
        assert_eq!((q.share * 100.0).round(), 90.0, "QD1 already reaches 90 %");
        assert!(!q.needs_parallel);
        assert_eq!(f.typical, None, "no typical figures");
        // The sync engine's threads count as depth.
        let mut threaded = tests.clone();
        threaded[1].workload.qd = 1;
        threaded[1].workload.threads = 32;
        let q = finding(&target(None), &threaded).qd1.unwrap();
        assert_eq!((q.share * 100.0).round(), 90.0);
    }

    /// Figures far from the typical ones are above or below them; a suite without its deep
    /// random reads has neither the comparison nor QD1's share.
    #[test]
    fn above_below_and_unfinished() {
        let tests = vec![
            t(RwMode::Read, 1 << 20, 8, 2000.0, 2000.0),
            t(RwMode::Randread, 4096, 32, 40.0, 10_000.0),
            t(RwMode::Randread, 4096, 1, 20.0, 5_000.0),
        ];
        let t = finding(&target(Some(DeviceClass::Ssd)), &tests)
            .typical
            .unwrap();
        assert_eq!((t.seq, t.random), (Relation::Above, Relation::Below));
        let f = finding(&target(Some(DeviceClass::Ssd)), &tests[..1]);
        assert_eq!((f.seq_mb_s, f.deep_iops), (Some(2000.0), None));
        assert_eq!((f.typical, f.qd1), (None, None));
    }

    /// A test whose series shows a credit bucket: the suite ran on credits.
    #[test]
    fn a_test_on_credits_is_named() {
        let mut tests = vec![
            t(RwMode::Read, 1 << 20, 8, 200.0, 190.0),
            t(RwMode::Randread, 4096, 32, 3.8, 929.0),
        ];
        assert_eq!(finding(&target(None), &tests).on_credits, None);
        tests[1].results.bucket = Some(crate::model::bucket::Bucket {
            burst_iops: 1931.0,
            baseline_iops: 500.0,
            ended_at_s: 7.0,
            ..Default::default()
        });
        let c = finding(&target(None), &tests).on_credits.unwrap();
        assert_eq!(
            (c.test, c.burst_iops, c.baseline_iops, c.ended_at_s),
            (1, 1931.0, 500.0, 7.0)
        );
    }
}
