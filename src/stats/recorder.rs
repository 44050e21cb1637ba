//! What one worker records during the measured phase: per direction I/O and byte counts and a
//! latency histogram, errors, and its share of the per-second series, handed over to the run's
//! [`SeriesSink`] as each second ends; with fio's averaged logs, its counts at each period's
//! edge ([`Periods`]).
//!
//! Everything here is on the per-I/O hot path: recording a completion is two histogram
//! increments, a comparison against the direction's next boundary (the next second's, or an
//! earlier period edge) and, with the per-I/O record asked for ([`Recorder::keep_log`]), one
//! [`IoLog`] push (a branch when it is not). Seconds and period edges are taken in the cold
//! path behind that one comparison.

use super::Histogram;
use super::depth::DepthCounts;
use super::iolog::IoLog;
use super::periods::{Periods, Totals};
use super::series::SeriesSink;
use crate::engine::IoDir;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Data read back and checked for zeros (`engine::payload::zero_sectors`): one 8-byte word per
/// 512-byte sector of every sampled read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZeroSample {
    /// Reads whose data was checked.
    pub reads: u64,
    /// Sectors checked in them.
    pub sectors: u64,
    /// Of those, sectors whose checked word was zero.
    pub zero_sectors: u64,
}

impl ZeroSample {
    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &ZeroSample) {
        self.reads += other.reads;
        self.sectors += other.sectors;
        self.zero_sectors += other.zero_sectors;
    }

    /// Counts one checked read: (sectors checked, zero ones).
    #[inline]
    pub fn add(&mut self, (sectors, zero): (u64, u64)) {
        self.reads += 1;
        self.sectors += sectors;
        self.zero_sectors += zero;
    }

    /// The zero sectors' share of those checked (0..1); None when nothing was checked.
    pub fn share(&self) -> Option<f64> {
        (self.sectors > 0).then(|| self.zero_sectors as f64 / self.sectors as f64)
    }
}

/// Counts and latencies of one direction.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    /// Completed I/Os.
    pub ios: u64,
    /// Bytes transferred by them.
    pub bytes: u64,
    /// Latency (submission to completion) of each.
    pub hist: Histogram,
    /// Reads only: the sampled data checked for zeros.
    pub zeros: ZeroSample,
}

impl DirStats {
    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &DirStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.hist.merge(&other.hist);
        self.zeros.merge(&other.zeros);
    }
}

/// Failed I/Os kept one by one (the earliest), per worker and merged.
pub const ERRORS_KEPT: usize = 16;

/// Failed I/Os: how many per direction, and the earliest ones.
#[derive(Clone, Debug, Default)]
pub struct ErrorStats {
    /// I/Os that returned an error or transferred fewer bytes than asked.
    pub count: u64,
    /// Of those, reads.
    pub reads: u64,
    /// Of those, writes.
    pub writes: u64,
    /// The earliest failures, by completion time: (completion time ns, offset, errno or 0 for
    /// a short transfer, direction); at most [`ERRORS_KEPT`].
    pub first: Vec<(u64, u64, i32, IoDir)>,
    /// The worker stopped because errors went on past the grace of `--on-error stop`.
    pub stopped: bool,
}

impl ErrorStats {
    /// Adds `other`, keeping the earliest failures.
    pub fn merge(&mut self, other: &ErrorStats) {
        self.count += other.count;
        self.reads += other.reads;
        self.writes += other.writes;
        self.stopped |= other.stopped;
        self.first.extend_from_slice(&other.first);
        self.first.sort_by_key(|f| (f.0, f.1));
        self.first.truncate(ERRORS_KEPT);
    }

    /// Counts one failure.
    fn add(&mut self, at: (u64, u64, i32, IoDir)) {
        self.count += 1;
        match at.3 {
            IoDir::Read => self.reads += 1,
            IoDir::Write => self.writes += 1,
        }
        if self.first.len() < ERRORS_KEPT {
            self.first.push(at);
        }
    }
}

/// A request issued more than this long after its due time counts as late (open loop).
pub const LATE_NS: u64 = 1_000_000;

/// What an open loop measures besides each request's latency from its due time: its service
/// time (submission to completion), how late each was issued and how many were in flight.
#[derive(Clone, Debug, Default)]
pub struct OpenStats {
    /// Submission to completion of each successful request.
    pub service: Histogram,
    /// Issue time minus due time of each request issued.
    pub lateness: Histogram,
    /// Requests issued more than [`LATE_NS`] after their due time.
    pub late: u64,
    /// The most requests in flight at once in one worker.
    pub max_inflight: u32,
}

impl OpenStats {
    /// Adds another worker's open-loop counts.
    pub fn merge(&mut self, other: &OpenStats) {
        self.service.merge(&other.service);
        self.lateness.merge(&other.lateness);
        self.late += other.late;
        self.max_inflight = self.max_inflight.max(other.max_inflight);
    }

    /// A request due at `due` was issued at `now` with `inflight` in flight (itself included).
    #[inline]
    pub fn issued(&mut self, due: u64, now: u64, inflight: u32) {
        let late = now.saturating_sub(due);
        self.lateness.record(late);
        self.late += u64::from(late > LATE_NS);
        self.max_inflight = self.max_inflight.max(inflight);
    }
}

/// Per-worker recorder for the measured phase.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// Reads.
    pub read: DirStats,
    /// Writes.
    pub write: DirStats,
    /// Failures.
    pub errors: ErrorStats,
    /// fsyncs and fdatasyncs: how many (`ios`) and how long each took (`hist`).
    pub syncs: DirStats,
    /// How deep the queue was at each submission, and how many I/Os each submit call and
    /// each reap carried.
    pub depth: DepthCounts,
    /// With open-loop arrivals: service times, lateness and requests in flight.
    pub open: Option<Box<OpenStats>>,
    /// With the per-I/O record asked for: every successful I/O.
    pub log: Option<Box<IoLog>>,
    /// With fio's averaged logs asked for: the counts at each period's edge.
    pub periods: Option<Box<Periods>>,
    /// Where finished seconds go, and this worker's target (None: no series is kept).
    series: Option<(Arc<SeriesSink>, usize)>,
    /// Start of the measured phase (ns, monotonic).
    pub origin_ns: u64,
    /// Completion time of the last I/O counted (ns, monotonic; `origin_ns` if none).
    pub last_ns: u64,
    /// How long this worker was ready to run and waited for a CPU in its measured phase, ns
    /// (schedstat `run_delay`; None where the kernel keeps none).
    pub waited_ns: Option<u64>,
    /// Per direction (read, write): the next instant the cold path has work, the earlier of
    /// the next second's start and the direction's next period edge (monotonic ns).
    next_ns: [u64; 2],
    next_second_ns: u64,
    cur_second: u32,
    cur: Histogram,
    cur_ios: u64,
    cur_bytes: u64,
}

const SECOND: u64 = 1_000_000_000;

/// Records one I/O in the per-I/O record: cold and out of line, so that the loop without a
/// record carries only the branch that skips it (inlined, or merely called, it cost the null
/// engine's loop 3 ns per I/O, 4 %, with no record kept).
#[cold]
#[inline(never)]
fn keep(log: &mut IoLog, t_ns: u64, lat_ns: u64, dir: IoDir, bytes: u64, at: (u32, u64)) {
    log.push(t_ns, lat_ns, dir, bytes as u32, at);
}

/// A direction's counts so far.
fn totals(d: &DirStats) -> Totals {
    Totals {
        ios: d.ios,
        bytes: d.bytes,
        lat_ns: d.hist.sum_ns(),
    }
}

impl Recorder {
    /// A recorder whose measured phase starts at `origin_ns`, keeping no per-second series.
    pub fn new(origin_ns: u64) -> Self {
        Self::with_series(origin_ns, None)
    }

    /// A recorder whose measured phase starts at `origin_ns` and that hands each finished
    /// second to `series`.
    pub fn with_series(origin_ns: u64, series: Option<(Arc<SeriesSink>, usize)>) -> Self {
        Recorder {
            read: DirStats::default(),
            write: DirStats::default(),
            errors: ErrorStats::default(),
            syncs: DirStats::default(),
            depth: DepthCounts::default(),
            open: None,
            log: None,
            periods: None,
            series,
            origin_ns,
            last_ns: origin_ns,
            waited_ns: None,
            next_ns: [origin_ns + SECOND; 2],
            next_second_ns: origin_ns + SECOND,
            cur_second: 0,
            cur: Histogram::new(),
            cur_ios: 0,
            cur_bytes: 0,
        }
    }

    /// Keeps the per-I/O record from now on, of a worker whose first target has index `base`.
    pub fn keep_log(&mut self, base: u32) {
        self.log = Some(Box::new(IoLog::new(base)));
    }

    /// Keeps the counts at the edges of periods of `period_ns` from the origin (before any
    /// completion is counted).
    pub fn keep_periods(&mut self, period_ns: u64) {
        let p = Periods::new(period_ns);
        for dir in [IoDir::Read, IoDir::Write] {
            let edge = self.origin_ns + p.next_edge(dir);
            self.next_ns[dir as usize] = self.next_second_ns.min(edge);
        }
        self.periods = Some(Box::new(p));
    }

    /// Counts one successful I/O of `bytes` that took `latency_ns` and completed at `now_ns`;
    /// `at` says where it went (the worker's file, the byte offset in it) for the per-I/O
    /// record, called only when one is kept, so that without it the loop reads nothing more.
    #[inline(always)]
    pub fn complete(
        &mut self,
        dir: IoDir,
        bytes: u64,
        latency_ns: u64,
        now_ns: u64,
        at: impl FnOnce() -> (u32, u64),
    ) {
        if now_ns >= self.next_ns[dir as usize] {
            self.roll(dir, now_ns, latency_ns);
        }
        if let Some(log) = self.log.as_deref_mut() {
            let t = now_ns.saturating_sub(self.origin_ns);
            keep(log, t, latency_ns, dir, bytes, at());
        }
        let d = match dir {
            IoDir::Read => &mut self.read,
            IoDir::Write => &mut self.write,
        };
        d.ios += 1;
        d.bytes += bytes;
        d.hist.record(latency_ns);
        self.cur.record(latency_ns);
        self.cur_ios += 1;
        self.cur_bytes += bytes;
        self.last_ns = now_ns;
    }

    /// Counts one fsync or fdatasync that took `ns` and completed at `now_ns`. The flush is
    /// part of the workload's time, as fio counts it: the window runs to its completion when it
    /// is the last thing the worker did (`--end-fsync`, or a sync due after the last write).
    pub fn sync_done(&mut self, ns: u64, now_ns: u64) {
        // The seconds it spanned end with it (a direction's next edge is taken at its next
        // completion, which finds its boundary passed).
        self.roll_seconds(now_ns);
        self.syncs.ios += 1;
        self.syncs.hist.record(ns);
        self.last_ns = self.last_ns.max(now_ns);
    }

    /// Counts one failed I/O (negative errno, or 0 for a short transfer) at `offset`.
    pub fn fail(&mut self, dir: IoDir, offset: u64, errno: i32, now_ns: u64) {
        self.errors.add((now_ns, offset, errno, dir));
        self.last_ns = self.last_ns.max(now_ns);
    }

    /// A completion of `dir` at `now_ns` that took `latency_ns` reached the direction's next
    /// boundary: the seconds it ended handed over, the period edges it passed taken (before it
    /// is counted), and each direction's next boundary set.
    #[cold]
    fn roll(&mut self, dir: IoDir, now_ns: u64, latency_ns: u64) {
        self.roll_seconds(now_ns);
        self.next_ns = [self.next_second_ns; 2];
        if let Some(p) = self.periods.as_deref_mut() {
            let t = now_ns - self.origin_ns;
            if t >= p.next_edge(dir) {
                let d = match dir {
                    IoDir::Read => &self.read,
                    IoDir::Write => &self.write,
                };
                p.cross(dir, t, latency_ns, totals(d));
            }
            for d in [IoDir::Read, IoDir::Write] {
                let edge = self.origin_ns + p.next_edge(d);
                self.next_ns[d as usize] = self.next_second_ns.min(edge);
            }
        }
    }

    /// Hands over every second that ended by `now_ns`.
    fn roll_seconds(&mut self, now_ns: u64) {
        while now_ns >= self.next_second_ns {
            self.flush_second();
            self.cur_second += 1;
            self.next_second_ns += SECOND;
        }
    }

    fn flush_second(&mut self) {
        if let Some((sink, target)) = &self.series {
            sink.add(
                self.cur_second,
                *target,
                self.cur_ios,
                self.cur_bytes,
                &self.cur,
            );
        }
        self.cur.clear();
        self.cur_ios = 0;
        self.cur_bytes = 0;
    }

    /// Hands over the last (partial) second, and ends the periods; call once after the
    /// measured phase.
    pub fn finish(&mut self) {
        self.flush_second();
        if let Some(p) = self.periods.as_deref_mut() {
            p.finish([totals(&self.read), totals(&self.write)]);
        }
    }

    /// I/Os counted so far (both directions).
    pub fn ios(&self) -> u64 {
        self.read.ios + self.write.ios
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_roll_over_and_gaps_are_zero() {
        let sink = Arc::new(SeriesSink::new(1));
        let mut r = Recorder::with_series(1_000, Some((sink.clone(), 0)));
        r.complete(IoDir::Read, 4096, 100, 1_000 + 10, || (0, 0));
        r.complete(IoDir::Write, 4096, 200, 1_000 + SECOND / 2, || (0, 0));
        r.complete(IoDir::Read, 4096, 300, 1_000 + 2 * SECOND + 5, || (0, 0));
        assert_eq!(
            sink.pending(),
            0,
            "finished seconds are handed over at once"
        );
        r.finish();
        let ios: Vec<f64> = sink.finish(3.0).iter().map(|s| s.iops).collect();
        assert_eq!(ios, vec![2.0, 0.0, 1.0]);
        assert_eq!(r.read.ios, 2);
        assert_eq!(r.write.bytes, 4096);
    }

    #[test]
    fn period_edges_leave_the_seconds_as_they_were() {
        let ios = [
            (IoDir::Read, 10),
            (IoDir::Write, SECOND / 3),
            (IoDir::Read, SECOND / 2),
            (IoDir::Read, 2 * SECOND + 5),
            (IoDir::Write, 2 * SECOND + 7),
        ];
        let seconds = |periods: Option<u64>| {
            let sink = Arc::new(SeriesSink::new(1));
            let mut r = Recorder::with_series(1_000, Some((sink.clone(), 0)));
            if let Some(p) = periods {
                r.keep_periods(p);
            }
            for (dir, t) in ios {
                r.complete(dir, 4096, 100, 1_000 + t, || (0, 0));
            }
            r.finish();
            (sink.finish(3.0), r)
        };
        let (plain, _) = seconds(None);
        let (with, r) = seconds(Some(SECOND / 4));
        assert_eq!(plain, with);
        let p = r.periods.as_deref().unwrap();
        // Reads passed the edges up to 2 s (8 of them), writes those up to 2 s too; each edge
        // taken at its direction's first completion after it.
        assert_eq!(p.next_edge(IoDir::Read), 9 * SECOND / 4);
        assert_eq!(p.next_edge(IoDir::Write), 9 * SECOND / 4);
        let reads: Vec<u64> = p.per_period(IoDir::Read, 9).iter().map(|t| t.ios).collect();
        assert_eq!(reads, [1, 0, 1, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn the_per_io_record_is_kept_only_when_asked_from_the_origin() {
        let mut r = Recorder::new(1_000);
        r.complete(IoDir::Read, 4096, 100, 1_500, || (0, 8192));
        assert!(r.log.is_none(), "off by default");
        r.keep_log(2);
        r.complete(IoDir::Write, 512, 70, 2_000, || (1, 4096));
        let log = r.log.as_ref().unwrap();
        let rec: Vec<_> = log.iter().collect();
        assert_eq!(rec.len(), 1);
        assert_eq!((rec[0].t_ns, rec[0].lat_ns, rec[0].bytes), (1_000, 70, 512));
        assert_eq!((rec[0].target(), rec[0].offset), (3, 4096));
        assert_eq!(rec[0].dir(), IoDir::Write);
        assert_eq!(r.ios(), 2, "the counts do not depend on the record");
    }

    #[test]
    fn earliest_errors_win_on_merge_and_directions_add_up() {
        let mut a = ErrorStats::default();
        let mut b = ErrorStats::default();
        a.add((50, 8192, -5, IoDir::Read));
        b.add((20, 4096, -28, IoDir::Write));
        b.add((60, 0, -5, IoDir::Write));
        for k in 0..20 {
            b.add((100 + k, k, -5, IoDir::Read));
        }
        a.merge(&b);
        assert_eq!(a.count, 23);
        assert_eq!((a.reads, a.writes), (21, 2));
        assert_eq!(a.first.len(), ERRORS_KEPT);
        let offsets: Vec<u64> = a.first.iter().take(3).map(|f| f.1).collect();
        assert_eq!(offsets, [4096, 8192, 0], "by completion time");
    }
}
