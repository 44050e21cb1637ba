//! Which acknowledged writes a completed flush made durable: per block, the last generation a
//! flush covered. A flush (fsync or fdatasync: a block device sends its disk a cache flush)
//! covers every write acknowledged before it was issued; writes acknowledged after may still
//! sit in a volatile cache and be lost to a power cut without breaking any promise.
//!
//! Each acknowledgement is logged (block, generation) in one of a few shards, by writer; a
//! flush notes how far each log reaches when it is issued and, once it completes, marks those
//! entries durable. A log that outgrows its cap stops logging, and the next flush copies every
//! block's acknowledged generation instead (the same cost as replaying that many entries).
//! The marks are a lower bound: a write is never called durable unless a flush issued after
//! its acknowledgement completed.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

/// Logs, one per group of writers (a writer logs into `writer % SHARDS`).
const SHARDS: usize = 16;
/// Entries a log keeps at least before it overflows.
const MIN_CAP: usize = 1024;

#[derive(Debug, Default)]
struct Log {
    /// Entries drained (durable or superseded by a copy) from the front, ever.
    base: u64,
    acks: VecDeque<(u64, u32)>,
    overflowed: bool,
}

/// What a flush covers, taken as it is issued.
#[derive(Debug)]
pub enum FlushMark {
    /// How far each log reached.
    Logs(Vec<u64>),
    /// Every block's acknowledged generation (a log had overflowed).
    Copy(Vec<u32>),
}

/// The last generation a completed flush covered, per block, and the logs of the
/// acknowledgements no completed flush has covered yet.
#[derive(Debug)]
pub struct Durable {
    gens: Vec<AtomicU32>,
    logs: Vec<Mutex<Log>>,
}

fn lock(m: &Mutex<Log>) -> std::sync::MutexGuard<'_, Log> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Durable {
    /// Marks for `blocks` blocks, from `gens` (the generation each block's last flush covered).
    pub fn new(gens: impl IntoIterator<Item = u32>) -> Self {
        Durable {
            gens: gens.into_iter().map(AtomicU32::new).collect(),
            logs: (0..SHARDS).map(|_| Mutex::new(Log::default())).collect(),
        }
    }

    /// Grows to `blocks` blocks (never shrinks); new blocks have no durable write.
    pub fn cover(&mut self, blocks: u64) {
        while (self.gens.len() as u64) < blocks {
            self.gens.push(AtomicU32::new(0));
        }
    }

    /// The last generation of block `i` a completed flush covered (0: none).
    pub fn get(&self, i: u64) -> u32 {
        self.gens
            .get(i as usize)
            .map_or(0, |g| g.load(Ordering::Acquire))
    }

    fn cap(&self) -> usize {
        (self.gens.len() / (4 * SHARDS)).max(MIN_CAP)
    }

    /// Writes were acknowledged (by writer `writer`): per block, its index and the generation
    /// written.
    #[inline]
    pub fn acknowledged(&self, writer: usize, acks: impl Iterator<Item = (u64, u32)>) {
        let cap = self.cap();
        let mut log = lock(&self.logs[writer % SHARDS]);
        for ack in acks {
            if log.overflowed {
                return;
            }
            if log.acks.len() >= cap {
                log.overflowed = true;
            } else {
                log.acks.push_back(ack);
            }
        }
    }

    /// A flush is about to be issued: what it will cover. `acked(i)` is block `i`'s
    /// acknowledged generation, read only when a log has overflowed.
    pub fn begin(&self, acked: impl Fn(usize) -> Option<u32>) -> FlushMark {
        let mut logs: Vec<_> = self.logs.iter().map(lock).collect();
        if !logs.iter().any(|l| l.overflowed) {
            return FlushMark::Logs(logs.iter().map(|l| l.base + l.acks.len() as u64).collect());
        }
        // Logging stalls while every block is copied: what is logged after is not in the copy.
        let copy = (0..self.gens.len())
            .map(|i| acked(i).unwrap_or_else(|| self.gens[i].load(Ordering::Acquire)))
            .collect();
        for l in &mut logs {
            l.base += l.acks.len() as u64;
            l.acks.clear();
            l.overflowed = false;
        }
        FlushMark::Copy(copy)
    }

    /// The flush `mark` was taken for completed: what it covered is durable.
    pub fn done(&self, mark: FlushMark) {
        match mark {
            FlushMark::Logs(ends) => {
                for (m, end) in self.logs.iter().zip(ends) {
                    let mut log = lock(m);
                    while log.base < end {
                        let Some((i, g)) = log.acks.pop_front() else {
                            break;
                        };
                        log.base += 1;
                        self.raise(i as usize, g);
                    }
                }
            }
            FlushMark::Copy(copy) => {
                for (i, g) in copy.into_iter().enumerate() {
                    self.raise(i, g);
                }
            }
        }
    }

    /// Every write acknowledged so far is durable (a flush completed while none was in
    /// flight): `acked(i)` is block `i`'s acknowledged generation.
    pub fn all_done(&self, acked: impl Fn(usize) -> Option<u32>) {
        for (i, g) in self.gens.iter().enumerate() {
            if let Some(a) = acked(i) {
                g.fetch_max(a, Ordering::AcqRel);
            }
        }
        for m in &self.logs {
            let mut log = lock(m);
            log.base += log.acks.len() as u64;
            log.acks.clear();
            log.overflowed = false;
        }
    }

    fn raise(&self, i: usize, generation: u32) {
        if let Some(g) = self.gens.get(i) {
            g.fetch_max(generation, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flush_covers_what_was_acknowledged_before_it_was_issued() {
        let d = Durable::new([0; 8]);
        d.acknowledged(0, [(1, 1)].into_iter());
        d.acknowledged(5, [(2, 1)].into_iter());
        let mark = d.begin(|_| None);
        d.acknowledged(0, [(1, 2), (3, 1)].into_iter()); // after the flush was issued
        assert_eq!(d.get(1), 0, "nothing durable before the flush completes");
        d.done(mark);
        assert_eq!((d.get(1), d.get(2), d.get(3)), (1, 1, 0));
        let mark = d.begin(|_| None);
        d.done(mark);
        assert_eq!((d.get(1), d.get(3)), (2, 1));
    }

    #[test]
    fn an_overflowing_log_is_replaced_by_a_copy() {
        let d = Durable::new([0; 8]);
        d.acknowledged(0, (0..=MIN_CAP as u32).map(|k| (4, k + 1)));
        let acked = [0, 0, 0, 0, 1025, 0, 0, 7];
        let mark = d.begin(|i| Some(acked[i]));
        assert!(matches!(mark, FlushMark::Copy(_)));
        d.acknowledged(0, [(5, 3)].into_iter());
        d.done(mark);
        assert_eq!((d.get(4), d.get(5), d.get(7)), (1025, 0, 7));
        // Logging goes on after the copy.
        let mark = d.begin(|_| None);
        d.done(mark);
        assert_eq!(d.get(5), 3);
    }
}
