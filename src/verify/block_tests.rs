//! Sealed blocks judged after each way a write can go wrong (torn, corrupt, stale, another
//! size, lost after a flush), each block built by hand with the fault it should be told.

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

/// What the record expects: generation `generation` acknowledged and flushed.
fn expect(offset: u64, generation: u32) -> Expect {
    flushed(offset, generation, generation)
}

/// Generation `generation` acknowledged, `durable` the last one a flush covered.
fn flushed(offset: u64, generation: u32, durable: u32) -> Expect {
    Expect {
        offset,
        id: Some(42),
        generation,
        durable,
    }
}

const ANY: Expect = Expect {
    offset: 8192,
    id: None,
    generation: 0,
    durable: 0,
};

fn fault(j: Judgement) -> Option<Fault> {
    match j {
        Judgement::Bad { fault, .. } => Some(fault),
        _ => None,
    }
}

/// A block as an unverified write of halfpower's leaves it: every sector stamped with its
/// offset and a number, no seal.
fn plain(offset: u64) -> Vec<u8> {
    let mut b: Vec<u8> = (0..4096u32).map(|i| (i * 13 + 5) as u8).collect();
    crate::engine::payload::stamp(&mut b, offset, 0x1234_5678_9abc_def0);
    b
}

#[test]
fn a_sealed_block_reads_back_good_and_carries_its_stamp() {
    let b = block(8192, 3);
    assert_eq!(judge(&b, expect(8192, 3)), Judgement::Good { newer: false });
    assert_eq!(judge(&b, expect(8192, 2)), Judgement::Good { newer: true });
    let h = header(&b).unwrap();
    assert_eq!((h.offset, h.id, h.generation, h.writer), (8192, 42, 3, 3));
    let s = survey(&b, 8192, Some(42));
    assert_eq!((s.gens, s.ours, s.sectors), (vec![3], 8, 8));
    assert_eq!(
        &b[512 + 16..512 + 24],
        &SECTOR_MARK,
        "every later sector is marked"
    );
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
    // Never written: zeros, expected written → unwritten.
    let zeros = vec![0u8; 4096];
    assert_eq!(
        fault(judge(&zeros, expect(8192, 1))),
        Some(Fault::Unwritten)
    );
    // Random bytes over a sealed block: corrupt, not unwritten.
    let random: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    assert_eq!(fault(judge(&random, expect(8192, 1))), Some(Fault::Corrupt));
    // An unsealed write of halfpower's where the record's block should be: a lost write.
    assert_eq!(
        fault(judge(&plain(8192), expect(8192, 1))),
        Some(Fault::Stale)
    );
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
    assert_eq!(judge(&other, ANY), Judgement::Good { newer: false });
}

#[test]
fn without_a_record_only_a_trace_of_a_seal_is_judged() {
    // Nothing of a seal: zeros (also at offset 0, whose first sector's offset is 0), an
    // unverified write's stamps, random bytes.
    let at0 = Expect { offset: 0, ..ANY };
    assert_eq!(judge(&[0u8; 4096], at0), Judgement::Unsealed);
    assert_eq!(judge(&plain(0), at0), Judgement::Unsealed);
    assert_eq!(judge(&plain(8192), ANY), Judgement::Unsealed);
    // A seal whose first sector is gone still has its marked sectors: damaged.
    let mut b = block(8192, 1);
    b[..512].fill(0x5a);
    assert_eq!(fault(judge(&b, ANY)), Some(Fault::Corrupt));
    // Halves of two writes: torn.
    let mut torn = block(8192, 2);
    torn[..2048].copy_from_slice(&block(8192, 1)[..2048]);
    assert_eq!(fault(judge(&torn, ANY)), Some(Fault::Torn));
}

/// A never-written 4k block (random bytes) then a sealed 4k block, read as one 8k block
/// without a record: a seal of another size, not damage (issue 37: "4 bad (corrupt 4)").
#[test]
fn random_bytes_before_a_smaller_seal_are_another_size() {
    let mut eight: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761u32) >> 24) as u8)
        .collect();
    eight[4096..].copy_from_slice(&block(8192 + 4096, 1));
    assert_eq!(judge(&eight, ANY), Judgement::OtherSize { len: 4096 });
    // A damaged inner seal is no evidence of a size: judged as before.
    eight[4096 + 600] ^= 0xff;
    assert_ne!(judge(&eight, ANY), Judgement::OtherSize { len: 4096 });
}

#[test]
fn a_block_of_another_size_says_its_size() {
    let mut eight = vec![0u8; 8192];
    eight[..4096].copy_from_slice(&block(8192, 1));
    eight[4096..].copy_from_slice(&block(12288, 1));
    assert_eq!(judge(&eight, ANY), Judgement::OtherSize { len: 4096 });
    let mut big = vec![0x11u8; 8192];
    seal(
        &mut big,
        Stamp {
            offset: 8192,
            id: 9,
            generation: 1,
            writer: 0,
        },
    );
    assert_eq!(judge(&big[..4096], ANY), Judgement::OtherSize { len: 8192 });
    // With a record, another record's block of another size is a lost write.
    assert_eq!(
        fault(judge(&big[..4096], expect(8192, 1))),
        Some(Fault::Stale)
    );
}

#[test]
fn writes_after_the_last_flush_may_be_lost() {
    // Generation 3 acknowledged, 2 flushed: finding 2 is allowed, 1 is a broken promise.
    assert_eq!(
        judge(&block(8192, 2), flushed(8192, 3, 2)),
        Judgement::LostUnflushed
    );
    assert_eq!(
        fault(judge(&block(8192, 1), flushed(8192, 3, 2))),
        Some(Fault::Stale)
    );
    // Torn between the flushed write and a later one: allowed; reaching below it: torn.
    let mut torn = block(8192, 3);
    torn[2048..].copy_from_slice(&block(8192, 2)[2048..]);
    assert_eq!(judge(&torn, flushed(8192, 3, 2)), Judgement::LostUnflushed);
    assert_eq!(fault(judge(&torn, flushed(8192, 3, 3))), Some(Fault::Torn));
    // Never flushed: zeros, another record's or an unsealed block, or the first write
    // over zeros in part, are what was there before.
    let never = flushed(8192, 1, 0);
    assert_eq!(judge(&[0u8; 4096], never), Judgement::LostUnflushed);
    assert_eq!(judge(&plain(8192), never), Judgement::LostUnflushed);
    let mut part = block(8192, 1);
    part[1024..].fill(0);
    assert_eq!(judge(&part, never), Judgement::LostUnflushed);
    // ... but damaged bytes of its write are not.
    let mut flipped = block(8192, 1);
    flipped[3000] ^= 1;
    assert_eq!(fault(judge(&flipped, never)), Some(Fault::Corrupt));
    // Flushed, then zeros: a broken promise.
    assert_eq!(
        fault(judge(&[0u8; 4096], flushed(8192, 2, 1))),
        Some(Fault::Unwritten)
    );
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
        durable: 1,
    };
    assert_eq!(judge(&b, e), Judgement::Good { newer: false });
}
