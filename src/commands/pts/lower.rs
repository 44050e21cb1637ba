//! `pts`'s flags lowered once ([`lower`]) into its command: the test's matrix and outstanding
//! I/O, the region's setup, every refusal made before the target is touched.

use crate::cli::PtsArgs;
use crate::commands::Exporter;
use crate::commands::lower::distinct;
use crate::error::Error;
use crate::model::pts::{Mix, PtsTest, TrackFigure, Tracking};
use crate::plan::{EngineKind, Setup};
use crate::units::{ByteSize, Dur};
use std::path::PathBuf;
use std::time::Duration;

/// PTS's read/write mixes of the IOPS test, in its order.
const IOPS_MIXES: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];
/// PTS's request sizes of the IOPS test, largest first as it runs them.
const IOPS_SIZES: [u64; 8] = [
    1 << 20,
    128 << 10,
    64 << 10,
    32 << 10,
    16 << 10,
    8 << 10,
    4 << 10,
    512,
];

/// One track to run: its matrix and what must settle.
#[derive(Clone, Debug)]
pub(super) struct TrackPlan {
    /// The cell whose figure must settle, and which figure.
    pub(super) tracking: Tracking,
    /// Sequential cells (the throughput test), else random.
    pub(super) sequential: bool,
    /// The matrix's request sizes, bytes, in the order they run.
    pub(super) bs: Vec<u64>,
    /// The matrix's read/write mixes, in the order they run.
    pub(super) mixes: Vec<Mix>,
}

/// What a test runs: its tracks and outstanding I/O.
#[derive(Clone, Debug)]
pub(super) struct TestPlan {
    /// The tracks, each purged, preconditioned and run to steady state in turn.
    pub(super) tracks: Vec<TrackPlan>,
    /// `--threads`, or the test's.
    pub(super) threads: u32,
    /// `--qd`, or the test's.
    pub(super) qd: u32,
}

/// `pts`'s options lowered once ([`lower`]): nothing after the lowering reads its clap struct.
pub(super) struct PtsCommand {
    /// TARGET.
    pub(super) target: PathBuf,
    /// `--test`.
    pub(super) test: PtsTest,
    /// The test's tracks (`--bs`, `--mix`) and outstanding I/O (`--threads`, `--qd`).
    pub(super) plan: TestPlan,
    /// The setup every point shares: the region (`--size`), `--engine`, the permissions.
    pub(super) base: Setup,
    /// `--round`: the time of each cell in a round.
    pub(super) round: Dur,
    /// `--precondition`'s bytes, if given.
    pub(super) precondition: Option<ByteSize>,
    /// `--wsat-bytes`, if given.
    pub(super) wsat_bytes: Option<ByteSize>,
    /// `--quiet`.
    pub(super) quiet: bool,
}

/// Lowers `pts`'s flags, once, into its command and its exporter (every output checked),
/// refusing what cannot run before anything does.
pub(super) fn lower(args: &PtsArgs) -> anyhow::Result<(PtsCommand, Exporter<'_>)> {
    let exporter = Exporter::checked(&args.output)?;
    let plan = test_plan(args)?;
    check_safety(args)?;
    let cmd = PtsCommand {
        target: args.target.clone(),
        test: args.test,
        plan,
        base: setup(args),
        round: args.round,
        precondition: args.precondition,
        wsat_bytes: args.wsat_bytes,
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// The mixes of these read percentages.
fn mixes(pcts: &[u8]) -> Vec<Mix> {
    pcts.iter().map(|&read_pct| Mix { read_pct }).collect()
}

/// Refuses a list that leaves out the tracking value (`what` names the flag).
fn needs<T: PartialEq + std::fmt::Display>(
    what: &'static str,
    list: &[T],
    value: T,
    shown: &str,
    test: PtsTest,
) -> crate::Result<()> {
    if list.contains(&value) {
        return Ok(());
    }
    let given: Vec<String> = list.iter().map(ToString::to_string).collect();
    Err(Error::invalid(
        what,
        given.join(","),
        format!(
            "a list that holds {shown}: the {} test tracks it",
            test.name()
        ),
    ))
}

/// The test's tracks from its defaults and `--bs`/`--mix`, and its outstanding I/O; refuses
/// lists that repeat a value or leave out the tracking cell, and an outstanding I/O PTS fixes.
fn test_plan(args: &PtsArgs) -> crate::Result<TestPlan> {
    let (tracks, oio) = track_plans(args)?;
    check_lists(args, &tracks)?;
    let threads = crate::cli::one("--threads", &args.threads.given)?.unwrap_or(oio.0);
    let qd = crate::cli::one("--qd", &args.qd.given)?.unwrap_or(oio.1);
    if args.test == PtsTest::Latency && (threads, qd) != (1, 1) {
        let (what, v) = if threads != 1 {
            ("--threads", threads)
        } else {
            ("--qd", qd)
        };
        return Err(Error::invalid(
            what,
            v,
            "1: the latency test runs one thread at QD1, as PTS fixes it",
        ));
    }
    Ok(TestPlan {
        tracks,
        threads,
        qd,
    })
}

/// The test's tracks from its defaults and `--bs`/`--mix`, and PTS's outstanding I/O for it
/// (threads, queue depth).
fn track_plans(args: &PtsArgs) -> crate::Result<(Vec<TrackPlan>, (u32, u32))> {
    let bs_given: Vec<u64> = args.bs.sizes()?.iter().map(|b| b.0).collect();
    let or = |given: &[u64], default: &[u64]| {
        if given.is_empty() {
            default.to_vec()
        } else {
            given.to_vec()
        }
    };
    let mix_or = |default: &[u8]| {
        if args.mix.is_empty() {
            mixes(default)
        } else {
            args.mix.clone()
        }
    };
    let tracking = |bs_bytes, figure| Tracking {
        bs_bytes,
        mix: Mix { read_pct: 0 },
        figure,
    };
    let random = |bs: Vec<u64>, mixes: Vec<Mix>, t: Tracking| TrackPlan {
        tracking: t,
        sequential: false,
        bs,
        mixes,
    };
    let (tracks, oio) = match args.test {
        PtsTest::Iops => {
            let t = tracking(4096, TrackFigure::Iops);
            let plan = random(or(&bs_given, &IOPS_SIZES), mix_or(&IOPS_MIXES), t);
            (vec![plan], (4, 32))
        }
        PtsTest::Latency => {
            let t = tracking(4096, TrackFigure::MeanLatencyUs);
            let plan = random(
                or(&bs_given, &[8 << 10, 4 << 10, 512]),
                mix_or(&[100, 65, 0]),
                t,
            );
            (vec![plan], (1, 1))
        }
        PtsTest::Throughput => {
            let m = mix_or(&[100, 0]);
            let tracks = or(&bs_given, &[128 << 10, 1 << 20])
                .into_iter()
                .map(|bs| TrackPlan {
                    tracking: tracking(bs, TrackFigure::BytesPerS),
                    sequential: true,
                    bs: vec![bs],
                    mixes: m.clone(),
                })
                .collect();
            (tracks, (4, 32))
        }
        PtsTest::Wsat => {
            let bs = or(&bs_given, &[4096]);
            let m = mix_or(&[0]);
            let t = Tracking {
                bs_bytes: bs[0],
                mix: m[0],
                figure: TrackFigure::Iops,
            };
            (vec![random(bs, m, t)], (4, 32))
        }
    };
    Ok((tracks, oio))
}

/// Refuses repeated values, a matrix without its tracking cell, and WSAT lists of more than
/// one value.
fn check_lists(args: &PtsArgs, tracks: &[TrackPlan]) -> crate::Result<()> {
    let bs = args.bs.sizes()?;
    if !bs.is_empty() {
        distinct("--bs", &bs)?;
    }
    if !args.mix.is_empty() {
        distinct("--mix", &args.mix)?;
    }
    if args.test == PtsTest::Wsat {
        if bs.len() > 1 {
            return Err(Error::invalid(
                "--bs",
                bs.len(),
                "one request size for wsat (it writes one workload over time)",
            ));
        }
        if args.mix.len() > 1 || args.mix.iter().any(|m| m.read_pct == 100) {
            let given: Vec<String> = args.mix.iter().map(ToString::to_string).collect();
            return Err(Error::invalid(
                "--mix",
                given.join(","),
                "one mix with writes for wsat (it writes one workload until --wsat-bytes)",
            ));
        }
        return Ok(());
    }
    for t in tracks {
        needs("--mix", &t.mixes, t.tracking.mix, "0/100", args.test)?;
        if args.test != PtsTest::Throughput {
            let bs: Vec<ByteSize> = t.bs.iter().map(|&b| ByteSize(b)).collect();
            needs("--bs", &bs, ByteSize(t.tracking.bs_bytes), "4k", args.test)?;
        }
    }
    Ok(())
}

/// The setup every point shares: the region, engine and permissions; no warm-up (a round's
/// every write counts towards the bytes written).
fn setup(args: &PtsArgs) -> Setup {
    Setup {
        warmup: Dur(Duration::ZERO),
        size: args.size.given,
        engine: args.engine.kind,
        safety: args.safety.into(),
        ..Setup::default()
    }
}

/// Refuses to purge and overwrite an existing file or device without `--destroy-data`.
fn check_safety(args: &PtsArgs) -> crate::Result<()> {
    if args.engine.kind == EngineKind::Null || !args.target.exists() || args.safety.destroy_data {
        return Ok(());
    }
    Err(Error::refused(
        &args.target,
        "exists, and PTS purges and overwrites its whole region (--size); pass --allow-write \
         --destroy-data if that is intended",
    ))
}
