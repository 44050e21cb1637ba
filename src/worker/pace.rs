//! When a closed-loop worker may issue its next request: the rate cap's due times and the
//! think time of its [`Schedule`] ([`Pacer`]), the syncs every N writes ([`Syncs`]), the
//! passes of `--invalidate` ([`Passes`]), and sleeping until then.
//!
//! A paced worker waits as fio does: when the next request is not yet due, it lets every
//! request in flight complete, then sleeps until it is.

use crate::clock::now_ns;
use crate::plan::schedule::{Gap, Schedule};
use crate::signal;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a worker flushes, and when: syncs every N writes and at the end, and the page cache
/// dropped (or the blocks given back) after every pass over its region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flushes {
    /// fsync (or fdatasync) after every this many writes (0: never).
    pub sync_every: u32,
    /// fdatasync instead of fsync.
    pub data_only: bool,
    /// Sync once more when the phase has drained.
    pub end_sync: bool,
    /// Drop the files from the page cache (`--invalidate`), or give their blocks back
    /// (`release`), after every this many bytes issued, once those in flight have completed
    /// (0: never).
    pub pass_bytes: u64,
    /// At each pass's end: give the files' blocks back so the next pass allocates them again
    /// (`Access::reallocate`); None: drop them from the page cache.
    pub release: Option<crate::engine::Release>,
}

/// One phase's pacing: the requests issued so far and the think time's count.
#[derive(Clone, Copy, Debug)]
pub struct Pacer {
    cap: Gap,
    think_ns: u64,
    think_every: u32,
    rated: bool,
    thinks: bool,
    /// The phase's start, monotonic ns.
    start: u64,
    issued: u64,
    issued_bytes: u64,
    since_think: u32,
}

impl Pacer {
    /// The pacing of a closed-loop phase of `schedule` (a worker's share) that starts at
    /// `start` (monotonic ns); none in an open loop, which keeps its own due times.
    pub fn new(schedule: &Schedule, start: u64) -> Self {
        let (cap, think) = match *schedule {
            Schedule::Closed { cap, think, .. } => (cap, think),
            Schedule::Open { .. } | Schedule::Trace { .. } => (Gap::default(), None),
        };
        Pacer {
            cap,
            think_ns: think.map_or(0, |t| t.ns),
            think_every: think.map_or(1, |t| t.every),
            rated: cap.is_rated(),
            thinks: think.is_some_and(|t| t.ns > 0),
            start,
            issued: 0,
            issued_bytes: 0,
            since_think: 0,
        }
    }

    /// Whether the next request must wait (its think pause, or it is not yet due at the rate
    /// cap). Reads the clock into `now` only when the pace is rated.
    #[inline]
    pub fn holds(&self, now: &mut u64) -> bool {
        if self.thinks && self.since_think >= self.think_every {
            return true;
        }
        if self.rated {
            *now = now_ns();
            return *now < self.start + self.cap.due(self.issued, self.issued_bytes);
        }
        false
    }

    /// A request of `len` bytes was issued.
    #[inline]
    pub fn issued(&mut self, len: u64) {
        self.issued += 1;
        self.issued_bytes += len;
        self.since_think += 1;
    }

    /// With nothing in flight and the next request held: the instant to idle until (the end
    /// of a think pause, which starts now, or the next request's due time).
    pub fn resume_at(&mut self) -> u64 {
        if self.thinks && self.since_think >= self.think_every {
            self.since_think = 0;
            now_ns() + self.think_ns
        } else {
            self.start + self.cap.due(self.issued, self.issued_bytes)
        }
    }
}

/// A sync after every N writes (`--fsync`/`--fdatasync`), and at the end (`--end-fsync`).
#[derive(Clone, Copy, Debug)]
pub struct Syncs {
    every: u32,
    since: u32,
    /// Sync once more when the phase has drained.
    pub at_end: bool,
}

impl Syncs {
    /// The syncs `flushes` asks for.
    pub fn new(flushes: &Flushes) -> Self {
        Syncs {
            every: flushes.sync_every,
            since: 0,
            at_end: flushes.end_sync,
        }
    }

    /// Whether a sync is due before any more writes: after every `every` writes, also after
    /// the last one, so a pass with several free slots never overshoots.
    #[inline]
    pub fn due(&self) -> bool {
        self.every > 0 && self.since >= self.every
    }

    /// A write was issued.
    #[inline]
    pub fn wrote(&mut self) {
        self.since += 1;
    }

    /// The sync was done.
    pub fn done(&mut self) {
        self.since = 0;
    }
}

/// The passes over the region of `--invalidate`: the bytes issued since the last drop of the
/// page cache, which comes before the first request too (as fio's before a job). Kept by the
/// worker across its phases (a pass started in the warm-up ends in the measured phase).
#[derive(Clone, Copy, Debug, Default)]
pub struct Passes {
    every: u64,
    since: u64,
}

impl Passes {
    /// Passes of `every` bytes (0: none), the cache to be dropped before the first.
    pub fn new(every: u64) -> Self {
        Passes {
            every,
            since: every,
        }
    }

    /// Whether a pass is complete: the cache is to be dropped before any more requests.
    #[inline]
    pub fn due(&self) -> bool {
        self.every > 0 && self.since >= self.every
    }

    /// A request of `len` bytes was issued.
    #[inline]
    pub fn issued(&mut self, len: u64) {
        self.since += len;
    }

    /// The cache was dropped: the next pass begins (what the last request carried over the
    /// pass's end counts toward it).
    pub fn done(&mut self) {
        self.since = self.since.saturating_sub(self.every);
    }
}

/// Sleeps until `until` (monotonic ns) in slices short enough to notice `stop` and Ctrl-C.
pub fn idle_until(until: u64, stop: &AtomicBool) {
    loop {
        let now = now_ns();
        if now >= until || stop.load(Ordering::Relaxed) || signal::interrupted() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_nanos(
            (until - now).min(20_000_000),
        ));
    }
}
