//! One worker thread of a run: its engine set up, its [`WorkerPlan`] built from the workload,
//! its warm-up and measured phases driven between the run's barriers; and the state all the
//! threads of a run share (barriers, budget, progress, stop flags).

use super::Control;
use crate::access::sample::{Draw, SizePicker};
use crate::clock::now_ns;
use crate::engine::{AnyEngine, BufferArena, Drive, Engine, Release};
use crate::model::cause::{Fatal, Stage};
use crate::model::run::TargetKind;
use crate::offsets::{OffsetGen, Region, Stripe};
use crate::plan::{Create, EngineKind, RunPlan, Schedule};
use crate::rng::Rng;
use crate::signal;
use crate::stats::Recorder;
use crate::stats::series::SeriesSink;
use crate::storage::Target;
use crate::worker::{
    Flushes, PhaseEnd, Progress, Replay, Requests, Stagger, Synthetic, Worker, WorkerPlan,
};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Barrier, Condvar, Mutex};

/// What one worker thread hands back: its target's index, what it recorded, whether io_uring
/// registered its file and buffers, and a failure that stopped it.
pub(super) struct WorkerOutput {
    pub(super) target: usize,
    pub(super) rec: Recorder,
    pub(super) registered: Option<(bool, bool)>,
    pub(super) fatal: Option<Fatal>,
}

/// Shared state of one run's threads.
pub(super) struct Shared {
    pub(super) barrier: Barrier,
    pub(super) setup_error: Mutex<Option<String>>,
    /// The run's I/O budget: none, one all workers draw on, or one per worker.
    pub(super) budget: Vec<AtomicU64>,
    /// The warm-up spends I/Os of `budget` ([`Control::warmup_in_budget`]).
    pub(super) warmup_in_budget: bool,
    pub(super) progress: Vec<Progress>,
    pub(super) stop: AtomicBool,
    /// Ends an adaptive warm-up (steady state) once its transient is over.
    pub(super) warm_stop: AtomicBool,
    pub(super) series: Arc<SeriesSink>,
    pub(super) warmup_ns: u64,
    /// The start of the measured phase (monotonic ns), set before the workers are let go.
    pub(super) origin_ns: AtomicU64,
    pub(super) time_ns: u64,
    /// Workers whose measured phase has ended (drained), and the signal that one has.
    pub(super) done: Mutex<usize>,
    pub(super) done_signal: Condvar,
    pub(super) workers: usize,
    /// With `--verify`: the record the workers seal their writes for.
    pub(super) record: Option<crate::verify::Record>,
    /// Each worker keeps the per-I/O record of its measured phase.
    pub(super) io_log: bool,
    /// Each worker keeps its counts at the edges of periods of this many ns.
    pub(super) periods_ns: Option<u64>,
}

impl Shared {
    /// The state of a run of `w` by `n` workers, controlled as `control` says.
    pub(super) fn new(
        w: &RunPlan,
        control: &Control,
        n: usize,
        record: Option<crate::verify::Record>,
    ) -> Self {
        Shared {
            barrier: Barrier::new(n + 1),
            setup_error: Mutex::new(None),
            budget: split_budget(w.io_budget(), control.budget_per_worker.then_some(n)),
            warmup_in_budget: control.warmup_in_budget,
            progress: (0..n).map(|_| Progress::default()).collect(),
            stop: AtomicBool::new(false),
            warm_stop: AtomicBool::new(false),
            series: Arc::new(SeriesSink::for_targets(
                n,
                n / (w.threads() as usize).max(1),
            )),
            // A steady point warms up until its transient is over, at most for its --time.
            warmup_ns: match (control.steady, w.setup().time) {
                (Some(r), Some(t)) if r.adaptive_warmup() => t.0.as_nanos() as u64,
                _ => w.setup().warmup.0.as_nanos() as u64,
            },
            time_ns: w.setup().time.map_or(0, |t| t.0.as_nanos() as u64),
            origin_ns: AtomicU64::new(0),
            done: Mutex::new(0),
            done_signal: Condvar::new(),
            workers: n,
            record,
            io_log: control.io_log,
            periods_ns: control.periods_ns,
        }
    }

    /// Whether a worker's engine failed to set up.
    pub(super) fn setup_failed(&self) -> bool {
        self.setup_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// The budget worker `me` draws on, if the run ends by bytes.
    fn budget_of(&self, me: usize) -> Option<&AtomicU64> {
        match self.budget.len() {
            0 => None,
            1 => self.budget.first(),
            _ => self.budget.get(me),
        }
    }

    /// A worker's measured phase has ended: counted, and the watcher woken.
    pub(super) fn worker_done(&self) {
        *self.done.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.done_signal.notify_all();
    }

    /// Waits up to `timeout` for every worker's measured phase to end; whether they all have.
    /// The watcher wakes at once when the last one ends, so the counters sampled after it
    /// cover the I/O window, not a watcher's sleep beyond it.
    pub(super) fn wait_all_done(&self, timeout: std::time::Duration) -> bool {
        let guard = self.done.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = self
            .done_signal
            .wait_timeout_while(guard, timeout, |d| *d < self.workers)
            .unwrap_or_else(|p| p.into_inner());
        *guard >= self.workers
    }
}

/// Drives one worker (`me`, whose first target has index `target`) through its warm-up and
/// its measured phase between the run's barriers; returns what it recorded and a failure that
/// stopped it.
fn drive<E: Engine>(
    eng: &mut E,
    mut worker: Worker<Requests>,
    shared: &Shared,
    (me, target): (usize, usize),
) -> (Recorder, Option<Fatal>) {
    let progress = &shared.progress[me];
    let mut fatal = None;
    if shared.warmup_ns > 0 {
        let until = now_ns() + shared.warmup_ns;
        let stop = &shared.warm_stop;
        let limit = match (shared.budget_of(me), shared.warmup_in_budget) {
            (Some(b), true) => PhaseEnd::Budget(b, until),
            _ => PhaseEnd::Until(until),
        };
        if let Err(e) = worker.phase(eng, limit, None, progress, stop) {
            fatal = Some(Fatal {
                stage: Stage::WarmUp,
                error: e.to_string(),
                rank: None,
            });
        }
    }
    shared.barrier.wait(); // B1: warm-up drained everywhere
    // Before the window opens: reading the helpers' counts walks the process's threads.
    let waited0 = crate::oscounters::sched::run_delay_with_helpers_ns();
    shared.barrier.wait(); // B2: counters sampled, go
    // One start for every worker: the instant the watcher's window starts too, so a phase the
    // watcher stops after a time has lasted at least that time in the figures.
    let origin = shared.origin_ns.load(std::sync::atomic::Ordering::Acquire);
    let mut rec = Recorder::with_series(origin, Some((shared.series.clone(), target)));
    if shared.io_log {
        rec.keep_log(target as u32);
    }
    if let Some(p) = shared.periods_ns {
        rec.keep_periods(p);
    }
    if fatal.is_none() {
        let limit = match shared.budget_of(me) {
            // fio's jobs that end by size may also have a runtime: whichever comes first.
            Some(b) => PhaseEnd::Budget(
                b,
                match shared.time_ns {
                    0 => u64::MAX,
                    t => origin + t,
                },
            ),
            None => PhaseEnd::Until(origin + shared.time_ns),
        };
        if let Err(e) = worker.phase(eng, limit, Some(&mut rec), progress, &shared.stop) {
            fatal = Some(Fatal {
                stage: Stage::Submitting,
                error: e.to_string(),
                rank: None,
            });
        }
    }
    rec.waited_ns = waited0
        .zip(crate::oscounters::sched::run_delay_with_helpers_ns())
        .map(|(a, b)| b.saturating_sub(a));
    rec.finish();
    shared.worker_done();
    (rec, fatal)
}

/// The window of the figures: from the first measured submission to the last measured
/// completion (`busy_s`), and at least the phase's time when it ran to its end: paced workers
/// (a rate cap, think time) may sit idle after their last completion until the deadline, and
/// that time is part of the workload (at 20 IOPS for 2 s the last of 40 reads completes near
/// 1.95 s; 40 / 1.95 would claim 20.5 IOPS). A phase stopped early (`stopped`: steady state,
/// errors; or Ctrl-C) or ended by its byte budget ends at its last completion.
pub(super) fn measured_seconds(
    time_ns: u64,
    budget: &[AtomicU64],
    stopped: bool,
    busy_s: f64,
) -> f64 {
    let budget_left = budget
        .iter()
        .all(|b| b.load(std::sync::atomic::Ordering::Relaxed) > 0);
    if time_ns > 0 && budget_left && !stopped && !signal::interrupted() {
        busy_s.max(time_ns as f64 / 1e9)
    } else {
        busy_s
    }
}

/// A run's I/O budget as [`Shared::budget`] holds it: `ios` in one, or split as evenly as
/// whole I/Os allow between `workers` (the first ones take the remainder).
pub(super) fn split_budget(ios: Option<u64>, workers: Option<usize>) -> Vec<AtomicU64> {
    match (ios, workers) {
        (None, _) => Vec::new(),
        (Some(ios), Some(n)) if n > 1 => {
            let n = n as u64;
            (0..n)
                .map(|i| AtomicU64::new(ios / n + u64::from(i < ios % n)))
                .collect()
        }
        (Some(ios), _) => vec![AtomicU64::new(ios)],
    }
}

/// Sets up engine `kind` on `group`'s files with `qd` buffers of incompressible data.
fn setup_engine(
    group: &[Target],
    kind: EngineKind,
    w: &RunPlan,
    qd: u32,
    seed: u64,
) -> std::io::Result<AnyEngine> {
    let bs = w.bs().max() as u32;
    let align = group.iter().map(|t| t.mem_align).max().unwrap_or(4096);
    let fds: Vec<_> = group.iter().map(Target::fd).collect();
    let mut arena = BufferArena::new(qd as usize, bs as usize, align as usize)?;
    // Incompressible write data, different per worker.
    Rng::new(seed, 0xb0f).fill(arena.all_mut());
    // An open loop must never wait in its submission: a file system that does not honour
    // io_uring's non-blocking attempt (FUSE: each submit took the whole 2-ms service) would
    // hold every later request back. Block devices honour it.
    let open_loop = !matches!(w.schedule(), Schedule::Closed { .. });
    let punt = open_loop && group.iter().any(|t| t.kind != TargetKind::BlockDevice);
    AnyEngine::open(kind, &fds, arena, bs, w.setup().spin.0, punt)
}

/// A worker's phases on its engine ([`drive`]), for [`AnyEngine::drive`].
struct Phases<'a> {
    worker: Worker<Requests>,
    shared: &'a Shared,
    /// The worker's index and its first target's.
    me: (usize, usize),
}

impl Drive for Phases<'_> {
    type Out = (Recorder, Option<Fatal>);

    fn drive<E: Engine>(self, eng: &mut E) -> Self::Out {
        drive(eng, self.worker, self.shared, self.me)
    }
}

/// Which worker a thread is: its target, its thread number there, its index over all
/// workers, and the CPU it is pinned to.
#[derive(Clone, Copy)]
pub(super) struct WorkerId {
    pub(super) target: usize,
    pub(super) thread: u32,
    pub(super) index: usize,
    pub(super) cpu: Option<usize>,
}

/// The plan of worker `id` on `group` (one target, or the members of a stripe set of chunk
/// `stripe`): its request source, depth, pace, write tag, stripe, verify record and error
/// grace; and why its offsets cannot be drawn, if they cannot.
fn worker_plan(
    group: &[Target],
    stripe: Option<u64>,
    id: WorkerId,
    w: &RunPlan,
    shared: &Shared,
) -> (WorkerPlan<Requests>, Option<String>) {
    let WorkerId {
        target: ti,
        index: me,
        ..
    } = id;
    let stream = stream_of(id);
    let (region, layout) = region_of(group, stripe, w);
    let (offsets, offsets_error) = offsets_of(region, id, w);
    let plan = WorkerPlan {
        source: source(w, region, offsets, stream),
        // The run's schedule in final units; each worker takes an equal share of its rate.
        schedule: w.schedule().shared(shared.workers as u32),
        stagger: Stagger {
            // Worker k of n starts k/n of its gap late: together, evenly spaced arrivals.
            first_due_ns: w.schedule().offset_ns(me),
            seed: w.setup().seed ^ stream.rotate_left(17),
        },
        flushes: flushes(w, &region, &group[0]),
        // Different per run too (the clock), so a rewrite never repeats an earlier run's data.
        write_tag: Rng::new(w.setup().seed ^ now_ns(), stream ^ 0x7772_6974).next_u64(),
        stripe: layout,
        verify: shared.record.as_ref().map(|r| r.writer(ti, 0, me)),
        error_grace_ns: (w.setup().on_error != crate::plan::OnError::Continue)
            .then_some(crate::plan::ERROR_GRACE_NS),
        on_error: w.setup().on_error,
        payload: w.setup().payload.clone(),
    };
    (plan, offsets_error)
}

/// The region a worker on `group` addresses, and with a stripe set of chunk `stripe` the
/// stripe over its members (the region then the set's logical one).
fn region_of(group: &[Target], stripe: Option<u64>, w: &RunPlan) -> (Region, Option<Stripe>) {
    // A workload may address less than the opened region (profile's cache-hit cells).
    let size_of = |t: &Target| w.setup().size.map_or(t.size, |s| s.0.min(t.size));
    match stripe {
        Some(chunk) => {
            let sizes: Vec<u64> = group.iter().map(size_of).collect();
            let starts = group.iter().map(|t| t.offset).collect();
            (
                Region::new(0, Stripe::logical_size(chunk, &sizes), w.bs().min()),
                Some(Stripe::new(chunk, starts)),
            )
        }
        None => (
            Region::new(group[0].offset, size_of(&group[0]), w.bs().min()),
            None,
        ),
    }
}

/// Worker `id`'s offsets over `region`: drawn (random) or in order (sequential). Where the
/// distribution does not fit the region, uniform random ones and why.
fn offsets_of(region: Region, id: WorkerId, w: &RunPlan) -> (OffsetGen, Option<String>) {
    let a = &w.setup().access;
    // The scattering of popular blocks is the same for every worker of a target (one hot set).
    let mut scatter_rng = Rng::new(w.setup().seed, 0x5ca7 + id.target as u64);
    // Zones are checked against each target's region when it is opened; a stripe set's
    // logical region is checked here.
    let offsets = if w.rw().is_random() {
        Draw::new(&a.dist, region.blocks, region.align, &mut scatter_rng)
            .map(|d| OffsetGen::drawn(region, d, a.random_pct, a.random_run))
            .map_err(|e| format!("--dist {}: {e}", a.dist))
    } else {
        Ok(OffsetGen::sequential(
            region,
            id.thread,
            w.threads(),
            a.stride.map(|s| s.0),
        ))
    };
    match offsets {
        Ok(o) => (o, None),
        Err(e) => (OffsetGen::random(region), Some(e)),
    }
}

/// The worker's request source: the trace being replayed over `region`, or synthetic
/// requests at `offsets` from random stream `stream`.
fn source(w: &RunPlan, region: Region, offsets: OffsetGen, stream: u64) -> Requests {
    match w.replay() {
        Some(r) => Requests::Replay(Replay::new(
            r.clone(),
            region.start,
            region.blocks * region.align,
        )),
        None => Requests::Synthetic(Synthetic {
            offsets,
            rng: Rng::new(w.setup().seed, stream),
            read_pct: w.read_pct(),
            sizes: SizePicker::new(w.bs()),
        }),
    }
}

/// The worker's flushes (`--fsync`/`--fdatasync` every n writes, at the end) and, with
/// `--invalidate` on buffered I/O or `reallocate` on a file it created, the bytes of one pass
/// over `region`.
fn flushes(w: &RunPlan, region: &Region, target: &Target) -> Flushes {
    let a = &w.setup().access;
    let release = release(w, region, target);
    Flushes {
        sync_every: a.fsync.or(a.fdatasync).unwrap_or(0),
        data_only: a.fdatasync.is_some(),
        end_sync: a.end_fsync,
        pass_bytes: if (a.invalidate && w.setup().buffered) || release.is_some() {
            pass_bytes(region, a.stride.map(|s| s.0), w.bs().max())
        } else {
            0
        },
        release,
    }
}

/// With `reallocate`, how the worker gives `target`'s blocks back after each pass: only a
/// file halfpower created for this run (never one it was given), as it created it.
fn release(w: &RunPlan, region: &Region, target: &Target) -> Option<Release> {
    if !w.setup().access.reallocate || !target.created() {
        return None;
    }
    match w.setup().create {
        Create::Empty => Some(Release::Truncate { to: region.start }),
        Create::Sparse => Some(Release::Punch {
            from: region.start,
            len: region.blocks * region.align,
        }),
        // Written or reserved blocks stay: the allocation experiment's variants are the other
        // three (`commands::experiment`).
        Create::Filled | Create::Allocated => None,
    }
}

/// The bytes a worker issues in one pass over `region` (`--invalidate`): all of it, or with a
/// stride the requests of `bs` bytes that fit it, one per stride.
fn pass_bytes(region: &Region, stride: Option<u64>, bs: u64) -> u64 {
    let bytes = region.blocks * region.align;
    match stride {
        Some(s) if s > bs => bytes.div_ceil(s) * bs,
        _ => bytes,
    }
}

/// The random stream of worker `id`: its target in the high half, its thread in the low.
fn stream_of(id: WorkerId) -> u64 {
    ((id.target as u64) << 32) | id.thread as u64
}

/// One worker on `group`: one target, or every member of a stripe set (`stripe` its chunk).
pub(super) fn worker_thread(
    group: &[Target],
    stripe: Option<u64>,
    id: WorkerId,
    w: &RunPlan,
    shared: &Shared,
) -> WorkerOutput {
    // The plan was fitted to its engine: no deeper than it queues.
    let (engine, qd) = (w.setup().engine, w.schedule().slots());
    let (plan, offsets_error) = worker_plan(group, stripe, id, w, shared);
    let pinned = match id.cpu {
        Some(c) => crate::affinity::pin_current_thread(c)
            .map_err(|e| format!("pinning worker {} to CPU {c} (--affinity): {e}", id.index)),
        None => Ok(()),
    };
    let engine_result = offsets_error.map_or(pinned, Err).and_then(|()| {
        setup_engine(group, engine, w, qd, w.setup().seed ^ stream_of(id)).map_err(|e| {
            format!(
                "setting up the {} engine on {}: {e}",
                engine.name(),
                group[0].path.display()
            )
        })
    });
    let mut out = WorkerOutput {
        target: id.target,
        rec: Recorder::new(0),
        registered: None,
        fatal: None,
    };
    let mut eng = match engine_result {
        Ok(e) => Some(e),
        Err(e) => {
            let mut slot = shared.setup_error.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert(e);
            None
        }
    };
    shared.barrier.wait(); // B0: every engine set up (or failed)
    if shared.setup_failed() {
        return out;
    }
    shared.barrier.wait(); // B0b: every rank of an MPI job set up too
    let worker = Worker::new(plan);
    let me = (id.index, id.target);
    let Some(eng) = eng.as_mut() else {
        unreachable!("setup errors return above")
    };
    out.registered = eng.registered();
    let (rec, fatal) = eng.drive(Phases { worker, shared, me });
    out.rec = rec;
    out.fatal = fatal;
    out
}
#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn loads(v: &[AtomicU64]) -> Vec<u64> {
        v.iter().map(|b| b.load(Ordering::Relaxed)).collect()
    }

    #[test]
    fn a_budget_is_shared_or_split_into_whole_ios() {
        assert!(split_budget(None, Some(4)).is_empty());
        assert_eq!(loads(&split_budget(Some(10), None)), [10]);
        assert_eq!(loads(&split_budget(Some(10), Some(1))), [10]);
        // Each of 4 clones does its own share; the shares add up to the whole.
        assert_eq!(loads(&split_budget(Some(10), Some(4))), [3, 3, 2, 2]);
        assert_eq!(loads(&split_budget(Some(768), Some(2))), [384, 384]);
    }
}
