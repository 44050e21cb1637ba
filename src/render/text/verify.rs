//! Verification in words: blocks checked, faults by kind, what was not judged and why, lost
//! unflushed writes, and the first bad blocks.

use crate::model::verify::{Verification, VerifyNote};
use crate::units::ByteSize;
use std::fmt::Write;

/// Bad blocks printed one by one (the JSON lists up to 1000).
const SHOWN: usize = 10;

/// The verification's lines: a summary, then the first bad blocks and read errors.
pub fn lines(v: &Verification) -> String {
    let mut out = String::new();
    summary_line(&mut out, v);
    remarks(&mut out, v);
    bad_blocks(&mut out, v);
    out
}

/// The one-line summary: blocks checked, good and bad by kind, not judged, newer and unreadable.
fn summary_line(out: &mut String, v: &Verification) {
    let f = &v.faults;
    let _ = write!(out, "verify: {} blocks checked", v.blocks_checked);
    let good: u64 = v.targets.iter().map(|t| t.good).sum();
    if v.clean() && good == v.blocks_checked {
        let _ = write!(out, ", all good");
    } else if v.clean() {
        let _ = write!(out, ", {good} good, none bad");
    } else {
        let _ = write!(
            out,
            ", {} bad (corrupt {}, misdirected {}, torn {}, stale {}, unwritten {})",
            f.total(),
            f.corrupt,
            f.misdirected,
            f.torn,
            f.stale,
            f.unwritten
        );
    }
    let skipped: u64 = v.targets.iter().map(|t| t.skipped).sum();
    let newer: u64 = v.targets.iter().map(|t| t.newer).sum();
    if skipped > 0 {
        let _ = write!(out, ", {skipped} not judged (their last write failed)");
    }
    if newer > 0 {
        let _ = write!(out, ", {newer} newer than recorded");
    }
    if v.read_errors > 0 {
        let _ = write!(out, ", {} unreadable", v.read_errors);
    }
    if v.targets.iter().any(|t| t.through_page_cache) {
        let _ = write!(out, " (read through the page cache: O_DIRECT refused)");
    }
    out.push('\n');
}

/// What else was found: unsealed blocks, other block sizes, lost unflushed writes, the notes,
/// and what was verified during the run.
fn remarks(out: &mut String, v: &Verification) {
    if v.unsealed > 0 {
        let _ = writeln!(
            out,
            "{} blocks carry no seal of halfpower's: nothing to judge",
            v.unsealed
        );
    }
    for s in other_sizes(v) {
        let _ = writeln!(out, "{s}");
    }
    if v.lost_unflushed > 0 {
        let _ = writeln!(
            out,
            "{} blocks lost writes acknowledged after their last completed flush \
             (lost-unflushed: allowed after a power cut, the device never promised them)",
            v.lost_unflushed
        );
    }
    for n in &v.notes {
        let _ = writeln!(out, "note: {}", note(n));
    }
    if let Some(d) = &v.during_run {
        let _ = writeln!(
            out,
            "verify during the run: {} blocks judged as they were read, {} bad",
            d.blocks_checked,
            d.faults.total()
        );
    }
}

/// The first bad blocks one by one, how many more the JSON has, and the offsets that could not
/// be read.
fn bad_blocks(out: &mut String, v: &Verification) {
    for b in v
        .bad
        .iter()
        .chain(v.during_run.iter().flat_map(|d| d.bad.iter()))
        .take(SHOWN)
    {
        let bb = &b.block;
        let found = match &bb.found {
            Some(s) if s.record.is_some() => {
                format!("another record's block of offset {}", s.offset)
            }
            Some(s) => format!("generation {} of offset {}", s.generation, s.offset),
            None => "no header".to_string(),
        };
        let sectors = if bb.sector_generations.len() > 1 {
            let g: Vec<String> = bb.sector_generations.iter().map(u32::to_string).collect();
            format!(", sectors of generations {}", g.join(" and "))
        } else {
            String::new()
        };
        if let Some(p) = &v.pattern {
            let _ = writeln!(
                out,
                "  {} offset {}: {}; expected the pattern {p}",
                b.target,
                bb.offset,
                bb.kind.name()
            );
            continue;
        }
        let _ = writeln!(
            out,
            "  {} offset {}: {}; expected generation {}, found {found}{sectors}",
            b.target,
            bb.offset,
            bb.kind.name(),
            bb.expected.generation
        );
    }
    if v.bad.len() > SHOWN {
        let _ = writeln!(
            out,
            "  … {} more bad blocks in the JSON",
            v.bad.len() - SHOWN
        );
    }
    for t in v.targets.iter().filter(|t| t.read_errors > 0) {
        let offs: Vec<String> = t.read_error_offsets.iter().map(u64::to_string).collect();
        let _ = writeln!(out, "  {}: unreadable at {}", t.path, offs.join(", "));
    }
}

/// The sentence of a note.
pub fn note(n: &VerifyNote) -> String {
    match n {
        VerifyNote::NoFlushRecorded => "the state (version 1) records no flush, so no write is \
            known durable: every lost write counts as lost-unflushed, none as stale"
            .to_string(),
        VerifyNote::FlushFailed { target, error } => format!(
            "flushing {target} failed ({error}): writes acknowledged after its last completed \
             flush are recorded as not durable"
        ),
        VerifyNote::ScratchRemoved { target } => format!(
            "--verify-state records {target}, a file halfpower created for this run and removes \
             at its end: the state cannot be verified later (use --keep, or a file you made)"
        ),
    }
}

/// One sentence per block length found sealed other than the one read: the `--bs` to use.
pub fn other_sizes(v: &Verification) -> Vec<String> {
    let read: Vec<u64> = v.targets.iter().map(|t| t.block_size).collect();
    let at = read
        .first()
        .filter(|b| read.iter().all(|x| x == *b))
        .map_or(String::new(), |b| format!(" of {}", ByteSize(*b)));
    v.other_block_sizes
        .iter()
        .map(|s| match s.block_size {
            0 => format!(
                "{} blocks{at} begin inside a seal of another block size: not judged",
                s.blocks
            ),
            b => format!(
                "{} blocks{at} hold blocks written with {} blocks: not judged; use --bs {}",
                s.blocks,
                ByteSize(b),
                ByteSize(b)
            ),
        })
        .collect()
}
