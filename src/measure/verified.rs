//! A verified run (`run --verify`, fio's `verify=`): the record every write is sealed and
//! acknowledged in ([`prepare`]; the measuring session runs the point), and at its end the
//! flush, the state saved and every written block read back ([`finish`]). Any command that
//! measures passes a [`Policy`] (the CLI's `--verify*` flags lower into one, a fio job builds
//! its own).

use crate::model::verify::{Verification, VerifyNote};
use crate::plan::{EngineKind, RunPlan, Workload};
use crate::storage::Target;
use crate::verify::Record;
use crate::verify::check::TargetCheck;
use crate::verify::check::{Scope, check};
use crate::verify::table::State;
use crate::{Error, Result};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// How a run verifies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Policy {
    /// Keep the record in this state file (continued when it exists).
    pub state: Option<PathBuf>,
    /// Also judge the run's own reads while it runs.
    pub while_running: bool,
}

/// Checks that workload `w` can run verified on `targets` (before anything is opened for
/// writing): it writes (or reads a region it compares with a pattern), on a real engine,
/// every request a whole number of blocks.
pub fn check_workload(policy: Option<&Policy>, w: &Workload, repeat: u32) -> Result<()> {
    let Some(policy) = policy else {
        return Ok(());
    };
    let block = w.bs.min();
    let refuse = |what: &'static str, value: String, accepted: &str| {
        Err(Error::invalid(what, value, accepted.to_string()))
    };
    // Reading only is checking what an earlier run recorded, or a pattern over the region.
    let checks_a_record = policy.while_running && policy.state.as_ref().is_some_and(|p| p.exists());
    if !w.writes() && !checks_a_record && w.setup.payload.pattern().is_none() {
        return refuse(
            "--verify",
            w.rw.to_string(),
            "a workload that writes (write, randwrite, rw, randrw), or reads with \
             --verify-while and an existing --verify-state, or with --write-pattern to \
             compare the region with",
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
    if let (Some(_), Some(p)) = (&policy.state, w.setup.payload.pattern()) {
        return refuse(
            "--write-pattern",
            p.to_string(),
            "no pattern with --verify-state (the state does not record it, so a later verify \
             could not judge the blocks); use --verify alone",
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
/// table for every target (a run that only reads with a pattern expects it in every block of
/// each region). `None` without `--verify`.
pub fn prepare(policy: Option<&Policy>, w: &RunPlan, targets: &[Target]) -> Result<Option<Record>> {
    let Some(policy) = policy else {
        return Ok(None);
    };
    let block = w.bs().min();
    let mut state = match &policy.state {
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
            id: crate::rng::Rng::new(w.setup().seed ^ crate::clock::now_ns(), 0x7665_7269)
                .next_u64(),
            block_size: block,
            tables: Vec::new(),
        },
    };
    let in_flight = w.qd() as u64 * w.threads() as u64;
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
        let i = state.table_for(&t.path.display().to_string(), blocks);
        if !w.writes() && w.setup().payload.pattern().is_some() {
            // Reading only, with a pattern: every block of the region is to hold it.
            let table = &state.tables[i];
            table.release(t.offset, t.size / block * block, true);
            table.flushed_all();
        }
        tables.push(i);
    }
    let during = policy.while_running.then(|| {
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
    let removed_after = removed_after(policy, w, targets);
    Ok(Some(Record {
        state: Arc::new(state),
        tables,
        during,
        removed_after,
        pattern: w.setup().payload.pattern().cloned().map(Arc::new),
    }))
}

/// The targets a state would record that halfpower created and removes after the run: a state
/// kept for them cannot be verified later, which is said now.
fn removed_after(policy: &Policy, w: &RunPlan, targets: &[Target]) -> Vec<String> {
    if policy.state.is_none() || w.setup().keep {
        return Vec::new();
    }
    let removed: Vec<String> = targets
        .iter()
        .filter(|t| t.created())
        .map(|t| t.path.display().to_string())
        .collect();
    for t in &removed {
        let note = VerifyNote::ScratchRemoved { target: t.clone() };
        crate::output::say!(
            "halfpower: warning: {}",
            crate::render::text::verify::note(&note)
        );
    }
    removed
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
                crate::output::say!(
                    "halfpower: warning: {}",
                    crate::render::text::verify::note(&note)
                );
                notes.push(note);
            }
        }
    }
    notes
}

/// The bytes `policy`'s state file keeps of `record` (none without `--verify-state`): written by
/// the command, through its exporter, once the run is read back.
pub fn kept(policy: &Policy, record: &Record) -> Result<Option<Vec<u8>>> {
    match &policy.state {
        Some(_) => record.state.to_bytes().map(Some),
        None => Ok(None),
    }
}

/// After a verified run: flushes the targets and reads every target back; the record, once
/// flushed, is [`kept`] for its state file.
pub fn finish(policy: &Policy, record: &Record, targets: &[Target]) -> Result<Verification> {
    let mut notes = flush(record, targets);
    notes.extend(
        record
            .removed_after
            .iter()
            .map(|t| VerifyNote::ScratchRemoved { target: t.clone() }),
    );
    let mut checks = Vec::with_capacity(targets.len());
    for (t, &i) in targets.iter().zip(&record.tables) {
        let scope = Scope::Record {
            id: record.state.id,
            table: &record.state.tables[i],
            pattern: record.pattern.as_deref(),
        };
        checks.push(
            check(&t.path, scope)
                .map_err(|e| Error::io(format!("reading {} back", t.path.display()), e))?,
        );
    }
    let mut v = Verification::new(
        Some(record.state.id),
        policy.state.as_ref().map(|p| p.display().to_string()),
        checks,
    );
    v.notes = notes;
    v.pattern = record.pattern.as_ref().map(|p| p.to_string());
    v.during_run = record.during.as_ref().map(|d| {
        let checks = d
            .iter()
            .map(|m| m.lock().unwrap_or_else(|p| p.into_inner()).clone())
            .collect();
        Box::new(Verification::new(Some(record.state.id), None, checks))
    });
    Ok(v)
}
