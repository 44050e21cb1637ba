//! One worker thread: keeps `qd` I/Os in flight on one target through one engine, through a
//! warm-up phase and a measured phase, stamping every I/O at submission and at completion.
//!
//! The loop keeps only issuing, reaping and recording. What to issue comes from a request
//! [`Source`] (the synthetic generators; `source.rs`); when, from the plan's one [`Schedule`]:
//! a closed loop's [`Pacer`] and [`Syncs`] (`pace.rs`), or an open loop's due times (`open.rs`);
//! whether at all, from the phase's [`Gate`] (`gate.rs`).
//!
//! Each phase ends by draining: no new I/O is issued and every outstanding one is reaped. So at
//! the barrier between warm-up and measurement nothing is in flight, and the OS disk counters
//! that the runner samples there cover exactly the measured I/Os.

mod gate;
mod open;
mod pace;
mod source;

pub use gate::PhaseEnd;
pub use open::Stagger;
pub use pace::Flushes;
pub use source::{Replay, Request, Requests, Source, Synthetic, Timing};

use crate::clock::now_ns;
use crate::engine::payload::{Payload, stamp, zero_sectors};
use crate::engine::{Engine, IoDir, IoRequest};
use crate::offsets::Stripe;
use crate::plan::{OnError, Schedule};
use crate::signal;
use crate::stats::Recorder;
use crate::verify::Writer;
use gate::Gate;
use pace::{Pacer, Passes, Syncs, idle_until};
use source::claim_write;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Every this many reads of the measured phase, the data read is checked for zeroed sectors
/// (`engine::payload::zero_sectors`: one word per 512-byte sector): blocks halfpower did not
/// write that a TRIMmed or thin device answers with zeros without touching its media.
pub const ZERO_SAMPLE_EVERY: u64 = 16;

/// What one worker does; `S` is where its requests come from (the synthetic generators unless
/// said otherwise).
#[derive(Clone, Debug)]
pub struct WorkerPlan<S = Synthetic> {
    /// Where its requests come from.
    pub source: S,
    /// When its requests are issued: its share of the run's schedule (a closed loop's depth,
    /// rate cap and think time, or an open loop's arrivals and bound on requests in flight).
    pub schedule: Schedule,
    /// An open loop's first due time and the seed of its random gaps.
    pub stagger: Stagger,
    /// Syncs every N writes and the page cache dropped every pass.
    pub flushes: Flushes,
    /// Where this worker's write numbers start: each write is stamped with this plus its
    /// count, so no two writes of a run carry the same data (`engine::payload`).
    pub write_tag: u64,
    /// With a stripe set, how the offsets map onto the engine's files (else all go to file 0).
    pub stripe: Option<Stripe>,
    /// With `--verify`: the record every write is sealed for and acknowledged in.
    pub verify: Option<Writer>,
    /// With `--on-error stop` (or `continue-reads`, `continue-writes`): how long failures
    /// may go on before the phase stops, ns.
    pub error_grace_ns: Option<u64>,
    /// Which failures start that grace (every failure but those `--on-error` goes on after).
    pub on_error: OnError,
    /// What the writes carry (sealed instead with `--verify`).
    pub payload: Payload,
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

/// How long a reap waits.
#[derive(Clone, Copy, Debug)]
enum Wait {
    /// Until at least this many requests have completed.
    For(u32),
    /// Until the first completions, or this instant (monotonic ns) with none.
    Until(u64),
}

/// The state of one phase's loop.
struct Phase<'a> {
    gate: Gate<'a>,
    pacer: Pacer,
    syncs: Syncs,
    /// Slots without a request in flight.
    free: Vec<u32>,
    inflight: u32,
    /// Requests prepared since the last submit call.
    batch: u32,
    /// Completions the last reap returned while it waited for one free slot: fio, which reaps
    /// one a time when it needs a slot, would still hold them as it refills (0 after a wait
    /// for everything in flight). For the depth counts ([`DepthCounts::submit_call`]).
    ///
    /// [`DepthCounts::submit_call`]: crate::stats::depth::DepthCounts::submit_call
    held: u32,
    /// The clock as last read, monotonic ns.
    now: u64,
    counts: PhaseCounts,
    /// When the first read and the first write of the phase failed.
    first_fail: [Option<u64>; 2],
    /// With `--verify-while`, reads are judged as they complete.
    judge_reads: bool,
}

impl<'a> Phase<'a> {
    /// The state of a phase of `plan` behind `gate`, starting now.
    fn new<S>(gate: Gate<'a>, plan: &WorkerPlan<S>) -> Self {
        let now = now_ns();
        Phase {
            gate,
            pacer: Pacer::new(&plan.schedule, now),
            syncs: Syncs::new(&plan.flushes),
            free: (0..plan.schedule.slots()).rev().collect(),
            inflight: 0,
            batch: 0,
            held: 0,
            now,
            counts: PhaseCounts::default(),
            first_fail: [None; 2],
            judge_reads: plan.verify.as_ref().is_some_and(Writer::while_running),
        }
    }
}

/// The per-slot state of one worker and its generators.
pub struct Worker<S = Synthetic> {
    plan: WorkerPlan<S>,
    /// Per slot: the instant its latency runs from (submission; in an open loop, the due time).
    start_ns: Vec<u64>,
    /// Per slot: the instant it was submitted.
    submitted_ns: Vec<u64>,
    offset: Vec<u64>,
    /// Per slot: its file (a stripe set's member; else always 0), for the per-I/O record.
    file: Vec<u32>,
    dir: Vec<IoDir>,
    len: Vec<u32>,
    writes: u64,
    /// With `--verify-while`: per slot, the record's entries when its read was issued.
    seen: Vec<Vec<u32>>,
    /// With `--verify-while`: the slots of reads completed in the last reap, to judge.
    reads_done: Vec<u32>,
    /// The slots of sampled reads completed in the last reap, to check for zeros.
    zero_check: Vec<u32>,
    /// With `--invalidate`: the bytes of the pass over the region so far.
    passes: Passes,
}

impl<S: Source> Worker<S> {
    /// A worker for `plan`.
    pub fn new(plan: WorkerPlan<S>) -> Self {
        let qd = plan.schedule.slots() as usize;
        let passes = Passes::new(plan.flushes.pass_bytes);
        Worker {
            plan,
            start_ns: vec![0; qd],
            submitted_ns: vec![0; qd],
            offset: vec![0; qd],
            file: vec![0; qd],
            dir: vec![IoDir::Read; qd],
            len: vec![0; qd],
            writes: 0,
            seen: vec![Vec::new(); qd],
            reads_done: Vec::with_capacity(qd),
            zero_check: Vec::with_capacity(qd),
            passes,
        }
    }

    /// Flushes the engine's files, timed into `rec`; with `--verify`, the record learns which
    /// acknowledged writes the flush covered once it completes.
    fn sync<E: Engine>(&self, eng: &mut E, rec: Option<&mut Recorder>) -> io::Result<()> {
        let t = now_ns();
        let mark = self.plan.verify.as_ref().map(Writer::flush_begin);
        eng.sync_files(self.plan.flushes.data_only)?;
        if let (Some(v), Some(m)) = (&self.plan.verify, mark) {
            v.flush_done(m);
        }
        if let Some(rec) = rec {
            let done = now_ns();
            rec.sync_done(done - t, done);
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
        limit: PhaseEnd<'_>,
        mut rec: Option<&mut Recorder>,
        progress: &Progress,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        if !matches!(self.plan.schedule, Schedule::Closed { .. }) {
            return self.phase_open(eng, limit, rec, progress, stop);
        }
        let mut p = Phase::new(Gate::new(limit, self.plan.schedule.slots()), &self.plan);
        progress.publish(&p.counts);
        loop {
            self.stop_after_grace(&p, rec.as_deref_mut(), stop);
            let held = self.fill(eng, &mut p, stop)?;
            if p.syncs.due() && p.inflight == 0 {
                // Everything written so far has completed: flush it, timed apart.
                self.sync(eng, rec.as_deref_mut())?;
                p.now = now_ns();
                p.syncs.done();
                p.held = 0;
                continue;
            }
            if self.passes.due() && p.inflight == 0 {
                // A pass over the region is complete and drained: the next reads the device,
                // or allocates its blocks again.
                match self.plan.flushes.release {
                    Some(how) => eng.release(how)?,
                    None => eng.drop_cache(),
                }
                self.passes.done();
                p.now = now_ns();
                p.held = 0;
                continue;
            }
            if held && p.inflight == 0 {
                // Nothing in flight and the next request not yet due: idle until it is.
                idle_until(p.pacer.resume_at().min(p.gate.deadline()), stop);
                p.now = now_ns();
                p.held = 0;
                continue;
            }
            if p.inflight == 0 {
                break;
            }
            // Paced and not yet due: let everything in flight complete first (as fio does).
            let want = if held { p.inflight } else { 1 };
            self.reap(eng, &mut p, want, rec.as_deref_mut())?;
            progress.publish(&p.counts);
        }
        if p.syncs.at_end && !signal::interrupted() {
            self.sync(eng, rec)?;
        }
        p.gate.give_back();
        Ok(())
    }

    /// With `--on-error stop` (or one direction's `continue-…`): once failures of a direction
    /// it stops for have gone on past the grace, every worker stops.
    fn stop_after_grace(&self, p: &Phase, rec: Option<&mut Recorder>, stop: &AtomicBool) {
        let Some(grace) = self.plan.error_grace_ns else {
            return;
        };
        if p.first_fail == [None, None] {
            return;
        }
        let first = [IoDir::Read, IoDir::Write]
            .into_iter()
            .filter(|&d| self.plan.on_error.stops_on(d))
            .filter_map(|d| p.first_fail[d as usize])
            .min();
        if let Some(f) = first {
            if p.now >= f.saturating_add(grace) && !stop.load(Ordering::Relaxed) {
                stop.store(true, Ordering::Relaxed);
                if let Some(rec) = rec {
                    rec.errors.stopped = true;
                }
            }
        }
    }

    /// Issues requests into the free slots while the gate is open. Returns whether the next
    /// request is held (a sync due first, not yet due at the pace, or a write with no free
    /// block for now), rather than the slots full or the phase over.
    fn fill<E: Engine>(
        &mut self,
        eng: &mut E,
        p: &mut Phase,
        stop: &AtomicBool,
    ) -> io::Result<bool> {
        while let Some(&slot) = p.free.last() {
            if p.syncs.due() || self.passes.due() {
                return Ok(true);
            }
            if self.plan.source.timing() == Timing::End {
                return Ok(false);
            }
            if !p.gate.open(p.now, stop) {
                return Ok(false);
            }
            if p.pacer.holds(&mut p.now) {
                return Ok(true);
            }
            let drawn = self.plan.source.next();
            let r = match (&self.plan.verify, drawn.dir) {
                (Some(v), IoDir::Write) => match claim_write(&mut self.plan.source, v, drawn) {
                    Some(r) => r,
                    None if p.inflight == 0 => {
                        return Err(io::Error::other(format!(
                            "--verify: no free block for a write of {} bytes at {}",
                            drawn.len, drawn.logical
                        )));
                    }
                    None => return Ok(true),
                },
                _ => drawn,
            };
            p.gate.took();
            p.free.pop();
            p.pacer.issued(r.len);
            if r.dir == IoDir::Write {
                p.syncs.wrote();
            }
            self.passes.issued(r.len);
            self.issue(eng, slot, r, None, p.judge_reads);
            p.inflight += 1;
            p.batch += 1;
        }
        Ok(false)
    }

    /// Prepares request `r` in `slot`: mapped onto its file, a write's buffer sealed or
    /// stamped, its submission time stamped, and its latency's start: the submission, or in
    /// an open loop the `due` time.
    // Always inlined: the loop's hot path (the compiler stopped inlining it, and the recorder,
    // when the open loop grew the worker: 56 → 63 ns per I/O on the null engine).
    #[inline(always)]
    fn issue<E: Engine>(
        &mut self,
        eng: &mut E,
        slot: u32,
        r: Request,
        due: Option<u64>,
        judge_reads: bool,
    ) {
        let s = slot as usize;
        let (file, offset) = match &self.plan.stripe {
            Some(stripe) => {
                let (file, offset) = stripe.map(r.logical);
                self.file[s] = file; // only a stripe set's slots change file
                (file, offset)
            }
            None => (0, r.logical),
        };
        self.dir[s] = r.dir;
        self.offset[s] = offset;
        self.len[s] = r.len as u32;
        if let (Some(v), IoDir::Read, true) = (&self.plan.verify, r.dir, judge_reads) {
            v.before_read(offset, r.len, &mut self.seen[s]);
        }
        if r.dir == IoDir::Write {
            let buf = &mut eng.buffer(slot)[..r.len as usize];
            match (&self.plan.verify, &self.plan.payload) {
                (Some(v), _) => v.seal(buf, r.logical),
                (None, Payload::Stamped) => stamp(
                    buf,
                    r.logical,
                    self.plan.write_tag.wrapping_add(self.writes),
                ),
                (None, Payload::Pattern(p)) => p.fill(buf, offset),
            }
            self.writes += 1;
        }
        let now = now_ns();
        self.submitted_ns[s] = now;
        self.start_ns[s] = due.unwrap_or(now);
        eng.prepare(IoRequest {
            dir: r.dir,
            file,
            offset,
            slot,
            len: r.len as u32,
        });
    }

    /// Submits what was prepared and reaps at least `want` completions: each recorded with
    /// its latency (or as a failure), its slot freed; then the sampled reads checked for zeros
    /// and, with `--verify-while`, the reads judged.
    #[inline]
    fn reap<E: Engine>(
        &mut self,
        eng: &mut E,
        p: &mut Phase,
        want: u32,
        rec: Option<&mut Recorder>,
    ) -> io::Result<()> {
        self.reap_as::<E, false>(eng, p, Wait::For(want), rec)
    }

    /// [`Worker::reap`], waiting as `wait` says; `OPEN` (an open loop) also records each
    /// completion's service time. Monomorphised per loop, so the closed loop's reap pays for
    /// neither the open loop's counts nor its timed wait (56 → 67 ns per I/O on the null
    /// engine when one function served both).
    fn reap_as<E: Engine, const OPEN: bool>(
        &mut self,
        eng: &mut E,
        p: &mut Phase,
        wait: Wait,
        mut rec: Option<&mut Recorder>,
    ) -> io::Result<()> {
        if let (Some(rec), true) = (rec.as_deref_mut(), p.batch > 0) {
            rec.depth
                .submit_call(p.batch, p.inflight, p.held, E::SUBMITS_EACH);
        }
        p.batch = 0;
        let for_a_slot = matches!(wait, Wait::For(w) if w < p.inflight);
        let mut reaped = 0u32;
        let (starts, dirs, offsets, lens) = (&self.start_ns, &self.dir, &self.offset, &self.len);
        let files = &self.file;
        let submitted = &self.submitted_ns;
        let verify = &self.plan.verify;
        let (reads_done, zero_check) = (&mut self.reads_done, &mut self.zero_check);
        let sample_zeros = rec.is_some();
        let judge_reads = p.judge_reads;
        let Phase {
            free,
            inflight,
            now,
            counts,
            first_fail,
            ..
        } = p;
        let mut on_complete = |slot: u32, res: i32| {
            let t = now_ns();
            let s = slot as usize;
            *inflight -= 1;
            reaped += 1;
            free.push(slot);
            *now = t;
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
                    let at = || (files[s], offsets[s]);
                    rec.complete(dir, len as u64, t.saturating_sub(starts[s]), t, at);
                    if OPEN {
                        if let Some(open) = rec.open.as_deref_mut() {
                            open.service.record(t.saturating_sub(submitted[s]));
                        }
                    }
                }
            } else {
                failed(first_fail, dir, t);
                if let Some(rec) = rec.as_deref_mut() {
                    rec.fail(dir, offsets[s], res.min(0), t);
                }
            }
        };
        match wait {
            Wait::For(want) => eng.submit_and_reap(want, &mut on_complete)?,
            Wait::Until(deadline) => eng.submit_and_reap_until(deadline, &mut on_complete)?,
        }
        p.held = if for_a_slot { reaped } else { 0 };
        if let Some(rec) = rec {
            rec.depth.reap_call(reaped);
            // Free slots are not reused before the next pass: their data is intact.
            for slot in self.zero_check.drain(..) {
                let len = self.len[slot as usize] as usize;
                rec.read.zeros.add(zero_sectors(&eng.buffer(slot)[..len]));
            }
        }
        if let Some(v) = &self.plan.verify {
            // The slots are free but not reused before the next pass: their data is intact.
            for slot in self.reads_done.drain(..) {
                let s = slot as usize;
                let len = self.len[s] as usize;
                v.after_read(&eng.buffer(slot)[..len], self.offset[s], &self.seen[s]);
            }
        }
        Ok(())
    }
}

/// Notes a failure of `dir` at `t` (the first of its direction starts `--on-error`'s grace).
/// Out of line and cold: the completion closure stays small enough to be inlined into the
/// engine's reap (510 → 601 instructions per I/O on the null engine when it was not).
#[cold]
#[inline(never)]
fn failed(first: &mut [Option<u64>; 2], dir: IoDir, t: u64) {
    first[dir as usize].get_or_insert(t);
}

#[cfg(test)]
mod tests;
