//! Where a worker's requests come from: the [`Source`] seam. The synthetic generators
//! (direction by the read share, size from the mix, offset from the distribution) are one
//! source; a recorded trace is another. With `--verify`, a write takes its blocks through the
//! record before it is issued ([`claim_write`]).

use crate::access::sample::SizePicker;
use crate::engine::IoDir;
use crate::offsets::OffsetGen;
use crate::rng::Rng;
use crate::verify::{CLAIM_TRIES, Writer};

/// One request: its direction, its logical offset (before a stripe maps it onto a file) and
/// its length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Read or write.
    pub dir: IoDir,
    /// Offset in the worker's logical region, bytes.
    pub logical: u64,
    /// Length, bytes.
    pub len: u64,
}

/// When a source's next request is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// The source has no times of its own: the loop decides (closed loop, or the arrival
    /// process of an open loop).
    Untimed,
    /// Due this many ns after the phase's start (a trace's own time).
    At(u64),
    /// The source has no more requests.
    End,
}

/// A source of requests for one worker.
pub trait Source {
    /// The next request.
    fn next(&mut self) -> Request;

    /// When the request [`Source::next`] returns next is due. A source with its own times
    /// runs in the open loop; the synthetic generators have none.
    fn timing(&self) -> Timing {
        Timing::Untimed
    }

    /// Another offset for a request of `len` bytes in the same direction (the first one's
    /// blocks were busy), if the source can give one; a trace cannot.
    fn redraw(&mut self, len: u64) -> Option<u64>;
}

/// The synthetic workload: each request's direction, size and offset drawn from the
/// workload's generators with this worker's random stream.
#[derive(Clone, Debug)]
pub struct Synthetic {
    /// Offsets to use.
    pub offsets: OffsetGen,
    /// Random stream of this worker (read/write choice, sizes, random offsets).
    pub rng: Rng,
    /// Share of reads in percent.
    pub read_pct: u8,
    /// Request sizes.
    pub sizes: SizePicker,
}

impl Synthetic {
    #[inline]
    fn next_dir(&mut self) -> IoDir {
        match self.read_pct {
            100 => IoDir::Read,
            0 => IoDir::Write,
            p => {
                if self.rng.below(100) < p as u64 {
                    IoDir::Read
                } else {
                    IoDir::Write
                }
            }
        }
    }
}

impl Source for Synthetic {
    #[inline]
    fn next(&mut self) -> Request {
        let dir = self.next_dir();
        let len = self.sizes.pick(&mut self.rng);
        let logical = self.offsets.next(&mut self.rng, len);
        Request { dir, logical, len }
    }

    #[inline]
    fn redraw(&mut self, len: u64) -> Option<u64> {
        Some(self.offsets.next(&mut self.rng, len))
    }
}

/// With `--verify`, one write in flight per block: claims the blocks of write `r` in the
/// record, drawing other offsets while they are busy, at most [`CLAIM_TRIES`] times. The
/// request as claimed, or `None` when no free blocks were found.
#[inline]
pub fn claim_write<S: Source>(src: &mut S, v: &Writer, mut r: Request) -> Option<Request> {
    for _ in 1..CLAIM_TRIES {
        if v.claim(r.logical, r.len) {
            return Some(r);
        }
        r.logical = src.redraw(r.len)?;
    }
    v.claim(r.logical, r.len).then_some(r)
}
