//! `halfpower quick` (and `halfpower` alone): CrystalDiskMark's matrix on a scratch file.

use super::{Exporter, warn};
use crate::access::RequestSize;
use crate::cli::QuickArgs;
use crate::clock::utc_now;
use crate::measure::{Session, Settings, available_engine};
use crate::model::{Direction, Document, Header, Kind, QuickReport, QuickTest, Warning};
use crate::oscounters::host;
use crate::plan::{DepthOnEngine, EngineKind, RunPlan, RwMode, Setup, Workload};
use crate::render::text;
use crate::storage;
use crate::units::ByteSize;
use crate::{Error, signal};
use std::path::PathBuf;

/// Name of the scratch file in the suite's directory.
pub const SCRATCH_NAME: &str = "halfpower.tst";

/// The scratch file's size and each test's measured time without `--size` and `--time` (the
/// warm-up is every command's).
const SIZE: u64 = 1 << 30;
const TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// The suite: (sequential?, request size, queue depth), each run as read then write.
const TESTS: [(bool, u64, u32); 4] = [
    (true, 1 << 20, 8),
    (true, 1 << 20, 1),
    (false, 4096, 32),
    (false, 4096, 1),
];

/// Every request size of the suite, once each.
fn suite_sizes() -> RequestSize {
    let mut sizes: Vec<(u64, u32)> = TESTS.iter().map(|&(_, bs, _)| (bs, 1)).collect();
    sizes.sort_unstable();
    sizes.dedup();
    RequestSize::mix(sizes).unwrap_or_else(|| RequestSize::fixed(4096))
}

/// A test's CrystalDiskMark-style name from the workload that really ran, e.g. `RND4K Q32T1`
/// (or `RND4K Q1T32` when the sync engine kept one I/O in flight on each of 32 threads).
pub fn test_name(w: &RunPlan) -> String {
    let kind = if w.rw().is_random() { "RND" } else { "SEQ" };
    let size = w.bs().to_string().to_uppercase();
    format!("{kind}{size} Q{}T{}", w.qd(), w.threads())
}

/// `quick`'s options lowered once ([`lower`]): nothing after the lowering reads its clap
/// struct.
struct QuickCommand {
    /// The scratch file, in the suite's directory.
    path: PathBuf,
    /// The suite's base workload: its region, time and warm-up, every request size.
    base: Workload,
    /// `--limit`'s limits, for the scratch file.
    limits: Vec<crate::model::policy::GivenLimit>,
    /// `--repeat`.
    repeat: u32,
    /// `--quiet`.
    quiet: bool,
}

/// Lowers `quick`'s flags, once, into its command and its exporter (every output checked).
fn lower(args: &QuickArgs) -> anyhow::Result<(QuickCommand, Exporter<'_>)> {
    let path = scratch_path(args)?;
    let mut exporter = Exporter::checked(&args.output)?;
    exporter.prom(args.prom.path.as_deref())?;
    let size = args.size.given.unwrap_or(ByteSize(SIZE));
    // Every request size of the suite, so that the region and the direct-I/O alignment are
    // checked for each (a region smaller than 1 MiB is refused as `run` refuses it).
    let base = Workload {
        rw: RwMode::Randrw,
        bs: suite_sizes(),
        setup: Setup {
            size: Some(size),
            time: Some(args.time.or(TIME)),
            warmup: args.warmup.or(Setup::default().warmup.0),
            ..Setup::default()
        },
        ..Workload::default()
    }
    .validated()?;
    let limits = super::lower::given_limits(&args.limit, &[path.display().to_string()])?;
    let cmd = QuickCommand {
        path,
        base,
        limits,
        repeat: args.repeat.n,
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// Runs the quick suite.
pub fn quick(args: QuickArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let QuickCommand {
        path,
        base,
        limits: given,
        repeat,
        quiet,
    } = cmd;
    let size = base.setup.size.map_or(SIZE, |s| s.0);
    let mut warnings = Vec::new();
    let (engine, engine_fallback) = available_engine(&base);
    if let Some(f) = &engine_fallback {
        warn(&mut warnings, Warning::QuickOnSync(f.clone()));
    }
    if !quiet {
        crate::output::say!(
            "halfpower: filling {} ({} MB) …",
            path.display(),
            size / 1_000_000
        );
    }
    let scratch = storage::open(&path, &base.plan(engine, DepthOnEngine::Lower)?, &mut |m| {
        warn(&mut warnings, m)
    })?;
    let plan = suite(&base, engine)?;
    let settings = Settings {
        list: false,
        limits: given.clone(),
        ..Settings::new((engine, engine_fallback), quiet)
    };
    let mut session = Session::adopt(vec![scratch], settings, plan.len());
    let shapes: Vec<RunPlan> = plan.iter().map(|(w, _)| w.clone()).collect();
    let label = |i: usize, _| format!("{} {}", test_name(&shapes[i]), plan[i].1.name());
    let runs = session.interleaved(&shapes, repeat, label, &mut warnings)?;
    let tests = tests_of(plan, runs);
    let target_info = session.infos().remove(0);
    sanity_warnings(&target_info, &tests, &mut warnings);
    let finding = crate::analysis::quick::finding(&target_info, &tests);
    let seq = finding.seq_mb_s.map(|m| m * 1e6);
    let pap = crate::measure::pap::reached(&[path.display().to_string()], 1.0, seq, &given);
    let report = QuickReport {
        header: Header::new(Kind::Quick, command, utc_now()),
        host: host::read(),
        target: target_info,
        tests,
        interrupted: signal::interrupted(),
        finding: Some(finding),
        pap,
        warnings,
    };
    drop(session); // the scratch file goes, also after Ctrl-C
    let worst = (report.tests.iter())
        .map(|t| t.results.exit_status())
        .max()
        .unwrap_or(0);
    let text = text::run::quick_table(&report);
    exporter.emit(Document::Quick(Box::new(report)), &text)?;
    Ok(crate::measure::exit_status(worst))
}

/// The scratch file's path in the suite's directory, which must exist; a file already there
/// is refused (quick never overwrites a file it did not create).
fn scratch_path(args: &QuickArgs) -> anyhow::Result<PathBuf> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if !dir.is_dir() {
        return Err(Error::invalid(
            "DIR",
            dir.display(),
            "an existing directory for the scratch file",
        )
        .into());
    }
    // Under MPI each rank has its own scratch file.
    let path = match crate::cluster::many() {
        true => dir.join(format!("{SCRATCH_NAME}.{}", crate::cluster::rank())),
        false => dir.join(SCRATCH_NAME),
    };
    if path.exists() {
        return Err(Error::refused(
            &path,
            "already exists (a previous run's scratch file?); remove it or choose another DIR, \
             quick never overwrites a file it did not create",
        )
        .into());
    }
    Ok(path)
}

/// The suite's workloads, in order: each test read, then written, as `engine` runs it.
fn suite(base: &Workload, engine: EngineKind) -> anyhow::Result<Vec<(RunPlan, Direction)>> {
    let mut plan = Vec::new();
    for (seq, bs, qd) in TESTS {
        for write in [false, true] {
            let rw = match (seq, write) {
                (true, false) => RwMode::Read,
                (true, true) => RwMode::Write,
                (false, false) => RwMode::Randread,
                (false, true) => RwMode::Randwrite,
            };
            let w = Workload {
                rw,
                read_pct: None,
                bs: ByteSize(bs).into(),
                qd,
                threads: 1,
                setup: Setup {
                    size: None,
                    ..base.setup.clone()
                },
            }
            // The sync engine keeps one I/O in flight per thread: the same depth as threads.
            .plan(engine, DepthOnEngine::AsThreads)?;
            let direction = if write {
                Direction::Write
            } else {
                Direction::Read
            };
            plan.push((w, direction));
        }
    }
    Ok(plan)
}

/// The tests that ran (at least once), each with its first run and its repetitions.
fn tests_of(
    plan: Vec<(RunPlan, Direction)>,
    runs: Vec<Vec<crate::model::Results>>,
) -> Vec<QuickTest> {
    let mut tests = Vec::new();
    for ((w, direction), r) in plan.into_iter().zip(runs) {
        let Some(first) = r.first().cloned() else {
            break;
        };
        tests.push(QuickTest {
            name: test_name(&w),
            direction,
            workload: w.record(),
            results: first,
            repeat: (r.len() > 1).then(|| crate::model::run::Repeat {
                figures: crate::analysis::compare::summarize(&r),
                runs: r,
            }),
        });
    }
    tests
}

/// Warns, per test, of its failed I/Os and Ctrl-C, where the application's bytes and the
/// disk's counters disagree and where reads came back zeroed.
fn sanity_warnings(
    target: &crate::model::TargetInfo,
    tests: &[QuickTest],
    warnings: &mut Vec<Warning>,
) {
    let infos = std::slice::from_ref(target);
    for t in tests {
        let r = &t.results;
        let sanity = crate::analysis::sanity::device_bytes(infos, r);
        for said in crate::analysis::sanity::run_end(r)
            .into_iter()
            .chain(sanity)
            .chain(crate::analysis::sanity::zeroed_reads(r))
        {
            warn(
                warnings,
                Warning::OfTest {
                    test: t.name.clone(),
                    direction: t.direction,
                    warning: Box::new(said),
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cause::IoFailure;
    use crate::model::run::ErrorSummary;

    /// A test whose I/Os failed is warned about by its name (once quick's SEQ1M read of a
    /// region smaller than its requests came back short 616 times, said nowhere).
    #[test]
    fn a_test_with_failed_ios_is_warned_about() {
        let stored = include_str!("../../tests/fixtures/report/quick.json");
        let mut q: QuickReport = serde_json::from_str(stored).unwrap();
        q.tests[0].results.errors = ErrorSummary {
            count: 616,
            first_offset: Some(0),
            first_error: Some(IoFailure::Short),
            first_direction: Some(q.tests[0].direction),
            reads: 616,
            ..ErrorSummary::default()
        };
        let mut warnings = Vec::new();
        sanity_warnings(&q.target, &q.tests, &mut warnings);
        let failed = warnings.iter().find_map(|w| match w {
            Warning::OfTest { test, warning, .. } => match warning.as_ref() {
                Warning::IoFailed { count, .. } => Some((test.clone(), *count)),
                _ => None,
            },
            _ => None,
        });
        assert_eq!(failed, Some((q.tests[0].name.clone(), 616)), "{warnings:?}");
    }
}
