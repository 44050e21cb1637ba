//! Write data a device cannot shortcut. Each slot's buffer is filled once with random bytes;
//! before every write the buffer is stamped in each 512-byte sector with the sector's own
//! offset and a number unique to this write (fio's `scramble_buffers` does the same). So no two
//! written sectors are equal, within a run or across runs with different seeds: a
//! deduplicating or compressing device (ZFS dedup, cloud disks, SandForce-style SSDs) must
//! store every one, and a QD32 random-write run writes 32 × N distinct blocks, not 32.
//!
//! The stamp costs two 8-byte stores per sector (measured in docs/performance.md); the rest of
//! each sector keeps the random fill, so the data stays incompressible.

/// Bytes per stamped sector.
pub const SECTOR: usize = 512;

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

#[cfg(test)]
mod tests {
    use super::*;

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
