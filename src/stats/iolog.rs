//! The per-I/O record: a worker that is asked to keeps one [`IoRecord`] per successful I/O
//! of its measured phase (the warm-up is never recorded), in memory, as fio keeps its per-I/O
//! logs, and hands it to the runner's measurement after the phase (`run --io-log`, fio's logs
//! without `log_avg_msec`). It is never written into the JSON.
//!
//! Memory: 32 bytes per I/O ([`IoRecord`]), in chunks of [`CHUNK`] records (2 MiB), so the
//! record grows without ever copying what it holds (a `Vec` doubling 1 GiB would stall the
//! worker for its copy): 1 million I/Os take 32 MB; a worker at 100k IOPS fills 3.2 MB a
//! second. Off (the default), it costs the recorder one predictable branch per I/O (the push
//! is cold and out of line: `Recorder::complete`); on, about 20 ns per I/O on the null engine
//! (65 → 86 ns of CPU, most of it faulting in fresh chunks), nothing a device would show.

use crate::engine::IoDir;

/// Records per chunk: 2 MiB of records.
pub const CHUNK: usize = 1 << 16;

/// One successful I/O of the measured phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRecord {
    /// Completion time, ns since the measured phase's origin.
    pub t_ns: u64,
    /// Latency (submission, or an open loop's due time, to completion), ns.
    pub lat_ns: u64,
    /// Byte offset in its target (a stripe member's own offset).
    pub offset: u64,
    /// Bytes transferred.
    pub bytes: u32,
    /// The target's index (bits 1..) and the direction (bit 0: 1 for a write), packed so
    /// that a record is 32 bytes.
    tag: u32,
}

const _: () = assert!(std::mem::size_of::<IoRecord>() == 32);

impl IoRecord {
    /// A record of an I/O of `dir` on target `target` (at most 2^31 - 1).
    pub fn new(t_ns: u64, lat_ns: u64, dir: IoDir, bytes: u32, target: u32, offset: u64) -> Self {
        IoRecord {
            t_ns,
            lat_ns,
            offset,
            bytes,
            tag: (target << 1) | u32::from(dir == IoDir::Write),
        }
    }

    /// Its direction.
    pub fn dir(&self) -> IoDir {
        if self.tag & 1 == 1 {
            IoDir::Write
        } else {
            IoDir::Read
        }
    }

    /// The index of its target among the run's targets.
    pub fn target(&self) -> u32 {
        self.tag >> 1
    }
}

/// One worker's records in completion order.
#[derive(Clone, Debug, Default)]
pub struct IoLog {
    /// The index of the worker's first target: a record's target is this plus its file
    /// (a stripe set's member; 0 for a worker on one target).
    base: u32,
    chunks: Vec<Vec<IoRecord>>,
}

impl IoLog {
    /// An empty record of a worker whose first target has index `base`.
    pub fn new(base: u32) -> Self {
        IoLog {
            base,
            chunks: Vec::new(),
        }
    }

    /// Records an I/O on file `file` of the worker's targets.
    #[inline(always)]
    pub fn push(&mut self, t_ns: u64, lat_ns: u64, dir: IoDir, bytes: u32, at: (u32, u64)) {
        let r = IoRecord::new(t_ns, lat_ns, dir, bytes, self.base + at.0, at.1);
        match self.chunks.last_mut() {
            Some(c) if c.len() < c.capacity() => c.push(r),
            _ => self.grow(r),
        }
    }

    #[cold]
    fn grow(&mut self, r: IoRecord) {
        let mut c = Vec::with_capacity(CHUNK);
        c.push(r);
        self.chunks.push(c);
    }

    /// How many I/Os it holds.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.chunks.iter().all(Vec::is_empty)
    }

    /// Its records in completion order.
    pub fn iter(&self) -> impl Iterator<Item = &IoRecord> {
        self.chunks.iter().flatten()
    }
}

/// The records of several workers, merged into one completion order (ties: the earlier
/// worker first).
pub fn merged(logs: &[IoLog]) -> impl Iterator<Item = &IoRecord> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut iters: Vec<_> = logs.iter().map(|l| l.iter().peekable()).collect();
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = iters
        .iter_mut()
        .enumerate()
        .filter_map(|(i, it)| it.peek().map(|r| Reverse((r.t_ns, i))))
        .collect();
    std::iter::from_fn(move || {
        let Reverse((_, i)) = heap.pop()?;
        let r = iters[i].next()?;
        if let Some(n) = iters[i].peek() {
            heap.push(Reverse((n.t_ns, i)));
        }
        Some(r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keep_their_fields_across_chunks() {
        let mut log = IoLog::new(3);
        let n = CHUNK as u64 + 5;
        for k in 0..n {
            let dir = if k % 3 == 0 {
                IoDir::Write
            } else {
                IoDir::Read
            };
            log.push(k * 10, k + 1, dir, 4096, ((k % 2) as u32, k * 4096));
        }
        assert_eq!(log.len() as u64, n);
        assert_eq!(log.chunks.len(), 2, "a second chunk, the first not copied");
        let last = log.iter().last().unwrap();
        let k = n - 1;
        assert_eq!(
            (last.t_ns, last.lat_ns, last.offset),
            (k * 10, k + 1, k * 4096)
        );
        assert_eq!(last.target(), 3 + (k % 2) as u32);
        let dir = if k % 3 == 0 {
            IoDir::Write
        } else {
            IoDir::Read
        };
        assert_eq!(last.dir(), dir);
        assert_eq!(log.iter().nth(1).unwrap().dir(), IoDir::Read);
    }

    #[test]
    fn workers_merge_into_completion_order() {
        let mut a = IoLog::new(0);
        let mut b = IoLog::new(1);
        for t in [1, 4, 9] {
            a.push(t, 0, IoDir::Read, 512, (0, 0));
        }
        for t in [2, 3, 9, 10] {
            b.push(t, 0, IoDir::Read, 512, (0, 0));
        }
        let logs = [a, b, IoLog::new(2)];
        let order: Vec<(u64, u32)> = merged(&logs).map(|r| (r.t_ns, r.target())).collect();
        assert_eq!(
            order,
            [(1, 0), (2, 1), (3, 1), (4, 0), (9, 0), (9, 1), (10, 1)]
        );
    }
}
