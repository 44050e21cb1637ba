//! Write data a device cannot shortcut. Each slot's buffer is filled once with random bytes;
//! before every write the buffer is stamped in each 512-byte sector with the sector's own
//! offset and a number unique to this write (fio's `scramble_buffers` does the same). So no two
//! written sectors are equal, within a run or across runs with different seeds: a
//! deduplicating or compressing device (ZFS dedup, cloud disks, SandForce-style SSDs) must
//! store every one, and a QD32 random-write run writes 32 × N distinct blocks, not 32.
//!
//! The stamp costs two 8-byte stores per sector (measured in docs/performance.md); the rest of
//! each sector keeps the random fill, so the data stays incompressible. A run may write a
//! pattern instead ([`Payload`]).

use super::pattern::Pattern;
use serde::{Deserialize, Serialize};

/// Bytes per stamped sector.
pub const SECTOR: usize = 512;

/// What a run's writes carry: halfpower's stamped data, or a pattern (fio's `buffer_pattern`
/// and `verify_pattern`), which a compressing or deduplicating device may store in far fewer
/// bytes than it was given.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Payload {
    /// The random fill stamped per sector ([`stamp`]); sealed blocks under verification.
    #[default]
    Stamped,
    /// The pattern over each write from its start (`%o`: the write's offset in its file);
    /// under verification over each block (`%o`: the block's offset). Boxed: the worker's
    /// plan stays one pointer larger.
    Pattern(Box<Pattern>),
}

impl Payload {
    /// Whether it is halfpower's own stamped data.
    pub fn is_stamped(&self) -> bool {
        matches!(self, Payload::Stamped)
    }

    /// The pattern, when it is one.
    pub fn pattern(&self) -> Option<&Pattern> {
        match self {
            Payload::Stamped => None,
            Payload::Pattern(p) => Some(p),
        }
    }

    /// Whether zeros read back may be data the run wrote: never for stamped data (the zero
    /// check looks past the stamp, in the random fill).
    pub fn may_read_back_zeros(&self) -> bool {
        self.pattern().is_some_and(Pattern::may_write_zero_words)
    }
}

/// Stamps `buf`, about to be written at byte `offset`, with `unique` (a number no other write
/// of the run uses): the first 16 bytes of every 512-byte sector become the sector's offset and
/// `unique`, both little-endian. A buffer shorter than a sector gets one stamp as far as it
/// fits.
#[inline]
pub fn stamp(buf: &mut [u8], offset: u64, unique: u64) {
    let mut at = offset;
    for sector in buf.chunks_mut(SECTOR) {
        let a = at.to_le_bytes();
        let b = unique.to_le_bytes();
        let n = sector.len().min(8);
        sector[..n].copy_from_slice(&a[..n]);
        if sector.len() > 8 {
            let m = (sector.len() - 8).min(8);
            sector[8..8 + m].copy_from_slice(&b[..m]);
        }
        at = at.wrapping_add(SECTOR as u64);
    }
}

/// Where in each 512-byte sector the zero check looks: past the stamp (offset and write
/// number), in the random fill, so a sector halfpower wrote is never zero there (but with
/// probability 2^-64), and neither is a sealed block's first sector (its header's magic).
pub const ZERO_WORD_AT: usize = 16;

/// Most sectors checked in one read: a larger read is checked at every n-th sector (one 8-byte
/// word per 16 KiB of a 1 MiB read), so a check costs at most 64 loads, a few µs when none of
/// them is in the processor's cache (measured in docs/performance.md).
pub const MAX_ZERO_WORDS: usize = 64;

/// How many of the 512-byte sectors of `buf` (data just read) hold zero in the 8-byte word at
/// [`ZERO_WORD_AT`]: (sectors checked, zero ones). One load per sector checked: every sector,
/// or every n-th of a read longer than [`MAX_ZERO_WORDS`] sectors; a sector shorter than the
/// word is not checked.
#[inline]
pub fn zero_sectors(buf: &[u8]) -> (u64, u64) {
    let (mut checked, mut zero) = (0, 0);
    let step = buf.len().div_ceil(SECTOR).div_ceil(MAX_ZERO_WORDS).max(1);
    for sector in buf.chunks(SECTOR).step_by(step) {
        if let Some(w) = sector.get(ZERO_WORD_AT..ZERO_WORD_AT + 8) {
            checked += 1;
            zero += (w == [0u8; 8]) as u64;
        }
    }
    (checked, zero)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_sectors_are_counted_one_word_each() {
        let mut buf = vec![0u8; 4096];
        assert_eq!(zero_sectors(&buf), (8, 8));
        // Stamped but otherwise zero: the stamp is not looked at.
        stamp(&mut buf, 4096, 7);
        assert_eq!(zero_sectors(&buf), (8, 8));
        // Two sectors with data where the word is.
        buf[512 + ZERO_WORD_AT] = 1;
        buf[3 * 512 + ZERO_WORD_AT + 7] = 0x80;
        assert_eq!(zero_sectors(&buf), (8, 6));
        assert_eq!(zero_sectors(&buf[..20]), (0, 0));
        // 1 MiB: every 32nd sector, 64 words; the first 512 KiB zero is half of them.
        let mut big = vec![0u8; 1 << 20];
        for s in big[512 << 10..].chunks_mut(SECTOR) {
            s[ZERO_WORD_AT] = 9;
        }
        assert_eq!(zero_sectors(&big), (64, 32));
    }

    /// The cost of one check on buffers not in the processor's cache (each met once, in 256
    /// MiB of them) and on ones that are: `cargo test --release --lib zero_check_cost --
    /// --ignored --nocapture` (figures in docs/performance.md).
    #[test]
    #[ignore]
    fn zero_check_cost() {
        for len in [4096usize, 64 << 10, 1 << 20] {
            let bufs: Vec<Vec<u8>> = (0..((256 << 20) / len).min(4096))
                .map(|i| vec![(i % 251) as u8 + 1; len])
                .collect();
            let t = std::time::Instant::now();
            let zero: u64 = bufs.iter().map(|b| zero_sectors(b).1).sum();
            let cold = t.elapsed().as_nanos() as f64 / bufs.len() as f64;
            let t = std::time::Instant::now();
            let mut again = 0;
            for _ in 0..20 {
                again += bufs[..8].iter().map(|b| zero_sectors(b).1).sum::<u64>();
            }
            let hot = t.elapsed().as_nanos() as f64 / 160.0;
            assert_eq!(zero + again, 0);
            println!("{len:>8} B: {cold:.0} ns a check from memory, {hot:.0} ns from cache");
        }
    }

    #[test]
    fn every_sector_differs_by_offset_and_write() {
        let mut a = vec![7u8; 4096];
        let mut b = a.clone();
        stamp(&mut a, 8192, 1);
        stamp(&mut b, 8192, 2);
        let sectors: Vec<&[u8]> = a.chunks(SECTOR).collect();
        for (i, s) in sectors.iter().enumerate() {
            assert_eq!(
                u64::from_le_bytes(s[..8].try_into().unwrap()),
                8192 + 512 * i as u64
            );
            assert_eq!(u64::from_le_bytes(s[8..16].try_into().unwrap()), 1);
            assert!(s[16..].iter().all(|&x| x == 7), "the fill stays");
        }
        assert_ne!(a, b, "the same offset written twice differs");
        let mut tiny = vec![0u8; 5];
        stamp(&mut tiny, 0x0102_0304_0506, 9);
        assert_eq!(tiny, [6, 5, 4, 3, 2]);
    }
}
