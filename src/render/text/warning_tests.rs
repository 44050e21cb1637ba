//! Each warning's sentence, as halfpower said it before warnings were kinds.

use super::*;
use crate::model::Direction;
use crate::model::cause::{DirectFallback, EngineFallback, Fatal, IoFailure, Stage};
use crate::model::fio::{FioNote, FioNoteKind};
use crate::model::profile::{NegativeSlope, Pattern};
use crate::model::pts::{Purge, PurgeMethod, PurgeState};
use crate::model::sweep::Support;
use crate::model::verify::Verification;
use crate::model::warning::Conclusion;
use crate::plan::{Create, EngineKind, RwMode};

fn said(w: Warning) -> String {
    w.to_string()
}

/// The sentences are the ones halfpower printed before warnings were kinds, byte for byte
/// (each expected text below is the format string of the code it replaced, filled in).
#[test]
fn each_kind_says_what_it_said_before() {
    assert_eq!(
        said(Warning::DirectUnavailable {
            path: "/mnt/f".into(),
            fallback: DirectFallback::Unsupported
        }),
        "/mnt/f: direct I/O unavailable (the filesystem does not support direct I/O for this \
         file); running buffered, so reads may come from the page cache. Put the target on a \
         filesystem that supports O_DIRECT (ext4, xfs) or use a block device."
    );
    assert_eq!(
        said(Warning::Sparse {
            path: "/f".into(),
            allocated: 4096,
            len: 1 << 20
        }),
        "/f: the file is sparse (4096 of 1048576 bytes allocated); reads of holes never \
         reach the disk. Fill it first (e.g. let halfpower create it) or give a block device."
    );
    assert_eq!(
        said(Warning::BufferedPoints),
        "points run buffered (--buffered): the page cache carries one point's data into the \
         next, so reads may be cache hits rather than device I/O. Leave out --buffered for \
         independent points"
    );
    let off = EngineFallback::UringUnavailable {
        error: "Operation not permitted (os error 1)".into(),
    };
    assert_eq!(
        said(Warning::RunOnSync {
            fallback: off.clone(),
            qd: 32
        }),
        "io_uring unavailable (Operation not permitted (os error 1)); running --engine sync \
         with 1 I/O in flight per thread instead of QD 32. Enable io_uring (sysctl \
         kernel.io_uring_disabled=0) or use --threads for parallelism"
    );
    assert_eq!(
        said(Warning::PointsOnSync(off)),
        "io_uring unavailable (Operation not permitted (os error 1)); every point runs on the \
         sync engine, one I/O in flight per thread"
    );
    assert_eq!(
        said(Warning::PointFailed {
            label: "4k QD1".into(),
            errors: 3,
            fatal: Some(Fatal {
                stage: Stage::Submitting,
                error: "x".into(),
                rank: None
            })
        }),
        "4k QD1: 3 I/O errors, stopped: submitting I/O: x; its figures cover the I/Os that \
         completed. Check the device (dmesg) before trusting this point"
    );
    assert_eq!(
        said(Warning::RepetitionFailed {
            repetition: 2,
            errors: 5,
            fatal: None
        }),
        "repetition 2: 5 I/O errors; its figures cover the I/Os that completed. Check the \
         device (dmesg) before trusting this point"
    );
    assert_eq!(
        said(Warning::IoFailed {
            count: 3,
            first: Some(IoFailure::Short),
            offset: 4096
        }),
        "3 I/Os failed (first: short transfer at offset 4096); the figures count only the \
         successful ones. Check the device's kernel log (dmesg) and free space"
    );
    assert_eq!(
        said(Warning::Interrupted),
        "interrupted: the figures cover only the time measured before Ctrl-C"
    );
}

#[test]
fn figures_tests_ranks_and_logs_say_what_they_said_before() {
    let short = Shortfall {
        paths: "f".into(),
        disk: "loop1".into(),
        app: 7_500_000_000,
        device: 12_000,
        pct: 100.0,
    };
    assert_eq!(
        said(Warning::ReadFromCache(short.clone())),
        "f: read 7.5 GB, the device (loop1) read 0.0 MB: 100 % came from a cache (the page \
         cache, for buffered reads) or a file system that compresses or deduplicates, so the \
         read figures are not the device's"
    );
    let test = Warning::OfTest {
        test: "SEQ1M Q8T1".into(),
        direction: Direction::Write,
        warning: Box::new(Warning::WriteShortfall(short)),
    };
    assert_eq!(
        said(test),
        "SEQ1M Q8T1 write: f: wrote 7.5 GB, the device (loop1) wrote 0.0 MB in the window: \
         100 % did not reach it (still in the page cache, or compressed or deduplicated on \
         the way), so the write figures are not the device's"
    );
    let rank = Warning::OfRank {
        rank: 1,
        warning: Box::new(Warning::Written("as the file says".into())),
    };
    assert_eq!(said(rank), "rank 1: as the file says");
    assert_eq!(
        said(Warning::TooFastForRotating {
            path: "/f".into(),
            p50_us: 172.46,
            device: Some("vda".into())
        }),
        "/f: median random-read latency 172.5 µs is too low for a rotating disk (vda); the \
         reads hit a cache (drive or controller) or a tiny region, or the disk is not really \
         rotational. Use a larger --size than the cache"
    );
    let line = |line, problem| Warning::LogLine {
        path: "x.jsonl".into(),
        line,
        problem,
    };
    let newer = LineProblem::NewerSchema {
        version: 3.0,
        supported: 2,
    };
    assert_eq!(
        said(line(4, newer)),
        "x.jsonl:4: schema_version 3 is newer than this halfpower reads (2); line skipped"
    );
    let fields = LineProblem::CsvFields {
        fields: 3,
        header: 5,
    };
    assert_eq!(
        said(line(2, fields)),
        "x.jsonl:2: 3 fields where the header has 5 (truncated line?); line skipped"
    );
    assert_eq!(
        said(Warning::NoCounter {
            path: "perf.csv".into(),
            disk: "PhysicalDisk(0 C:)".into(),
            counter: "% Idle Time".into()
        }),
        "perf.csv: PhysicalDisk(0 C:) has no '% Idle Time' counter; the rules that need it \
         are skipped"
    );
}

#[test]
fn commands_warnings_say_what_they_said_before() {
    assert_eq!(
        said(Warning::ProfileUnmatched {
            devices: vec!["sda".into(), "sdb".into()]
        }),
        "the profile is for sda or sdb, which no log holds; every device is judged by its \
         class (name the device with --profile-device)"
    );
    assert_eq!(
        said(Warning::IdleDisk {
            cells: 18,
            rw: Direction::Write,
            pattern: Pattern::Sequential,
            bs_bytes: 4096,
            util_pct: 33.2
        }),
        "18 of the QD1 cells kept the disk less than 90 % busy (lowest: write sequential 4k \
         at 33 %), so their S = 1/IOPS includes host time between I/Os; the disk's own U/X \
         is in the dev S column (JSON device_service_ms). A virtual or stacked device may \
         not report %util faithfully"
    );
    assert_eq!(
        said(Warning::IssuedLate {
            speed: 2.0,
            late_us: 200.0,
            share: 0.05,
            mean_us: 100.0,
            attempt: 1,
            of: 2
        }),
        "speed 2: requests were issued 200 µs late on average, over 5 % of the mean response \
         time (100 µs), with slots free: the CPU was not the replayer's; replaying it again \
         (1 of 2)"
    );
    assert_eq!(
        said(Warning::FioRateMin {
            job: "j".into(),
            direction: Direction::Read,
            iops: true,
            min: 100,
            value: 50.4,
            second: 2
        }),
        "job 'j': read rate_iops_min 100 IOPS not met: 50 IOPS in second 2"
    );
    assert_eq!(
        said(Warning::FioIgnored {
            origin: "jobs.fio:3".into(),
            option: "foo".into()
        }),
        "jobs.fio:3: option 'foo' is not supported by halfpower fio; ignored (--ignore-unknown)"
    );
    assert_eq!(
        said(Warning::ExperimentShallow {
            qd: 1,
            engine: EngineKind::Sync
        }),
        "io_uring unavailable: points run at QD1 on the sync engine"
    );
    assert_eq!(
        said(Warning::ShortPrecondition {
            bytes: 1 << 30,
            capacity: 1 << 30
        }),
        format!(
            "preconditioning wrote {} where PTS asks twice the capacity ({}): the rounds may \
             start from a state PTS would not measure",
            ByteSize(1 << 30),
            ByteSize(2 << 30)
        )
    );
}

/// One of every kind (bar those whose data is a whole document's).
fn one_of_every_kind() -> Vec<Warning> {
    let support = Support {
        points: 2,
        unsteady: 1,
        ci95_pct_max: Some(3.0),
        uncertain: false,
    };
    let purge = Purge {
        state: PurgeState::NotSupported,
        method: PurgeMethod::None,
        bytes: 0,
        error: None,
    };
    let short = Shortfall {
        paths: "f".into(),
        disk: "sda".into(),
        app: 1 << 30,
        device: 0,
        pct: 100.0,
    };
    let note = FioNote {
        job: "j".into(),
        kind: FioNoteKind::Libaio,
    };
    vec![
        Warning::Written("as written".into()),
        Warning::CreateDoesNotApply {
            path: "f".into(),
            create: Create::Sparse,
        },
        Warning::QuickOnSync(EngineFallback::UringUnavailable { error: "e".into() }),
        Warning::ExperimentBuffered { path: "f".into() },
        Warning::ZeroedReads {
            path: "f".into(),
            share: 0.25,
            zero_sectors: 1,
            sectors: 4,
            reads: 1,
        },
        Warning::BufferedReads {
            path: "f".into(),
            p50_us: 1.0,
        },
        Warning::MemoryBacked {
            path: "f".into(),
            p50_us: 1.0,
        },
        Warning::ReadFromCache(short.clone()),
        Warning::WriteShortfall(short),
        Warning::Caveat {
            rw: RwMode::Randread,
            threads: 1,
            conclusion: Conclusion::Knee,
            rap_pap: None,
            support,
        },
        Warning::NotPurged {
            target: "t".into(),
            purge,
        },
        Warning::NegativeSlope {
            rw: Direction::Read,
            pattern: Pattern::Random,
            ms_per_kib: -0.001,
            why: NegativeSlope::Cache,
        },
        Warning::TracerLost(3),
        Warning::NoLoopCounters,
        Warning::OtherFile {
            file: "a".into(),
            target: "b".into(),
        },
        Warning::NotReplayed { syncs: 1, trims: 2 },
        Warning::Fio(note),
        Warning::FioBadBlocks {
            job: "j".into(),
            verification: Box::new(Verification::default()),
        },
        Warning::FirstReport { path: "io".into() },
        Warning::MoreLines(3),
        Warning::WorkloadsDiffer(vec![crate::model::compare::WorkloadDifference::Access(
            vec![crate::model::compare::AccessSetting::Rate],
        )]),
        Warning::Setting(Box::new(crate::model::doctor::Check {
            kind: crate::model::doctor::CheckKind::Iostats,
            scope: crate::model::doctor::Scope::Device {
                device: "loop3".into(),
            },
            file: "/sys/block/loop3/queue/iostats".into(),
            value: Some("0".into()),
            wanted: "1".into(),
            figure: None,
            verdict: crate::model::doctor::Verdict::Warn,
            fix: None,
        })),
    ]
}

/// One of every kind: each has words of its own (none falls through to an empty sentence),
/// and a document writes it as those words.
#[test]
fn every_kind_has_a_sentence() {
    for w in one_of_every_kind() {
        let s = said(w.clone());
        assert!(s.len() > 1, "{w:?}");
        assert_eq!(serde_json::to_value(&w).unwrap(), s);
    }
}

/// Every reason a log line is skipped says that it is.
#[test]
fn every_line_problem_says_the_line_is_skipped() {
    for p in [
        LineProblem::UnreadableCsv("e".into()),
        LineProblem::Fields {
            fields: 1,
            header: 2,
        },
        LineProblem::OutsideReport,
        LineProblem::AvgCpu,
        LineProblem::NoRates,
        LineProblem::ZeroInterval,
        LineProblem::UnreadableTime("t".into()),
        LineProblem::NoTransferRate("d".into()),
        LineProblem::NotAnObject,
        LineProblem::MalformedJson("e".into()),
        LineProblem::NoSchemaVersion,
        LineProblem::NoDeviceOrTime,
        LineProblem::NoInterval,
        LineProblem::NoRecordRates("d".into()),
    ] {
        assert!(line_problem(&p).ends_with("skipped"), "{p:?}");
    }
}
