//! `run --verify` (the record a run writes under, and reading it back at the end) and
//! `halfpower verify` (reading a target back later, against a state file or on its own).

use crate::cli::{VerifyArgs, VerifyOpts};
use crate::clock::utc_now;
use crate::model::verify::{Verification, VerifyReport};
use crate::model::{Header, Kind};
use crate::render::text;
use crate::runner;
use crate::spec::{EngineKind, Workload};
use crate::target::Target;
use crate::verify::Record;
use crate::verify::check::TargetCheck;
use crate::verify::check::{Scope, check};
use crate::verify::table::State;
use crate::{Error, Result};
use std::sync::{Arc, Mutex};

/// Checks that workload `w` can run verified on `targets` (before anything is opened for
/// writing): it writes, on a real engine, every request a whole number of blocks.
pub(super) fn check_workload(opts: &VerifyOpts, w: &Workload, repeat: u32) -> Result<()> {
    if !opts.on() {
        return Ok(());
    }
    let block = w.bs.min();
    let refuse = |what: &'static str, value: String, accepted: &str| {
        Err(Error::invalid(what, value, accepted.to_string()))
    };
    // Reading only is checking what an earlier run recorded.
    let checks_a_record =
        opts.verify_while && opts.verify_state.as_ref().is_some_and(|p| p.exists());
    if !w.writes() && !checks_a_record {
        return refuse(
            "--verify",
            w.rw.to_string(),
            "a workload that writes (write, randwrite, rw, randrw), or reads with \
             --verify-while and an existing --verify-state",
        );
    }
    if w.setup.engine == EngineKind::Null {
        return refuse("--verify", "--engine null".into(), "--engine uring or sync");
    }
    if repeat > 1 {
        return refuse(
            "--verify",
            format!("--repeat {repeat}"),
            "one run (--repeat 1)",
        );
    }
    if block < crate::verify::block::MIN_BLOCK as u64 || block % 512 != 0 {
        return refuse(
            "--bs",
            w.bs.to_string(),
            "with --verify, request sizes that are multiples of 512 bytes",
        );
    }
    if let Some(s) = w.bs.sizes().find(|s| s % block != 0) {
        return refuse(
            "--bs",
            format!("{} (size {s})", w.bs),
            "with --verify, every size of a mix a multiple of the smallest",
        );
    }
    if w.setup.offset.0 % block != 0 {
        return refuse(
            "--offset",
            w.setup.offset.to_string(),
            "with --verify, a multiple of the smallest request size",
        );
    }
    Ok(())
}

/// The record a verified run writes under: the state file's (continued) or a new one, with a
/// table for every target. `None` without `--verify`.
pub(super) fn prepare(
    opts: &VerifyOpts,
    w: &Workload,
    targets: &[Target],
) -> Result<Option<Record>> {
    if !opts.on() {
        return Ok(None);
    }
    let block = w.bs.min();
    let mut state = match &opts.verify_state {
        Some(p) if p.exists() => {
            let s = State::load(p)?;
            if s.block_size != block {
                return Err(Error::invalid(
                    "--verify-state",
                    p.display(),
                    format!(
                        "a state of {block}-byte blocks (this one has {}-byte blocks: \
                         use --bs with smallest size {} or another state)",
                        s.block_size, s.block_size
                    ),
                ));
            }
            s
        }
        _ => State {
            // A new record's id differs from every earlier one's, so their blocks are told apart.
            id: crate::rng::Rng::new(w.setup.seed ^ crate::clock::now_ns(), 0x7665_7269).next_u64(),
            block_size: block,
            tables: Vec::new(),
        },
    };
    let in_flight = w.qd as u64 * w.threads as u64;
    let mut tables = Vec::with_capacity(targets.len());
    for t in targets {
        let blocks = (t.offset + t.size) / block;
        if t.size / block < 4 * in_flight {
            return Err(Error::invalid(
                "--size",
                t.size,
                format!(
                    "with --verify, a region of at least 4 × QD × threads blocks ({} bytes)",
                    4 * in_flight * block
                ),
            ));
        }
        tables.push(state.table_for(&t.path.display().to_string(), blocks));
    }
    let during = opts.verify_while.then(|| {
        Arc::new(
            targets
                .iter()
                .map(|t| {
                    Mutex::new(TargetCheck {
                        path: t.path.display().to_string(),
                        block_size: block,
                        ..TargetCheck::default()
                    })
                })
                .collect(),
        )
    });
    Ok(Some(Record {
        state: Arc::new(state),
        tables,
        during,
    }))
}

/// Runs `w` on `targets` laid out as `layout` says, every write sealed and recorded when
/// `opts` asks for verification: the measurement, and the record for [`finish`].
pub(super) fn execute(
    opts: &VerifyOpts,
    targets: &[Target],
    layout: runner::Layout,
    w: &Workload,
    control: runner::Control,
) -> Result<(runner::Measurement, Option<Record>)> {
    let record = prepare(opts, w, targets)?;
    let m = match &record {
        Some(r) => runner::execute_verified(targets, layout, w, control, r)?,
        None => runner::execute_laid(targets, layout, w, control)?,
    };
    Ok((m, record))
}

/// After a verified run: saves the record (when asked) and reads every target back.
pub(super) fn finish(
    opts: &VerifyOpts,
    record: &Record,
    targets: &[Target],
) -> Result<Verification> {
    if let Some(p) = &opts.verify_state {
        record.state.save(p)?;
    }
    let mut checks = Vec::with_capacity(targets.len());
    for (t, &i) in targets.iter().zip(&record.tables) {
        let scope = Scope::Record {
            id: record.state.id,
            table: &record.state.tables[i],
        };
        checks.push(
            check(&t.path, scope)
                .map_err(|e| Error::io(format!("reading {} back", t.path.display()), e))?,
        );
    }
    let mut v = Verification::new(
        Some(record.state.id),
        opts.verify_state.as_ref().map(|p| p.display().to_string()),
        checks,
    );
    v.during_run = record.during.as_ref().map(|d| {
        let checks = d
            .iter()
            .map(|m| m.lock().unwrap_or_else(|p| p.into_inner()).clone())
            .collect();
        Box::new(Verification::new(Some(record.state.id), None, checks))
    });
    Ok(v)
}

/// Runs `halfpower verify`.
pub fn verify(args: VerifyArgs, command: Vec<String>) -> anyhow::Result<u8> {
    if let Some(j) = args.json.as_deref().filter(|j| *j != "-") {
        crate::output::check_output("--json", std::path::Path::new(j))?;
    }
    crate::signal::install();
    let verification = match (&args.verify_state, args.bs) {
        (Some(p), _) => {
            let state = State::load(p)?;
            let wanted: Vec<String> = if args.targets.is_empty() {
                state.tables.iter().map(|t| t.path.clone()).collect()
            } else {
                args.targets
                    .iter()
                    .map(|t| t.display().to_string())
                    .collect()
            };
            let mut checks = Vec::new();
            for path in &wanted {
                let table = state
                    .tables
                    .iter()
                    .find(|t| &t.path == path)
                    .ok_or_else(|| {
                        let known: Vec<&str> =
                            state.tables.iter().map(|t| t.path.as_str()).collect();
                        Error::invalid(
                            "TARGET",
                            path,
                            format!("a target the state records: {}", known.join(", ")),
                        )
                    })?;
                let scope = Scope::Record {
                    id: state.id,
                    table,
                };
                checks.push(
                    check(std::path::Path::new(path), scope)
                        .map_err(|e| Error::io(format!("reading {path} back"), e))?,
                );
            }
            Verification::new(Some(state.id), Some(p.display().to_string()), checks)
        }
        (None, Some(bs)) => {
            if args.targets.is_empty() {
                return Err(
                    Error::invalid("TARGET", "(none)", "with --bs, one or more targets").into(),
                );
            }
            if bs.0 < 512 || bs.0 % 512 != 0 {
                return Err(Error::invalid("--bs", bs, "a multiple of 512 bytes").into());
            }
            let mut checks = Vec::new();
            for p in &args.targets {
                let size =
                    size_of(p).map_err(|e| Error::io(format!("opening {}", p.display()), e))?;
                let scope = Scope::Whole { block: bs.0, size };
                checks.push(
                    check(p, scope)
                        .map_err(|e| Error::io(format!("reading {}", p.display()), e))?,
                );
            }
            Verification::new(None, None, checks)
        }
        (None, None) => unreachable!("clap requires --verify-state or --bs"),
    };
    let clean = verification.clean();
    let report = VerifyReport {
        header: Header::new(Kind::Verify, command, utc_now()),
        verification,
    };
    let out = crate::cli::OutputArgs {
        json: args.json.clone(),
        html: None,
        quiet: true,
    };
    if !super::write_json(&out, &report)? {
        print!("{}", text::verify::lines(&report.verification));
    }
    Ok(if crate::signal::interrupted() {
        crate::signal::exit_status()
    } else if clean {
        0
    } else {
        1
    })
}

/// The bytes of a file or block device (its end).
fn size_of(p: &std::path::Path) -> std::io::Result<u64> {
    use std::io::Seek;
    std::fs::File::open(p)?.seek(std::io::SeekFrom::End(0))
}
