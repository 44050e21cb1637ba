//! One worker thread: keeps `qd` I/Os in flight on one target through one engine, through a
//! warm-up phase and a measured phase, stamping every I/O at submission and at completion.
//!
//! A paced worker (a rate cap or think time) waits as fio does: when the next request is not
//! yet due, it lets every request in flight complete, then sleeps until it is.
//!
//! Each phase ends by draining: no new I/O is issued and every outstanding one is reaped. So at
//! the barrier between warm-up and measurement nothing is in flight, and the OS disk counters
//! that the runner samples there cover exactly the measured I/Os.

use crate::access::sample::SizePicker;
use crate::clock::now_ns;
use crate::engine::payload::{stamp, zero_sectors};
use crate::engine::{Engine, IoDir, IoRequest};
use crate::offsets::{OffsetGen, Stripe};
use crate::rng::Rng;
use crate::signal;
use crate::stats::Recorder;
use crate::verify::{CLAIM_TRIES, Writer};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Every this many reads of the measured phase, the data read is checked for zeroed sectors
/// (`engine::payload::zero_sectors`: one word per 512-byte sector): blocks halfpower did not
/// write that a TRIMmed or thin device answers with zeros without touching its media.
pub const ZERO_SAMPLE_EVERY: u64 = 16;

/// What one worker does.
#[derive(Clone, Debug)]
pub struct WorkerPlan {
    /// Offsets to use.
    pub offsets: OffsetGen,
    /// Random stream of this worker (read/write choice).
    pub rng: Rng,
    /// Share of reads in percent.
    pub read_pct: u8,
    /// I/Os in flight.
    pub qd: u32,
    /// Request sizes.
    pub sizes: SizePicker,
    /// Rate cap and think time.
    pub pace: Pace,
    /// Where this worker's write numbers start: each write is stamped with this plus its
    /// count, so no two writes of a run carry the same data (`engine::payload`).
    pub write_tag: u64,
    /// With a stripe set, how the offsets map onto the engine's files (else all go to file 0).
    pub stripe: Option<Stripe>,
    /// With `--verify`: the record every write is sealed for and acknowledged in.
    pub verify: Option<Writer>,
    /// With `--on-error stop`: how long failures may go on before the phase stops, ns.
    pub error_grace_ns: Option<u64>,
}

/// The pace of one worker: its share of a rate cap, and its think time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pace {
    /// Nanoseconds per request at the I/O rate cap (0: no cap).
    pub ns_per_io: f64,
    /// Nanoseconds per byte at the byte rate cap (0: no cap).
    pub ns_per_byte: f64,
    /// Pause after every `think_every` requests, ns (0: none).
    pub think_ns: u64,
    /// Requests between two pauses.
    pub think_every: u32,
    /// fsync (or fdatasync) after every this many writes (0: never).
    pub sync_every: u32,
    /// fdatasync instead of fsync.
    pub data_only: bool,
    /// Sync once more when the phase has drained.
    pub end_sync: bool,
}

impl Pace {
    /// When the next request is due, ns after the phase's start, once `ios` requests of
    /// `bytes` in all have been issued.
    #[inline]
    fn due(&self, ios: u64, bytes: u64) -> u64 {
        (ios as f64 * self.ns_per_io).max(bytes as f64 * self.ns_per_byte) as u64
    }

    fn rated(&self) -> bool {
        self.ns_per_io > 0.0 || self.ns_per_byte > 0.0
    }
}

/// Sleeps until `until` (monotonic ns) in slices short enough to notice `stop` and Ctrl-C.
fn idle_until(until: u64, stop: &AtomicBool) {
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

/// Live counters of one worker that a progress display may read; one cache line each.
#[repr(align(64))]
#[derive(Debug, Default)]
pub struct Progress {
    /// I/Os completed so far in the current phase (warm-up, then measured).
    pub ios: AtomicU64,
    /// Bytes completed so far in the current phase.
    pub bytes: AtomicU64,
    /// Of those, reads.
    pub read_ios: AtomicU64,
    /// Of those, bytes read.
    pub read_bytes: AtomicU64,
}

impl Progress {
    /// Zeroes the counts before a phase (while no worker runs).
    pub fn reset(&self) {
        self.publish(&PhaseCounts::default());
    }

    /// Publishes the phase's counts so far.
    fn publish(&self, c: &PhaseCounts) {
        self.ios.store(c.ios, Ordering::Relaxed);
        self.bytes.store(c.bytes, Ordering::Relaxed);
        self.read_ios.store(c.read_ios, Ordering::Relaxed);
        self.read_bytes.store(c.read_bytes, Ordering::Relaxed);
    }
}

/// Successful completions of one phase, for the progress counters.
#[derive(Clone, Copy, Debug, Default)]
struct PhaseCounts {
    ios: u64,
    bytes: u64,
    read_ios: u64,
    read_bytes: u64,
}

/// When a phase stops issuing new I/Os.
#[derive(Clone, Copy, Debug)]
pub enum Limit<'a> {
    /// Issue while the clock is before this instant (ns, monotonic).
    Until(u64),
    /// Issue while I/Os remain in this budget shared by all workers and the clock is before
    /// the instant (ns, monotonic; `u64::MAX` for none).
    Budget(&'a AtomicU64, u64),
}

/// Takes up to `want` I/Os from the shared budget; 0 when it is spent.
fn claim(budget: &AtomicU64, want: u64) -> u64 {
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

/// The per-slot state of one worker and its generators.
pub struct Worker {
    plan: WorkerPlan,
    start_ns: Vec<u64>,
    offset: Vec<u64>,
    dir: Vec<IoDir>,
    len: Vec<u32>,
    writes: u64,
    /// With `--verify-while`: per slot, the record's entries when its read was issued.
    seen: Vec<Vec<u32>>,
    /// With `--verify-while`: the slots of reads completed in the last reap, to judge.
    reads_done: Vec<u32>,
    /// The slots of sampled reads completed in the last reap, to check for zeros.
    zero_check: Vec<u32>,
}

impl Worker {
    /// A worker for `plan`.
    pub fn new(plan: WorkerPlan) -> Self {
        let qd = plan.qd as usize;
        Worker {
            plan,
            start_ns: vec![0; qd],
            offset: vec![0; qd],
            dir: vec![IoDir::Read; qd],
            len: vec![0; qd],
            writes: 0,
            seen: vec![Vec::new(); qd],
            reads_done: Vec::with_capacity(qd),
            zero_check: Vec::with_capacity(qd),
        }
    }

    #[inline]
    fn next_dir(&mut self) -> IoDir {
        match self.plan.read_pct {
            100 => IoDir::Read,
            0 => IoDir::Write,
            p => {
                if self.plan.rng.below(100) < p as u64 {
                    IoDir::Read
                } else {
                    IoDir::Write
                }
            }
        }
    }

    /// Flushes the engine's files; with `--verify`, the record learns which acknowledged writes
    /// the flush covered once it completes.
    fn sync<E: Engine>(&self, eng: &mut E, data_only: bool) -> io::Result<()> {
        let mark = self.plan.verify.as_ref().map(Writer::flush_begin);
        eng.sync_files(data_only)?;
        if let (Some(v), Some(m)) = (&self.plan.verify, mark) {
            v.flush_done(m);
        }
        Ok(())
    }

    /// Runs one phase to its end and drains it. With `rec` (the measured phase), every
    /// completion is recorded there. Either way the phase's successful completions are
    /// published to `progress` after each reap, for the progress line, the within-run windows
    /// and the adaptive warm-up. `stop` ends the phase early (steady state reached).
    pub fn phase<E: Engine>(
        &mut self,
        eng: &mut E,
        limit: Limit<'_>,
        mut rec: Option<&mut Recorder>,
        progress: &Progress,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        let pace = self.plan.pace;
        let (rated, thinks) = (pace.rated(), pace.think_ns > 0);
        let deadline = match limit {
            Limit::Until(d) | Limit::Budget(_, d) => d,
        };
        let start = now_ns();
        let (mut issued, mut issued_bytes, mut since_think) = (0u64, 0u64, 0u32);
        let mut since_sync = 0u32;
        let syncs = pace.sync_every > 0;
        let mut free: Vec<u32> = (0..self.plan.qd).rev().collect();
        let mut inflight = 0u32;
        // Requests prepared since the last submit call.
        let mut batch = 0u32;
        let mut now = now_ns();
        let mut claimed = 0u64;
        let chunk = (self.plan.qd as u64).clamp(1, 32);
        let mut counts = PhaseCounts::default();
        progress.publish(&counts);
        let mut first_fail: Option<u64> = None;
        // With `--verify-while`, reads are judged as they complete.
        let judge_reads = self.plan.verify.as_ref().is_some_and(Writer::while_running);
        loop {
            if let (Some(grace), Some(f)) = (self.plan.error_grace_ns, first_fail) {
                if now >= f.saturating_add(grace) && !stop.load(Ordering::Relaxed) {
                    // Failures went on past the grace: every worker stops.
                    stop.store(true, Ordering::Relaxed);
                    if let Some(rec) = rec.as_deref_mut() {
                        rec.errors.stopped = true;
                    }
                }
            }
            let mut blocked = false;
            // A sync is due after every `sync_every` writes, also after the last one: checked
            // before each request, so a pass with several free slots never overshoots.
            while let Some(&slot) = free.last() {
                if syncs && since_sync >= pace.sync_every {
                    blocked = true;
                    break;
                }
                let go = !signal::interrupted()
                    && !stop.load(Ordering::Relaxed)
                    && match limit {
                        Limit::Until(deadline) => now < deadline,
                        Limit::Budget(budget, deadline) => {
                            if claimed == 0 && now < deadline {
                                claimed = claim(budget, chunk);
                            }
                            claimed > 0 && now < deadline
                        }
                    };
                if !go {
                    break;
                }
                if thinks && since_think >= pace.think_every {
                    blocked = true;
                    break;
                }
                if rated {
                    now = now_ns();
                    if now < start + pace.due(issued, issued_bytes) {
                        blocked = true;
                        break;
                    }
                }
                let dir = self.next_dir();
                let len = self.plan.sizes.pick(&mut self.plan.rng);
                let mut logical = self.plan.offsets.next(&mut self.plan.rng, len);
                if let (Some(v), IoDir::Write) = (&self.plan.verify, dir) {
                    // One write in flight per block: draw again while this one has one.
                    let mut tries = 1;
                    while !v.claim(logical, len) && tries < CLAIM_TRIES {
                        logical = self.plan.offsets.next(&mut self.plan.rng, len);
                        tries += 1;
                    }
                    if tries == CLAIM_TRIES && !v.claim(logical, len) {
                        if inflight == 0 {
                            return Err(io::Error::other(format!(
                                "--verify: no free block for a write of {len} bytes at {logical}"
                            )));
                        }
                        blocked = true;
                        break;
                    }
                }
                claimed = claimed.saturating_sub(1);
                free.pop();
                issued += 1;
                issued_bytes += len;
                since_think += 1;
                since_sync += (dir == IoDir::Write) as u32;
                let (file, offset) = match &self.plan.stripe {
                    Some(s) => s.map(logical),
                    None => (0, logical),
                };
                let s = slot as usize;
                self.dir[s] = dir;
                self.offset[s] = offset;
                self.len[s] = len as u32;
                if let (Some(v), IoDir::Read, true) = (&self.plan.verify, dir, judge_reads) {
                    v.before_read(offset, len, &mut self.seen[s]);
                }
                if dir == IoDir::Write {
                    let buf = &mut eng.buffer(slot)[..len as usize];
                    match &self.plan.verify {
                        Some(v) => v.seal(buf, logical),
                        None => stamp(buf, logical, self.plan.write_tag.wrapping_add(self.writes)),
                    }
                    self.writes += 1;
                }
                self.start_ns[s] = now_ns();
                eng.prepare(IoRequest {
                    dir,
                    file,
                    offset,
                    slot,
                    len: len as u32,
                });
                inflight += 1;
                batch += 1;
            }
            let sync_due = syncs && since_sync >= pace.sync_every;
            if sync_due && inflight == 0 {
                // Everything written so far has completed: flush it, timed apart.
                let t = now_ns();
                self.sync(eng, pace.data_only)?;
                now = now_ns();
                if let Some(rec) = rec.as_deref_mut() {
                    rec.sync_done(now - t);
                }
                since_sync = 0;
                continue;
            }
            if blocked && inflight == 0 {
                // Nothing in flight and the next request not yet due: idle until it is.
                let until = if thinks && since_think >= pace.think_every {
                    since_think = 0;
                    now_ns() + pace.think_ns
                } else {
                    start + pace.due(issued, issued_bytes)
                };
                idle_until(until.min(deadline), stop);
                now = now_ns();
                continue;
            }
            if inflight == 0 {
                break;
            }
            // Paced and not yet due: let everything in flight complete first (as fio does).
            let want = if blocked { inflight } else { 1 };
            let (starts, dirs, offsets, lens) =
                (&self.start_ns, &self.dir, &self.offset, &self.len);
            let verify = &self.plan.verify;
            let reads_done = &mut self.reads_done;
            if let (Some(rec), true) = (rec.as_deref_mut(), batch > 0) {
                rec.depth.submit_call(batch, inflight);
            }
            batch = 0;
            let mut reaped = 0u32;
            let zero_check = &mut self.zero_check;
            let sample_zeros = rec.is_some();
            eng.submit_and_reap(want, |slot, res| {
                let t = now_ns();
                let s = slot as usize;
                inflight -= 1;
                reaped += 1;
                free.push(slot);
                now = t;
                let (dir, len) = (dirs[s], lens[s]);
                let ok = res == len as i32;
                if let (Some(v), IoDir::Write) = (verify, dir) {
                    v.done(offsets[s], len as u64, ok);
                }
                if ok {
                    counts.ios += 1;
                    counts.bytes += len as u64;
                    if dir == IoDir::Read {
                        counts.read_ios += 1;
                        counts.read_bytes += len as u64;
                        if judge_reads {
                            reads_done.push(slot);
                        }
                        if sample_zeros && counts.read_ios % ZERO_SAMPLE_EVERY == 0 {
                            zero_check.push(slot);
                        }
                    }
                    if let Some(rec) = rec.as_deref_mut() {
                        rec.complete(dir, len as u64, t.saturating_sub(starts[s]), t);
                    }
                } else {
                    first_fail.get_or_insert(t);
                    if let Some(rec) = rec.as_deref_mut() {
                        rec.fail(dir, offsets[s], res.min(0), t);
                    }
                }
            })?;
            if let Some(rec) = rec.as_deref_mut() {
                rec.depth.reap_call(reaped);
                // Free slots are not reused before the next pass: their data is intact.
                for slot in self.zero_check.drain(..) {
                    let len = self.len[slot as usize] as usize;
                    rec.read.zeros.add(zero_sectors(&eng.buffer(slot)[..len]));
                }
            }
            if let Some(v) = verify {
                // The slots are free but not reused before the next pass: their data is intact.
                for slot in self.reads_done.drain(..) {
                    let s = slot as usize;
                    let len = self.len[s] as usize;
                    v.after_read(&eng.buffer(slot)[..len], self.offset[s], &self.seen[s]);
                }
            }
            progress.publish(&counts);
        }
        if pace.end_sync && !signal::interrupted() {
            let t = now_ns();
            self.sync(eng, pace.data_only)?;
            if let Some(rec) = rec {
                rec.sync_done(now_ns() - t);
            }
        }
        // A budget claimed but not issued (interrupted) goes back for the record's honesty.
        if let Limit::Budget(budget, _) = limit {
            budget.fetch_add(claimed, Ordering::Relaxed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{BufferArena, NullEngine};
    use crate::offsets::Region;

    fn plan(qd: u32, read_pct: u8) -> WorkerPlan {
        WorkerPlan {
            offsets: OffsetGen::random(Region::new(0, 1 << 30, 4096)),
            rng: Rng::new(1, 0),
            read_pct,
            qd,
            sizes: SizePicker::new(&crate::access::RequestSize::fixed(4096)),
            pace: Pace::default(),
            write_tag: 0,
            stripe: None,
            verify: None,
            error_grace_ns: None,
        }
    }

    #[test]
    fn a_budget_is_issued_exactly() {
        let mut w = Worker::new(plan(8, 70));
        let mut eng = NullEngine::new(BufferArena::new(8, 4096, 4096).unwrap(), 4096);
        let budget = AtomicU64::new(16_384);
        let mut rec = Recorder::new(now_ns());
        let progress = Progress::default();
        w.phase(
            &mut eng,
            Limit::Budget(&budget, u64::MAX),
            Some(&mut rec),
            &progress,
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(rec.ios(), 16_384);
        assert_eq!(rec.read.bytes + rec.write.bytes, 16_384 * 4096);
        assert_eq!(budget.load(Ordering::Relaxed), 0);
        let read_share = rec.read.ios as f64 / 16_384.0;
        assert!((0.66..0.74).contains(&read_share), "{read_share}");
        assert_eq!(progress.ios.load(Ordering::Relaxed), 16_384);
    }

    #[test]
    fn a_sync_follows_exactly_every_nth_write_however_many_slots_are_free() {
        // The null engine completes every request at once, so each pass finds all 8 slots
        // free: the sync must still come after every 3rd write, not after 3 to 10.
        let mut p = plan(8, 0);
        p.pace.sync_every = 3;
        let mut w = Worker::new(p);
        let mut eng = NullEngine::new(BufferArena::new(8, 4096, 4096).unwrap(), 4096);
        let budget = AtomicU64::new(300);
        let mut rec = Recorder::new(now_ns());
        w.phase(
            &mut eng,
            Limit::Budget(&budget, u64::MAX),
            Some(&mut rec),
            &Progress::default(),
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(rec.write.ios, 300);
        assert_eq!(rec.syncs.ios, 100);
    }

    #[test]
    fn a_deadline_in_the_past_issues_nothing() {
        let mut w = Worker::new(plan(4, 100));
        let mut eng = NullEngine::new(BufferArena::new(4, 4096, 4096).unwrap(), 4096);
        let mut rec = Recorder::new(now_ns());
        w.phase(
            &mut eng,
            Limit::Until(0),
            Some(&mut rec),
            &Progress::default(),
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(rec.ios(), 0);
    }

    #[test]
    fn claim_never_overdraws() {
        let b = AtomicU64::new(5);
        assert_eq!(claim(&b, 4), 4);
        assert_eq!(claim(&b, 4), 1);
        assert_eq!(claim(&b, 4), 0);
    }
}
