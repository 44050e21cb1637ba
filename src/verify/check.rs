//! Reading a target back and judging its blocks: every block a record names, or every block
//! of the target, read with O_DIRECT (so the device answers, not the page cache) in chunks of
//! up to 1 MiB, each block judged by [`super::block::judge`].

use super::block::{Expect, Fault, Judgement, Stamp, judge};
use super::table::{Entry, Table};
use crate::engine::BufferArena;
use crate::engine::pattern::Pattern;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// Bad blocks listed one by one; beyond them only counted.
pub const MAX_LISTED: usize = 1000;
/// Read errors whose offsets are listed.
pub const MAX_ERROR_OFFSETS: usize = 16;
const CHUNK: u64 = 1 << 20;

/// A block's place and generation, as expected or as found.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Seen {
    /// Byte offset the block belongs to.
    pub offset: u64,
    /// Its write generation (0: never written).
    pub generation: u32,
    /// Who wrote it (rank × 65536 + worker); absent for what is expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<u32>,
    /// The record it belongs to, when it is not the one checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<u64>,
}

/// One bad block.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BadBlock {
    /// Byte offset on the target.
    pub offset: u64,
    /// What is wrong.
    pub kind: Fault,
    /// What the record expects there.
    pub expected: Seen,
    /// The block's header where its magic survives.
    pub found: Option<Seen>,
    /// The generations its sectors carry (two or more: torn).
    pub sector_generations: Vec<u32>,
}

/// How many blocks of each fault.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FaultCounts {
    /// Damaged bytes.
    pub corrupt: u64,
    /// Blocks of another offset.
    pub misdirected: u64,
    /// Sectors of two writes.
    pub torn: u64,
    /// Older than the last acknowledged write.
    pub stale: u64,
    /// Recorded as written, holding no block of the record.
    pub unwritten: u64,
}

impl FaultCounts {
    fn add(&mut self, f: Fault) {
        *match f {
            Fault::Corrupt => &mut self.corrupt,
            Fault::Misdirected => &mut self.misdirected,
            Fault::Torn => &mut self.torn,
            Fault::Stale => &mut self.stale,
            Fault::Unwritten => &mut self.unwritten,
        } += 1;
    }

    /// All bad blocks.
    pub fn total(&self) -> u64 {
        self.corrupt + self.misdirected + self.torn + self.stale + self.unwritten
    }
}

/// Blocks sealed at another block length than the one read (without a record).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SizeCount {
    /// The block length their headers declare, bytes.
    pub block_size: u64,
    /// Blocks read (of the length asked) that hold them.
    pub blocks: u64,
}

/// What reading one target back found.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TargetCheck {
    /// The target's path.
    pub path: String,
    /// Bytes per block.
    pub block_size: u64,
    /// Blocks read and judged.
    pub blocks_checked: u64,
    /// Of those, as expected.
    pub good: u64,
    /// Of the good ones, a later write than the record acknowledged (in flight when it was
    /// saved).
    pub newer: u64,
    /// Blocks with no trace of a seal where none was expected (whole-target reads): nothing
    /// to judge.
    #[serde(alias = "blank")]
    pub unsealed: u64,
    /// Blocks holding an older write than the last acknowledged one, but none older than the
    /// last one a completed flush covered: lost to a power cut, allowed (not bad).
    #[serde(default)]
    pub lost_unflushed: u64,
    /// The first of those (at most 1000), by offset.
    #[serde(default)]
    pub lost_unflushed_offsets: Vec<u64>,
    /// Blocks sealed at another block length (whole-target reads), by length: not judged.
    #[serde(default)]
    pub other_block_sizes: Vec<SizeCount>,
    /// Blocks not judged because their last write failed (content unknown).
    pub skipped: u64,
    /// Bad blocks by fault.
    pub faults: FaultCounts,
    /// The first bad blocks (at most 1000), in offset order.
    pub bad: Vec<BadBlock>,
    /// Blocks that could not be read.
    pub read_errors: u64,
    /// The first of those, by offset.
    pub read_error_offsets: Vec<u64>,
    /// Read through the page cache (the target refused O_DIRECT; its pages were dropped
    /// first).
    pub through_page_cache: bool,
}

impl TargetCheck {
    /// Whether every block checked is good and readable.
    pub fn clean(&self) -> bool {
        self.faults.total() == 0 && self.read_errors == 0
    }

    /// Counts `blocks` blocks sealed at `len` bytes.
    fn other_size(&mut self, len: u64, blocks: u64) {
        match self
            .other_block_sizes
            .iter_mut()
            .find(|s| s.block_size == len)
        {
            Some(s) => s.blocks += blocks,
            None => {
                self.other_block_sizes.push(SizeCount {
                    block_size: len,
                    blocks,
                });
                self.other_block_sizes.sort_by_key(|s| s.block_size);
            }
        }
    }

    /// Counts the judgement `j` of a block expected as `e`.
    pub fn judged(&mut self, j: Judgement, e: Expect) {
        self.blocks_checked += 1;
        match j {
            Judgement::Good { newer } => {
                self.good += 1;
                self.newer += newer as u64;
            }
            Judgement::Unsealed => self.unsealed += 1,
            Judgement::OtherSize { len } => self.other_size(len, 1),
            Judgement::LostUnflushed => {
                self.lost_unflushed += 1;
                if self.lost_unflushed_offsets.len() < MAX_LISTED {
                    self.lost_unflushed_offsets.push(e.offset);
                }
            }
            Judgement::Bad {
                fault,
                found,
                sector_generations,
            } => {
                self.faults.add(fault);
                if self.bad.len() < MAX_LISTED {
                    let seen = |s: Stamp| Seen {
                        offset: s.offset,
                        generation: s.generation,
                        writer: Some(s.writer),
                        record: (e.id != Some(s.id)).then_some(s.id),
                    };
                    self.bad.push(BadBlock {
                        offset: e.offset,
                        kind: fault,
                        expected: Seen {
                            offset: e.offset,
                            generation: e.generation,
                            ..Seen::default()
                        },
                        found: found.map(seen),
                        sector_generations,
                    });
                }
            }
        }
    }
}

/// What to read: the blocks a record names, or every block of a span.
pub enum Scope<'a> {
    /// The blocks `table` records as written, judged against record `id`.
    Record {
        /// The record's id.
        id: u64,
        /// The target's table.
        table: &'a Table,
        /// The pattern the blocks were written with instead of seals.
        pattern: Option<&'a Pattern>,
    },
    /// Every `block`-byte block of the first `size` bytes, any record accepted.
    Whole {
        /// Bytes per block.
        block: u64,
        /// Bytes to read.
        size: u64,
    },
}

impl Scope<'_> {
    /// Judges `one`, read where `e` says, into `out`: against the pattern the record's blocks
    /// were written with, or as seals.
    fn judge(&self, seals: &mut Spans, out: &mut TargetCheck, one: &[u8], e: Expect) {
        match self {
            Scope::Record {
                pattern: Some(p), ..
            } => out.judged(super::pattern::judge(one, p, e), e),
            _ => seals.judge(out, one, e),
        }
    }
}

fn open(path: &Path) -> std::io::Result<(std::fs::File, bool)> {
    match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
    {
        Ok(f) => Ok((f, false)),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            let f = std::fs::File::open(path)?;
            {
                use std::os::fd::AsRawFd;
                // Written pages go to the device, then leave the cache: the reads below
                // come from the device.
                // SAFETY: plain syscalls on an open descriptor.
                unsafe {
                    libc::fdatasync(f.as_raw_fd());
                    libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
                }
            }
            Ok((f, true))
        }
        Err(e) => Err(e),
    }
}

/// Reads `path` back as `scope` says and judges every block.
pub fn check(path: &Path, scope: Scope<'_>) -> std::io::Result<TargetCheck> {
    let (file, cached) = open(path)?;
    let block = match &scope {
        Scope::Record { table, .. } => table.block,
        Scope::Whole { block, .. } => *block,
    };
    let chunk_blocks = (CHUNK / block).max(1);
    let mut arena = BufferArena::new(1, (chunk_blocks * block) as usize, 4096)?;
    let mut out = TargetCheck {
        path: path.display().to_string(),
        block_size: block,
        through_page_cache: cached,
        ..TargetCheck::default()
    };
    let (blocks, id) = match &scope {
        Scope::Record { id, table, .. } => (table.blocks(), Some(*id)),
        Scope::Whole { size, .. } => (size / block, None),
    };
    let expected = |i: u64| match &scope {
        Scope::Record { table, .. } => table.entry(i),
        Scope::Whole { .. } => Entry::Written(0),
    };
    let durable = |i: u64| match &scope {
        Scope::Record { table, .. } => table.durable(i),
        Scope::Whole { .. } => 0,
    };
    let mut seals = Spans::default();
    let mut i = 0;
    while i < blocks {
        if crate::signal::interrupted() {
            break;
        }
        match expected(i) {
            Entry::Unwritten => {
                i += 1;
                continue;
            }
            Entry::Doubtful(_) => {
                out.skipped += 1;
                i += 1;
                continue;
            }
            Entry::Written(_) => {}
        }
        // A run of blocks to judge, read at once.
        let mut n = 1;
        while n < chunk_blocks && i + n < blocks && matches!(expected(i + n), Entry::Written(_)) {
            n += 1;
        }
        let buf = arena.slot_mut(0, (n * block) as usize);
        let whole = read_full(&file, buf, i * block).is_ok_and(|l| l == buf.len());
        for k in 0..n {
            let at = (k * block) as usize;
            let one = &mut buf[at..at + block as usize];
            let offset = (i + k) * block;
            let Entry::Written(generation) = expected(i + k) else {
                unreachable!("the run holds written blocks only")
            };
            // A failed run is read again block by block, so errors name their blocks.
            if !(whole || read_full(&file, one, offset).is_ok_and(|l| l == one.len())) {
                out.read_errors += 1;
                if out.read_error_offsets.len() < MAX_ERROR_OFFSETS {
                    out.read_error_offsets.push(offset);
                }
                continue;
            }
            let e = Expect {
                offset,
                id,
                generation,
                durable: durable(i + k),
            };
            scope.judge(&mut seals, &mut out, one, e);
        }
        i += n;
    }
    Ok(out)
}

/// Without a record: where the last seal of another block length found ends, so the blocks it
/// spans after its header are counted with it, not judged.
#[derive(Default)]
struct Spans {
    /// Byte offset the seal ends at.
    until: u64,
    /// Its length.
    len: u64,
}

impl Spans {
    /// Judges `one`, read at `e.offset`, into `out`.
    fn judge(&mut self, out: &mut TargetCheck, one: &[u8], e: Expect) {
        if e.offset < self.until {
            out.blocks_checked += 1;
            out.other_size(self.len, 1);
            return;
        }
        match judge(one, e) {
            // Inside a seal whose header came before: of the length that header declared.
            Judgement::OtherSize { len: 0 } => {
                out.blocks_checked += 1;
                out.other_size(self.len, 1);
            }
            Judgement::OtherSize { len } => {
                (self.until, self.len) = (e.offset + len, len);
                out.judged(Judgement::OtherSize { len }, e);
            }
            j => out.judged(j, e),
        }
    }
}

/// Reads into `buf` from `offset` until it is full or the file ends; the bytes read.
fn read_full(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}
