//! Where a worker's requests come from: the [`Source`] seam. The synthetic generators
//! (direction by the read share, size from the mix, offset from the distribution) are one
//! source; a recorded trace is another. With `--verify`, a write takes its blocks through the
//! record before it is issued ([`claim_write`]).

use crate::access::replay::ReplayPlan;
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
    /// The source has no times of its own: the plan's schedule decides.
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

    /// When the request [`Source::next`] returns next is due: a trace's own time, read by the
    /// open loop of a [`Schedule::Trace`](crate::plan::Schedule::Trace) plan, or the end of
    /// the source's requests (any loop); the synthetic generators have none.
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

/// A trace's requests, each at its own time (the schedule divides it by the replay's speed:
/// `Schedule::trace_due`), mapped onto a region:
/// offsets are the trace's from the region's start (wrapped around it with `--wrap`), writes
/// become reads with `--reads-only`.
#[derive(Clone, Debug)]
pub struct Replay {
    plan: ReplayPlan,
    next: usize,
    /// The region's first byte and its length.
    base: u64,
    size: u64,
}

impl Replay {
    /// The replay of `plan` onto the `size` bytes from `base`.
    pub fn new(plan: ReplayPlan, base: u64, size: u64) -> Self {
        Replay {
            plan,
            next: 0,
            base,
            size: size.max(1),
        }
    }

    /// Where a request of `len` bytes at trace offset `offset` lands in the region.
    fn place(&self, offset: u64, len: u64) -> u64 {
        if !self.plan.wrap || offset + len <= self.size {
            return self.base + offset;
        }
        // Wrapped: the same offset modulo the region, kept whole inside it (on a 4-KiB
        // boundary, which every direct-I/O device accepts).
        let at = offset % self.size;
        let at = if at + len > self.size {
            self.size.saturating_sub(len) & !4095
        } else {
            at
        };
        self.base + at
    }
}

impl Source for Replay {
    #[inline]
    fn next(&mut self) -> Request {
        let r = self.plan.requests[self.next.min(self.plan.requests.len() - 1)];
        self.next += 1;
        Request {
            dir: if self.plan.reads_only {
                IoDir::Read
            } else {
                r.dir
            },
            logical: self.place(r.offset, r.len),
            len: r.len,
        }
    }

    fn redraw(&mut self, _len: u64) -> Option<u64> {
        None
    }

    #[inline]
    fn timing(&self) -> Timing {
        match self.plan.requests.get(self.next) {
            None => Timing::End,
            Some(r) => match r.at_ns {
                Some(t) => Timing::At(t),
                None => Timing::Untimed,
            },
        }
    }
}

/// The requests of a run's worker: drawn by the synthetic generators, or a trace replayed.
#[derive(Clone, Debug)]
pub enum Requests {
    /// The workload's generators.
    Synthetic(Synthetic),
    /// A trace.
    Replay(Replay),
}

impl Source for Requests {
    #[inline(always)]
    fn next(&mut self) -> Request {
        match self {
            Requests::Synthetic(s) => s.next(),
            Requests::Replay(r) => r.next(),
        }
    }

    #[inline]
    fn redraw(&mut self, len: u64) -> Option<u64> {
        match self {
            Requests::Synthetic(s) => s.redraw(len),
            Requests::Replay(r) => r.redraw(len),
        }
    }

    #[inline]
    fn timing(&self) -> Timing {
        match self {
            Requests::Synthetic(s) => s.timing(),
            Requests::Replay(r) => r.timing(),
        }
    }
}
