//! Verification in words: blocks checked, faults by kind, and the first bad blocks.

use crate::model::verify::Verification;
use std::fmt::Write;

/// Bad blocks printed one by one (the JSON lists up to 1000).
const SHOWN: usize = 10;

/// The verification's lines: a summary, then the first bad blocks and read errors.
pub fn lines(v: &Verification) -> String {
    let mut out = String::new();
    let f = &v.faults;
    let _ = write!(out, "verify: {} blocks checked", v.blocks_checked);
    if v.clean() {
        let _ = write!(out, ", all good");
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
    if let Some(d) = &v.during_run {
        let _ = writeln!(
            out,
            "verify during the run: {} blocks judged as they were read, {} bad",
            d.blocks_checked,
            d.faults.total()
        );
    }
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
    out
}
