//! Whether a phase may issue another request: its deadline, its share of a byte budget, a
//! stop asked for (steady state, errors) and Ctrl-C.

use crate::signal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// When a phase stops issuing new I/Os.
#[derive(Clone, Copy, Debug)]
pub enum PhaseEnd<'a> {
    /// Issue while the clock is before this instant (ns, monotonic).
    Until(u64),
    /// Issue while I/Os remain in this budget and the clock is before the instant (ns,
    /// monotonic; `u64::MAX` for none).
    Budget(&'a AtomicU64, u64),
}

/// Takes up to `want` I/Os from the shared budget; 0 when it is spent.
pub(super) fn claim(budget: &AtomicU64, want: u64) -> u64 {
    let mut cur = budget.load(Ordering::Relaxed);
    loop {
        if cur == 0 {
            return 0;
        }
        let take = cur.min(want);
        match budget.compare_exchange_weak(cur, cur - take, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return take,
            Err(now) => cur = now,
        }
    }
}

/// A phase's limit with the I/Os it has claimed from a budget but not issued yet (claimed in
/// chunks, so workers do not contend for the budget on every request).
#[derive(Debug)]
pub struct Gate<'a> {
    limit: PhaseEnd<'a>,
    claimed: u64,
    chunk: u64,
}

impl<'a> Gate<'a> {
    /// The gate of a phase with `limit` for a worker of queue depth `qd`.
    pub fn new(limit: PhaseEnd<'a>, qd: u32) -> Self {
        Gate {
            limit,
            claimed: 0,
            chunk: (qd as u64).clamp(1, 32),
        }
    }

    /// The instant the phase stops issuing, ns (monotonic).
    pub fn deadline(&self) -> u64 {
        match self.limit {
            PhaseEnd::Until(d) | PhaseEnd::Budget(_, d) => d,
        }
    }

    /// Whether one more request may be issued at `now`.
    #[inline]
    pub fn open(&mut self, now: u64, stop: &AtomicBool) -> bool {
        if signal::interrupted() || stop.load(Ordering::Relaxed) {
            return false;
        }
        match self.limit {
            PhaseEnd::Until(deadline) => now < deadline,
            PhaseEnd::Budget(budget, deadline) => {
                if self.claimed == 0 && now < deadline {
                    self.claimed = claim(budget, self.chunk);
                }
                self.claimed > 0 && now < deadline
            }
        }
    }

    /// A request was issued.
    #[inline]
    pub fn took(&mut self) {
        self.claimed = self.claimed.saturating_sub(1);
    }

    /// At the phase's end: a budget claimed but not issued (interrupted) goes back, for the
    /// record's honesty.
    pub fn give_back(&self) {
        if let PhaseEnd::Budget(budget, _) = self.limit {
            budget.fetch_add(self.claimed, Ordering::Relaxed);
        }
    }
}
