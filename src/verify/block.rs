//! The layout of a verified block and the judgement of one block read back.
//!
//! Every 512-byte sector of a written block starts with its own byte offset and a tag (the
//! state's id in the high 32 bits, the block's write generation in the low 32), as
//! `engine::payload` stamps unverified writes; so every sector names the write it came from and
//! a block made of sectors of two writes (torn) can be told from one with damaged bytes
//! (corrupt). The first sector then carries the block's header at bytes 16..64:
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
/// The smallest verified block: one sector (the header needs 56 bytes).
pub const MIN_BLOCK: usize = SECTOR;
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
    /// Its checksum fails and its sectors all belong to one write: damaged bytes.
    Corrupt,
    /// A valid block of another offset: a write that landed in the wrong place.
    Misdirected,
    /// Sectors of two or more writes of this block: a write that was cut part-way.
    Torn,
    /// A valid block of this offset older than the last acknowledged write: a lost write.
    Stale,
    /// No block of this record at all, though the record says it was written.
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
    /// No halfpower block and none expected (only when reading a whole target without a record).
    Blank,
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

/// The generations the sectors of `block` (expected at `offset`) carry for record `id`, in
/// sector order without repeats; sectors of another offset or record are left out.
fn sector_generations(block: &[u8], offset: u64, id: Option<u64>) -> Vec<u32> {
    let mut gens = Vec::new();
    for (i, sector) in block.chunks(SECTOR).enumerate() {
        if sector.len() < 16 || u64_at(sector, 0) != offset + (i * SECTOR) as u64 {
            continue;
        }
        let t = u64_at(sector, 8);
        if id.is_some_and(|id| (t >> 32) != (id & 0xffff_ffff)) {
            continue;
        }
        let g = t as u32;
        if !gens.contains(&g) {
            gens.push(g);
        }
    }
    gens
}

/// Judges `block` read back at `e.offset` against what the record expects.
pub fn judge(block: &[u8], e: Expect) -> Judgement {
    let found = header(block);
    let gens = sector_generations(block, e.offset, e.id);
    let bad = |fault| Judgement::Bad {
        fault,
        found,
        sector_generations: gens.clone(),
    };
    let Some(h) = found.filter(|_| crc_ok(block)) else {
        return if gens.len() > 1 {
            bad(Fault::Torn)
        } else if found.is_some() || !gens.is_empty() {
            bad(Fault::Corrupt)
        } else if e.generation == 0 {
            Judgement::Blank
        } else {
            bad(Fault::Unwritten)
        };
    };
    if h.offset != e.offset {
        return bad(Fault::Misdirected);
    }
    match e.id {
        // A block of another record at this offset: this record's write never arrived.
        Some(id) if h.id != id => bad(if e.generation == 0 {
            return Judgement::Blank;
        } else {
            Fault::Stale
        }),
        _ if h.generation < e.generation => bad(Fault::Stale),
        _ => Judgement::Good {
            newer: e.id.is_some() && h.generation > e.generation,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(offset: u64, generation: u32) -> Vec<u8> {
        let mut b: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
        seal(
            &mut b,
            Stamp {
                offset,
                id: 42,
                generation,
                writer: 3,
            },
        );
        b
    }

    fn expect(offset: u64, generation: u32) -> Expect {
        Expect {
            offset,
            id: Some(42),
            generation,
        }
    }

    fn fault(j: Judgement) -> Option<Fault> {
        match j {
            Judgement::Bad { fault, .. } => Some(fault),
            _ => None,
        }
    }

    #[test]
    fn a_sealed_block_reads_back_good_and_carries_its_stamp() {
        let b = block(8192, 3);
        assert_eq!(judge(&b, expect(8192, 3)), Judgement::Good { newer: false });
        assert_eq!(judge(&b, expect(8192, 2)), Judgement::Good { newer: true });
        let h = header(&b).unwrap();
        assert_eq!((h.offset, h.id, h.generation, h.writer), (8192, 42, 3, 3));
        assert_eq!(sector_generations(&b, 8192, Some(42)), vec![3]);
    }

    #[test]
    fn each_fault_is_told_apart() {
        let mut flipped = block(8192, 3);
        flipped[3000] ^= 0x40;
        assert_eq!(
            fault(judge(&flipped, expect(8192, 3))),
            Some(Fault::Corrupt)
        );
        // A valid block of another offset.
        assert_eq!(
            fault(judge(&block(4096, 3), expect(8192, 3))),
            Some(Fault::Misdirected)
        );
        // An older generation of this offset.
        assert_eq!(
            fault(judge(&block(8192, 2), expect(8192, 3))),
            Some(Fault::Stale)
        );
        // First half of generation 2, second half of generation 1.
        let mut torn = block(8192, 2);
        torn[2048..].copy_from_slice(&block(8192, 1)[2048..]);
        match judge(&torn, expect(8192, 2)) {
            Judgement::Bad {
                fault,
                sector_generations,
                ..
            } => {
                assert_eq!(fault, Fault::Torn);
                assert_eq!(sector_generations, vec![2, 1]);
            }
            j => panic!("{j:?}"),
        }
        // Never written: zeros, expected written → unwritten; not expected → blank.
        let zeros = vec![0u8; 4096];
        assert_eq!(
            fault(judge(&zeros, expect(8192, 1))),
            Some(Fault::Unwritten)
        );
        assert_eq!(judge(&zeros, expect(8192, 0)), Judgement::Blank);
        // A header wiped but the sectors still this write's: corrupt, not unwritten.
        let mut wiped = block(8192, 1);
        wiped[16..24].fill(0);
        assert_eq!(fault(judge(&wiped, expect(8192, 1))), Some(Fault::Corrupt));
        // Another record's block where this record wrote: its write was lost.
        let mut other = block(8192, 5);
        seal(
            &mut other,
            Stamp {
                offset: 8192,
                id: 7,
                generation: 5,
                writer: 0,
            },
        );
        assert_eq!(fault(judge(&other, expect(8192, 1))), Some(Fault::Stale));
        // Without a record any valid block of the right offset is good.
        let any = Expect {
            offset: 8192,
            id: None,
            generation: 0,
        };
        assert_eq!(judge(&other, any), Judgement::Good { newer: false });
    }

    #[test]
    fn a_one_sector_block_has_room_for_its_header() {
        let mut b = vec![0xa5u8; MIN_BLOCK];
        seal(
            &mut b,
            Stamp {
                offset: 512,
                id: 1,
                generation: 1,
                writer: 0,
            },
        );
        let e = Expect {
            offset: 512,
            id: Some(1),
            generation: 1,
        };
        assert_eq!(judge(&b, e), Judgement::Good { newer: false });
    }
}
