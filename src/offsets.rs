//! Where each I/O goes: random offsets drawn from a distribution (with an optional share of
//! sequential continuations), or sequential streams that start staggered per thread, step by
//! the request size or a stride, and wrap at the end of the region.

use crate::access::sample::Draw;
use crate::rng::Rng;

/// The region one worker addresses: `size` bytes from `start`, in blocks of `align` bytes
/// (the request size, or the smallest size of a mix); a partial tail block is unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// First byte of the region.
    pub start: u64,
    /// Alignment of every offset, bytes.
    pub align: u64,
    /// Number of whole blocks of `align` in the region (≥ 1).
    pub blocks: u64,
}

impl Region {
    /// The region `[start, start + size)` in blocks of `align`.
    pub fn new(start: u64, size: u64, align: u64) -> Self {
        let align = align.max(1);
        Region {
            start,
            align,
            blocks: (size / align).max(1),
        }
    }

    /// Usable bytes (whole blocks).
    pub fn size(&self) -> u64 {
        self.blocks * self.align
    }
}

/// A stripe set (000's ftdisk stripe sets, RAID 0): one logical address space laid over several
/// files in chunks, round robin. A request never crosses a chunk (the chunk is a multiple of
/// the request size, checked before a run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stripe {
    chunk: u64,
    /// Where each member's region starts, bytes.
    starts: Vec<u64>,
}

impl Stripe {
    /// A stripe of `chunk` bytes over members whose regions start at `starts`.
    pub fn new(chunk: u64, starts: Vec<u64>) -> Self {
        Stripe {
            chunk: chunk.max(1),
            starts,
        }
    }

    /// The logical size of a stripe of `chunk` over members of region sizes `sizes`: as many
    /// whole chunks as the smallest holds, on every member.
    pub fn logical_size(chunk: u64, sizes: &[u64]) -> u64 {
        let per = sizes.iter().copied().min().unwrap_or(0) / chunk.max(1);
        per * chunk * sizes.len() as u64
    }

    /// The member and its byte offset holding logical offset `logical`.
    #[inline]
    pub fn map(&self, logical: u64) -> (u32, u64) {
        let n = self.starts.len().max(1) as u64;
        let c = logical / self.chunk;
        let member = (c % n) as usize;
        (
            member as u32,
            self.starts[member] + (c / n) * self.chunk + logical % self.chunk,
        )
    }
}

/// Produces the offsets of one worker: sequential (with an optional stride), or random from
/// a distribution, possibly with a share of sequential continuations and runs.
#[derive(Clone, Debug)]
pub struct OffsetGen {
    region: Region,
    /// Random offsets from this draw; `None` for sequential.
    random: Option<Draw>,
    /// Percent of requests that take a random offset (random modes).
    random_pct: u8,
    /// Requests per random offset.
    run: u32,
    /// Sequential requests left in the current run.
    left: u32,
    /// Start-to-start distance of sequential requests (`None`: the request's size).
    stride: Option<u64>,
    /// Where the next sequential request starts, relative to the region.
    pos: u64,
}

impl OffsetGen {
    /// Uniform random offsets over `region`.
    pub fn random(region: Region) -> Self {
        OffsetGen::drawn(region, Draw::Uniform(region.blocks), 100, 1)
    }

    /// Random offsets over `region` from `draw` (over its blocks); `random_pct` percent of
    /// requests start a run of `run` requests at a random offset, the others continue where
    /// the previous one ended.
    pub fn drawn(region: Region, draw: Draw, random_pct: u8, run: u32) -> Self {
        OffsetGen {
            region,
            random: Some(draw),
            random_pct,
            run: run.max(1),
            left: 0,
            stride: None,
            pos: 0,
        }
    }

    /// Sequential offsets for thread `thread` of `threads`, `stride` bytes apart (`None`: each
    /// request follows the previous one): thread i starts at block ⌊blocks · i / threads⌋ so the
    /// threads do not read the same data at the same time.
    pub fn sequential(region: Region, thread: u32, threads: u32, stride: Option<u64>) -> Self {
        let first = (region.blocks as u128 * thread as u128 / threads.max(1) as u128) as u64;
        OffsetGen {
            region,
            random: None,
            random_pct: 0,
            run: 1,
            left: 0,
            stride,
            pos: first * region.align,
        }
    }

    /// The byte offset of the next request of `len` bytes (≤ the region's size).
    #[inline]
    pub fn next(&mut self, rng: &mut Rng, len: u64) -> u64 {
        let size = self.region.size();
        let draw = match &mut self.random {
            Some(d) if self.left == 0 => d,
            Some(_) => {
                self.left -= 1;
                return self.step(len, size);
            }
            None => return self.step(len, size),
        };
        if self.random_pct < 100 && rng.below(100) >= self.random_pct as u64 {
            return self.step(len, size);
        }
        self.left = self.run - 1;
        let align = self.region.align;
        let mut off = size.saturating_sub(len) / align * align;
        for _ in 0..8 {
            let o = draw.unit(rng) * align;
            if o + len <= size {
                off = o;
                break;
            }
        }
        self.pos = off + len;
        self.region.start + off
    }

    #[inline]
    fn step(&mut self, len: u64, size: u64) -> u64 {
        if self.pos + len > size {
            self.pos = 0;
        }
        let off = self.pos;
        self.pos += self.stride.unwrap_or(len);
        self.region.start + off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripes_go_round_robin_in_chunks() {
        let s = Stripe::new(65536, vec![0, 4096, 0]);
        assert_eq!(s.map(0), (0, 0));
        assert_eq!(s.map(65536), (1, 4096));
        assert_eq!(s.map(2 * 65536 + 100), (2, 100));
        assert_eq!(s.map(3 * 65536), (0, 65536));
        assert_eq!(Stripe::logical_size(65536, &[1 << 20, 3 << 20]), 2 << 20);
    }

    #[test]
    fn random_offsets_are_aligned_inside_and_reproducible() {
        let region = Region::new(1 << 20, 64 << 20, 4096);
        let mut g = OffsetGen::random(region);
        let mut rng = Rng::new(42, 0);
        let mut hits = vec![0u32; region.blocks as usize];
        let first: Vec<u64> = (0..100_000)
            .map(|_| {
                let off = g.next(&mut rng, 4096);
                assert_eq!(off % 4096, 0);
                assert!(off >= 1 << 20 && off + 4096 <= (1 << 20) + (64 << 20));
                hits[((off - (1 << 20)) / 4096) as usize] += 1;
                off
            })
            .collect();
        // 100k draws over 16384 blocks: most blocks hit, none absurdly often.
        let touched = hits.iter().filter(|&&h| h > 0).count();
        assert!(touched > 16_000, "{touched}");
        assert!(*hits.iter().max().unwrap() < 30);
        let mut again = OffsetGen::random(region);
        let mut rng2 = Rng::new(42, 0);
        assert!(
            first
                .iter()
                .take(100)
                .all(|&o| o == again.next(&mut rng2, 4096))
        );
    }

    #[test]
    fn sequential_threads_are_staggered_and_wrap() {
        let region = Region::new(0, 8 * 4096, 4096);
        let mut rng = Rng::new(0, 0);
        let mut t0 = OffsetGen::sequential(region, 0, 2, None);
        let mut t1 = OffsetGen::sequential(region, 1, 2, None);
        let a: Vec<u64> = (0..10).map(|_| t0.next(&mut rng, 4096) / 4096).collect();
        let b: Vec<u64> = (0..5).map(|_| t1.next(&mut rng, 4096) / 4096).collect();
        assert_eq!(a, vec![0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
        assert_eq!(b, vec![4, 5, 6, 7, 0]);
    }

    #[test]
    fn a_partial_tail_block_is_never_addressed() {
        let region = Region::new(0, 10_000, 4096);
        assert_eq!(region.blocks, 2);
        let mut g = OffsetGen::sequential(region, 0, 1, None);
        let mut rng = Rng::new(0, 0);
        for _ in 0..10 {
            assert!(g.next(&mut rng, 4096) + 4096 <= 10_000);
        }
    }
}
