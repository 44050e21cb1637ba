//! The workload's validation and lowering, checked.

use super::*;

#[test]
fn an_engine_that_cannot_queue_lowers_the_depth_or_adds_threads() {
    let deep = Workload {
        qd: 32,
        threads: 2,
        setup: Setup {
            spin: Dur(Duration::from_micros(20)),
            ..Setup::default()
        },
        ..Workload::default()
    };
    let low = deep.lowered(EngineKind::Sync, DepthOnEngine::Lower);
    assert_eq!(
        (low.qd, low.threads, low.setup.spin.0),
        (1, 2, Duration::ZERO)
    );
    // The same 64 I/Os in flight as 64 threads of one.
    let wide = deep.lowered(EngineKind::Sync, DepthOnEngine::AsThreads);
    assert_eq!((wide.qd, wide.threads), (1, 64));
    let same = deep.lowered(EngineKind::Uring, DepthOnEngine::Lower);
    assert_eq!(
        (same.qd, same.threads, same.setup.spin),
        (32, 2, deep.setup.spin)
    );
    let null = deep.lowered(EngineKind::Null, DepthOnEngine::Lower);
    assert_eq!((null.qd, null.setup.spin.0), (32, Duration::ZERO));
    let refused = Workload {
        setup: Setup {
            engine: EngineKind::Sync,
            ..Setup::default()
        },
        ..deep
    };
    let e = refused.validated().unwrap_err().to_string();
    assert!(e.contains("at most 1 with --engine sync"), "{e}");
}

#[test]
fn defaults_are_filled() {
    let w = Workload::default().validated().unwrap();
    assert_eq!(w.read_pct, Some(100));
    assert_eq!(w.setup.time, Some(Dur(DEFAULT_TIME)));
    let mixed = Workload {
        rw: RwMode::Randrw,
        ..Workload::default()
    };
    assert_eq!(mixed.validated().unwrap().read_pct, Some(50));
}

#[test]
fn bytes_mode_has_no_default_time_and_counts_ios() {
    let w = Workload {
        setup: Setup {
            bytes: Some(ByteSize(64 << 20)),
            ..Setup::default()
        },
        ..Workload::default()
    }
    .validated()
    .unwrap();
    assert_eq!(w.setup.time, None);
    assert_eq!(w.io_budget(), Some(16384));
}

#[test]
fn refusals_name_the_value() {
    let cases: Vec<(Workload, &str)> = vec![
        (
            Workload {
                qd: 0,
                ..Default::default()
            },
            "--qd '0'",
        ),
        (
            Workload {
                threads: 0,
                ..Default::default()
            },
            "--threads '0'",
        ),
        (
            Workload {
                bs: ByteSize(0).into(),
                ..Default::default()
            },
            "--bs '0'",
        ),
        (
            Workload {
                setup: Setup {
                    engine: EngineKind::Sync,
                    ..Setup::default()
                },
                qd: 4,
                ..Default::default()
            },
            "--qd '4'",
        ),
        (
            Workload {
                read_pct: Some(101),
                rw: RwMode::Rw,
                ..Default::default()
            },
            "--read-pct '101'",
        ),
        (
            Workload {
                read_pct: Some(30),
                ..Default::default()
            },
            "--read-pct '30'",
        ),
        (
            Workload {
                setup: Setup {
                    bytes: Some(ByteSize(6000)),
                    ..Setup::default()
                },
                ..Default::default()
            },
            "--bytes '6000'",
        ),
        (
            Workload {
                setup: Setup {
                    size: Some(ByteSize(512)),
                    ..Setup::default()
                },
                ..Default::default()
            },
            "--size '512'",
        ),
        (
            Workload {
                setup: Setup {
                    time: Some(Dur(Duration::ZERO)),
                    ..Setup::default()
                },
                ..Default::default()
            },
            "--time '0s'",
        ),
    ];
    for (w, want) in cases {
        let err = w.validated().unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains(want), "{err} lacks {want}");
    }
}

#[test]
fn json_round_trip() {
    let w = Workload::default().validated().unwrap();
    let text = serde_json::to_string(&w).unwrap();
    let back: Workload = serde_json::from_str(&text).unwrap();
    assert_eq!(w, back);
}
