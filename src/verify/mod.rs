//! Data verification: every block a verified run writes carries a header and a checksum
//! ([`block`]), the run keeps the generation of every block's last acknowledged write and of
//! the last one a completed flush covered ([`table`], [`durable`], saved with
//! `--verify-state`), and reading the target back judges each block good, corrupt,
//! misdirected, torn, stale, unwritten or lost-unflushed ([`check`]).
//!
//! A worker writes through a [`Writer`]: it claims the blocks of a write (so a block never has
//! two writes in flight), seals them with their next generation, releases them when the
//! write completes, and tells the record when a flush it issues begins and completes.

pub mod block;
pub mod check;
pub mod durable;
pub mod pattern;
pub mod table;

use crate::engine::pattern::Pattern;

use check::TargetCheck;
use std::sync::{Arc, Mutex};
use table::{State, Table};

/// Tries to find a write's blocks free of another write in flight before a worker waits for
/// its own writes to complete.
pub const CLAIM_TRIES: u32 = 64;

/// A run's record and, per target in run order, which of its tables is that target's.
#[derive(Clone, Debug)]
pub struct Record {
    /// The record.
    pub state: Arc<State>,
    /// Table index per target.
    pub tables: Vec<usize>,
    /// With `--verify-while`: per target, what the run's own reads found.
    pub during: Option<Arc<Vec<Mutex<TargetCheck>>>>,
    /// Targets the state records that halfpower created for the run and removes at its end.
    pub removed_after: Vec<String>,
    /// Blocks written with this pattern instead of sealed (fio's `verify_pattern`).
    pub pattern: Option<Arc<Pattern>>,
}

impl Record {
    /// The handle of worker `worker` (of `rank`) on target `target`.
    pub fn writer(&self, target: usize, rank: u32, worker: usize) -> Writer {
        Writer {
            state: self.state.clone(),
            table: self.tables[target],
            writer: (rank << 16) | (worker as u32 & 0xffff),
            during: self.during.clone().map(|d| (d, target)),
            pattern: self.pattern.clone(),
        }
    }
}

/// One worker's handle on the record of its target.
#[derive(Clone, Debug)]
pub struct Writer {
    /// The record of the run.
    pub state: Arc<State>,
    /// Which of its tables is this worker's target.
    pub table: usize,
    /// Rank × 65536 + worker: stamped into every block written.
    pub writer: u32,
    /// With `--verify-while`: where this worker's target counts what its reads found.
    pub during: Option<(Arc<Vec<Mutex<TargetCheck>>>, usize)>,
    /// Blocks written with this pattern instead of sealed.
    pub pattern: Option<Arc<Pattern>>,
}

impl Writer {
    fn table(&self) -> &Table {
        &self.state.tables[self.table]
    }

    /// Claims the blocks of a write of `len` bytes at `offset`; false when one of them has a
    /// write in flight.
    #[inline]
    pub fn claim(&self, offset: u64, len: u64) -> bool {
        self.table().claim(offset, len)
    }

    /// Seals every block of `buf` (claimed, about to be written at `offset`) with its header
    /// and next generation, or with a pattern writes it over each block.
    pub fn seal(&self, buf: &mut [u8], offset: u64) {
        let t = self.table();
        let bs = t.block as usize;
        for (k, blk) in buf.chunks_mut(bs).enumerate() {
            let at = offset + (k * bs) as u64;
            if let Some(p) = &self.pattern {
                // The record still counts the block's writes; the block carries none of it.
                p.fill(blk, at);
                continue;
            }
            block::seal(
                blk,
                block::Stamp {
                    offset: at,
                    id: self.state.id,
                    generation: t.next_generation((at / t.block) as usize),
                    writer: self.writer,
                },
            );
        }
    }

    /// Whether reads are judged as they complete (`--verify-while`).
    pub fn while_running(&self) -> bool {
        self.during.is_some()
    }

    /// The raw entries of the blocks of a read of `len` bytes at `offset`, taken as it is
    /// issued, into `seen`.
    pub fn before_read(&self, offset: u64, len: u64, seen: &mut Vec<u32>) {
        let t = self.table();
        seen.clear();
        let first = (offset / t.block) as usize;
        seen.extend((first..first + len.div_ceil(t.block) as usize).map(|i| t.raw(i)));
    }

    /// Judges the blocks of `buf`, read at `offset`, whose record was settled when the read
    /// was issued (`seen`) and has not changed since: a write in flight or completed meanwhile
    /// may or may not be in what was read, so such a block is not judged.
    pub fn after_read(&self, buf: &[u8], offset: u64, seen: &[u32]) {
        let Some((during, target)) = &self.during else {
            return;
        };
        let t = self.table();
        let bs = t.block as usize;
        let first = (offset / t.block) as usize;
        let mut tally = during[*target].lock().unwrap_or_else(|p| p.into_inner());
        for (k, blk) in buf.chunks(bs).enumerate() {
            let Some(generation) = seen.get(k).and_then(|&r| Table::settled(r)) else {
                continue;
            };
            if t.raw(first + k) != seen[k] || blk.len() < bs {
                continue;
            }
            // Read back with no power cut between: the last acknowledged write must be there.
            let e = block::Expect {
                offset: offset + (k * bs) as u64,
                id: Some(self.state.id),
                generation,
                durable: generation,
            };
            let judgement = match &self.pattern {
                Some(p) => pattern::judge(blk, p, e),
                None => block::judge(blk, e),
            };
            tally.judged(judgement, e);
        }
    }

    /// The write of `len` bytes at `offset` completed: acknowledged when `ok`.
    #[inline]
    pub fn done(&self, offset: u64, len: u64, ok: bool) {
        self.table()
            .release_by(self.writer as usize, offset, len, ok);
    }

    /// A flush (fsync, fdatasync) of this worker's target is about to be issued: what it will
    /// cover, for [`Writer::flush_done`].
    pub fn flush_begin(&self) -> durable::FlushMark {
        self.table().flush_begin()
    }

    /// The flush `mark` was taken for completed: the writes it covered are durable.
    pub fn flush_done(&self, mark: durable::FlushMark) {
        self.table().flush_done(mark);
    }
}
