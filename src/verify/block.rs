//! The layout of a verified block and the judgement of one block read back.
//!
//! Every 512-byte sector of a written block starts with its own byte offset and a tag (the
//! state's id in the high 32 bits, the block's write generation in the low 32), as
//! `engine::payload` stamps unverified writes; so every sector names the write it came from and
//! a block made of sectors of two writes (torn) can be told from one with damaged bytes
//! (corrupt). Bytes 16..24 of every sector after the first hold the mark `HPVSECTR`, which an
//! unverified write's stamp lacks: a sector of a seal is told from one of a plain write without
//! a record. The first sector carries the block's header at bytes 16..64:
//!
//! | bytes | field |
//! |---|---|
//! | 16..24 | magic `HPVERIFY` |
//! | 24..32 | the block's byte offset on the target |
//! | 32..40 | the state's id (the run seed of the record the block belongs to) |
//! | 40..44 | generation: the how-manieth write of this block (1, 2, …) |
//! | 44..48 | writer: rank × 65536 + worker |
//! | 48..52 | block length in bytes |
//! | 52..56 | CRC-32C of the whole block with these four bytes zero |
//!
//! The rest of each sector is the worker's random fill, so the data stays incompressible.

use serde::{Deserialize, Serialize};

/// Bytes per stamped sector.
pub const SECTOR: usize = 512;
/// The header's magic.
pub const MAGIC: [u8; 8] = *b"HPVERIFY";
/// The mark at bytes 16..24 of every sector of a seal after its first.
pub const SECTOR_MARK: [u8; 8] = *b"HPVSECTR";
/// The smallest verified block: one sector (the header needs 56 bytes).
pub const MIN_BLOCK: usize = SECTOR;
/// The largest block length a header is believed to declare (a larger one is damage).
const MAX_DECLARED: u64 = 1 << 30;
const CRC_AT: usize = 52;

/// What a block carries: where it belongs, whose record it is, and which write it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Byte offset on the target.
    pub offset: u64,
    /// The state's id.
    pub id: u64,
    /// Write generation of the block (1 for its first write).
    pub generation: u32,
    /// Rank × 65536 + worker.
    pub writer: u32,
}

fn tag(id: u64, generation: u32) -> u64 {
    (id << 32) | generation as u64
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

/// Writes the sector stamps and the header of `s` into `block` (a multiple of [`SECTOR`] bytes,
/// at least [`MIN_BLOCK`]) and seals it with its checksum.
pub fn seal(block: &mut [u8], s: Stamp) {
    let t = tag(s.id, s.generation).to_le_bytes();
    for (i, sector) in block.chunks_mut(SECTOR).enumerate() {
        sector[..8].copy_from_slice(&(s.offset + (i * SECTOR) as u64).to_le_bytes());
        sector[8..16].copy_from_slice(&t);
        sector[16..24].copy_from_slice(&SECTOR_MARK);
    }
    block[16..24].copy_from_slice(&MAGIC);
    block[24..32].copy_from_slice(&s.offset.to_le_bytes());
    block[32..40].copy_from_slice(&s.id.to_le_bytes());
    block[40..44].copy_from_slice(&s.generation.to_le_bytes());
    block[44..48].copy_from_slice(&s.writer.to_le_bytes());
    let len = block.len() as u32;
    block[48..52].copy_from_slice(&len.to_le_bytes());
    block[CRC_AT..CRC_AT + 4].copy_from_slice(&[0; 4]);
    let crc = crc32c::crc32c(block);
    block[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
}

/// How a block read back differs from what the record expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fault {
    /// Its checksum fails and its sectors all belong to one write, or it holds bytes of no
    /// write of halfpower's where the record's block should be: damaged bytes.
    Corrupt,
    /// A valid block of another offset: a write that landed in the wrong place.
    Misdirected,
    /// Sectors of two or more writes of this block: a write that was cut part-way.
    Torn,
    /// An older write than the last one flushed (a write of this record, of another record,
    /// or an unsealed one of halfpower's): a lost write the device had promised to keep.
    Stale,
    /// Zeros, though the record says the block was written and flushed.
    Unwritten,
}

impl Fault {
    /// The word used in text and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Corrupt => "corrupt",
            Fault::Misdirected => "misdirected",
            Fault::Torn => "torn",
            Fault::Stale => "stale",
            Fault::Unwritten => "unwritten",
        }
    }
}

/// What a block read back turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The expected write, or (`newer`) a later one the record did not see acknowledged.
    Good {
        /// A generation above the record's (a write in flight when the record was saved).
        newer: bool,
    },
    /// No trace of a seal and none expected (only when reading a whole target without a
    /// record): nothing to judge.
    Unsealed,
    /// A seal of another block length (only without a record): not judged at this size.
    OtherSize {
        /// The block length its header declares, bytes (0: the block begins inside a seal,
        /// whose header lies before it).
        len: u64,
    },
    /// An older content than the last acknowledged write, but none older than the last write
    /// a completed flush covered (wholly, or torn between such writes): a write the device
    /// never promised to keep, lost (a power cut). Allowed, counted apart.
    LostUnflushed,
    /// A fault, with what was found instead: the header's stamp where one could be read, and
    /// the generations the sectors carry (more than one for a torn block).
    Bad {
        /// Which fault.
        fault: Fault,
        /// The block's own header, when its magic is there.
        found: Option<Stamp>,
        /// Distinct generations in the sector stamps of this record, in sector order.
        sector_generations: Vec<u32>,
    },
}

/// What the record expects of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// Byte offset on the target.
    pub offset: u64,
    /// The state's id, or `None` to accept any record (checking a target without a state).
    pub id: Option<u64>,
    /// The last acknowledged generation (0: never written, or unknown without a state).
    pub generation: u32,
    /// The last generation a completed flush covered (at most `generation`; 0: none): a
    /// block holding a write at least this new is not a broken promise.
    pub durable: u32,
}

/// Reads the header of `block`, if its magic is there.
pub fn header(block: &[u8]) -> Option<Stamp> {
    (block.len() >= MIN_BLOCK && block[16..24] == MAGIC).then(|| Stamp {
        offset: u64_at(block, 24),
        id: u64_at(block, 32),
        generation: u32_at(block, 40),
        writer: u32_at(block, 44),
    })
}

/// The block length a header declares, when it is one a seal could have (a multiple of a
/// sector, from one sector to 1 GiB).
fn declared_len(block: &[u8]) -> Option<u64> {
    let len = u32_at(block, 48) as u64;
    (len >= MIN_BLOCK as u64 && len % SECTOR as u64 == 0 && len <= MAX_DECLARED).then_some(len)
}

fn crc_ok(block: &[u8]) -> bool {
    if u32_at(block, 48) as usize != block.len() {
        return false;
    }
    let stored = u32_at(block, CRC_AT);
    let mut h = crc32c::crc32c(&block[..CRC_AT]);
    h = crc32c::crc32c_append(h, &[0; 4]);
    h = crc32c::crc32c_append(h, &block[CRC_AT + 4..]);
    h == stored
}

/// What the sectors of a block read back carry.
#[derive(Debug, Default)]
struct Survey {
    /// Distinct generations of the record's sectors, in sector order.
    gens: Vec<u32>,
    /// Sectors of the record: their own offset and the record's tag (without a record, the
    /// mark of a seal).
    ours: usize,
    /// Sectors in all.
    sectors: usize,
    /// Whether any sector carries a seal's mark (the header's magic or the sector mark).
    marked: bool,
    /// Whether every sector not of the record is all zero or begins with its own offset:
    /// what an earlier write of halfpower's, or none, left there.
    others_prior: bool,
    /// Whether every byte is zero.
    zero: bool,
    /// Whether every sector begins with its own offset (a write of halfpower's, sealed or not).
    own_offsets: bool,
}

/// Surveys the sectors of `block` (expected at `offset`) for record `id`, or without one for
/// the sectors that carry a seal's mark.
fn survey(block: &[u8], offset: u64, id: Option<u64>) -> Survey {
    let mut s = Survey {
        others_prior: true,
        zero: true,
        own_offsets: true,
        ..Survey::default()
    };
    for (i, sector) in block.chunks(SECTOR).enumerate() {
        s.sectors += 1;
        let own = sector.len() >= 24 && u64_at(sector, 0) == offset + (i * SECTOR) as u64;
        let marked =
            sector.len() >= 24 && (sector[16..24] == MAGIC || sector[16..24] == SECTOR_MARK);
        let zero = sector.iter().all(|&b| b == 0);
        s.marked |= marked;
        s.zero &= zero;
        s.own_offsets &= own;
        let t = if sector.len() >= 24 {
            u64_at(sector, 8)
        } else {
            0
        };
        let of_record = own
            && match id {
                Some(id) => (t >> 32) == (id & 0xffff_ffff),
                None => marked,
            };
        if of_record {
            s.ours += 1;
            let g = t as u32;
            if !s.gens.contains(&g) {
                s.gens.push(g);
            }
        } else {
            s.others_prior &= zero || own;
        }
    }
    s
}

/// Whether a block whose seal fails is what a power cut may leave of writes the device never
/// promised to keep: sectors of this record's writes none older than the last flushed one,
/// from two writes or more; or, for a block no flush covered, its first write's sectors over
/// what was there before (zeros, or an earlier write of halfpower's).
fn cut_short(s: &Survey, e: Expect) -> bool {
    !s.gens.is_empty()
        && s.gens.iter().all(|&g| g >= e.durable)
        && ((s.ours == s.sectors && s.gens.len() >= 2)
            || (e.durable == 0 && s.ours < s.sectors && s.others_prior))
}

/// Judges `block` read back at `e.offset` against what the record expects.
///
/// Without a record (`e.id` `None`) a block with no trace of a seal (no header's magic, no
/// sector mark) is [`Judgement::Unsealed`]; with one, a block holding none of the record's
/// writes is a lost write (`stale`, or `unwritten` for zeros, or `corrupt` for bytes of no
/// write of halfpower's), unless no flush covered any of its writes (`lost-unflushed`).
pub fn judge(block: &[u8], e: Expect) -> Judgement {
    if e.id.is_some() && e.generation == 0 {
        return Judgement::Unsealed;
    }
    let found = header(block);
    // A header of another block length: a seal of another block size.
    if let (Some(h), Some(len)) = (found, declared_len(block)) {
        if len != block.len() as u64 {
            match e.id {
                None => return Judgement::OtherSize { len },
                Some(id) if h.id != id => return older(e, 0, found, Vec::new()),
                Some(_) => {}
            }
        }
    }
    // Without a record, a block that begins inside a seal (its first sector a seal's later
    // sector, at its own offset): a seal of another length, or placed elsewhere.
    if e.id.is_none()
        && found.is_none()
        && block[16..24] == SECTOR_MARK
        && u64_at(block, 0) == e.offset
    {
        return Judgement::OtherSize { len: 0 };
    }
    // Without a record, a whole seal of another length inside the block (a target written at a
    // smaller block size, read at a larger one): its length, never damage.
    if e.id.is_none()
        && found.is_none()
        && let Some(len) = inner_seal(block, e.offset)
    {
        return Judgement::OtherSize { len };
    }
    let s = survey(block, e.offset, e.id.or(found.map(|h| h.id)));
    let bad = |fault| Judgement::Bad {
        fault,
        found,
        sector_generations: s.gens.clone(),
    };
    if let Some(h) = found.filter(|_| crc_ok(block)) {
        if h.offset != e.offset {
            return bad(Fault::Misdirected);
        }
        return match e.id {
            None => Judgement::Good { newer: false },
            // Another record's block where this record wrote: its writes never arrived.
            Some(id) if h.id != id => older(e, 0, found, Vec::new()),
            Some(_) if h.generation >= e.generation => Judgement::Good {
                newer: h.generation > e.generation,
            },
            Some(_) => older(e, h.generation, found, s.gens.clone()),
        };
    }
    if e.id.is_some() {
        let ours = !s.gens.is_empty() || found.is_some_and(|h| Some(h.id) == e.id);
        if (!ours && e.durable == 0) || cut_short(&s, e) {
            return Judgement::LostUnflushed;
        }
    }
    if s.gens.len() > 1 {
        return bad(Fault::Torn);
    }
    if found.is_some() || !s.gens.is_empty() || s.marked {
        return bad(Fault::Corrupt);
    }
    match e.id {
        None => Judgement::Unsealed,
        Some(_) if s.zero => bad(Fault::Unwritten),
        // Every sector stamped with its offset: an older, unsealed write of halfpower's.
        Some(_) if s.own_offsets => bad(Fault::Stale),
        Some(_) => bad(Fault::Corrupt),
    }
}

/// The length of a whole, valid seal that begins at a later sector of `block` (read at
/// `offset`) at its own offset and declares a length other than the block's, if there is one.
fn inner_seal(block: &[u8], offset: u64) -> Option<u64> {
    (1..block.len() / SECTOR).find_map(|i| {
        let at = i * SECTOR;
        let rest = &block[at..];
        let h = header(rest)?;
        let len = declared_len(rest)?;
        let fits = len as usize <= rest.len() && len != block.len() as u64;
        (fits && h.offset == offset + at as u64 && crc_ok(&rest[..len as usize])).then_some(len)
    })
}

/// A valid block older than the record expects (`generation` 0: another record's): a lost
/// write, allowed when it is not older than the last flushed one.
fn older(e: Expect, generation: u32, found: Option<Stamp>, gens: Vec<u32>) -> Judgement {
    if generation >= e.durable {
        Judgement::LostUnflushed
    } else {
        Judgement::Bad {
            fault: Fault::Stale,
            found,
            sector_generations: gens,
        }
    }
}

#[cfg(test)]
#[path = "block_tests.rs"]
mod tests;
