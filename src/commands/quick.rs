//! `halfpower quick` (and `halfpower` alone): CrystalDiskMark's matrix on a scratch file.

use super::run::available_engine;
use super::{check_output_dests, warn, write_html, write_json};
use crate::cli::QuickArgs;
use crate::clock::utc_now;
use crate::model::{Direction, Document, Header, Kind, QuickReport, QuickTest};
use crate::oscounters::host;
use crate::render::text;
use crate::runner::{self, Control, Layout};
use crate::spec::{DepthOnEngine, RwMode, Setup, Workload};
use crate::target;
use crate::units::ByteSize;
use crate::{Error, signal};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Name of the scratch file in the suite's directory.
pub const SCRATCH_NAME: &str = "halfpower.tst";

/// The suite: (sequential?, request size, queue depth), each run as read then write.
const TESTS: [(bool, u64, u32); 4] = [
    (true, 1 << 20, 8),
    (true, 1 << 20, 1),
    (false, 4096, 32),
    (false, 4096, 1),
];

/// A test's CrystalDiskMark-style name from the workload that really ran, e.g. `RND4K Q32T1`
/// (or `RND4K Q1T32` when the sync engine kept one I/O in flight on each of 32 threads).
pub fn test_name(w: &Workload) -> String {
    let kind = if w.rw.is_random() { "RND" } else { "SEQ" };
    let size = w.bs.to_string().to_uppercase();
    format!("{kind}{size} Q{}T{}", w.qd, w.threads)
}

/// Runs the quick suite.
pub fn quick(args: QuickArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if !dir.is_dir() {
        return Err(Error::invalid(
            "DIR",
            dir.display(),
            "an existing directory for the scratch file",
        )
        .into());
    }
    check_output_dests(&args.output)?;
    let path = dir.join(SCRATCH_NAME);
    if path.exists() {
        return Err(Error::refused(
            &path,
            "already exists (a previous run's scratch file?); remove it or choose another DIR, \
             quick never overwrites a file it did not create",
        )
        .into());
    }
    let base = Workload {
        rw: RwMode::Randrw,
        bs: ByteSize(4096).into(),
        setup: Setup {
            size: Some(args.size),
            time: Some(args.time),
            warmup: args.warmup,
            ..Setup::default()
        },
        ..Workload::default()
    }
    .validated()?;
    let mut warnings = Vec::new();
    let (engine, engine_fallback) = available_engine(&base);
    if let Some(why) = &engine_fallback {
        warn(
            &mut warnings,
            format!(
                "{why}; the deep-queue tests run on the sync engine as one I/O in flight on \
                 each of as many threads (Q32T1 becomes Q1T32), named as they ran"
            ),
        );
    }
    if !args.output.quiet {
        eprintln!(
            "halfpower: filling {} ({} MB) …",
            path.display(),
            args.size.0 / 1_000_000
        );
    }
    let scratch = target::open(&path, &base, &mut |m| warn(&mut warnings, m))?;
    let mut tests = Vec::new();
    let total = TESTS.len() * 2;
    // The suite's workloads, in order: each test read, then written.
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
            .validated()?
            // The sync engine keeps one I/O in flight per thread: the same depth as threads.
            .lowered(engine, DepthOnEngine::AsThreads);
            let direction = if write {
                Direction::Write
            } else {
                Direction::Read
            };
            plan.push((w, direction));
        }
    }
    // With --repeat, the whole suite again, interleaved.
    let mut runs: Vec<Vec<crate::model::Results>> = vec![Vec::new(); plan.len()];
    'suite: for k in 0..args.repeat.n {
        for (i, (w, direction)) in plan.iter().enumerate() {
            if !args.output.quiet && std::io::stderr().is_terminal() {
                eprintln!(
                    "[{}/{}] {} {}",
                    k as usize * plan.len() + i + 1,
                    total * args.repeat.n as usize,
                    test_name(w),
                    direction.name()
                );
            }
            let m = runner::execute(
                std::slice::from_ref(&scratch),
                Layout::Separate,
                w,
                Control::progress(!args.output.quiet),
                None,
            );
            let m = match m {
                Ok(m) => m,
                Err(Error::Interrupted) => break 'suite,
                Err(e) => return Err(e.into()),
            };
            let results = runner::results(
                &m,
                w,
                std::slice::from_ref(&scratch),
                engine_fallback.clone(),
            );
            let stop = results.interrupted;
            runs[i].push(results);
            if stop {
                break 'suite;
            }
        }
    }
    for ((w, direction), r) in plan.into_iter().zip(runs) {
        let Some(first) = r.first().cloned() else {
            break;
        };
        tests.push(QuickTest {
            name: test_name(&w),
            direction,
            workload: w,
            results: first,
            repeat: (r.len() > 1).then(|| crate::model::run::Repeat {
                figures: crate::analysis::compare::summarize(&r),
                runs: r,
            }),
        });
    }
    let target_info = scratch.info();
    for t in &tests {
        let infos = std::slice::from_ref(&target_info);
        let r = &t.results;
        let sanity = crate::analysis::sanity::device_bytes(infos, r);
        for msg in sanity
            .into_iter()
            .chain(crate::analysis::sanity::zeroed_reads(r))
        {
            warn(
                &mut warnings,
                format!("{} {}: {msg}", t.name, t.direction.name()),
            );
        }
    }
    let verdict = crate::analysis::quick::verdict(&target_info, &tests);
    let report = QuickReport {
        header: Header::new(Kind::Quick, command, utc_now()),
        host: host::read(),
        target: target_info,
        tests,
        interrupted: signal::interrupted(),
        verdict,
        warnings,
    };
    drop(scratch); // the scratch file goes, also after Ctrl-C
    let json_on_stdout = write_json(&args.output, &report)?;
    if !json_on_stdout {
        print!("{}", text::run::quick_table(&report));
    }
    if !report.tests.is_empty() {
        write_html(&args.output, Document::Quick(Box::new(report.clone())))?;
    }
    // The worst status of any test; an interrupted suite is 130 even if no test was cut.
    let status = report
        .tests
        .iter()
        .map(|t| t.results.exit_status())
        .max()
        .unwrap_or(0);
    Ok(if report.interrupted { 130 } else { status })
}
