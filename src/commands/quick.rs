//! `halfpower quick` (and `halfpower` alone): CrystalDiskMark's matrix on a scratch file.

use super::run::effective_engine;
use super::{check_output_dests, warn, write_html, write_json};
use crate::cli::QuickArgs;
use crate::oscounters::host;
use crate::report::html::input::Document;
use crate::report::model::{QuickReport, QuickTest, Results, TargetInfo, Tool};
use crate::report::{SCHEMA_VERSION, table, utc_now};
use crate::runner::{self, Control};
use crate::spec::{RwMode, Setup, Workload};
use crate::target;
use crate::units::{ByteSize, Dur};
use crate::{Error, signal};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Name of the scratch file in the suite's directory.
pub const SCRATCH_NAME: &str = "halfpower.tst";

/// The suite: (name, sequential?, request size, queue depth), each run as read then write.
const TESTS: [(&str, bool, u64, u32); 4] = [
    ("SEQ1M Q8T1", true, 1 << 20, 8),
    ("SEQ1M Q1T1", true, 1 << 20, 1),
    ("RND4K Q32T1", false, 4096, 32),
    ("RND4K Q1T1", false, 4096, 1),
];

impl QuickArgs {
    /// What `halfpower` without arguments runs: the suite in the current directory.
    pub fn default_for_main() -> Self {
        QuickArgs {
            dir: None,
            size: ByteSize(1 << 30),
            time: Dur(Duration::from_secs(5)),
            warmup: Dur(Duration::from_secs(1)),
            output: Default::default(),
        }
    }
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
        bs: ByteSize(4096),
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
    let (engine, engine_fallback) = effective_engine(&base, &mut warnings);
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
    'suite: for (name, seq, bs, qd) in TESTS {
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
                bs: ByteSize(bs),
                qd,
                setup: Setup {
                    size: None,
                    ..base.setup.clone()
                },
                ..base.clone()
            }
            .validated()?;
            let direction = if write { "write" } else { "read" };
            if !args.output.quiet && std::io::stderr().is_terminal() {
                eprintln!("[{}/{total}] {name} {direction}", tests.len() + 1);
            }
            let m = runner::execute(
                std::slice::from_ref(&scratch),
                &w,
                engine,
                Control::progress(!args.output.quiet),
            );
            let m = match m {
                Ok(m) => m,
                Err(Error::Interrupted) => break 'suite,
                Err(e) => return Err(e.into()),
            };
            let results = Results::build(
                &m,
                &w,
                std::slice::from_ref(&scratch),
                engine_fallback.clone(),
            );
            let stop = results.interrupted;
            tests.push(QuickTest {
                name: name.into(),
                direction: direction.into(),
                workload: w,
                results,
            });
            if stop {
                break 'suite;
            }
        }
    }
    let report = QuickReport {
        schema_version: SCHEMA_VERSION,
        kind: "quick".into(),
        tool: Tool::default(),
        command,
        date: utc_now(),
        host: host::read(),
        target: TargetInfo::of(&scratch),
        tests,
        interrupted: signal::interrupted(),
        warnings,
    };
    drop(scratch); // the scratch file goes, also after Ctrl-C
    let json_on_stdout = write_json(&args.output, &report)?;
    if !json_on_stdout {
        print!("{}", table::quick_table(&report));
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
