//! The record of what a run wrote: per block of a target, the generation of its last
//! acknowledged write, shared by every worker of the target, and its file (`--verify-state`).
//!
//! One 32-bit entry per block: bits 0–29 the generation (0: never written), bit 30 set when
//! the last write failed (the block's content is unknown and it is not judged), bit 31 set
//! while a write of the block is in flight. A worker claims every block of a write before
//! issuing it, so one block never has two writes in flight and the order in which the device
//! applies them cannot make the record wrong. Beside it, per block, the last generation a
//! completed flush covered ([`super::durable`]). The cost is 8 bytes per block in memory
//! (1.95 GB per TB at 4 KiB blocks, 122 MB per TB at 64 KiB) and 4 in the file.
//!
//! The file (version 2): one line of JSON (version, id, block size, and per target its path,
//! blocks, the CRC-32C of its entries, and how many blocks were written after their last
//! flush, with the CRC-32C of that list), then per target its entries as little-endian u32, in
//! order, followed by its unflushed blocks, each a u64 block index and the u32 generation its
//! last flush covered. A version-1 file (no flush recorded: its writer never flushed) is read
//! with no write durable.

use super::durable::{Durable, FlushMark};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

const GEN: u32 = (1 << 30) - 1;
const DOUBT: u32 = 1 << 30;
const BUSY: u32 = 1 << 31;
/// The state file's version.
pub const STATE_VERSION: u32 = 2;
/// The version before flushes were recorded, still read.
const STATE_VERSION_NO_FLUSH: u32 = 1;

/// The generations of one target's blocks.
#[derive(Debug)]
pub struct Table {
    /// The target's path as given.
    pub path: String,
    /// Bytes per block.
    pub block: u64,
    entries: Vec<AtomicU32>,
    durable: Durable,
    /// Whether flushes were recorded (false for a version-1 state: no write is known durable).
    pub flushes_recorded: bool,
}

/// What a block's entry says, once no write is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Never written by this record.
    Unwritten,
    /// Last acknowledged write's generation.
    Written(u32),
    /// The last write failed: content unknown.
    Doubtful(u32),
}

impl Table {
    /// An empty record of `blocks` blocks of `block` bytes for `path`.
    pub fn new(path: &str, block: u64, blocks: u64) -> Self {
        Table {
            path: path.to_string(),
            block,
            entries: (0..blocks).map(|_| AtomicU32::new(0)).collect(),
            durable: Durable::new((0..blocks).map(|_| 0)),
            flushes_recorded: true,
        }
    }

    /// Blocks covered.
    pub fn blocks(&self) -> u64 {
        self.entries.len() as u64
    }

    /// Grows the record to cover `blocks` blocks (never shrinks).
    pub fn cover(&mut self, blocks: u64) {
        while (self.entries.len() as u64) < blocks {
            self.entries.push(AtomicU32::new(0));
        }
        self.durable.cover(blocks);
    }

    fn range(&self, offset: u64, len: u64) -> std::ops::Range<usize> {
        let first = (offset / self.block) as usize;
        first..first + len.div_ceil(self.block) as usize
    }

    /// Claims every block of a write of `len` bytes at `offset` for one write in flight;
    /// false (and nothing claimed) when one of them already has one, or lies outside.
    pub fn claim(&self, offset: u64, len: u64) -> bool {
        let r = self.range(offset, len);
        if r.end > self.entries.len() {
            return false;
        }
        for i in r.clone() {
            let e = &self.entries[i];
            let cur = e.load(Ordering::Acquire);
            if cur & BUSY != 0
                || e.compare_exchange(cur, cur | BUSY, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
            {
                for j in r.start..i {
                    self.entries[j].fetch_and(!BUSY, Ordering::AcqRel);
                }
                return false;
            }
        }
        true
    }

    /// The generation the next write of block `i` (claimed) carries.
    pub fn next_generation(&self, i: usize) -> u32 {
        ((self.entries[i].load(Ordering::Acquire) & GEN) + 1).min(GEN)
    }

    /// Ends the write of `len` bytes at `offset`: acknowledged (`ok`) or failed.
    pub fn release(&self, offset: u64, len: u64, ok: bool) {
        self.release_by(0, offset, len, ok);
    }

    /// [`Table::release`] by writer `writer` (which of the acknowledgement logs it uses).
    #[inline]
    pub fn release_by(&self, writer: usize, offset: u64, len: u64, ok: bool) {
        let r = self.range(offset, len);
        for i in r.clone() {
            let g = self.next_generation(i);
            self.entries[i].store(if ok { g } else { g | DOUBT }, Ordering::Release);
        }
        if ok {
            // Logged after the entries: a flush that sees the log entry covers the write.
            let acks = r.map(|i| (i as u64, self.entries[i].load(Ordering::Acquire) & GEN));
            self.durable.acknowledged(writer, acks);
        }
    }

    /// The acknowledged generation of block `i` (`None` when its last write failed).
    fn acked(&self, i: usize) -> Option<u32> {
        let e = self.entries[i].load(Ordering::Acquire);
        (e & DOUBT == 0).then_some(e & GEN)
    }

    /// A flush of the target is about to be issued: what it will cover, for
    /// [`Table::flush_done`].
    pub fn flush_begin(&self) -> FlushMark {
        self.durable.begin(|i| self.acked(i))
    }

    /// The flush `mark` was taken for completed.
    pub fn flush_done(&self, mark: FlushMark) {
        self.durable.done(mark);
    }

    /// A flush completed while no write was in flight: every acknowledged write is durable.
    pub fn flushed_all(&self) {
        self.durable.all_done(|i| self.acked(i));
    }

    /// The last generation of block `i` a completed flush covered (0: none).
    pub fn durable(&self, i: u64) -> u32 {
        self.durable.get(i)
    }

    /// Blocks whose last acknowledged write no completed flush covered.
    pub fn unflushed(&self) -> u64 {
        (0..self.blocks())
            .filter(|&i| matches!(self.entry(i), Entry::Written(g) if self.durable(i) < g))
            .count() as u64
    }

    /// Block `i`'s raw entry (flags included), to compare before and after a read.
    pub fn raw(&self, i: usize) -> u32 {
        self.entries
            .get(i)
            .map_or(BUSY, |e| e.load(Ordering::Acquire))
    }

    /// The generation a raw entry records, when it holds one that can be judged (written, the
    /// last write acknowledged, none in flight).
    pub fn settled(raw: u32) -> Option<u32> {
        (raw & (BUSY | DOUBT) == 0 && raw & GEN > 0).then_some(raw & GEN)
    }

    /// Block `i`'s entry.
    pub fn entry(&self, i: u64) -> Entry {
        let e = self.entries[i as usize].load(Ordering::Acquire) & !BUSY;
        match (e & GEN, e & DOUBT != 0) {
            (0, false) => Entry::Unwritten,
            (g, false) => Entry::Written(g),
            (g, true) => Entry::Doubtful(g),
        }
    }

    /// Blocks written (acknowledged or doubtful).
    pub fn written(&self) -> u64 {
        (0..self.blocks())
            .filter(|&i| self.entry(i) != Entry::Unwritten)
            .count() as u64
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * 4);
        for e in &self.entries {
            out.extend_from_slice(&(e.load(Ordering::Acquire) & !BUSY).to_le_bytes());
        }
        out
    }

    /// The blocks whose durable generation is below their entry's: index and generation.
    fn unflushed_bytes(&self) -> (u64, Vec<u8>) {
        let mut out = Vec::new();
        let mut n = 0;
        for (i, e) in self.entries.iter().enumerate() {
            let d = self.durable(i as u64);
            if d != e.load(Ordering::Acquire) & GEN {
                out.extend_from_slice(&(i as u64).to_le_bytes());
                out.extend_from_slice(&d.to_le_bytes());
                n += 1;
            }
        }
        (n, out)
    }
}

/// The head line of a state file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StateHead {
    /// [`STATE_VERSION`].
    pub version: u32,
    /// The record's id: every block written under it carries it.
    pub id: u64,
    /// Bytes per block.
    pub block_size: u64,
    /// Per target: path, blocks, checksum of its entries.
    pub targets: Vec<StateTarget>,
}

/// One target of a state file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StateTarget {
    /// Path as given to the run.
    pub path: String,
    /// Blocks recorded.
    pub blocks: u64,
    /// CRC-32C of the entries' bytes.
    pub crc32c: u32,
    /// Blocks whose last flush covered an older generation than their entry's (version 2).
    #[serde(default)]
    pub unflushed: u64,
    /// CRC-32C of that list's bytes.
    #[serde(default)]
    pub unflushed_crc32c: u32,
}

/// A whole record: its id and its targets' tables.
#[derive(Debug)]
pub struct State {
    /// The record's id.
    pub id: u64,
    /// Bytes per block.
    pub block_size: u64,
    /// Per target.
    pub tables: Vec<Table>,
}

fn bad_state(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::invalid(
        "--verify-state",
        path.display(),
        format!("a state file written by halfpower --verify-state ({why})"),
    )
}

/// Reads target `t`'s entries (and, `flushes` in a version-2 file, its unflushed blocks) from
/// `data` at `*at`, moving `*at` past them.
fn parse_table(
    path: &Path,
    data: &[u8],
    at: &mut usize,
    t: &StateTarget,
    block: u64,
    flushes: bool,
) -> Result<Table> {
    let take = |at: usize, n: u64, each: u64, what: &str| {
        n.checked_mul(each)
            .and_then(|l| usize::try_from(l).ok())
            .filter(|l| at.checked_add(*l).is_some_and(|end| end <= data.len()))
            .map(|l| &data[at..at + l])
            .ok_or_else(|| bad_state(path, format!("{}: {what} cut short", t.path)))
    };
    let raw = take(*at, t.blocks, 4, "entries")?;
    if crc32c::crc32c(raw) != t.crc32c {
        return Err(bad_state(path, format!("{}: checksum mismatch", t.path)));
    }
    *at += raw.len();
    let entries: Vec<AtomicU32> = raw
        .chunks_exact(4)
        .map(|c| AtomicU32::new(u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & !BUSY))
        .collect();
    // Version 2: durable as acknowledged but for the listed blocks; version 1: none.
    let mut durable: Vec<u32> = match flushes {
        true => entries
            .iter()
            .map(|e| e.load(Ordering::Relaxed) & GEN)
            .collect(),
        false => vec![0; entries.len()],
    };
    let list = take(
        *at,
        if flushes { t.unflushed } else { 0 },
        12,
        "unflushed blocks",
    )?;
    if flushes && crc32c::crc32c(list) != t.unflushed_crc32c {
        return Err(bad_state(path, format!("{}: checksum mismatch", t.path)));
    }
    *at += list.len();
    for c in list.chunks_exact(12) {
        let i = u64::from_le_bytes(c[..8].try_into().unwrap_or_default());
        let g = u32::from_le_bytes(c[8..].try_into().unwrap_or_default());
        let d = usize::try_from(i)
            .ok()
            .and_then(|i| durable.get_mut(i))
            .ok_or_else(|| bad_state(path, format!("{}: block {i} past the end", t.path)))?;
        *d = g.min(*d);
    }
    Ok(Table {
        path: t.path.clone(),
        block,
        entries,
        durable: Durable::new(durable),
        flushes_recorded: flushes,
    })
}

impl State {
    /// Reads a state file. One that cannot be opened is the user's to fix (exit 2).
    pub fn load(path: &Path) -> Result<State> {
        let data = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound
            | std::io::ErrorKind::PermissionDenied
            | std::io::ErrorKind::IsADirectory => Error::invalid(
                "--verify-state",
                path.display(),
                format!("an existing state file written by `run --verify-state` ({e})"),
            ),
            _ => Error::io(format!("reading {}", path.display()), e),
        })?;
        Self::parse(path, &data)
    }

    /// Reads the bytes `data` of state file `path`.
    pub fn parse(path: &Path, data: &[u8]) -> Result<State> {
        let nl = data
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| bad_state(path, "no head line"))?;
        let head: StateHead = serde_json::from_slice(&data[..nl])
            .map_err(|e| bad_state(path, format!("head: {e}")))?;
        if head.version != STATE_VERSION && head.version != STATE_VERSION_NO_FLUSH {
            return Err(bad_state(
                path,
                format!(
                    "version {}, this halfpower reads {STATE_VERSION_NO_FLUSH} and {STATE_VERSION}",
                    head.version
                ),
            ));
        }
        if head.block_size < super::block::MIN_BLOCK as u64 {
            return Err(bad_state(path, "block size below 512"));
        }
        let flushes = head.version == STATE_VERSION;
        let mut at = nl + 1;
        let mut tables = Vec::new();
        for t in &head.targets {
            tables.push(parse_table(
                path,
                data,
                &mut at,
                t,
                head.block_size,
                flushes,
            )?);
        }
        if at != data.len() {
            return Err(bad_state(path, "bytes after the last target"));
        }
        Ok(State {
            id: head.id,
            block_size: head.block_size,
            tables,
        })
    }

    /// The record as its file holds it (`--verify-state`; the command keeps it through its
    /// exporter).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        // Per table: its entries, and how many blocks are unflushed with their list.
        type Body = (Vec<u8>, (u64, Vec<u8>));
        let bodies: Vec<Body> = self
            .tables
            .iter()
            .map(|t| (t.bytes(), t.unflushed_bytes()))
            .collect();
        let head = StateHead {
            version: STATE_VERSION,
            id: self.id,
            block_size: self.block_size,
            targets: self
                .tables
                .iter()
                .zip(&bodies)
                .map(|(t, (b, (n, u)))| StateTarget {
                    path: t.path.clone(),
                    blocks: t.blocks(),
                    crc32c: crc32c::crc32c(b),
                    unflushed: *n,
                    unflushed_crc32c: crc32c::crc32c(u),
                })
                .collect(),
        };
        let mut out = serde_json::to_vec(&head)
            .map_err(|e| Error::io("encoding the state's head", std::io::Error::other(e)))?;
        out.push(b'\n');
        for (b, (_, u)) in bodies {
            out.extend_from_slice(&b);
            out.extend_from_slice(&u);
        }
        Ok(out)
    }

    /// The table of `path`, added (empty, `blocks` long) when the record has none; grown to
    /// cover `blocks`.
    pub fn table_for(&mut self, path: &str, blocks: u64) -> usize {
        let i = match self.tables.iter().position(|t| t.path == path) {
            Some(i) => i,
            None => {
                self.tables.push(Table::new(path, self.block_size, 0));
                self.tables.len() - 1
            }
        };
        self.tables[i].cover(blocks);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_has_one_write_in_flight_and_its_generation_counts_up() {
        let t = Table::new("x", 4096, 8);
        assert!(t.claim(4096, 8192));
        assert!(!t.claim(8192, 4096), "block 2 is in flight");
        assert!(t.claim(12288, 4096), "block 3 is free");
        assert_eq!(t.next_generation(1), 1);
        t.release(4096, 8192, true);
        t.release(12288, 4096, false);
        assert_eq!(t.entry(1), Entry::Written(1));
        assert_eq!(t.entry(2), Entry::Written(1));
        assert_eq!(t.entry(3), Entry::Doubtful(1));
        assert_eq!(t.entry(0), Entry::Unwritten);
        assert!(t.claim(12288, 4096));
        t.release(12288, 4096, true);
        assert_eq!(
            t.entry(3),
            Entry::Written(2),
            "a good write clears the doubt"
        );
        assert!(!t.claim(28672, 8192), "past the end");
        assert!(
            t.claim(28672, 4096),
            "a refused claim leaves nothing claimed"
        );
        assert_eq!(t.written(), 3);
    }

    #[test]
    fn a_state_file_round_trips_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s");
        let mut s = State {
            id: 99,
            block_size: 4096,
            tables: vec![],
        };
        let i = s.table_for("/dev/loop7", 4);
        assert!(s.tables[i].claim(0, 4096));
        s.tables[i].release(0, 4096, true);
        std::fs::write(&p, s.to_bytes().unwrap()).unwrap();
        let mut back = State::load(&p).unwrap();
        assert_eq!((back.id, back.block_size), (99, 4096));
        assert_eq!(back.tables[0].entry(0), Entry::Written(1));
        assert_eq!(back.table_for("/dev/loop7", 6), 0);
        assert_eq!(back.tables[0].blocks(), 6, "grown, not replaced");
        let mut raw = std::fs::read(&p).unwrap();
        let n = raw.len();
        raw[n - 1] ^= 1;
        std::fs::write(&p, &raw).unwrap();
        let e = State::load(&p).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        std::fs::write(&p, b"{}\n").unwrap();
        assert!(State::load(&p).is_err());
    }

    #[test]
    fn a_state_keeps_what_its_last_flush_covered_and_reads_version_1() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s");
        let mut s = State {
            id: 7,
            block_size: 4096,
            tables: vec![],
        };
        let i = s.table_for("/dev/loop7", 4);
        let t = &s.tables[i];
        for b in 0..3u64 {
            assert!(t.claim(b * 4096, 4096));
            t.release_by(1, b * 4096, 4096, true);
        }
        let mark = t.flush_begin();
        // Block 1 written again after the flush was issued, block 3 for the first time.
        for b in [1u64, 3] {
            assert!(t.claim(b * 4096, 4096));
            t.release_by(2, b * 4096, 4096, true);
        }
        t.flush_done(mark);
        assert_eq!((t.durable(0), t.durable(1), t.durable(3)), (1, 1, 0));
        assert_eq!(t.unflushed(), 2);
        std::fs::write(&p, s.to_bytes().unwrap()).unwrap();
        let back = State::load(&p).unwrap();
        let b = &back.tables[0];
        assert!(b.flushes_recorded);
        assert_eq!(
            (0..4)
                .map(|k| (b.entry(k), b.durable(k)))
                .collect::<Vec<_>>(),
            [
                (Entry::Written(1), 1),
                (Entry::Written(2), 1),
                (Entry::Written(1), 1),
                (Entry::Written(1), 0)
            ]
        );
        b.flushed_all();
        assert_eq!(b.unflushed(), 0);

        // Version 1: the same entries, no flush recorded, none durable.
        let raw = std::fs::read(&p).unwrap();
        let nl = raw.iter().position(|&c| c == b'\n').unwrap();
        let mut head: serde_json::Value = serde_json::from_slice(&raw[..nl]).unwrap();
        head["version"] = 1.into();
        head["targets"][0]
            .as_object_mut()
            .unwrap()
            .remove("unflushed");
        head["targets"][0]
            .as_object_mut()
            .unwrap()
            .remove("unflushed_crc32c");
        let mut v1 = serde_json::to_vec(&head).unwrap();
        v1.push(b'\n');
        v1.extend_from_slice(&raw[nl + 1..nl + 1 + 16]);
        let old = State::parse(&p, &v1).unwrap();
        assert!(!old.tables[0].flushes_recorded);
        assert_eq!(old.tables[0].entry(1), Entry::Written(2));
        assert_eq!(old.tables[0].durable(1), 0);
        // A list cut short is refused.
        assert!(State::parse(&p, &raw[..raw.len() - 1]).is_err());
    }
}
