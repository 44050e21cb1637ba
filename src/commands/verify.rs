//! `run --verify` (the record a run writes under, and reading it back at the end) and
//! `halfpower verify` (reading a target back later, against a state file or on its own).

use crate::cli::{VerifyArgs, VerifyOpts};
use crate::clock::utc_now;
use crate::model::verify::{Verification, VerifyNote, VerifyReport};
use crate::model::{Document, Header, Kind};
use crate::render::text;
use crate::runner;
use crate::spec::{EngineKind, RunPlan, Workload};
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
    let removed_after = removed_after(opts, w, targets);
    Ok(Some(Record {
        state: Arc::new(state),
        tables,
        during,
        removed_after,
    }))
}

/// The targets a state would record that halfpower created and removes after the run: a state
/// kept for them cannot be verified later, which is said now.
fn removed_after(opts: &VerifyOpts, w: &Workload, targets: &[Target]) -> Vec<String> {
    if opts.verify_state.is_none() || w.setup.keep {
        return Vec::new();
    }
    let removed: Vec<String> = targets
        .iter()
        .filter(|t| t.created())
        .map(|t| t.path.display().to_string())
        .collect();
    for t in &removed {
        let note = VerifyNote::ScratchRemoved { target: t.clone() };
        eprintln!("halfpower: warning: {}", text::verify::note(&note));
    }
    removed
}

/// Runs `w` on `targets` laid out as `layout` says, every write sealed and recorded when
/// `opts` asks for verification: the measurement, and the record for [`finish`].
pub(super) fn execute(
    opts: &VerifyOpts,
    targets: &[Target],
    layout: runner::Layout,
    w: &RunPlan,
    control: runner::Control,
) -> Result<(runner::Measurement, Option<Record>)> {
    let record = prepare(opts, w, targets)?;
    let m = runner::execute(targets, layout, w, control, record.as_ref())?;
    Ok((m, record))
}

/// Flushes every target (fdatasync: a block device sends its disk a cache flush) now that no
/// write is in flight: on success every acknowledged write is recorded durable; a failure is
/// said and noted, and the writes after the last completed flush stay recorded as not durable.
fn flush(record: &Record, targets: &[Target]) -> Vec<VerifyNote> {
    let mut notes = Vec::new();
    for (t, &i) in targets.iter().zip(&record.tables) {
        let Some(f) = &t.file else {
            continue;
        };
        match f.sync_data() {
            Ok(()) => record.state.tables[i].flushed_all(),
            Err(e) => {
                let note = VerifyNote::FlushFailed {
                    target: t.path.display().to_string(),
                    error: e.to_string(),
                };
                eprintln!("halfpower: warning: {}", text::verify::note(&note));
                notes.push(note);
            }
        }
    }
    notes
}

/// After a verified run: flushes the targets, saves the record (when asked) and reads every
/// target back.
pub(super) fn finish(
    opts: &VerifyOpts,
    record: &Record,
    targets: &[Target],
) -> Result<Verification> {
    let mut notes = flush(record, targets);
    notes.extend(
        record
            .removed_after
            .iter()
            .map(|t| VerifyNote::ScratchRemoved { target: t.clone() }),
    );
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
    v.notes = notes;
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
    super::check_output_dests(&args.output)?;
    crate::signal::install();
    let verification = match (&args.verify_state, args.bs) {
        (Some(p), _) => against_state(p, &args.targets)?,
        (None, Some(bs)) => whole(&args.targets, bs.0)?,
        (None, None) => unreachable!("clap requires --verify-state or --bs"),
    };
    let status = verification.exit_status();
    if status == 2 && args.output.json.as_deref() == Some("-") {
        // The JSON on stdout says it too; the reason for the status goes to stderr.
        for s in text::verify::other_sizes(&verification) {
            eprintln!("halfpower: {s}");
        }
    }
    let text = text::verify::lines(&verification);
    let report = VerifyReport {
        header: Header::new(Kind::Verify, command, utc_now()),
        verification,
    };
    super::emit(&args.output, Document::Verify(Box::new(report)), &text)?;
    Ok(if crate::signal::interrupted() {
        crate::signal::exit_status()
    } else {
        status
    })
}

/// `halfpower verify --verify-state P [TARGET...]`: the blocks state `p` records on `targets`
/// (every target it records when none is named).
fn against_state(p: &std::path::Path, targets: &[std::path::PathBuf]) -> Result<Verification> {
    let state = State::load(p)?;
    let wanted: Vec<String> = if targets.is_empty() {
        state.tables.iter().map(|t| t.path.clone()).collect()
    } else {
        targets.iter().map(|t| t.display().to_string()).collect()
    };
    let mut checks = Vec::new();
    for path in &wanted {
        let table = state
            .tables
            .iter()
            .find(|t| &t.path == path)
            .ok_or_else(|| {
                let known: Vec<&str> = state.tables.iter().map(|t| t.path.as_str()).collect();
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
            check(std::path::Path::new(path), scope).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Error::invalid(
                    "TARGET",
                    path,
                    format!("a target that exists: the state records it, yet {e}"),
                ),
                _ => Error::io(format!("reading {path} back"), e),
            })?,
        );
    }
    let mut v = Verification::new(Some(state.id), Some(p.display().to_string()), checks);
    if state.tables.iter().any(|t| !t.flushes_recorded) {
        v.notes.push(VerifyNote::NoFlushRecorded);
    }
    Ok(v)
}

/// `halfpower verify TARGET... --bs SIZE`: every block of each whole target.
fn whole(targets: &[std::path::PathBuf], bs: u64) -> Result<Verification> {
    if targets.is_empty() {
        return Err(Error::invalid(
            "TARGET",
            "(none)",
            "with --bs, one or more targets",
        ));
    }
    if bs < 512 || bs % 512 != 0 {
        return Err(Error::invalid(
            "--bs",
            crate::units::ByteSize(bs),
            "a multiple of 512 bytes",
        ));
    }
    let mut checks = Vec::new();
    for p in targets {
        let size = size_of(p).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::invalid(
                "TARGET",
                p.display(),
                format!("a file or block device to read ({e})"),
            ),
            _ => Error::io(format!("opening {}", p.display()), e),
        })?;
        let scope = Scope::Whole { block: bs, size };
        checks.push(check(p, scope).map_err(|e| Error::io(format!("reading {}", p.display()), e))?);
    }
    Ok(Verification::new(None, None, checks))
}

/// The bytes of a file or block device (its end).
fn size_of(p: &std::path::Path) -> std::io::Result<u64> {
    use std::io::Seek;
    std::fs::File::open(p)?.seek(std::io::SeekFrom::End(0))
}
